/* Helpers every stage executable shares. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stage.h"

static int is_dir(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISDIR(sb.st_mode);
}

char *br_templates_dir(void)
{
	/* Relative to the executable: installed (PREFIX/bin), build/bin,
	 * build/asan/bin. */
	static const char *const rel[] = { "../share/bringup/templates", "../../templates", "../../../templates" };
	const char *env = getenv("BRINGUP_TEMPLATES");
	char *self, *found = NULL;

	if (env && *env)
		return br_xstrdup(env);
	self = br_self_dir();
	if (!self)
		return NULL;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]) && !found; i++) {
		char *p = br_xasprintf("%s/%s", self, rel[i]);

		char *real = is_dir(p) ? realpath(p, NULL) : NULL;

		free(p);
		found = real;
	}
	free(self);
	return found;
}

int br_stage_open_inventory(const char *path, struct inv **ret_inv)
{
	struct br_err err = { 0 };

	if (inv_open(path, ret_inv, &err)) {
		br_error("inventory", "%s", err.msg);
		return BR_EXIT_UNREACHABLE;
	}
	return 0;
}

int br_stage_select(struct inv *inv, int argc, char **argv, int argi, const int *states,
		    struct inv_node **ret_nodes, size_t *ret_n)
{
	struct br_err err = { 0 };
	struct inv_node *all = NULL, *pick;
	size_t n_all = 0, n = 0;

	if (inv_nodes_list(inv, &all, &n_all, &err)) {
		br_error("inventory", "%s", err.msg);
		return BR_EXIT_UNREACHABLE;
	}
	pick = br_xcalloc(n_all ? n_all : 1, sizeof(*pick));
	if (argi < argc) {
		for (int a = argi; a < argc; a++) {
			size_t i;

			for (i = 0; i < n_all; i++)
				if (all[i].hostname && !strcmp(all[i].hostname, argv[a]))
					break;
			if (i == n_all) {
				br_error("select", "no node named '%s' in the inventory", argv[a]);
				inv_nodes_free(all, n_all);
				inv_nodes_free(pick, n);
				return BR_EXIT_USAGE;
			}
			if (all[i].hostname) {
				pick[n++] = all[i];
				memset(&all[i], 0, sizeof(all[i]));
			}
		}
	} else {
		for (size_t i = 0; i < n_all; i++)
			for (const int *s = states; *s >= 0; s++)
				if ((int)all[i].state == *s) {
					pick[n++] = all[i];
					memset(&all[i], 0, sizeof(all[i]));
					break;
				}
	}
	inv_nodes_free(all, n_all);
	*ret_nodes = pick;
	*ret_n = n;
	return 0;
}

static int state_in(enum inv_state state, const int *states)
{
	for (const int *s = states; *s >= 0; s++)
		if ((int)state == *s)
			return 1;
	return 0;
}

int br_stage_lease(struct inv *inv, const char *stage, const int *states, struct inv_node *nodes, size_t *n)
{
	size_t kept = 0;
	int rc = 0;

	for (size_t i = 0; i < *n; i++) {
		struct br_err err = { 0 };
		struct inv_node fresh;

		if (!rc) {
			int took = inv_lease_take(inv, nodes[i].hostname, stage, INV_LEASE_TTL_S, &fresh, NULL, &err);

			if (took == BR_E_EXISTS) {
				br_warn("lease", "%s; skipped", err.msg);
			} else if (took) {
				br_error("inventory", "%s", err.msg);
				rc = BR_EXIT_UNREACHABLE;
			} else if (states && !state_in(fresh.state, states)) {
				br_info("lease", "%s: now '%s' (another run moved it); skipped", fresh.hostname,
					inv_state_name(fresh.state));
				inv_node_release(&fresh);
			} else {
				inv_node_release(&nodes[i]);
				nodes[kept++] = fresh;
				continue;
			}
		}
		inv_node_release(&nodes[i]);
	}
	*n = kept;
	return rc;
}

void br_stage_release(struct inv *inv)
{
	struct br_err err = { 0 };

	if (inv && inv_leases_give_back(inv, &err))
		br_error("inventory", "%s", err.msg);
}
