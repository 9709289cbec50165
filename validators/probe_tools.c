/* Sections whose facts come from node tools (nvidia-smi, lldpctl, dmesg) or
 * from captures of them given on the command line. Under a sysroot other
 * than "/" the tools are not run: they would describe the machine the probe
 * runs on, not the tree. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe_private.h"

/* The capture file given for a section, else DIR/name from the captures
 * directory when it is there, else NULL. Caller frees. */
static char *capture_file(const struct val_probe *p, const char *given, const char *name)
{
	struct stat st;
	char *path;

	if (given)
		return br_xstrdup(given);
	if (!p->opts->captures_dir || !p->opts->captures_dir[0])
		return NULL;
	path = br_xasprintf("%s/%s", p->opts->captures_dir, name);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return path;
	free(path);
	return NULL;
}

/* Text for a section. 0 with *ret (caller frees) and *ret_source set; or
 * non-zero with *ret_fail, the section to print instead. A command run
 * through `sudo -n` is named by its tool where it was not run. */
static int tool_text(struct val_probe *p, const char *file, const char *option, const char *const *argv,
		     size_t max, char **ret, size_t *ret_len, json_t **ret_source, json_t **ret_fail)
{
	const char *tool = strcmp(argv[0], "sudo") ? argv[0] : argv[2];
	struct br_err err = { 0 };
	int rc;

	if (file) {
		char *source = br_xasprintf("file:%s", file);

		rc = br_read_file(file, max, ret, ret_len, &err);
		if (rc) {
			val_note(p, file, err.msg);
			*ret_fail =
			    val_section_error(rc == BR_E_NOTFOUND ? "absent" : "unreadable", source, err.msg);
		} else {
			*ret_source = json_string(source);
		}
		free(source);
		return rc;
	}
	if (!p->opts->run_commands) {
		char *why =
		    br_xasprintf("%s not run under --root; give a capture with --%s FILE", tool, option);

		*ret_fail = val_section_error("skipped", tool, why);
		free(why);
		return BR_E_STATE;
	}
	rc = val_exec(argv, VAL_CMD_TIMEOUT_MS, max, ret, ret_len, &err);
	if (rc) {
		*ret_fail = val_section_error(rc == BR_E_NOTFOUND ? "absent" : "error", argv[0], err.msg);
		return rc;
	}
	*ret_source = json_string(argv[0]);
	return 0;
}

json_t *val_probe_gpus(struct val_probe *p)
{
	static const char *const argv[] = { "nvidia-smi", "-q", "-x", NULL };
	struct br_err err = { 0 };
	json_t *source = NULL, *fail = NULL, *section = NULL;
	char *xml = NULL, *file = capture_file(p, p->opts->nvidia_smi_xml, "nvidia-smi.xml");
	size_t len = 0;
	int rc = tool_text(p, file, "nvidia-smi-xml", argv, VAL_XML_MAX, &xml, &len, &source, &fail);

	free(file);
	if (rc)
		return fail;
	if (val_nvsmi_parse(xml, len, &section, &err)) {
		section = val_section_error("malformed", json_string_value(source), err.msg);
	} else {
		json_object_set_new(section, "status", json_string("ok"));
		json_object_set(section, "source", source);
	}
	json_decref(source);
	free(xml);
	return section;
}

json_t *val_probe_nvlink(struct val_probe *p)
{
	static const char *const argv[] = { "nvidia-smi", "nvlink", "-s", NULL };
	struct br_err err = { 0 };
	json_t *source = NULL, *fail = NULL, *gpus = NULL, *section;
	char *text = NULL, *file = capture_file(p, p->opts->nvidia_smi_nvlink, "nvidia-smi-nvlink.txt");
	size_t len = 0;
	int rc = tool_text(p, file, "nvidia-smi-nvlink", argv, VAL_XML_MAX, &text, &len, &source, &fail);

	free(file);
	if (rc)
		return fail;
	if (val_nvlink_parse(text, &gpus, &err))
		section = val_section_error("malformed", json_string_value(source), err.msg);
	else
		section = json_pack("{s:s, s:O, s:o}", "status", "ok", "source", source, "gpus", gpus);
	json_decref(source);
	free(text);
	return section;
}

static const char *sensor_kind(enum br_sensor_kind kind)
{
	return kind == BR_SENSOR_PSU_REDUNDANCY ? "redundancy" : "psu";
}

json_t *val_sdr_psu_section(const char *text, const char *source)
{
	struct br_hw hw;
	json_t *supplies, *section;

	br_hw_init(&hw);
	if (br_ipmi_parse_sdr_psu(text, &hw)) {
		br_hw_release(&hw);
		return val_section_error("malformed", source,
					 "no power supply or redundancy sensor in the SDR listing");
	}
	supplies = json_array();
	for (size_t i = 0; i < hw.n_sensors; i++) {
		const struct br_sensor *s = &hw.sensors[i];

		json_array_append_new(supplies, json_pack("{s:s?, s:s, s:s?, s:s?}", "name", s->name, "kind",
							  sensor_kind(s->kind), "state", s->state, "health",
							  s->health));
	}
	section = json_pack("{s:s, s:s, s:o}", "status", "ok", "source", source, "supplies", supplies);
	br_hw_release(&hw);
	return section;
}

/* The node's own BMC, read in-band (/dev/ipmi0, no network, no password):
 * `ipmitool sdr type "Power Supply"`. Where the BMC's Redfish documents a
 * supply without a Status (the DGX H100's AMI BMC does), this is the only
 * health there is. The device node is root's: a probe run by another user
 * (validate's SSH user, "ubuntu", whom MAAS's cloud-init gives sudo without
 * a password) asks sudo, never for a password (-n); a refusal is the
 * section's error. The command only reads the SDR. */
json_t *val_probe_psu_sdr(struct val_probe *p)
{
	static const char *const direct[] = { "ipmitool", "sdr", "type", "Power Supply", NULL };
	static const char *const sudo[] = { "sudo", "-n", "ipmitool", "sdr", "type", "Power Supply", NULL };
	json_t *source = NULL, *fail = NULL, *section;
	char *text = NULL, *file = capture_file(p, p->opts->ipmitool_sdr_psu, "ipmitool-sdr-psu.txt");
	size_t len = 0;
	int rc = tool_text(p, file, "ipmitool-sdr-psu", geteuid() ? sudo : direct, VAL_SDR_MAX, &text, &len,
			   &source, &fail);

	free(file);
	if (rc)
		return fail;
	section = val_sdr_psu_section(text, json_string_value(source));
	json_decref(source);
	free(text);
	return section;
}

json_t *val_probe_lldp(struct val_probe *p)
{
	static const char *const argv[] = { "lldpctl", "-f", "xml", NULL };
	struct br_err err = { 0 };
	json_t *source = NULL, *fail = NULL, *neighbors = NULL, *section;
	char *xml = NULL, *file = capture_file(p, p->opts->lldp_xml, "lldpctl.xml");
	size_t len = 0, lead;
	int rc;

	if (!file)
		file = capture_file(p, NULL, "lldpctl.json");
	rc = tool_text(p, file, "lldp-xml", argv, VAL_XML_MAX, &xml, &len, &source, &fail);
	free(file);
	if (rc)
		return fail;
	/* A capture may be lldpctl's JSON (-f json or json0) as well as XML. */
	lead = strspn(xml, " \t\r\n");
	if (lead < len && xml[lead] == '{' ? val_lldp_parse_json(xml, len, &neighbors, &err)
					   : val_lldp_parse(xml, len, &neighbors, &err))
		section = val_section_error("malformed", json_string_value(source), err.msg);
	else
		section = json_pack("{s:s, s:O, s:I, s:o}", "status", "ok", "source", source, "count",
				    (json_int_t)json_array_size(neighbors), "neighbors", neighbors);
	json_decref(source);
	free(xml);
	return section;
}

/* dmesg: a capture; else the tree's kern.log under --root; else the kernel
 * ring through `dmesg` (refused to non-root where dmesg_restrict is set,
 * as on Ubuntu), then /var/log/kern.log. */
json_t *val_probe_dmesg(struct val_probe *p)
{
	static const char *const argv[] = { "dmesg", NULL };
	json_t *source = NULL, *fail = NULL, *section;
	char *text = NULL, *file = capture_file(p, p->opts->dmesg_file, "dmesg.txt");
	size_t len = 0;

	if (!file && p->root[0]) {
		if (val_read_whole(p, "/var/log/kern.log", VAL_DMESG_MAX, &text, &len))
			return val_section_error(
			    "absent", "kern.log",
			    "no kern.log under --root; give a capture with --dmesg FILE");
		source = json_string("kern.log");
	} else if (tool_text(p, file, "dmesg", argv, VAL_DMESG_MAX, &text, &len, &source, &fail)) {
		if (file || val_read_whole(p, "/var/log/kern.log", VAL_DMESG_MAX, &text, &len)) {
			free(file);
			return fail;
		}
		json_decref(fail);
		source = json_string("/var/log/kern.log");
	}
	free(file);
	section = val_dmesg_scan(text, len);
	json_object_set_new(section, "status", json_string("ok"));
	json_object_set_new(section, "source", source);
	free(text);
	return section;
}
