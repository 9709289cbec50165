/* The node judge (validators/rules_node.c and rules_*.c): a probe document
 * from a node, judged against the real xe9680 profile. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "profile/profile.h"
#include "validators/rules.h"

static struct prof_profile profile;
static int loaded;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct br_err err = { 0 };
	struct val_node_facts f = { 0 };
	struct val_check *checks = NULL;
	size_t n = 0;

	if (!loaded) {
		if (prof_load(fuzz_templates(), "xe9680", &profile, &err) != 0) {
			fprintf(stderr, "fuzz_judge: %s (set BR_TOP)\n", err.msg);
			abort();
		}
		loaded = 1;
	}
	f.probe = br_json_parse((const char *)data, size, 1 << 22, &err);
	if (!f.probe)
		return 0;
	f.deployed_disk_serial = "S6EWNE0R900123";
	f.controller_ms = 1764460800000;
	f.controller_uncertainty_ms = 500;
	val_judge_node(&profile, &f, &checks, &n);
	val_checks_free(checks, n);
	json_decref(f.probe);
	return 0;
}
