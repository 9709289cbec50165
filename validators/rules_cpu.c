/* cpufreq: every core may reach its rated clock and runs an allowed
 * governor (cpufreq_capped: the field found cores capped at 2 GHz). */
#include <stdlib.h>
#include <string.h>

#include "rules_node_private.h"

#define RATED_FRACTION 0.95

/* CPU numbers as ranges ("0-3,8"), in the order the probe lists them. */
struct cpu_set {
	struct br_buf text;
	long first, last;
	size_t n;
	int64_t low_khz; /* lowest value seen among them; -1 none */
};

static void set_init(struct cpu_set *s)
{
	br_buf_init(&s->text, VAL_DETAIL_MAX);
	s->first = s->last = -2;
	s->n = 0;
	s->low_khz = -1;
}

static void set_flush(struct cpu_set *s)
{
	if (s->first < 0)
		return;
	br_buf_addf(&s->text, "%s%ld", s->text.len ? "," : "", s->first);
	if (s->last != s->first)
		br_buf_addf(&s->text, "-%ld", s->last);
}

static void set_add(struct cpu_set *s, long cpu, int64_t khz)
{
	if (cpu != s->last + 1 || s->first < 0) {
		set_flush(s);
		s->first = cpu;
	}
	s->last = cpu;
	s->n++;
	if (khz >= 0 && (s->low_khz < 0 || khz < s->low_khz))
		s->low_khz = khz;
}

static const char *set_str(struct cpu_set *s)
{
	set_flush(s);
	s->first = -2;
	return br_buf_str(&s->text);
}

static int governor_allowed(const struct prof_profile *p, const char *gov)
{
	if (!p->hw.governors.n)
		return 1;
	for (size_t i = 0; gov && i < p->hw.governors.n; i++)
		if (!strcmp(p->hw.governors.items[i], gov))
			return 1;
	return 0;
}

struct cpu_tally {
	struct cpu_set soft, hard, gov, unreadable;
	const char *bad_gov;
	size_t judged;
	int64_t rated_khz_low; /* lowest rated value used, for the summary */
};

static void judge_core(const struct prof_profile *p, json_t *core, struct cpu_tally *t)
{
	long cpu = (long)br_json_int(core, "cpu", -1);
	int64_t smax = br_json_int(core, "scaling_max_freq_khz", -1),
		imax = br_json_int(core, "cpuinfo_max_freq_khz", -1);
	int64_t rated = p->hw.cpu_rated_mhz > 0 ? (int64_t)p->hw.cpu_rated_mhz * 1000 : imax;
	const char *gov = br_json_str(core, "scaling_governor");

	if (smax < 0 || rated <= 0) {
		set_add(&t->unreadable, cpu, -1);
		return;
	}
	t->judged++;
	if (t->rated_khz_low < 0 || rated < t->rated_khz_low)
		t->rated_khz_low = rated;
	/* The hardware's own ceiling below rated is the BIOS (turbo off, a power
	 * profile); a ceiling the OS set lower still is a software cap. */
	if (imax >= 0 && imax < RATED_FRACTION * rated)
		set_add(&t->hard, cpu, imax);
	else if (smax < RATED_FRACTION * rated)
		set_add(&t->soft, cpu, smax);
	if (!governor_allowed(p, gov)) {
		set_add(&t->gov, cpu, -1);
		t->bad_gov = gov ? gov : "none";
	}
}

static void knobs(struct val_evidence *e, json_t *cpu)
{
	int64_t no_turbo = br_json_int(cpu, "intel_pstate/no_turbo", -1);
	int64_t max_perf = br_json_int(cpu, "intel_pstate/max_perf_pct", -1),
		boost = br_json_int(cpu, "boost", -1);

	if (no_turbo == 1)
		val_ev_add(e, VAL_FAIL,
			   "intel_pstate/no_turbo is 1: turbo is off, no core reaches its rated clock");
	if (max_perf >= 0 && max_perf < RATED_FRACTION * 100)
		val_ev_add(e, VAL_FAIL,
			   "intel_pstate/max_perf_pct is %lld: cores capped at %lld%% of their maximum",
			   (long long)max_perf, (long long)max_perf);
	if (boost == 0)
		val_ev_add(e, VAL_FAIL, "cpufreq/boost is 0: boost is off, no core reaches its rated clock");
}

void val_rule_cpufreq(struct val_node_ctx *c)
{
	struct val_evidence e;
	struct cpu_tally t;
	struct cpu_set *sets[] = { &t.soft, &t.hard, &t.gov, &t.unreadable };
	const char *rated_from = c->p->hw.cpu_rated_mhz > 0 ? "the profile's rated_mhz" : "cpuinfo_max_freq";
	char *why = NULL;
	json_t *cpu = val_probe_section(c, "cpu", &why), *cores = json_object_get(cpu, "cores"), *core;
	size_t i, listed = json_array_size(cores);

	val_ev_init(&e);
	memset(&t, 0, sizeof(t));
	t.rated_khz_low = -1;
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		set_init(sets[i]);
	json_array_foreach(cores, i, core) if (json_is_object(core) && !br_json_str(core, "cpufreq"))
	    judge_core(c->p, core, &t);
	knobs(&e, cpu);
	if (t.soft.n)
		val_ev_add(&e, VAL_FAIL,
			   "cores %s (%zu of %zu): scaling_max_freq as low as %lld MHz, below 95%% of rated "
			   "%lld MHz "
			   "(%s): capped by software (cpufreq limits, a tuning daemon)",
			   set_str(&t.soft), t.soft.n, listed, (long long)(t.soft.low_khz / 1000),
			   (long long)(t.rated_khz_low / 1000), rated_from);
	if (t.hard.n)
		val_ev_add(&e, VAL_FAIL,
			   "cores %s (%zu of %zu): cpuinfo_max_freq as low as %lld MHz, below 95%% of rated "
			   "%lld MHz "
			   "(%s): the BIOS limits them (turbo or power profile)",
			   set_str(&t.hard), t.hard.n, listed, (long long)(t.hard.low_khz / 1000),
			   (long long)(t.rated_khz_low / 1000), rated_from);
	if (t.gov.n) {
		struct br_buf allowed;

		br_buf_init(&allowed, VAL_DETAIL_MAX);
		for (i = 0; i < c->p->hw.governors.n; i++)
			br_buf_addf(&allowed, "%s%s", i ? ", " : "", c->p->hw.governors.items[i]);
		val_ev_add(&e, VAL_FAIL, "cores %s (%zu of %zu): governor '%s', allowed: %s", set_str(&t.gov),
			   t.gov.n, listed, t.bad_gov, br_buf_str(&allowed));
		br_buf_release(&allowed);
	}
	if (t.unreadable.n)
		val_ev_add(&e, VAL_UNKNOWN,
			   "cores %s (%zu of %zu): scaling_max_freq or the rated clock unreadable",
			   set_str(&t.unreadable), t.unreadable.n, listed);
	if (!t.judged && !t.unreadable.n)
		val_ev_add(&e, VAL_UNKNOWN, "%s",
			   why	    ? why
			   : listed ? "no core has cpufreq in sysfs (a VM, or cpufreq disabled)"
				    : "the probe lists no CPU cores");
	else if (e.result == VAL_PASS)
		val_ev_add(&e, VAL_PASS, "%zu cores may reach at least 95%% of rated %lld MHz (%s)%s%s",
			   t.judged, (long long)(t.rated_khz_low / 1000), rated_from,
			   c->p->hw.governors.n ? ", governor " : "",
			   c->p->hw.governors.n ? c->p->hw.governors.items[0] : "");
	val_ev_emit(c, "cpufreq", &e);
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		br_buf_release(&sets[i]->text);
	free(why);
}
