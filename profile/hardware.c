/*
 * hardware.conf: what a healthy node of the profile has, for the
 * validators. Every value is checked here, so a rule never meets a count of
 * "eight" or a link of x17.
 */
#include <fnmatch.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "prof_private.h"

const char prof_hw_sections[] = "[system] [gpu] [nic] [ib] [nvme] [fans] [psu] [cpu] [clock] [time_limits] "
				"[gate] [reprovision] [lifecycle] [active]";

int prof_hw_section_known(const char *section, size_t len)
{
	static const char *const names[] = { "system", "gpu",	      "nic",	   "ib",    "nvme",
					     "fans",   "psu",	      "cpu",	   "clock", "time_limits",
					     "gate",   "reprovision", "lifecycle", "active" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (len == strlen(names[i]) && !memcmp(section, names[i], len))
			return 1;
	return 0;
}

static int parse_int(const char *s, long min, long max, long *ret)
{
	char *end;
	long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*ret = v;
	return 0;
}

int prof_parse_duration_ms(const char *text, int64_t *ret_ms)
{
	static const struct {
		const char *suffix;
		int64_t ms;
	} units[] = { { "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "m", 60000 }, { "h", 3600000 } };
	char *end;
	long v;

	if (!text || !*text || *text < '0' || *text > '9')
		return BR_E_INVAL;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || v < 0)
		return BR_E_INVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (v > PROF_DURATION_MAX_S * 1000LL / units[i].ms)
			return BR_E_INVAL;
		*ret_ms = (int64_t)v * units[i].ms;
		return 0;
	}
	return BR_E_INVAL;
}

/* Each setting: where it goes and what it may hold. */
enum kind {
	K_COUNT,
	K_WIDTH,
	K_SPEED,
	K_MHZ,
	K_WATTS,
	K_GOVERNORS,
	K_DURATION,
	K_TEXT,
	K_CHECKS,
	K_ERASE,
	K_ATTEMPTS,
	K_GBPS,
	K_GBS,
	K_YESNO,
	K_ERRORS,
	K_LINK_LAYER,
	K_DIAG_LEVEL,
	K_FW_COMPONENT
};

struct setting {
	const char *section, *name;
	enum kind kind;
	size_t offset; /* into struct prof_hardware */
};

#define AT(field) offsetof(struct prof_hardware, field)
static const struct setting settings[] = {
	{ "system", "model", K_TEXT, AT(model) },
	{ "gpu", "count", K_COUNT, AT(gpus) },
	{ "gpu", "link_width", K_WIDTH, AT(gpu_link.width) },
	{ "gpu", "link_speed", K_SPEED, AT(gpu_link.speed) },
	{ "gpu", "power_limit_w", K_WATTS, AT(gpu_power_limit_w) },
	{ "gpu", "nvlinks", K_COUNT, AT(gpu_nvlinks) },
	{ "gpu", "nvlink_gbs", K_GBS, AT(gpu_nvlink_gbs) },
	{ "gpu", "gpudirect_rdma", K_YESNO, AT(gpu_gpudirect_rdma) },
	{ "gpu", "gpudirect_switch", K_YESNO, AT(gpu_gpudirect_switch) },
	{ "gpu", "nvlink_fabric", K_YESNO, AT(gpu_nvlink_fabric) },
	{ "gpu", "firmware", K_FW_COMPONENT, AT(gpu_firmware) },
	{ "nic", "fabric", K_COUNT, AT(fabric_nics) },
	{ "nic", "fabric_link_width", K_WIDTH, AT(fabric_link.width) },
	{ "nic", "fabric_link_speed", K_SPEED, AT(fabric_link.speed) },
	{ "nic", "ethernet", K_COUNT, AT(ethernet_nics) },
	{ "ib", "ports", K_COUNT, AT(ib_ports) },
	{ "ib", "rate_gbps", K_GBPS, AT(ib_rate_gbps) },
	{ "ib", "link_layer", K_LINK_LAYER, AT(ib_link_layer) },
	{ "ib", "link_downed_max", K_ERRORS, AT(ib_link_downed_max) },
	{ "ib", "link_error_recovery_max", K_ERRORS, AT(ib_link_error_recovery_max) },
	{ "ib", "symbol_error_max", K_ERRORS, AT(ib_symbol_error_max) },
	{ "ib", "link_down_time_max", K_ERRORS, AT(ib_link_down_time_max) },
	{ "ib", "firmware", K_FW_COMPONENT, AT(ib_firmware) },
	{ "nvme", "count", K_COUNT, AT(nvme) },
	{ "fans", "count", K_COUNT, AT(fans) },
	{ "psu", "count", K_COUNT, AT(psus) },
	{ "cpu", "rated_mhz", K_MHZ, AT(cpu_rated_mhz) },
	{ "cpu", "governors", K_GOVERNORS, AT(governors) },
	{ "clock", "max_skew", K_DURATION, AT(clock_skew_max_ms) },
	{ "clock", "rtc_max_skew", K_DURATION, AT(rtc_skew_max_ms) },
	{ "time_limits", "discover", K_DURATION, AT(limits.discover_s) },
	{ "time_limits", "configure", K_DURATION, AT(limits.configure_s) },
	{ "time_limits", "enlist", K_DURATION, AT(limits.enlist_s) },
	{ "time_limits", "commissioning", K_DURATION, AT(limits.commissioning_s) },
	{ "time_limits", "deployment", K_DURATION, AT(limits.deployment_s) },
	{ "time_limits", "validation", K_DURATION, AT(limits.validation_s) },
	{ "time_limits", "validate", K_DURATION, AT(limits.validation_s) },
	{ "gate", "required", K_CHECKS, AT(gate_required) },
	{ "gate", "optional", K_CHECKS, AT(gate_optional) },
	{ "reprovision", "erase", K_ERASE, AT(erase) },
	{ "lifecycle", "max_attempts", K_ATTEMPTS, AT(max_attempts) },
	{ "active", "dcgm_diag", K_DIAG_LEVEL, AT(dcgm_diag_level) },
	{ "active", "dcgm_diag_time_limit", K_DURATION, AT(dcgm_diag_limit_s) },
	{ "active", "rdma_bw_gbps", K_GBPS, AT(rdma_bw_gbps) },
	{ "active", "rdma_bw_time_limit", K_DURATION, AT(rdma_bw_limit_s) },
};
#undef AT
#define AT_VALIDATION offsetof(struct prof_hardware, limits.validation_s)

static void names_of(const char *section, struct br_buf *out)
{
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (!strcmp(settings[i].section, section))
			br_buf_addf(out, "%s%s", out->len ? ", " : "", settings[i].name);
}

/* "performance, schedutil" or "performance schedutil". */
static int add_governors(struct prof_parse *ps, const char *field, const char *value, struct br_strlist *out)
{
	while (*value) {
		size_t n = strcspn(value, ", ");

		if (n) {
			char *g = br_xstrndup(value, n);
			int ok = prof_valid_chars(g, "_");

			if (ok && out->n < PROF_GOVERNORS_MAX)
				br_strlist_add(out, g);
			free(g);
			if (!ok)
				return prof_problem(ps, field, "'%.*s' is not a cpufreq governor name",
						    (int)n, value);
			if (out->n >= PROF_GOVERNORS_MAX && value[n + strspn(value + n, ", ")])
				return prof_problem(ps, field, "more than %d governors", PROF_GOVERNORS_MAX);
		}
		value += n;
		value += strspn(value, ", ");
	}
	return out->n ? 1 : prof_problem(ps, field, "empty list");
}

/* "cabling, pcie, firmware:*": check names or shell patterns of them. */
static int add_checks(struct prof_parse *ps, const char *field, const char *value, struct br_strlist *out)
{
	while (*value) {
		size_t n = strcspn(value, ", ");

		if (n) {
			char *name = br_xstrndup(value, n);
			int ok = prof_valid_chars(name, "_-:.*?[]");

			if (ok && out->n < PROF_GATE_CHECKS_MAX)
				br_strlist_add(out, name);
			free(name);
			if (!ok)
				return prof_problem(ps, field, "'%.*s' is not a check name or pattern",
						    (int)n, value);
			if (out->n >= PROF_GATE_CHECKS_MAX && value[n + strspn(value + n, ", ")])
				return prof_problem(ps, field, "more than %d checks", PROF_GATE_CHECKS_MAX);
		}
		value += n;
		value += strspn(value, ", ");
	}
	return out->n ? 1 : prof_problem(ps, field, "empty list");
}

static int set_value(struct prof_parse *ps, const struct setting *s, const char *field, const char *value)
{
	char *at = (char *)&ps->p->hw + s->offset;
	int64_t ms;
	long v;

	switch (s->kind) {
	case K_COUNT:
		if (parse_int(value, 0, PROF_COUNT_MAX, &v))
			return prof_problem(ps, field, "'%s' is not a count of 0-%d", value, PROF_COUNT_MAX);
		*(int *)(void *)at = (int)v;
		return 1;
	case K_WIDTH:
		if (parse_int(value, 1, PROF_LINK_WIDTH_MAX, &v) || (v & (v - 1)))
			return prof_problem(
			    ps, field, "'%s' is not a PCIe link width (1, 2, 4, 8, 16 or 32 lanes)", value);
		*(int *)(void *)at = (int)v;
		return 1;
	case K_SPEED:
		if (strncmp(value, "Gen", 3) || parse_int(value + 3, 1, 6, &v))
			return prof_problem(ps, field, "'%s' is not a PCIe generation (Gen1 to Gen6)", value);
		*(char **)(void *)at = br_xstrdup(value);
		return 1;
	case K_MHZ:
		if (parse_int(value, 1, 100000, &v))
			return prof_problem(ps, field, "'%s' is not a frequency in MHz", value);
		*(int *)(void *)at = (int)v;
		return 1;
	case K_WATTS:
		if (parse_int(value, 1, 100000, &v))
			return prof_problem(ps, field, "'%s' is not a power in whole watts (1-100000)",
					    value);
		*(int *)(void *)at = (int)v;
		return 1;
	case K_GOVERNORS:
		return add_governors(ps, field, value, (struct br_strlist *)(void *)at);
	case K_CHECKS:
		return add_checks(ps, field, value, (struct br_strlist *)(void *)at);
	case K_DURATION:
		if (prof_parse_duration_ms(value, &ms))
			return prof_problem(
			    ps, field, "'%s' is not a duration (such as 500ms, 30s, 10m, 2h; at most 7 days)",
			    value);
		/* A stage limit of 0 would fail every node at once: surely a typo. */
		if (!ms && (!strcmp(s->section, "time_limits") || !strcmp(s->section, "active")))
			return prof_problem(ps, field, "a time limit of 0: give one of at least 1s");
		/* clock skew is kept in ms, stage limits in s */
		*(int64_t *)(void *)at = strcmp(s->section, "clock") ? (ms + 999) / 1000 : ms;
		return 1;
	case K_ERASE: {
		static const char *const names[] = { "no", "yes", "quick", "secure" };

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(value, names[i])) {
				*(enum prof_erase *)(void *)at = (enum prof_erase)i;
				return 1;
			}
		return prof_problem(ps, field, "'%s' is not no, yes, quick or secure", value);
	}
	case K_ATTEMPTS:
		/* 0 would retire a node before its first try. */
		if (parse_int(value, 1, PROF_ATTEMPTS_MAX, &v))
			return prof_problem(ps, field, "'%s' is not a number of attempts of 1-%d", value,
					    PROF_ATTEMPTS_MAX);
		*(int *)(void *)at = (int)v;
		return 1;
	case K_GBPS:
		if (parse_int(value, 1, PROF_IB_RATE_MAX, &v))
			return prof_problem(ps, field, "'%s' is not a port rate in whole Gb/s (1-%d)", value,
					    PROF_IB_RATE_MAX);
		*(int *)(void *)at = (int)v;
		return 1;
	case K_YESNO:
		if (strcmp(value, "yes") && strcmp(value, "no"))
			return prof_problem(ps, field, "'%s' is not yes or no", value);
		*(int *)(void *)at = !strcmp(value, "yes");
		return 1;
	case K_GBS:
		if (parse_int(value, 1, 1000, &v))
			return prof_problem(ps, field, "'%s' is not a link speed in whole GB/s (1-1000)",
					    value);
		*(int *)(void *)at = (int)v;
		return 1;
	case K_ERRORS: {
		char *end;
		long long n;

		errno = 0;
		n = *value >= '0' && *value <= '9' ? strtoll(value, &end, 10) : -1;
		if (n < 0 || errno || *end || n > PROF_IB_ERRORS_MAX)
			return prof_problem(ps, field, "'%s' is not a count of errors (0-%lld)", value,
					    PROF_IB_ERRORS_MAX);
		*(int64_t *)(void *)at = n;
		return 1;
	}
	case K_LINK_LAYER:
		/* as ports/N/link_layer says it */
		if (strcmp(value, "InfiniBand") && strcmp(value, "Ethernet"))
			return prof_problem(ps, field, "'%s' is not InfiniBand or Ethernet (RoCE)", value);
		*(char **)(void *)at = br_xstrdup(value);
		return 1;
	case K_DIAG_LEVEL:
		/* dcgmi diag's run levels: 1 quick (seconds), 2 medium
		 * (minutes), 3 long, 4 extended (an hour or more). */
		if (parse_int(value, 1, 4, &v))
			return prof_problem(ps, field, "'%s' is not a dcgmi diag run level (1-4)", value);
		*(int *)(void *)at = (int)v;
		return 1;
	case K_TEXT:
		if (!*value)
			return prof_problem(ps, field, "empty value");
		*(char **)(void *)at = br_xstrdup(value);
		return 1;
	case K_FW_COMPONENT:
		/* Whether firmware.conf has the component is known only once the
		 * whole profile is read (prof_load): keep the line for its message. */
		if (!prof_valid_chars(value, PROF_FW_COMPONENT_CHARS))
			return prof_problem(ps, field,
					    "'%s' is not a firmware.conf component (FQDD or pattern)", value);
		*(char **)(void *)at = br_xstrdup(value);
		*(!strcmp(s->section, "ib") ? &ps->p->hw.ib_firmware_line : &ps->p->hw.gpu_firmware_line) =
		    ps->line;
		return 1;
	}
	return 0;
}

int prof_hw_entry(struct prof_parse *ps, const char *section, const char *name, const char *value)
{
	char *field = br_xasprintf("%s.%s", section, name);
	int rc = -1;

	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]) && rc < 0; i++) {
		if (strcmp(settings[i].section, section) || strcmp(settings[i].name, name))
			continue;
		/* the older name and the newer one are one setting */
		if (prof_seen_twice(ps, section, settings[i].offset == AT_VALIDATION ? "validation" : name))
			rc = prof_problem(ps, field, "set twice");
		else
			rc = set_value(ps, &settings[i], field, value);
	}
	if (rc < 0) {
		struct br_buf known;

		br_buf_init(&known, 0);
		names_of(section, &known);
		rc = prof_problem(ps, field, "unknown setting in [%s] (%s)", section, br_buf_str(&known));
		br_buf_release(&known);
	}
	free(field);
	return rc;
}

int prof_check_provable(const struct prof_profile *p, struct br_err *err)
{
	const struct prof_hardware *hw = &p->hw;
	const struct {
		int unstated;
		const char *what;
	} core[] = {
		{ hw->gpus < 0, "[gpu] count" },
		{ hw->fabric_nics < 0 && hw->ethernet_nics < 0, "[nic] fabric or ethernet" },
		{ hw->nvme < 0, "[nvme] count" },
		{ hw->psus < 0, "[psu] count" },
		{ hw->clock_skew_max_ms < 0, "[clock] max_skew" },
	};
	struct br_buf missing;
	int rc = 0;

	br_buf_init(&missing, 0);
	for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
		if (core[i].unstated)
			br_buf_addf(&missing, "%s%s", missing.len ? ", " : "", core[i].what);
	if (missing.len)
		rc = br_errf(err, BR_E_INVAL,
			     "%s: %s%s not stated: profile '%s' cannot prove a node healthy without them, so "
			     "it promotes nothing (say what a healthy node has: a count of 0 for what is "
			     "not fitted)",
			     p->hardware_file ? p->hardware_file : "hardware.conf",
			     p->hardware_found ? "" : "no such file: ", br_buf_str(&missing),
			     p->name ? p->name : "?");
	br_buf_release(&missing);
	/* An InfiniBand fabric whose judgement may stay unknown would let a
	 * node whose subnet nobody read into the golden pool. */
	for (size_t i = 0; !rc && hw->ib_link_layer && !strcasecmp(hw->ib_link_layer, "InfiniBand") &&
			   i < hw->gate_optional.n;
	     i++)
		if (!fnmatch(hw->gate_optional.items[i], "fabric", 0))
			rc = br_errf(err, BR_E_INVAL,
				     "%s: [gate] optional = %s with [ib] link_layer = InfiniBand: the fabric "
				     "of an InfiniBand node must be proven, so fabric cannot be optional "
				     "(remove it from [gate] optional)",
				     p->hardware_file ? p->hardware_file : "hardware.conf",
				     hw->gate_optional.items[i]);
	return rc;
}
