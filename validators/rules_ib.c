/* ib_ports: every HCA port the probe read from /sys/class/infiniband (its
 * "infiniband" section) against the profile's [ib]: as many ports as it
 * says, each ACTIVE and LinkUp at its rate, and error counters a flapping
 * or marginal link raises (link_downed, link_error_recovery,
 * symbol_error) within its limits, and each HCA's own firmware against the
 * firmware policy ([ib] firmware) and the BMC's inventory. A failing port
 * blames its HCA's PCIe
 * function, so the port's faults are one ticket with the HCA's other
 * evidence. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules_node_private.h"

struct ib_counter_rule {
	const char *counter;
	size_t limit_offset; /* into struct prof_hardware */
	const char *means;
};

static const struct ib_counter_rule counter_rules[] = {
	{ "link_downed", offsetof(struct prof_hardware, ib_link_downed_max),
	  "the link went down and retrained: reseat or replace the cable or transceiver" },
	{ "link_error_recovery", offsetof(struct prof_hardware, ib_link_error_recovery_max),
	  "the link recovered from errors: a marginal cable or transceiver" },
	{ "symbol_error", offsetof(struct prof_hardware, ib_symbol_error_max),
	  "bit errors on the wire: clean or replace the cable or transceiver" },
};

static int64_t limit_of(const struct prof_hardware *hw, const struct ib_counter_rule *r)
{
	return *(const int64_t *)(const void *)((const char *)hw + r->limit_offset);
}

/* Why a port is not ACTIVE / LinkUp, as a technician reads it (IBA
 * PortPhysicalState: Polling is no light from the peer, Disabled is shut
 * off, LinkUp with the logical state short of ACTIVE is no subnet
 * manager). */
static const char *down_fix(const char *state, const char *phys)
{
	if (phys && !strcmp(phys, "LinkUp"))
		return state && (!strcmp(state, "INIT") || !strcmp(state, "ARMED"))
			   ? "the link trained but no subnet manager configured the port: check the "
			     "fabric's subnet manager"
			   : "check the fabric's subnet manager";
	if (phys && !strcmp(phys, "Polling"))
		return "no link from the switch: check the cable is seated at both ends, the transceiver "
		       "and the switch port";
	if (phys && !strcmp(phys, "Disabled"))
		return "the port is disabled: enable it (ibportstate) or check the switch port";
	return "check the cable, the transceiver and the switch port";
}

struct ib_tally {
	size_t judged, other_layer, firmware_ok;
	const char *other_layer_name;
};

/* Down time from the kernel log (the probe's dmesg link_flaps) of the
 * interface on the port's PCI function: cumulative down time says more
 * than how often it flapped (FIELD-NOTES: ports flapping under load). */
static void down_time(struct val_node_ctx *c, struct val_evidence *e, const char *who, const char *bdf)
{
	int64_t limit = c->p->hw.ib_link_down_time_max;
	char *why = NULL;
	json_t *dmesg, *f;
	size_t i;

	if (limit < 0)
		return;
	dmesg = val_probe_section(c, "dmesg", &why);
	if (!dmesg || !bdf) {
		val_ev_add(e, VAL_UNKNOWN, "%s: down time not judged: %s", who,
			   why ? why : "its PCI address is unknown");
		free(why);
		return;
	}
	json_array_foreach(json_object_get(dmesg, "link_flaps"), i, f)
	{
		const char *at = br_json_str(f, "pci_bdf");
		double down_s = br_json_num(f, "down_s", 0);

		if (!at || strcasecmp(at, bdf))
			continue;
		if (down_s > (double)limit || json_is_true(json_object_get(f, "down_at_end")))
			val_ev_add(
			    e, VAL_FAIL,
			    "%s: %s went down %lld time%s, down %.1f s in all%s (kernel log), at most "
			    "%lld s expected: a flapping link: reseat or replace the cable or transceiver",
			    who, br_json_str(f, "ifname") ? br_json_str(f, "ifname") : "its interface",
			    (long long)json_integer_value(json_object_get(f, "downs")),
			    json_integer_value(json_object_get(f, "downs")) == 1 ? "" : "s", down_s,
			    json_is_true(json_object_get(f, "down_at_end"))
				? " and still down at the log's end"
				: "",
			    (long long)limit);
		if (down_s > (double)limit || json_is_true(json_object_get(f, "down_at_end")))
			val_blame_pci(e, bdf);
	}
}

static void one_port(struct val_node_ctx *c, struct val_evidence *e, json_t *port, struct ib_tally *t)
{
	const struct prof_hardware *hw = &c->p->hw;
	const char *dev = br_json_str(port, "device"), *num = br_json_str(port, "port");
	const char *state = br_json_str(port, "state"), *phys = br_json_str(port, "phys_state");
	const char *rate = br_json_str(port, "rate"), *bdf = br_json_str(port, "pci_bdf");
	const char *guid = br_json_str(port, "port_guid");
	double gbps = br_json_num(port, "rate_gbps", NAN);
	json_t *counters = json_object_get(port, "counters");
	char *who = br_xasprintf("%s port %s (%s%s%s)", dev ? dev : "?", num ? num : "?",
				 bdf ? bdf : "PCI address unknown", guid ? ", GUID " : "", guid ? guid : "");
	struct br_buf missing;

	t->judged++;
	if (!state || !phys) {
		val_ev_add(e, VAL_UNKNOWN, "%s: state not readable", who);
		free(who);
		return;
	}
	if (strcmp(state, "ACTIVE") || strcmp(phys, "LinkUp")) {
		val_ev_add(e, VAL_FAIL, "%s: %s / %s, expected ACTIVE / LinkUp: %s", who, state, phys,
			   down_fix(state, phys));
		val_blame_pci(e, bdf);
		free(who);
		return;
	}
	if (hw->ib_rate_gbps > 0) {
		if (isnan(gbps))
			val_ev_add(e, VAL_UNKNOWN, "%s: rate not readable", who);
		else if (gbps < hw->ib_rate_gbps) {
			val_ev_add(e, VAL_FAIL,
				   "%s: %s, expected %d Gb/s: the link trained slow; check the cable and "
				   "transceiver are rated for it and the switch port's speed",
				   who, rate ? rate : "?", hw->ib_rate_gbps);
			val_blame_pci(e, bdf);
		}
	}
	br_buf_init(&missing, 0);
	for (size_t i = 0; i < sizeof(counter_rules) / sizeof(counter_rules[0]); i++) {
		const struct ib_counter_rule *r = &counter_rules[i];
		int64_t limit = limit_of(hw, r);
		json_t *v = json_object_get(counters, r->counter);

		if (limit < 0)
			continue;
		if (!json_is_integer(v)) {
			br_buf_addf(&missing, "%s%s", missing.len ? ", " : "", r->counter);
			continue;
		}
		if (json_integer_value(v) > limit) {
			val_ev_add(e, VAL_FAIL, "%s: %s %lld, at most %lld expected: %s", who, r->counter,
				   (long long)json_integer_value(v), (long long)limit, r->means);
			val_blame_pci(e, bdf);
		}
	}
	down_time(c, e, who, bdf);
	/* The profile asks for a limit this driver does not let us check. */
	if (missing.len)
		val_ev_add(e, VAL_UNKNOWN, "%s: counters/%s not readable: cannot judge the link's errors",
			   who, br_buf_str(&missing));
	br_buf_release(&missing);
	free(who);
}

/* Does an HCA have a port of the fabric's link layer? */
static int fabric_device(const struct prof_hardware *hw, json_t *ports, const char *dev)
{
	json_t *port;
	size_t i;

	json_array_foreach(ports, i, port)
	{
		const char *layer = br_json_str(port, "link_layer"), *d = br_json_str(port, "device");

		if (d && !strcmp(d, dev) &&
		    (!hw->ib_link_layer || !layer || !strcmp(layer, hw->ib_link_layer)))
			return 1;
	}
	return 0;
}

/* Each HCA's own firmware (fw_ver: what the running adapter reports)
 * against the minimum of the firmware policy's rule [ib] firmware names,
 * and against the BMC's inventory of those components: the BMC shows what
 * is flashed, the adapter what runs, and they differ when an update was
 * flashed and the adapter not reset since. */
static void hca_firmware(struct val_node_ctx *c, struct val_evidence *e, json_t *section, struct ib_tally *t)
{
	const struct prof_hardware *hw = &c->p->hw;
	const struct prof_fw_rule *rule = prof_fw_rule(c->p, hw->ib_firmware);
	json_t *devs = json_object_get(section, "devices"), *ports = json_object_get(section, "ports"), *d;
	struct br_strlist bmc = { 0 };
	size_t i;

	if (!rule) {
		val_ev_add(e, VAL_UNKNOWN, "HCA firmware not judged: firmware.conf has no rule %s",
			   hw->ib_firmware);
		return;
	}
	val_fw_bmc_versions(c->f->bmc, rule->component, &bmc);
	json_array_foreach(devs, i, d)
	{
		const char *dev = br_json_str(d, "device"), *fw = br_json_str(d, "fw_ver"),
			   *bdf = br_json_str(d, "pci_bdf");
		char *who;

		if (!dev || !fabric_device(hw, ports, dev))
			continue;
		who = br_xasprintf("%s (%s)", dev, bdf ? bdf : "PCI address unknown");
		if (!fw || !*fw)
			val_ev_add(e, VAL_UNKNOWN, "%s: fw_ver not readable: its firmware not judged", who);
		else if (val_fw_device(e, rule, &bmc, who, bdf, "firmware", "adapter", fw))
			t->firmware_ok++;
		free(who);
	}
	br_strlist_release(&bmc);
}

static void pass_summary(struct val_evidence *e, const struct prof_hardware *hw, const struct ib_tally *t)
{
	struct br_buf ok;

	br_buf_init(&ok, 0);
	br_buf_addf(&ok, "%zu port%s ACTIVE / LinkUp", t->judged, t->judged == 1 ? "" : "s");
	if (hw->ib_rate_gbps > 0)
		br_buf_addf(&ok, " at %d Gb/s or more", hw->ib_rate_gbps);
	for (size_t i = 0; i < sizeof(counter_rules) / sizeof(counter_rules[0]); i++) {
		int64_t limit = limit_of(hw, &counter_rules[i]);

		if (limit >= 0)
			br_buf_addf(&ok, ", %s at most %lld", counter_rules[i].counter, (long long)limit);
	}
	if (hw->ib_link_down_time_max >= 0)
		br_buf_addf(&ok, ", down at most %lld s in the kernel log",
			    (long long)hw->ib_link_down_time_max);
	if (t->firmware_ok)
		br_buf_addf(&ok, ", %zu HCA%s' firmware at or above the policy's minimum for %s",
			    t->firmware_ok, t->firmware_ok == 1 ? "" : "s", hw->ib_firmware);
	val_ev_add(e, VAL_PASS, "%s", br_buf_str(&ok));
	br_buf_release(&ok);
}

void val_rule_ib_ports(struct val_node_ctx *c)
{
	const struct prof_hardware *hw = &c->p->hw;
	char *why = NULL;
	json_t *section, *ports, *port;
	struct ib_tally t = { 0 };
	struct val_evidence e;
	size_t i;

	if (hw->ib_ports < 0)
		return;
	section = val_probe_section(c, "infiniband", &why);
	if (!section) {
		val_node_check(c, "ib_ports", VAL_UNKNOWN, "%s", why);
		free(why);
		return;
	}
	ports = json_object_get(section, "ports");
	val_ev_init(&e);
	json_array_foreach(ports, i, port)
	{
		const char *layer = br_json_str(port, "link_layer");

		/* An Ethernet NIC with RDMA (bnxt_re, a RoCE port) beside an
		 * InfiniBand fabric is not a fabric port. */
		if (hw->ib_link_layer && layer && strcmp(layer, hw->ib_link_layer)) {
			t.other_layer++;
			t.other_layer_name = layer;
			continue;
		}
		one_port(c, &e, port, &t);
	}
	if ((int)t.judged < hw->ib_ports) {
		val_ev_add(&e, VAL_FAIL,
			   "%zu %s%sport%s in /sys/class/infiniband, expected %d: an HCA is missing or its "
			   "RDMA driver (mlx5_ib) is not loaded",
			   t.judged, hw->ib_link_layer ? hw->ib_link_layer : "", hw->ib_link_layer ? " " : "",
			   t.judged == 1 ? "" : "s", hw->ib_ports);
		val_ev_blame(&e, NULL);
	}
	if (hw->ib_firmware)
		hca_firmware(c, &e, section, &t);
	if (e.result == VAL_PASS)
		pass_summary(&e, hw, &t);
	if (t.other_layer)
		val_ev_add(&e, VAL_PASS, "not judged: %zu port%s of link layer %s", t.other_layer,
			   t.other_layer == 1 ? "" : "s", t.other_layer_name);
	val_ev_emit(c, "ib_ports", &e);
}
