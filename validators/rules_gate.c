/*
 * rules_gate — the gate's judgement (rules.h): which of a node's checks
 * hold it back from golden under its profile's [gate] required and
 * optional lists, and which required checks never ran. Pure: the gate
 * stage and the tickets stage both judge through it.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

static int matches_any(const struct br_strlist *patterns, const char *name)
{
	for (size_t i = 0; i < patterns->n; i++)
		if (!fnmatch(patterns->items[i], name, 0))
			return 1;
	return 0;
}

static int has_exact(const struct br_strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i], s))
			return 1;
	return 0;
}

int val_gate_is_required(const struct prof_profile *profile, const char *name)
{
	struct br_strlist expected = { 0 };
	int required;

	if (!profile || !profile->hw.gate_required.n || matches_any(&profile->hw.gate_required, name))
		return 1;
	/* A [gate] required list adds to what the profile's expectations
	 * give; it cannot take one away: a profile that says [gpu] count = 8
	 * and lists only cabling still has its GPUs judged. */
	val_checks_expected(profile, &expected);
	required = matches_any(&expected, name);
	br_strlist_release(&expected);
	return required;
}

int val_gate_is_optional(const struct prof_profile *profile, const char *name)
{
	return profile && matches_any(&profile->hw.gate_optional, name);
}

void val_gate_required_set(const struct prof_profile *profile, struct br_strlist *out)
{
	struct br_strlist expected = { 0 };

	if (!profile)
		return;
	val_checks_expected(profile, &expected);
	for (size_t i = 0; i < expected.n; i++)
		br_strlist_add(out, expected.items[i]);
	for (size_t i = 0; i < profile->hw.gate_required.n; i++)
		if (!has_exact(&expected, profile->hw.gate_required.items[i]))
			br_strlist_add(out, profile->hw.gate_required.items[i]);
	br_strlist_release(&expected);
}

/* Checks judged before PXE from what the BMC saw, each with the check
 * that judges the same thing in band. Where the BMC could not tell
 * (unknown: it shows no neighbours), the in-band check decides, held to
 * the profile as it always was: the early unknown alone blocks nothing. */
static const struct {
	const char *early, *in_band;
} decided_later[] = {
	{ "cabling_bmc", "cabling" },
};

static int is_early(const char *name)
{
	for (size_t d = 0; d < sizeof(decided_later) / sizeof(decided_later[0]); d++)
		if (!strcmp(name, decided_later[d].early))
			return 1;
	return 0;
}

int val_gate_early_failure(const struct val_check *checks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (checks[i].result == VAL_FAIL && is_early(checks[i].name))
			return 1;
	return 0;
}

size_t val_gate_failing(const struct prof_profile *profile, const struct val_check *checks, size_t n,
			int *failing, char **ret_missing)
{
	struct br_strlist required = { 0 };
	struct br_buf missing;
	size_t count = 0;

	br_buf_init(&missing, 0);
	for (size_t i = 0; i < n; i++) {
		/* A failure is evidence of a fault wherever it was found,
		 * required, optional or neither; only an unknown may be
		 * excused, by being optional or not required, or, for a check
		 * judged before PXE, by the in-band check deciding. */
		failing[i] =
		    checks[i].result == VAL_FAIL ||
		    (!is_early(checks[i].name) && checks[i].result != VAL_PASS &&
		     val_gate_is_required(profile, checks[i].name) &&
		     !(checks[i].result == VAL_UNKNOWN && val_gate_is_optional(profile, checks[i].name)));
		count += (size_t)failing[i];
	}
	/* Every check the profile requires (by name, or at least one of a
	 * pattern) must have run: what was not checked is not proven. */
	val_gate_required_set(profile, &required);
	/* stopped before PXE on a cable: the in-band checks never could run */
	if (val_gate_early_failure(checks, n))
		br_strlist_release(&required);
	for (size_t r = 0; r < required.n; r++) {
		const char *want = required.items[r];
		int seen = 0;

		for (size_t i = 0; i < n && !seen; i++)
			seen = !fnmatch(want, checks[i].name, 0);
		if (!seen && !val_gate_is_optional(profile, want))
			br_buf_addf(&missing, "%s%s", missing.len ? ", " : "", want);
	}
	br_strlist_release(&required);
	/* A node with no verdicts at all has proven nothing. */
	if (!n && !missing.len)
		br_buf_addf(&missing, "no check results");
	*ret_missing = missing.len ? br_buf_detach(&missing) : NULL;
	br_buf_release(&missing);
	return count + (*ret_missing != NULL);
}

char *val_gate_optional_unknown(const struct prof_profile *profile, const struct val_check *checks, size_t n)
{
	struct br_buf b;

	br_buf_init(&b, 0);
	for (size_t i = 0; i < n; i++)
		if (checks[i].result == VAL_UNKNOWN && val_gate_is_optional(profile, checks[i].name))
			br_buf_addf(&b, "%s%s", b.len ? ", " : "", checks[i].name);
	if (!b.len) {
		br_buf_release(&b);
		return NULL;
	}
	return br_buf_detach(&b);
}
