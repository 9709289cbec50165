/* What a simulated host's active-check tools print ([active] in a
 * profile): `dcgmi diag -r N -j` and perftest's ib_write_bw, as scripts in
 * DIR/bin (on every session's PATH) that print what the simulator wrote
 * for that host in DIR/hosts/HOSTNAME/.captures/. The document is DCGM
 * 4's shape (NVIDIA's schema, testing/python3/dcgm_diag_schema.json in
 * the DCGM repository); dcgm_diag_fail fails one GPU's memory test with
 * DCGM's warning; dcgmi_missing leaves the tool out (the shell's "command
 * not found", exit 127); rdma_bw_low measures the loopback at 180 Gb/s. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hosts_private.h"

#define RDMA_BW_GBITS "392.46"
#define RDMA_BW_LOW_GBITS "180.12"

static json_t *results_of(const struct sim_node *n, int failing_gpu, const char *warning)
{
	json_t *list = json_array();

	for (int g = 0, id = 0; g < SIM_GPUS; g++) {
		json_t *r;

		if (!n->gpus[g].present)
			continue;
		r = json_pack("{s:s, s:i, s:i, s:s}", "entity_group", "GPU", "entity_group_id", 1,
			      "entity_id", id, "status", g == failing_gpu ? "Fail" : "Pass");
		if (g == failing_gpu)
			json_object_set_new(r, "warnings",
					    json_pack("[{s:i, s:i, s:i, s:s}]", "error_category", 3,
						      "error_id", 64, "error_severity", 4, "warning",
						      warning));
		json_array_append_new(list, r);
		id++;
	}
	return list;
}

static json_t *test_of(const struct sim_node *n, const char *name, int failing_gpu, const char *warning)
{
	return json_pack("{s:s, s:o, s:{s:s}}", "name", name, "results", results_of(n, failing_gpu, warning),
			 "test_summary", "status", failing_gpu >= 0 ? "Fail" : "Pass");
}

static void dcgm_diag(struct sim_hw *w, const struct sim_node *n)
{
	json_t *fault = json_object_get(n->details, "dcgm_diag_fail"), *entities = json_array(), *doc;
	int bad = sim_fault_has(&n->faults, SIM_F_DCGM_DIAG_FAIL)
		      ? (int)json_integer_value(json_object_get(fault, "gpu")) - 1
		      : -1;
	char *warning = NULL, *text;

	for (int g = 0, id = 0; g < SIM_GPUS; g++)
		if (n->gpus[g].present) {
			if (g == bad)
				warning = br_xasprintf("A memory mismatch was detected on GPU %d, but no "
						       "error was reported by CUDA or NVML.",
						       id);
			json_array_append_new(entities,
					      json_pack("{s:i, s:s, s:s}", "entity_id", id++, "device_id",
							"2335", "serial_num", n->gpus[g].serial));
		}
	doc = json_pack("{s:{s:[{s:s, s:[o]}, {s:s, s:[o]}, {s:s, s:[o]}]}, s:[{s:s, s:i, s:o}], "
			"s:{s:s, s:s}}",
			"DCGM Diagnostic", "test_categories", "category", "Deployment", "tests",
			test_of(n, "software", -1, NULL), "category", "Integration", "tests",
			test_of(n, "pcie", -1, NULL), "category", "Hardware", "tests",
			test_of(n, "memory", bad, warning), "entity_groups", "entity_group", "GPU",
			"entity_group_id", 1, "entities", entities, "metadata", "version", "4.2.3",
			"Driver Version Detected", "550.127.05");
	text = json_dumps(doc, JSON_INDENT(2));
	sim_hw_data(w, ".captures/dcgmi-diag.json", text, strlen(text));
	free(text);
	free(warning);
	json_decref(doc);
}

/* The client's report as perftest prints it (--report_gbits). */
static void rdma_bw(struct sim_hw *w, const struct sim_node *n)
{
	const char *bw = sim_fault_has(&n->faults, SIM_F_RDMA_BW_LOW) ? RDMA_BW_LOW_GBITS : RDMA_BW_GBITS;
	char *text = br_xasprintf(
	    "---------------------------------------------------------------------------------------\n"
	    "                    RDMA_Write BW Test\n"
	    " Dual-port       : OFF\t\tDevice         : mlx5_1\n"
	    " Number of qps   : 1\t\tTransport type : IB\n"
	    " Connection type : RC\t\tUsing SRQ      : OFF\n"
	    " PCIe relax order: ON\n"
	    " ibv_wr* API     : ON\n"
	    " TX depth        : 128\n"
	    " CQ Moderation   : 1\n"
	    " Mtu             : 4096[B]\n"
	    " Link type       : Ethernet\n"
	    " GID index       : 3\n"
	    " Max inline data : 0[B]\n"
	    " rdma_cm QPs\t : OFF\n"
	    " Data ex. method : Ethernet\n"
	    "---------------------------------------------------------------------------------------\n"
	    " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
	    " 65536      3742810          0.00               %s  \t\t   0.748559\n"
	    "---------------------------------------------------------------------------------------\n",
	    bw);

	sim_hw_data(w, ".captures/ib_write_bw.txt", text, strlen(text));
	free(text);
}

void sim_host_active_captures(struct sim_hw *w, const struct sim_node *n)
{
	if (!sim_fault_has(&n->faults, SIM_F_DCGMI_MISSING))
		dcgm_diag(w, n);
	rdma_bw(w, n);
}

static const char dcgmi_script[] =
    "#!/bin/sh\n"
    "# dcgmi on a simulated host (bringup sim, sim/hosts_active.c): `dcgmi diag -r N -j`\n"
    "# prints the document the simulator wrote for this host.\n"
    "f=$HOME/.captures/dcgmi-diag.json\n"
    "if [ ! -f \"$f\" ]; then\n"
    "\techo \"bash: line 1: dcgmi: command not found\" >&2\n"
    "\texit 127\n"
    "fi\n"
    "if [ \"$1\" != diag ] || [ \"$2\" != -r ] || [ \"$4\" != -j ]; then\n"
    "\techo \"dcgmi (simulated): only diag -r N -j\" >&2\n"
    "\texit 2\n"
    "fi\n"
    "cat \"$f\"\n"
    "grep -q '\"status\": \"Fail\"' \"$f\" && exit 1\n"
    "exit 0\n";

static const char ib_write_bw_script[] =
    "#!/bin/sh\n"
    "# ib_write_bw on a simulated host (bringup sim, sim/hosts_active.c): the server\n"
    "# (no peer named) waits for nothing; the client prints the report the\n"
    "# simulator wrote for this host.\n"
    "for last; do :; done\n"
    "case $last in\n"
    "-*|[0-9]) exit 0 ;;\n"
    "esac\n"
    "exec cat \"$HOME/.captures/ib_write_bw.txt\"\n";

static int write_tool(const char *bin, const char *name, const char *text, struct br_err *err)
{
	char *path = br_xasprintf("%s/%s", bin, name);
	int rc = br_write_file(path, text, strlen(text), err);

	if (!rc && chmod(path, 0755))
		rc = br_errf(err, BR_E_IO, "%s: %s", path, strerror(errno));
	free(path);
	return rc;
}

int sim_active_write_tools(const char *dir, struct br_err *err)
{
	char *bin = br_xasprintf("%s/bin", dir);
	int rc = 0;

	if (mkdir(bin, 0755) && errno != EEXIST)
		rc = br_errf(err, BR_E_IO, "%s: %s", bin, strerror(errno));
	if (!rc)
		rc = write_tool(bin, "dcgmi", dcgmi_script, err);
	if (!rc)
		rc = write_tool(bin, "ib_write_bw", ib_write_bw_script, err);
	free(bin);
	return rc;
}
