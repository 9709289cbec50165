/* gpu_health: what each GPU's driver says of its own health in `nvidia-smi
 * -q -x` (the probe's "gpus" section): ECC on now and after the next reboot,
 * no uncorrectable ECC errors, no failed or pending row remap, no page
 * retirement pending, no hardware or thermal clock slowdown, and a power
 * limit no lower than the profile's [gpu] power_limit_w, and, where [gpu]
 * firmware names a firmware policy component, each GPU's VBIOS at that
 * rule's minimum and one of the versions the BMC's inventory shows for it.
 * A value the driver prints as "N/A" (or does not print) is not judged. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules_node_private.h"

/* What a GPU did not report, counted over the GPUs. */
enum gpu_item { I_ECC_MODE, I_ECC_ERRORS, I_REMAP, I_RETIRED, I_CLOCKS, I_POWER, I_N };

static const char *const item_names[I_N] = {
	"ECC mode",
	"uncorrectable ECC counters",
	"row remapping",
	"pending page retirement",
	"clock event reasons",
	"power limit",
};

/* What a healthy GPU's item says, where at least one GPU reported it. */
static const char *const item_healthy[I_N] = {
	"ECC enabled now and pending", "no uncorrectable ECC errors",	  "no row remap failed or pending",
	"no page retirement pending",  "no HW or thermal clock slowdown", "power limit",
};

/* The clock event reasons that are a fault (nvidia-smi names them
 * clocks_event_reason_* from R535, clocks_throttle_reason_* before); idle,
 * application clocks, SW power cap and sync boost are not. */
static const struct {
	const char *suffix, *what, *fix;
} slowdowns[] = {
	{ "_hw_slowdown", "HW slowdown", "check its cooling and power" },
	{ "_hw_thermal_slowdown", "HW thermal slowdown", "check its cooling" },
	{ "_hw_power_brake_slowdown", "HW power brake slowdown", "check the node's power supplies" },
	{ "_sw_thermal_slowdown", "SW thermal slowdown", "check its cooling" },
};

static int yes(const char *s)
{
	return s && !strcmp(s, "Yes");
}

static int ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

/* "dram_uncorrectable" → "DRAM", "sram_uncorrectable_parity" → "SRAM parity". */
static char *counter_name(const char *key)
{
	const char *u = strstr(key, "_uncorrectable");
	const char *rest = u + strlen("_uncorrectable");
	char *mem = br_xstrndup(key, (size_t)(u - key)), *out;

	for (char *m = mem; *m; m++)
		if (*m >= 'a' && *m <= 'z')
			*m = (char)(*m - 'a' + 'A');
	out = br_xasprintf("%s%s%s", mem, *rest == '_' ? " " : "", *rest == '_' ? rest + 1 : "");
	free(mem);
	return out;
}

static int ecc_errors(struct val_evidence *e, const char *who, const char *bdf, json_t *errs)
{
	static const char *const scopes[] = { "volatile", "aggregate" };
	int seen = 0;

	for (size_t s = 0; s < 2; s++) {
		json_t *group = json_object_get(errs, scopes[s]), *v;
		const char *key;

		json_object_foreach(group, key, v)
		{
			char *name;

			if (!strstr(key, "_uncorrectable") || !json_is_integer(v))
				continue;
			seen = 1;
			if (json_integer_value(v) <= 0)
				continue;
			name = counter_name(key);
			val_ev_add(e, VAL_FAIL, "%s: %lld uncorrectable %s ECC errors (%s): replace the GPU",
				   who, (long long)json_integer_value(v), name, scopes[s]);
			val_blame_pci(e, bdf);
			free(name);
		}
	}
	/* Drivers before R450 group the counters: <double_bit> holds the
	 * uncorrectable ones per memory (device_memory, register_file, the
	 * caches) and their total. */
	for (size_t s = 0; s < 2; s++) {
		json_t *dbe = json_object_get(json_object_get(errs, scopes[s]), "double_bit"), *v;
		const char *key;
		int parts = 0;

		json_object_foreach(dbe, key, v)
		{
			if (!json_is_integer(v))
				continue;
			seen = 1;
			if (json_integer_value(v) <= 0 || !strcmp(key, "total"))
				continue;
			parts++;
			val_ev_add(
			    e, VAL_FAIL,
			    "%s: %lld double-bit (uncorrectable) ECC errors in %s (%s): replace the GPU", who,
			    (long long)json_integer_value(v), key, scopes[s]);
			val_blame_pci(e, bdf);
		}
		if (!parts && br_json_int(dbe, "total", 0) > 0) {
			val_ev_add(e, VAL_FAIL,
				   "%s: %lld double-bit (uncorrectable) ECC errors (%s): replace the GPU",
				   who, (long long)br_json_int(dbe, "total", 0), scopes[s]);
			val_blame_pci(e, bdf);
		}
	}
	/* Since driver 535 the aggregate counters say when the SRAM's
	 * uncorrectable errors passed NVIDIA's threshold for replacing the
	 * board (nvidia-smi -q: "SRAM Threshold Exceeded"). */
	if (yes(br_json_str(json_object_get(errs, "aggregate"), "sram_threshold_exceeded"))) {
		val_ev_add(
		    e, VAL_FAIL,
		    "%s: SRAM ECC errors past the threshold (sram_threshold_exceeded Yes): replace the GPU",
		    who);
		val_blame_pci(e, bdf);
	}
	return seen;
}

static int ecc_mode(struct val_evidence *e, const char *who, const char *bdf, json_t *mode)
{
	const char *cur = br_json_str(mode, "current"), *pend = br_json_str(mode, "pending");

	if (cur && strcmp(cur, "Enabled")) {
		val_ev_add(e, VAL_FAIL, "%s: ECC %s: enable it (nvidia-smi -i %s -e 1) and reboot", who, cur,
			   bdf);
		val_blame_pci(e, bdf);
	}
	if (pend && strcmp(pend, "Enabled")) {
		val_ev_add(e, VAL_FAIL,
			   "%s: ECC pending %s (off from the next reboot): enable it (nvidia-smi -i %s -e 1)",
			   who, pend, bdf);
		val_blame_pci(e, bdf);
	}
	return cur && pend;
}

static int remap(struct val_evidence *e, const char *who, const char *bdf, json_t *rows)
{
	const char *failure = br_json_str(rows, "remapped_row_failure"),
		   *pending = br_json_str(rows, "remapped_row_pending");

	if (yes(failure)) {
		val_ev_add(e, VAL_FAIL,
			   "%s: row remapping failed (remapped_row_failure Yes): replace the GPU", who);
		val_blame_pci(e, bdf);
	}
	if (yes(pending)) {
		val_ev_add(
		    e, VAL_FAIL,
		    "%s: a row remap is pending (remapped_row_pending Yes): reset the GPU or reboot the node",
		    who);
		val_blame_pci(e, bdf);
	}
	return failure && pending;
}

static int clocks(struct val_evidence *e, const char *who, const char *bdf, json_t *reasons)
{
	const char *key;
	json_t *v;
	int seen = 0;

	json_object_foreach(reasons, key, v)
	{
		for (size_t i = 0; i < sizeof(slowdowns) / sizeof(slowdowns[0]); i++) {
			const char *s = json_string_value(v);

			if (!ends_with(key, slowdowns[i].suffix) || !s)
				continue;
			seen = 1;
			if (!strcmp(s, "Active")) {
				val_ev_add(e, VAL_FAIL, "%s: %s active (%s): %s", who, slowdowns[i].what, key,
					   slowdowns[i].fix);
				val_blame_pci(e, bdf);
			}
		}
	}
	return seen;
}

/* [gpu] firmware: the policy's rule and what the BMC's inventory shows for
 * its components (the HGX baseboard's GPUs, GPU.SXM.N on an XE9680's
 * iDRAC), and how many GPUs passed. */
struct gpu_fw {
	const struct prof_fw_rule *rule; /* NULL: not judged */
	struct br_strlist bmc;
	size_t bmc_shown; /* versions the BMC showed, kept for the summary */
	size_t ok;
};

/* The VBIOS the GPU runs (nvidia-smi's vbios_version, read from the GPU
 * itself) against the policy's minimum and the BMC's inventory: the BMC
 * reads the baseboard's flash, so the two differ when an update was
 * flashed and the GPU not reset since (real formats agree: nvidia-smi's
 * 96.00.A5.00.1A on a real H200, tests/fixtures/hw/h200-vm; a Supermicro HGX
 * BMC's FirmwareVersion 96.00.61.00.01 for GPU1,
 * tests/fixtures/redfish/supermicro/libredfish/pcie_gpu1.json). */
static void gpu_firmware(struct val_evidence *e, struct gpu_fw *fw, const char *who, const char *bdf,
			 json_t *g)
{
	const char *vbios = br_json_str(g, "vbios_version");

	if (!vbios || !*vbios || !strcmp(vbios, "N/A"))
		val_ev_add(e, VAL_UNKNOWN, "%s: vbios_version not readable: its VBIOS not judged", who);
	else if (val_fw_device(e, fw->rule, &fw->bmc, who, bdf, "VBIOS", "GPU", vbios))
		fw->ok++;
}

static void one_gpu(struct val_node_ctx *c, struct val_evidence *e, size_t idx, json_t *g, size_t *unreported,
		    struct gpu_fw *fw)
{
	const char *serial = br_json_str(g, "serial"), *bdf = br_json_str(g, "bdf");
	const char *pending = br_json_str(json_object_get(g, "retired_pages"), "pending");
	double limit = br_json_num(g, "power_limit_w", NAN);
	int want = c->p->hw.gpu_power_limit_w;
	char *who = br_xasprintf("GPU %zu (serial %s) at %s", idx, serial ? serial : "unknown",
				 bdf ? bdf : "an unknown PCI address");

	if (!ecc_mode(e, who, bdf, json_object_get(g, "ecc_mode")))
		unreported[I_ECC_MODE]++;
	if (!ecc_errors(e, who, bdf, json_object_get(g, "ecc_errors")))
		unreported[I_ECC_ERRORS]++;
	if (!remap(e, who, bdf, json_object_get(g, "remapped_rows")))
		unreported[I_REMAP]++;
	/* "N/A" on Hopper, which remaps rows instead of retiring pages. */
	if (!pending)
		unreported[I_RETIRED]++;
	else if (yes(pending)) {
		val_ev_add(e, VAL_FAIL, "%s: a page retirement is pending: reboot the node", who);
		val_blame_pci(e, bdf);
	}
	if (!clocks(e, who, bdf, json_object_get(g, "clocks_event_reasons")))
		unreported[I_CLOCKS]++;
	if (want >= 0) {
		if (isnan(limit))
			unreported[I_POWER]++;
		else if (limit < want) {
			val_ev_add(e, VAL_FAIL,
				   "%s: power limit %g W, expected %d W: set it (nvidia-smi -i %s -pl %d)",
				   who, limit, want, bdf, want);
			val_blame_pci(e, bdf);
		}
	}
	if (fw->rule)
		gpu_firmware(e, fw, who, bdf, g);
	free(who);
}

void val_rule_gpu_health(struct val_node_ctx *c)
{
	char *why = NULL;
	json_t *section = val_probe_section(c, "gpus", &why), *gpus, *g;
	size_t i, unreported[I_N] = { 0 };
	struct val_evidence e;
	struct br_buf nr;
	struct gpu_fw fw = { 0 };

	if (c->p->hw.gpus == 0) { /* a node without GPUs: nothing to judge */
		free(why);
		return;
	}
	if (!section) {
		val_node_check(c, "gpu_health", VAL_UNKNOWN, "%s", why);
		free(why);
		return;
	}
	gpus = json_object_get(section, "gpus");
	if (!json_array_size(gpus)) {
		val_node_check(c, "gpu_health", VAL_UNKNOWN, "nvidia-smi lists no GPUs: nothing to judge");
		return;
	}
	val_ev_init(&e);
	if (c->p->hw.gpu_firmware) {
		fw.rule = prof_fw_rule(c->p, c->p->hw.gpu_firmware);
		if (fw.rule) {
			val_fw_bmc_versions(c->f->bmc, fw.rule->component, &fw.bmc);
			fw.bmc_shown = fw.bmc.n;
		} else
			val_ev_add(&e, VAL_UNKNOWN, "GPU VBIOS not judged: firmware.conf has no rule %s",
				   c->p->hw.gpu_firmware);
	}
	json_array_foreach(gpus, i, g) one_gpu(c, &e, i + 1, g, unreported, &fw);
	br_strlist_release(&fw.bmc);
	br_buf_init(&nr, 0);
	for (size_t k = 0; k < I_N; k++)
		if (unreported[k])
			br_buf_addf(&nr, "%s%s (%zu GPU%s)", nr.len ? ", " : "", item_names[k], unreported[k],
				    unreported[k] == 1 ? "" : "s");
	if (e.result == VAL_PASS) {
		struct br_buf ok;

		br_buf_init(&ok, 0);
		for (size_t k = 0; k < I_N; k++) {
			if (unreported[k] >= json_array_size(gpus) ||
			    (k == I_POWER && c->p->hw.gpu_power_limit_w < 0))
				continue;
			br_buf_adds(&ok, ok.len ? ", " : "");
			if (k == I_POWER)
				br_buf_addf(&ok, "power limit at least %d W", c->p->hw.gpu_power_limit_w);
			else
				br_buf_adds(&ok, item_healthy[k]);
		}
		if (fw.ok)
			br_buf_addf(&ok, "%sVBIOS at or above the policy's minimum for %s%s",
				    ok.len ? ", " : "", fw.rule->component,
				    fw.bmc_shown ? " and as the BMC's inventory shows" : "");
		val_ev_add(&e, VAL_PASS, "%zu GPU%s healthy: %s", json_array_size(gpus),
			   json_array_size(gpus) == 1 ? "" : "s",
			   ok.len ? br_buf_str(&ok) : "nothing reported");
		br_buf_release(&ok);
	}
	if (nr.len)
		val_ev_add(&e, VAL_PASS, "not reported (not judged): %s", br_buf_str(&nr));
	br_buf_release(&nr);
	val_ev_emit(c, "gpu_health", &e);
}
