/* psu: every power supply the BMC reports healthy, and as many as the
 * profile says (psu_failed; the field lost machines to PSU failures), and
 * their redundancy where the BMC reports it: a redundancy sensor is no
 * supply, and redundancy lost or degraded is a fault (a supply without
 * its feed leaves the node one failure from going down). */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <strings.h>

#include "rules_node_private.h"

static int absent(const struct br_sensor *s)
{
	return s->state && (!strcasecmp(s->state, "Absent") || !strcasecmp(s->state, "UnavailableOffline"));
}

/* The supply a failing item is about, by serial (else by the BMC's name). */
static void blame_psu(struct val_evidence *e, const struct br_sensor *s)
{
	char *part = br_xasprintf("psu:%s", s->serial && *s->serial ? s->serial : s->name ? s->name : "?");

	val_ev_blame(e, part);
	free(part);
}

void val_rule_psu(struct val_node_ctx *c)
{
	const struct br_hw *hw = c->f->bmc;
	struct val_evidence e;
	size_t present = 0, healthy = 0, unrated = 0, redundant = 0, n_empty = 0;
	char empty[48] = "";
	int want = c->p->hw.psus;

	if (!hw) {
		val_node_check(c, "psu", VAL_UNKNOWN,
			       "no BMC facts for this node (discovery did not read it)");
		return;
	}
	val_ev_init(&e);
	for (size_t i = 0; i < hw->n_sensors; i++) {
		const struct br_sensor *s = &hw->sensors[i];
		const char *name = s->name ? s->name : "?", *serial = s->serial ? s->serial : "unknown";

		if (s->kind == BR_SENSOR_PSU_REDUNDANCY) {
			if (absent(s) || !s->health)
				continue; /* not reported, or no redundancy configured */
			if (!strcasecmp(s->health, "OK"))
				redundant++;
			else
				val_ev_add(&e, VAL_FAIL,
					   "%s: %s (health %s): the supplies are not redundant: find the "
					   "supply that lost its feed or failed, check its cord and PDU",
					   name, s->state ? s->state : "?", s->health);
			continue;
		}
		if (s->kind != BR_SENSOR_PSU)
			continue;
		if (absent(s)) {
			n_empty++;
			continue;
		}
		present++;
		if (!s->health)
			unrated++;
		else if (!strcasecmp(s->health, "OK"))
			healthy++;
		else {
			val_ev_add(&e, VAL_FAIL,
				   "%s (serial %s): health %s: check its power cord, then replace it", name,
				   serial, s->health);
			blame_psu(&e, s);
		}
	}
	/* A bay the BMC lists as Absent is a pulled supply where the machine
	 * has fewer than the profile's count (or the profile states none), and
	 * an empty bay of a machine built with fewer supplies than bays where
	 * it has them all: a real XL675d lists 6 bays, 4 supplies and 2 Absent
	 * bays whose Health says Warning (tests/fixtures/redfish/hpe/cray_rie). */
	for (size_t i = 0; n_empty && (want < 0 || present < (size_t)want) && i < hw->n_sensors; i++) {
		const struct br_sensor *s = &hw->sensors[i];

		if (s->kind != BR_SENSOR_PSU || !absent(s))
			continue;
		val_ev_add(&e, VAL_FAIL, "%s (serial %s): %s: reseat or replace it", s->name ? s->name : "?",
			   s->serial ? s->serial : "unknown", s->state);
		blame_psu(&e, s);
	}
	/* No supply at all is a BMC that does not say (IPMI without the SDR
	 * records), not a node running on none. */
	if (!present && e.result == VAL_PASS)
		val_ev_add(&e, VAL_UNKNOWN, "the BMC (%s) reports no power supplies",
			   hw->source ? hw->source : "?");
	else if (want >= 0 && present < (size_t)want)
		val_ev_add(&e, VAL_FAIL, "the BMC reports %zu power supplies present, expected %d", present,
			   want);
	if (unrated)
		val_ev_add(&e, VAL_UNKNOWN, "%zu power supplies without a health from the BMC", unrated);
	if (n_empty)
		snprintf(empty, sizeof(empty), "; %zu %s", n_empty,
			 n_empty == 1 ? "bay empty" : "bays empty");
	if (e.result == VAL_PASS)
		val_ev_add(&e, VAL_PASS, "%zu power supplies present and healthy%s%s%s", healthy,
			   want >= 0 ? " as the profile expects" : "",
			   redundant ? ", redundancy holding" : "", empty);
	val_ev_emit(c, "psu", &e);
}
