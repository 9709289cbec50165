/* psu: every power supply the BMC reports healthy, and as many as the
 * profile says (psu_failed; the field lost machines to PSU failures), and
 * their redundancy where the BMC reports it: a redundancy sensor is no
 * supply, and redundancy lost or degraded is a fault (a supply without
 * its feed leaves the node one failure from going down). */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>
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

/* A present supply rated other than OK. */
static int unhealthy(const struct br_sensor *s)
{
	return s->kind == BR_SENSOR_PSU && !absent(s) && s->health && strcasecmp(s->health, "OK");
}

/* Such a supply fails the check, blaming it; where names the source when
 * it is not the set being judged. */
static void fail_unhealthy(struct val_evidence *e, const struct br_sensor *s, const char *where)
{
	val_ev_add(e, VAL_FAIL, "%s (serial %s): health %s%s: check its power cord, then replace it",
		   s->name ? s->name : "?", s->serial ? s->serial : "unknown", s->health, where);
	blame_psu(e, s);
}

struct psu_tally {
	size_t present, healthy, unrated, redundant, n_empty;
};

static void tally(const struct br_hw *hw, struct psu_tally *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; hw && i < hw->n_sensors; i++) {
		const struct br_sensor *s = &hw->sensors[i];

		if (s->kind != BR_SENSOR_PSU)
			continue;
		if (absent(s))
			t->n_empty++;
		else if (!s->health)
			t->unrated++, t->present++;
		else
			t->present++, t->healthy += !strcasecmp(s->health, "OK");
	}
}

/* Judge one set of supplies (the BMC's, or the SDR's read on the node):
 * source names it in the items that need a source. */
static void judge(struct val_evidence *e, const struct br_hw *hw, int want, const char *source,
		  const char *via)
{
	struct psu_tally t;
	char empty[48] = "";

	tally(hw, &t);
	for (size_t i = 0; i < hw->n_sensors; i++) {
		const struct br_sensor *s = &hw->sensors[i];

		if (s->kind == BR_SENSOR_PSU_REDUNDANCY) {
			if (absent(s) || !s->health)
				continue; /* not reported, or no redundancy configured */
			if (!strcasecmp(s->health, "OK"))
				t.redundant++;
			else
				val_ev_add(e, VAL_FAIL,
					   "%s: %s (health %s): the supplies are not redundant: find the "
					   "supply that lost its feed or failed, check its cord and PDU",
					   s->name ? s->name : "?", s->state ? s->state : "?", s->health);
			continue;
		}
		if (unhealthy(s))
			fail_unhealthy(e, s, "");
	}
	/* A bay the BMC lists as Absent is a pulled supply where the machine
	 * has fewer than the profile's count (or the profile states none), and
	 * an empty bay of a machine built with fewer supplies than bays where
	 * it has them all: a real XL675d lists 6 bays, 4 supplies and 2 Absent
	 * bays whose Health says Warning (tests/fixtures/redfish/hpe/cray_rie). */
	for (size_t i = 0; t.n_empty && (want < 0 || t.present < (size_t)want) && i < hw->n_sensors; i++) {
		const struct br_sensor *s = &hw->sensors[i];

		if (s->kind != BR_SENSOR_PSU || !absent(s))
			continue;
		val_ev_add(e, VAL_FAIL, "%s (serial %s): %s: reseat or replace it", s->name ? s->name : "?",
			   s->serial ? s->serial : "unknown", s->state);
		blame_psu(e, s);
	}
	/* No supply at all is a BMC that does not say (IPMI without the SDR
	 * records), not a node running on none. */
	if (!t.present && e->result == VAL_PASS)
		val_ev_add(e, VAL_UNKNOWN, "%s reports no power supplies", source);
	else if (want >= 0 && t.present < (size_t)want)
		val_ev_add(e, VAL_FAIL, "%s reports %zu power supplies present, expected %d", source,
			   t.present, want);
	if (t.unrated)
		val_ev_add(e, VAL_UNKNOWN, "%zu power supplies without a health from %s", t.unrated, source);
	if (t.n_empty)
		snprintf(empty, sizeof(empty), "; %zu %s", t.n_empty,
			 t.n_empty == 1 ? "bay empty" : "bays empty");
	if (e->result == VAL_PASS)
		val_ev_add(e, VAL_PASS, "%zu power supplies present and healthy%s%s%s%s", t.healthy,
			   want >= 0 ? " as the profile expects" : "",
			   t.redundant ? ", redundancy holding" : "", empty, via);
}

/* The probe's psu_sdr section as sensors; 0 when it lists a supply. */
static int load_sdr(json_t *section, struct br_hw *sdr)
{
	json_t *item;
	size_t i;
	int supplies = 0;

	json_array_foreach(json_object_get(section, "supplies"), i, item)
	{
		const char *kind = br_json_str(item, "kind"), *health = br_json_str(item, "health"),
			   *state = br_json_str(item, "state"), *name = br_json_str(item, "name");
		struct br_sensor *s;

		if (!kind || (strcmp(kind, "psu") && strcmp(kind, "redundancy")))
			continue;
		s = br_hw_add_sensor(sdr);
		s->kind = strcmp(kind, "psu") ? BR_SENSOR_PSU_REDUNDANCY : BR_SENSOR_PSU;
		s->name = name ? br_xstrdup(name) : NULL;
		s->state = state ? br_xstrdup(state) : NULL;
		s->health = health ? br_xstrdup(health) : NULL;
		supplies += s->kind == BR_SENSOR_PSU;
	}
	return supplies ? 0 : BR_E_NOTFOUND;
}

static void conflict(struct val_evidence *e, const struct br_hw *sdr)
{
	struct val_evidence f;

	val_ev_init(&f);
	judge(&f, sdr, -1, "the node's BMC SDR", "");
	if (f.result == VAL_FAIL)
		val_ev_add(e, VAL_FAIL, "but the BMC's SDR, read in-band on the node, says otherwise: %s",
			   f.buf.data ? f.buf.data : "?");
	free(f.blamed);
	br_buf_release(&f.buf);
}

void val_rule_psu(struct val_node_ctx *c)
{
	const struct br_hw *hw = c->f->bmc;
	struct val_evidence e;
	struct psu_tally t;
	struct br_hw sdr;
	json_t *section;
	char *why = NULL, *source = hw ? br_xasprintf("the BMC (%s)", hw->source ? hw->source : "?") : NULL;

	tally(hw, &t);
	val_ev_init(&e);
	br_hw_init(&sdr);
	section = val_probe_section(c, "psu_sdr", &why);
	if (section && load_sdr(section, &sdr)) {
		section = NULL;
		why = br_xstrdup("the SDR read on the node lists no supply");
	}
	if (hw && t.present && !t.unrated) {
		judge(&e, hw, c->p->hw.psus, source, "");
		/* A BMC whose SDR, read on the node, reports a fault its
		 * Redfish does not is no proof of health (the count is the
		 * Redfish one's to judge). */
		if (section && e.result == VAL_PASS)
			conflict(&e, &sdr);
	} else if (section) {
		/* The BMC's Redfish lists no supply, or lists them without a
		 * Status (a real DGX H100: tests/fixtures/redfish/ami/libredfish):
		 * the health is then the one its SDR gives, read on the node by
		 * the probe; a supply the BMC's Redfish does rate badly stays a
		 * fault. */
		for (size_t i = 0; hw && i < hw->n_sensors; i++)
			if (unhealthy(&hw->sensors[i]))
				fail_unhealthy(&e, &hw->sensors[i], " in the BMC's Redfish");
		judge(&e, &sdr, c->p->hw.psus, "the node's BMC SDR",
		      hw ? " (by the BMC's SDR, read in-band on the node: its Redfish gives no health)"
			 : " (by the BMC's SDR, read in-band on the node)");
	} else if (!hw) {
		val_ev_add(&e, VAL_UNKNOWN, "no BMC facts for this node (discovery did not read it), and %s",
			   why);
	} else {
		judge(&e, hw, c->p->hw.psus, source, "");
		val_ev_add(&e, VAL_UNKNOWN, "no health from the BMC's SDR on the node either: %s", why);
	}
	val_ev_emit(c, "psu", &e);
	free(source);
	free(why);
	br_hw_release(&sdr);
}
