/* fans: every fan the BMC reports turning and healthy, and as many as the
 * profile's [fans] count says. A fan counts as each tachometer the BMC
 * lists: a dual-rotor fan module is two (iDRAC9's "System Board Fan1A" and
 * "Fan1B" in Thermal.Fans[]; the DMTF Fan schema's one resource per rotor
 * under ThermalSubsystem/Fans). A slot the BMC lists as Absent (an IPMI
 * SDR fan with no reading: "ns") is not a fan. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>
#include <strings.h>

#include "rules_node_private.h"

static int absent(const struct br_sensor *s)
{
	return s->state && (!strcasecmp(s->state, "Absent") || !strcasecmp(s->state, "UnavailableOffline"));
}

static int rpm(const struct br_sensor *s)
{
	return s->units && !strcasecmp(s->units, "RPM") && !isnan(s->reading);
}

/* The fan a failing item is about, by the BMC's name for it. */
static void blame_fan(struct val_evidence *e, const struct br_sensor *s)
{
	char *part = br_xasprintf("fan:%s", s->name ? s->name : "?");

	val_ev_blame(e, part);
	free(part);
}

void val_rule_fans(struct val_node_ctx *c)
{
	const struct br_hw *hw = c->f->bmc;
	struct val_evidence e;
	size_t present = 0, turning = 0, unrated = 0;
	int want = c->p->hw.fans;

	if (want < 0)
		return;
	if (!hw) {
		val_node_check(c, "fans", VAL_UNKNOWN,
			       "no BMC facts for this node (discovery did not read it)");
		return;
	}
	val_ev_init(&e);
	for (size_t i = 0; i < hw->n_sensors; i++) {
		const struct br_sensor *s = &hw->sensors[i];
		const char *name = s->name ? s->name : "?";

		if (s->kind != BR_SENSOR_FAN || absent(s))
			continue;
		present++;
		if (s->health && strcasecmp(s->health, "OK")) {
			blame_fan(&e, s);
			if (rpm(s))
				val_ev_add(&e, VAL_FAIL, "%s at %.0f RPM: health %s: replace the fan", name,
					   s->reading, s->health);
			else
				val_ev_add(&e, VAL_FAIL, "%s: health %s: replace the fan", name, s->health);
		} else if (rpm(s) && s->reading <= 0) {
			val_ev_add(&e, VAL_FAIL, "%s at 0 RPM: stopped: replace the fan", name);
			blame_fan(&e, s);
		} else if (rpm(s) && !isnan(s->lower_critical) && s->reading < s->lower_critical) {
			val_ev_add(&e, VAL_FAIL,
				   "%s at %.0f RPM, below its critical %.0f RPM: replace the fan", name,
				   s->reading, s->lower_critical);
		} else if (!s->health && !rpm(s)) {
			/* Neither a health nor a speed: nothing says it turns. */
			unrated++;
		} else {
			turning++;
		}
	}
	if (!present && e.result == VAL_PASS)
		val_ev_add(&e, VAL_UNKNOWN, "the BMC (%s) reports no fans", hw->source ? hw->source : "?");
	else if (present < (size_t)want)
		val_ev_add(&e, VAL_FAIL,
			   "the BMC reports %zu fans present, expected %d: one is missing or unplugged",
			   present, want);
	if (unrated)
		val_ev_add(&e, VAL_UNKNOWN, "%zu fans with neither a health nor a speed from the BMC",
			   unrated);
	if (e.result == VAL_PASS)
		val_ev_add(&e, VAL_PASS, "%zu fans present, turning and healthy as the profile expects",
			   turning);
	val_ev_emit(c, "fans", &e);
}
