/* A probe document as validate reads it (stages/validate.c): the bounded
 * parse (VAL_PROBE_VALUES_MAX values), the identity check against the
 * node's BMC facts (validators/rules_identity.c), the LLDP view cabling
 * takes from it judged against a one-cable wiring list, then the node rules
 * and the firmware policy with those BMC facts, against the real xe9680
 * profile. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "profile/profile.h"
#include "validators/cabling.h"
#include "validators/rules.h"
#include "validators/validators.h"

static struct prof_profile profile;
static struct val_wiring wiring;
static int loaded;

static void load(void)
{
	static const char csv[] = "hostname,host_port,switch,switch_port\n"
				  "gpu-r01-u03,enp61s0f0np0,leaf-r01-a,Ethernet1/3\n";
	struct br_err err = { 0 };
	struct br_strlist problems = { 0 };

	if (prof_load(fuzz_templates(), "xe9680", &profile, &err) != 0) {
		fprintf(stderr, "fuzz_probe_doc: %s (set BR_TOP)\n", err.msg);
		abort();
	}
	if (val_wiring_load(fuzz_file((const uint8_t *)csv, sizeof(csv) - 1, ".csv"), &wiring, &problems,
			    &err)) {
		fprintf(stderr, "fuzz_probe_doc: wiring: %s: %s\n", err.msg,
			problems.n ? problems.items[0] : "");
		abort();
	}
	br_strlist_release(&problems);
	loaded = 1;
}

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void cabling(json_t *doc)
{
	json_t *lldp = json_object_get(doc, "lldp"), *nbs = json_object_get(lldp, "neighbors"), *nb;
	size_t n = json_array_size(nbs), i;
	struct val_lldp_neighbor *v = calloc(n ? n : 1, sizeof(*v));
	struct val_cabling_host h = { "gpu-r01-u03",
				      jstr(lldp, "status") && !strcmp(jstr(lldp, "status"), "ok"), v, n };
	struct val_cabling_result r;

	if (!v)
		abort();
	json_array_foreach(nbs, i, nb) v[i] =
	    (struct val_lldp_neighbor){ jstr(nb, "local_port"), jstr(nb, "system_name"), jstr(nb, "port_id"),
					jstr(nb, "port_description") };
	val_cabling_judge(&wiring, &h, &h, 1, &r);
	val_cabling_result_release(&r);
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct br_err err = { 0 };
	struct val_node_facts f = { 0 };
	struct val_check *checks = NULL;
	struct br_hw hw;
	size_t n = 0;
	char *why = NULL;

	if (!loaded)
		load();
	f.probe = br_json_parse_bounded((const char *)data, size, 0, VAL_PROBE_VALUES_MAX, &err);
	if (!f.probe)
		return 0;
	br_hw_init(&hw);
	hw.system_serial = strdup("CNIVC0001234567");
	hw.service_tag = strdup("7XQ2K3");
	val_identity_mismatch(f.probe, "gpu-r01-u03", &hw, &why);
	free(why);
	val_identity_mismatch(f.probe, "gpu-r01-u03", NULL, &why);
	free(why);
	if (json_is_object(f.probe)) {
		cabling(f.probe);
		f.bmc = &hw;
		f.deployed_disk_serial = "S6EWNE0R900123";
		f.controller_ms = 1764460800000;
		f.controller_uncertainty_ms = 500;
		val_judge_node(&profile, &f, &checks, &n);
		val_checks_free(checks, n);
		checks = NULL;
		n = 0;
		val_firmware_judge(&profile, &hw, &checks, &n);
		val_checks_free(checks, n);
	}
	br_hw_release(&hw);
	json_decref(f.probe);
	return 0;
}
