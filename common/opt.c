/* Option parsing over getopt_long, with --help generated from the table. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define OPT_MAX 64

void br_strlist_add(struct br_strlist *l, const char *s)
{
	/* Capacity doubles at 8, 16, 32, ...: a list of 100,000 problems or
	 * MACs grows in amortized constant time without a capacity field. */
	if (l->n == 0 || (l->n >= 8 && !(l->n & (l->n - 1))))
		l->items = br_xrealloc(l->items, (l->n ? 2 * l->n : 8) * sizeof(*l->items));
	l->items[l->n++] = br_xstrdup(s);
}

void br_strlist_release(struct br_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

/* The options every stage shares, bound to a struct br_common_opts. */
static size_t common_table(struct br_common_opts *c, struct br_option *out)
{
	const struct br_option tbl[] = {
		{ "db", 0, BR_OPT_STRING, &c->db, "PATH",
		  "inventory database (default $BRINGUP_DB or ./bringup.db)" },
		{ "json", 0, BR_OPT_FLAG, &c->json, NULL, "machine-readable output on stdout" },
		{ "verbose", 'v', BR_OPT_FLAG, &c->verbose, NULL, "more log detail (repeat for debug)" },
		{ "quiet", 'q', BR_OPT_FLAG, &c->quiet, NULL, "only errors on stderr, no progress" },
		{ "force", 0, BR_OPT_FLAG, &c->force, NULL,
		  "take the named nodes whatever their state (their history says forced)" },
	};

	memcpy(out, tbl, sizeof(tbl));
	return sizeof(tbl) / sizeof(tbl[0]);
}

static size_t collect(const struct br_command *cmd, struct br_option *all)
{
	size_t n = 0;

	for (const struct br_option *o = cmd->options; o && o->name && n < OPT_MAX - 8; o++)
		all[n++] = *o;
	if (cmd->common)
		n += common_table(cmd->common, all + n);
	return n;
}

void br_opt_help(const struct br_command *cmd, FILE *f)
{
	struct br_option all[OPT_MAX];
	size_t n = collect(cmd, all);

	fprintf(f, "usage: %s %s\n\n", cmd->name, cmd->usage ? cmd->usage : "[options]");
	if (cmd->summary)
		fprintf(f, "%s\n\n", cmd->summary);
	fprintf(f, "options:\n");
	for (size_t i = 0; i < n; i++) {
		char left[96];

		/* "-k, --insecure" or "    --db PATH": long names line up. */
		if (all[i].short_name)
			snprintf(left, sizeof(left), "-%c, --%s", all[i].short_name, all[i].name);
		else
			snprintf(left, sizeof(left), "    --%s", all[i].name);
		if (all[i].argname)
			snprintf(left + strlen(left), sizeof(left) - strlen(left), " %s", all[i].argname);
		fprintf(f, "  %-28s %s\n", left, all[i].help);
	}
	fprintf(f, "  %-28s %s\n", "-h, --help", "show this help and exit");
}

json_t *br_opt_table_json(const struct br_command *cmd)
{
	struct br_option all[OPT_MAX];
	size_t n = collect(cmd, all);
	json_t *list = json_array();

	for (size_t i = 0; i < n; i++) {
		char short_name[2] = { (char)all[i].short_name, '\0' };

		json_array_append_new(list, json_pack("{s:s, s:s?, s:b}", "name", all[i].name, "short",
						      all[i].short_name ? short_name : NULL, "argument",
						      all[i].type != BR_OPT_FLAG));
	}
	return json_pack("{s:s, s:o}", "command", cmd->name, "options", list);
}

enum br_opt_result br_opt_parse(const struct br_command *cmd, int argc, char **argv, int *ret_argi)
{
	struct br_option all[OPT_MAX];
	struct option lopts[OPT_MAX + 1];
	char shorts[OPT_MAX * 2 + 4];
	size_t n = collect(cmd, all), ns = 0;
	int c, idx;

	memset(lopts, 0, sizeof(lopts));
	shorts[ns++] = '+'; /* stop at the first operand */
	shorts[ns++] = ':';
	shorts[ns++] = 'h';
	for (size_t i = 0; i < n; i++) {
		lopts[i].name = all[i].name;
		lopts[i].has_arg = all[i].type == BR_OPT_FLAG ? no_argument : required_argument;
		lopts[i].val = 256 + (int)i;
		if (all[i].short_name) {
			shorts[ns++] = (char)all[i].short_name;
			if (all[i].type != BR_OPT_FLAG)
				shorts[ns++] = ':';
		}
	}
	lopts[n].name = "help";
	lopts[n].val = 'h';
	shorts[ns] = '\0';
	if (cmd->common && !cmd->common->db) {
		const char *env = getenv("BRINGUP_DB");

		cmd->common->db = env && *env ? env : "bringup.db";
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lopts, &idx)) != -1) {
		struct br_option *o = NULL;

		if (c == 'h') {
			br_opt_help(cmd, stdout);
			return BR_OPT_EXIT_OK;
		}
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];

			fprintf(stderr, "%s: %s '%s'\n%s: try '%s --help'\n", cmd->name,
				c == ':' ? "missing argument for" : "unknown option", bad, cmd->name,
				cmd->name);
			return BR_OPT_EXIT_USAGE;
		}
		if (c >= 256)
			o = &all[c - 256];
		else
			for (size_t i = 0; i < n; i++)
				if (all[i].short_name == c)
					o = &all[i];
		if (!o)
			return BR_OPT_EXIT_USAGE;
		switch (o->type) {
		case BR_OPT_FLAG:
			(*(int *)o->value)++;
			break;
		case BR_OPT_STRING:
			*(const char **)o->value = optarg;
			break;
		case BR_OPT_INT: {
			long v;

			if (br_parse_long(optarg, -2147483647L, 2147483647L, &v)) {
				fprintf(stderr, "%s: --%s: '%s' is not an integer\n", cmd->name, o->name,
					optarg);
				return BR_OPT_EXIT_USAGE;
			}
			*(int *)o->value = (int)v;
			break;
		}
		case BR_OPT_LIST:
			br_strlist_add(o->value, optarg);
			break;
		}
	}
	if (cmd->common) {
		enum br_log_level lvl = BR_LOG_WARN;

		if (cmd->common->verbose == 1)
			lvl = BR_LOG_INFO;
		else if (cmd->common->verbose > 1)
			lvl = BR_LOG_DEBUG;
		if (cmd->common->quiet)
			lvl = BR_LOG_ERROR;
		br_log_set_level(lvl);
	}
	*ret_argi = optind;
	return BR_OPT_OK;
}
