/* bringup-probe: runs on a node, only observes, prints the node's facts as
 * one JSON document (see validators/validators.h). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "validators/validators.h"

enum { PROBE_EXIT_OK = 0, PROBE_EXIT_USAGE = 2 };

/* Past --time-limit: the probe and every tool it started end at once, as
 * timeout(1) ends its command's process group. */
static void on_time_limit(int sig)
{
	(void)sig;
	kill(0, SIGKILL);
	_exit(128 + SIGKILL);
}

/* A group of its own, as timeout(1) makes (a session leader, as a command
 * sshd started is, has one already), so the end takes nothing else. */
static void start_time_limit(int seconds)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_time_limit;
	if (getpgrp() != getpid())
		setpgid(0, 0);
	sigaction(SIGALRM, &sa, NULL);
	alarm((unsigned)seconds);
}

int main(int argc, char **argv)
{
	const char *root = NULL, *pci_dump = NULL, *nvsmi = NULL, *nvlink = NULL, *lldp = NULL, *dmesg = NULL,
		   *captures = NULL, *sdr_psu = NULL;
	int json = 0, compact = 0, verbose = 0, quiet = 0, time_limit = 0;
	const struct br_option options[] = {
		{ "root", 0, BR_OPT_STRING, &root, "DIR",
		  "read sysfs and procfs under DIR instead of / (tools are then not run); default "
		  "$BRINGUP_PROBE_ROOT" },
		{ "pci-dump", 0, BR_OPT_STRING, &pci_dump, "FILE",
		  "read PCI config space from an `lspci -xxxx` capture instead of sysfs" },
		{ "nvidia-smi-xml", 0, BR_OPT_STRING, &nvsmi, "FILE", "an `nvidia-smi -q -x` capture" },
		{ "nvidia-smi-nvlink", 0, BR_OPT_STRING, &nvlink, "FILE",
		  "an `nvidia-smi nvlink -s` capture" },
		{ "lldp-xml", 0, BR_OPT_STRING, &lldp, "FILE",
		  "an `lldpctl -f xml` capture (or -f json, -f json0)" },
		{ "dmesg", 0, BR_OPT_STRING, &dmesg, "FILE", "a `dmesg` capture or kern.log" },
		{ "ipmitool-sdr-psu", 0, BR_OPT_STRING, &sdr_psu, "FILE",
		  "an `ipmitool sdr type \"Power Supply\"` capture (the node's own BMC, read in-band)" },
		{ "captures", 0, BR_OPT_STRING, &captures, "DIR",
		  "captures of a node's tools: DIR/nvidia-smi.xml, nvidia-smi-nvlink.txt, lldpctl.xml (or "
		  ".json), dmesg.txt, ipmitool-sdr-psu.txt, each used when present; default "
		  "$BRINGUP_PROBE_CAPTURES" },
		{ "json", 0, BR_OPT_FLAG, &json, NULL,
		  "print JSON (the only format; accepted for symmetry)" },
		{ "compact", 0, BR_OPT_FLAG, &compact, NULL,
		  "print the document on one line (bringup validate asks for it: less to send and "
		  "nothing to reformat before storing)" },
		{ "time-limit", 0, BR_OPT_INT, &time_limit, "SECONDS",
		  "end, with every tool started, after SECONDS (bringup validate asks for it, so a "
		  "probe whose validator went away does not run on; 0: no limit)" },
		{ "verbose", 'v', BR_OPT_FLAG, &verbose, NULL, "more log detail" },
		{ "quiet", 'q', BR_OPT_FLAG, &quiet, NULL, "only errors on stderr" },
		{ 0 },
	};
	const struct br_command cmd = {
		"bringup-probe",
		"[options]",
		"Observe this node and print its facts as one JSON document: PCIe links (libpci), GPUs\n"
		"(nvidia-smi, its NVLinks), NVMe and the root device, cpufreq, hwmon and thermal zones, LLDP "
		"neighbours\n"
		"(lldpctl), InfiniBand ports, clock, dmesg signatures and the power supplies in the node's\n"
		"own BMC's SDR (ipmitool, in-band). Nothing is changed. What cannot\n"
		"be read is listed under \"unreadable\" with its path. Exit 0, or 2 on bad usage.\n"
		"To judge a node captured whole, offline: --root TREE --captures DIR (or the environment\n"
		"variables BRINGUP_PROBE_ROOT and BRINGUP_PROBE_CAPTURES; options win).",
		options,
		NULL,
	};
	struct val_probe_opts opts = { 0 };
	struct br_err err = { 0 };
	json_t *doc = NULL;
	int argi, rc;

	br_log_init(argv[0], BR_LOG_WARN);
	rc = br_opt_parse(&cmd, argc, argv, &argi);
	if (rc)
		return rc == BR_OPT_EXIT_OK ? PROBE_EXIT_OK : PROBE_EXIT_USAGE;
	if (argi != argc) {
		fprintf(stderr, "bringup-probe: unexpected argument '%s' (see --help)\n", argv[argi]);
		return PROBE_EXIT_USAGE;
	}
	if (time_limit < 0) {
		fprintf(stderr, "bringup-probe: --time-limit %d: must not be negative\n", time_limit);
		return PROBE_EXIT_USAGE;
	}
	if (time_limit)
		start_time_limit(time_limit);
	/* The environment gives defaults, so a session that cannot pass options
	 * (a forced command, a simulated host) can still point the probe. */
	if (!root && getenv("BRINGUP_PROBE_ROOT") && getenv("BRINGUP_PROBE_ROOT")[0])
		root = getenv("BRINGUP_PROBE_ROOT");
	if (!captures && getenv("BRINGUP_PROBE_CAPTURES") && getenv("BRINGUP_PROBE_CAPTURES")[0])
		captures = getenv("BRINGUP_PROBE_CAPTURES");
	opts.root = root;
	opts.captures_dir = captures;
	opts.pci_dump = pci_dump;
	opts.nvidia_smi_xml = nvsmi;
	opts.nvidia_smi_nvlink = nvlink;
	opts.lldp_xml = lldp;
	opts.dmesg_file = dmesg;
	opts.ipmitool_sdr_psu = sdr_psu;
	opts.run_commands = !root || !root[0] || strcmp(root, "/") == 0;
	if (val_probe_run(&opts, &doc, &err)) {
		fprintf(stderr, "bringup-probe: %s\n", err.msg);
		return PROBE_EXIT_USAGE;
	}
	if (compact) {
		/* as br_json_print, on one line; built in memory and written
		 * whole: json_dumpf hands stdio each token on its own (7,000
		 * fwrite calls, 13% of the probe's instructions) */
		char *text;

		br_redact_json(doc);
		text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
		if (text) {
			fputs(text, stdout);
			fputc('\n', stdout);
			free(text);
		}
	} else {
		br_json_print(stdout, doc);
	}
	json_decref(doc);
	return PROBE_EXIT_OK;
}
