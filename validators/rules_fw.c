/* The firmware policy: installed versions against the profile's minimums. */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <fnmatch.h>
#include <string.h>
#include <strings.h>

#include "rules_node_private.h"

/* One component of a version: up to '.', '-' or '_'. */
static size_t component_len(const char *s)
{
	return strcspn(s, ".-_");
}

static int all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return n > 0;
}

static int compare_component(const char *a, size_t na, const char *b, size_t nb)
{
	if (all_digits(a, na) && all_digits(b, nb)) {
		/* numerically, without overflow: skip leading zeros, then length, then digits */
		while (na > 1 && *a == '0')
			a++, na--;
		while (nb > 1 && *b == '0')
			b++, nb--;
		if (na != nb)
			return na < nb ? -1 : 1;
		return memcmp(a, b, na);
	}
	int c = strncasecmp(a, b, na < nb ? na : nb);

	if (c)
		return c;
	return na == nb ? 0 : (na < nb ? -1 : 1);
}

int val_version_cmp(const char *a, const char *b)
{
	for (;;) {
		size_t na = component_len(a), nb = component_len(b);
		int c;

		if (!*a || !*b)
			return !*a && !*b ? 0 : (!*a ? -1 : 1);
		c = compare_component(a, na, b, nb);
		if (c)
			return c < 0 ? -1 : 1;
		a += na;
		b += nb;
		if (*a)
			a++;
		if (*b)
			b++;
	}
}

/* "Installed-104327-28.39.1002__NIC.Slot.31-1-1" -> "NIC.Slot.31-1-1";
 * NULL for "Previous-…" (the version before the last update) and others. */
static const char *installed_fqdd(const char *id)
{
	const char *sep;

	if (!id || strncmp(id, "Installed-", 10))
		return NULL;
	sep = strstr(id, "__");
	return sep && sep[2] ? sep + 2 : NULL;
}

void val_fw_bmc_versions(const struct br_hw *bmc, const char *component, struct br_strlist *out)
{
	for (size_t i = 0; bmc && i < bmc->n_firmware; i++) {
		const struct br_firmware *f = &bmc->firmware[i];
		const char *fqdd = installed_fqdd(f->id);
		int seen = 0;

		if (!fqdd || !f->version || !*f->version || fnmatch(component, fqdd, 0))
			continue;
		for (size_t k = 0; k < out->n && !seen; k++)
			seen = !strcmp(out->items[k], f->version);
		if (!seen)
			br_strlist_add(out, f->version);
	}
}

int val_fw_device(struct val_evidence *e, const struct prof_fw_rule *rule, const struct br_strlist *bmc,
		  const char *who, const char *bdf, const char *what, const char *part, const char *running)
{
	struct br_buf shown;
	int agrees = !bmc->n;

	for (size_t k = 0; k < bmc->n && !agrees; k++)
		agrees = !strcmp(bmc->items[k], running);
	if (val_version_cmp(running, rule->min_version) < 0) {
		val_ev_add(
		    e, VAL_FAIL,
		    "%s: %s %s < %s (firmware policy %s): update it (bringup firmware) and power-cycle "
		    "the node",
		    who, what, running, rule->min_version, rule->component);
		val_blame_pci(e, bdf);
		return 0;
	}
	if (agrees)
		return 1;
	br_buf_init(&shown, 0);
	for (size_t k = 0; k < bmc->n; k++)
		br_buf_addf(&shown, "%s%s", k ? ", " : "", bmc->items[k]);
	val_ev_add(e, VAL_FAIL,
		   "%s: runs %s %s but the BMC's inventory shows %s for %s: an update flashed and the %s "
		   "not reset since (power-cycle the node: a warm reboot may not reload it), or the BMC "
		   "reads another part",
		   who, what, running, br_buf_str(&shown), rule->component, part);
	val_blame_pci(e, bdf);
	br_buf_release(&shown);
	return 0;
}

static void add(struct val_check **checks, size_t *n, const char *name, enum val_result result,
		char *detail_take)
{
	val_check_add_take(checks, n, br_xasprintf("firmware:%s", name), result, detail_take);
}

static void judge_rule(const struct prof_fw_rule *rule, const struct br_hw *hw, struct val_check **checks,
		       size_t *n)
{
	int matched = 0;

	for (size_t i = 0; i < hw->n_firmware; i++) {
		const struct br_firmware *f = &hw->firmware[i];
		const char *fqdd = installed_fqdd(f->id);
		int seen = 0, ok;

		if (!fqdd || fnmatch(rule->component, fqdd, 0))
			continue;
		/* a component two rules match is judged by the first */
		for (size_t k = 0; k < *n && !seen; k++)
			seen = !strcmp((*checks)[k].name + 9, fqdd);
		matched = 1;
		if (seen)
			continue;
		if (!f->version || !*f->version) {
			add(checks, n, fqdd, VAL_UNKNOWN,
			    br_xasprintf("%s: the BMC reports no version (policy: >= %s)", fqdd,
					 rule->min_version));
			continue;
		}
		ok = val_version_cmp(f->version, rule->min_version) >= 0;
		add(checks, n, fqdd, ok ? VAL_PASS : VAL_FAIL,
		    ok ? br_xasprintf("%s: %s >= %s", fqdd, f->version, rule->min_version)
		       : br_xasprintf("%s: %s < %s — update firmware", fqdd, f->version, rule->min_version));
	}
	if (!matched)
		add(checks, n, rule->component, VAL_UNKNOWN,
		    br_xasprintf("no installed firmware component matches %s (policy: >= %s)",
				 rule->component, rule->min_version));
}

void val_firmware_judge(const struct prof_profile *p, const struct br_hw *hw, struct val_check **ret_checks,
			size_t *ret_n)
{
	struct val_check *checks = NULL;
	size_t n = 0;

	if (p->n_firmware && hw->source && !strcmp(hw->source, "ipmi")) {
		/* one unknown, not one per rule: nothing was there to match */
		val_check_add_take(&checks, &n, br_xstrdup("firmware"), VAL_UNKNOWN,
				   br_xstrdup("no firmware inventory over IPMI; check versions by hand"));
	} else {
		for (size_t r = 0; r < p->n_firmware; r++)
			judge_rule(&p->firmware[r], hw, &checks, &n);
	}
	*ret_checks = checks;
	*ret_n = n;
}
