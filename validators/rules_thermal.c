/* thermal: every temperature physically plausible, fans not pinned at their
 * maximum while temperatures are normal, the BMC and the OS agreeing
 * (thermal_bogus: one sensor reading -128 °C or 255 °C drove a node's fans
 * to 100% for good). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules_node_private.h"

/* A part in a running server reads above 0 °C and shuts down well before
 * 125 °C; 0, -128, 127 and 255 are what broken sensors and unset registers
 * print (signed and unsigned byte limits). */
#define TEMP_PLAUSIBLE_MIN_C 0.0   /* exclusive */
#define TEMP_PLAUSIBLE_MAX_C 125.0 /* exclusive */
/* Hottest reading below which fans have no reason to run flat out. */
#define TEMP_NORMAL_MAX_C 75.0
#define FAN_PINNED_FRACTION 0.95
/* BMC and OS read the same CPU or GPU at different moments: allow for load. */
#define TEMP_AGREE_C 20.0

struct hottest {
	double c;
	char *where; /* owned */
};

static void hottest_note(struct hottest *h, double c, const char *source, const char *name)
{
	if (isnan(h->c) || c > h->c) {
		h->c = c;
		free(h->where);
		h->where = br_xasprintf("%s '%s'", source, name ? name : "?");
	}
}

struct thermal_state {
	struct val_evidence e;
	size_t readings, bogus;
	struct hottest all, os_cpu, bmc_cpu, os_gpu, bmc_gpu;
	struct br_buf pinned;
	size_t n_pinned;
};

static int plausible(double c)
{
	return c > TEMP_PLAUSIBLE_MIN_C && c < TEMP_PLAUSIBLE_MAX_C;
}

/* One reading: judged, and remembered for the hottest and the agreement. */
static int reading(struct thermal_state *s, double c, double crit, const char *source, const char *name)
{
	s->readings++;
	if (!plausible(c)) {
		s->bogus++;
		val_ev_add(&s->e, VAL_FAIL,
			   "%s '%s' reads %.0f °C: physically implausible (a broken sensor): replace "
			   "or disable it",
			   source, name, c);
		return 0;
	}
	if (!isnan(crit) && crit > 0 && c >= crit)
		val_ev_add(&s->e, VAL_FAIL, "%s '%s' reads %.0f °C, at or above its critical limit %.0f °C",
			   source, name, c, crit);
	hottest_note(&s->all, c, source, name);
	return 1;
}

static int is_cpu_package(const char *chip, const char *label)
{
	return chip && (!strcmp(chip, "coretemp") || !strcmp(chip, "k10temp") || !strcmp(chip, "zenpower")) &&
	       label &&
	       (!strncasecmp(label, "Package", 7) || !strcasecmp(label, "Tctl") ||
		!strcasecmp(label, "Tdie"));
}

static void pinned(struct thermal_state *s, const char *source, const char *name, double v, double max,
		   const char *unit)
{
	if (s->n_pinned++ < VAL_DETAIL_ITEMS_MAX)
		br_buf_addf(&s->pinned, "%s%s %s at %.0f of %.0f %s", s->n_pinned > 1 ? ", " : "", source,
			    name, v, max, unit);
}

static void os_readings(struct val_node_ctx *c, struct thermal_state *s, json_t *thermal)
{
	json_t *chip, *t, *fan, *zone, *g;
	size_t i, j;

	json_array_foreach(json_object_get(thermal, "hwmon"), i, chip)
	{
		const char *cname = br_json_str(chip, "name");

		json_array_foreach(json_object_get(chip, "temps"), j, t)
		{
			const char *label =
			    br_json_str(t, "label") ? br_json_str(t, "label") : br_json_str(t, "sensor");
			double v = br_json_num(t, "celsius", NAN),
			       crit = br_json_num(t, "crit_millicelsius", NAN) / 1000;
			char *name = br_xasprintf("%s %s %s", br_json_str(chip, "hwmon"), cname ? cname : "?",
						  label ? label : "?");

			if (!isnan(v) && reading(s, v, crit, "OS", name) && is_cpu_package(cname, label))
				hottest_note(&s->os_cpu, v, "OS", name);
			free(name);
		}
		json_array_foreach(json_object_get(chip, "fans"), j, fan)
		{
			double rpm = br_json_num(fan, "rpm", NAN), max = br_json_num(fan, "max_rpm", NAN);
			const char *label = br_json_str(fan, "label") ? br_json_str(fan, "label")
								      : br_json_str(fan, "sensor");
			char *name = br_xasprintf("%s %s", cname ? cname : "?", label ? label : "?");

			if (!isnan(rpm) && max > 0 && rpm >= FAN_PINNED_FRACTION * max)
				pinned(s, "OS", name, rpm, max, "RPM");
			free(name);
		}
	}
	json_array_foreach(json_object_get(thermal, "zones"), i, zone)
	{
		double v = br_json_num(zone, "celsius", NAN);
		const char *type = br_json_str(zone, "type");
		char *name = br_xasprintf("%s (%s)", br_json_str(zone, "zone"), type ? type : "?");

		if (!isnan(v) && reading(s, v, NAN, "OS thermal zone", name) && type &&
		    !strcmp(type, "x86_pkg_temp"))
			hottest_note(&s->os_cpu, v, "OS", name);
		free(name);
	}
	json_array_foreach(br_json_path(c->probe, "gpus/gpus"), i, g)
	{
		double v = br_json_num(g, "temperature_c", NAN);
		char *name =
		    br_xasprintf("GPU %s (serial %s)", br_json_str(g, "bdf"), br_json_str(g, "serial"));

		if (!isnan(v) && reading(s, v, NAN, "nvidia-smi", name))
			hottest_note(&s->os_gpu, v, "nvidia-smi", name);
		free(name);
	}
}

static void bmc_readings(struct thermal_state *s, const struct br_hw *hw)
{
	for (size_t i = 0; i < hw->n_sensors; i++) {
		const struct br_sensor *x = &hw->sensors[i];
		const char *name = x->name ? x->name : "?";

		if (x->state && !strcasecmp(x->state, "Absent"))
			continue;
		if (x->kind == BR_SENSOR_TEMP && !isnan(x->reading) &&
		    reading(s, x->reading, x->upper_critical, "BMC", name)) {
			if (strstr(name, "CPU"))
				hottest_note(&s->bmc_cpu, x->reading, "BMC", name);
			if (strstr(name, "GPU"))
				hottest_note(&s->bmc_gpu, x->reading, "BMC", name);
		}
		/* Redfish gives no fan maximum in RPM; a percentage says it directly. */
		if (x->kind == BR_SENSOR_FAN && x->units && !strcasecmp(x->units, "Percent") &&
		    x->reading >= FAN_PINNED_FRACTION * 100)
			pinned(s, "BMC", name, x->reading, 100, "%");
	}
}

static void agree(struct thermal_state *s, const char *what, const struct hottest *os,
		  const struct hottest *bmc)
{
	if (isnan(os->c) || isnan(bmc->c))
		return;
	if (fabs(os->c - bmc->c) > TEMP_AGREE_C)
		val_ev_add(&s->e, VAL_FAIL,
			   "hottest %s: %s %.0f °C but %s %.0f °C (more than %.0f °C apart): one "
			   "of them reads wrong",
			   what, os->where, os->c, bmc->where, bmc->c, TEMP_AGREE_C);
}

void val_rule_thermal(struct val_node_ctx *c)
{
	struct thermal_state s = { 0 };
	struct hottest *all[] = { &s.all, &s.os_cpu, &s.bmc_cpu, &s.os_gpu, &s.bmc_gpu };
	char *why = NULL;
	json_t *thermal = val_probe_section(c, "thermal", &why);

	val_ev_init(&s.e);
	br_buf_init(&s.pinned, VAL_DETAIL_MAX);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		all[i]->c = NAN;
	if (thermal)
		os_readings(c, &s, thermal);
	if (c->f->bmc)
		bmc_readings(&s, c->f->bmc);
	if (s.n_pinned && (isnan(s.all.c) || s.all.c < TEMP_NORMAL_MAX_C)) {
		char *hot =
		    isnan(s.all.c) ? br_xstrdup("none") : br_xasprintf("%.0f °C (%s)", s.all.c, s.all.where);

		val_ev_add(&s.e, VAL_FAIL,
			   "fans pinned at maximum (%s%s) while the hottest plausible reading is %s: "
			   "a bogus sensor is driving them",
			   br_buf_str(&s.pinned), s.n_pinned > VAL_DETAIL_ITEMS_MAX ? ", …" : "", hot);
		free(hot);
	}
	agree(&s, "CPU", &s.os_cpu, &s.bmc_cpu);
	agree(&s, "GPU", &s.os_gpu, &s.bmc_gpu);
	if (!s.readings)
		val_ev_add(&s.e, VAL_UNKNOWN, "no temperature readings: %s; %s",
			   why ? why : "the OS reports none",
			   c->f->bmc ? "the BMC reports none" : "no BMC facts");
	else if (s.e.result == VAL_PASS)
		val_ev_add(&s.e, VAL_PASS, "%zu readings plausible, hottest %.0f °C (%s), no fan pinned%s%s",
			   s.readings, s.all.c, s.all.where, why ? "; OS not read: " : "", why ? why : "");
	val_ev_emit(c, "thermal", &s.e);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]->where);
	br_buf_release(&s.pinned);
	free(why);
}
