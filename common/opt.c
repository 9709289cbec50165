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
		{ "db", 0, BR_OPT_STRING, &c->db, "PATH|URI",
		  "inventory: a SQLite file or a PostgreSQL URI (postgresql://...) or service=NAME "
		  "(default $BRINGUP_DB or ./bringup.db)" },
		{ "json", 0, BR_OPT_FLAG, &c->json, NULL, "machine-readable output on stdout" },
		{ "verbose", 'v', BR_OPT_FLAG, &c->verbose, NULL, "more log detail (repeat for debug)" },
		{ "quiet", 'q', BR_OPT_FLAG, &c->quiet, NULL, "only errors on stderr, no progress" },
		{ "force", 0, BR_OPT_FLAG, &c->force, NULL,
		  "take the named nodes whatever their state (their history says forced)" },
		{ "log-format", 0, BR_OPT_STRING, &c->log_format, "text|json|journal",
		  "log lines as text, one JSON object each, or with journald priorities (default "
		  "$BRINGUP_LOG_FORMAT, else journal when stderr is the journal, else text)" },
		{ "zone", 0, BR_OPT_STRING, &c->zone, "ZONE",
		  "only the nodes of this zone, the manifest's zone column (default $BRINGUP_ZONE: "
		  "every zone)" },
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
	fprintf(f, "  %-28s %s\n", "    --version", "print the version and exit");
	fprintf(f, "\nOptions and operands may come in any order; '--' ends the options.\n");
}

static enum br_log_level level_of(int verbose, int quiet)
{
	if (quiet)
		return BR_LOG_ERROR;
	return verbose > 1 ? BR_LOG_DEBUG : verbose ? BR_LOG_INFO : BR_LOG_WARN;
}

void br_opt_log_level(int argc, char *const *argv)
{
	int verbose = 0, quiet = 0;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--verbose")) {
			verbose++;
		} else if (!strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (a[0] == '-' && a[1] && a[1] != '-' && !a[1 + strspn(a + 1, "vq")]) {
			/* -v, -vv, -qv: a cluster of these two flags only (a
			 * cluster with a letter taking a value is not read) */
			for (const char *c = a + 1; *c; c++) {
				verbose += *c == 'v';
				quiet |= *c == 'q';
			}
		}
	}
	br_log_set_level(level_of(verbose, quiet));
}

/* Edit distance with a swap of two neighbours as one edit ("--jsno"),
 * capped: names are short (an option, a command). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[65][65];

	if (la > 64 || lb > 64)
		return (size_t)-1;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
			size_t sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			d[i][j] = del < ins ? del : ins;
			if (sub < d[i][j])
				d[i][j] = sub;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	return d[la][lb];
}

const char *br_did_you_mean(const char *word, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1, len = strlen(word);

	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, candidates[i]);

		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	return best && best_d <= 2 && 2 * best_d < len ? best : NULL;
}

/* "unknown option '--jsno'; did you mean '--json'?" */
static void unknown_option(const struct br_command *cmd, const struct br_option *all, size_t n,
			   const char *bad)
{
	const char *names[OPT_MAX + 2], *near = NULL;
	size_t k = 0, len;

	if (!strncmp(bad, "--", 2)) {
		for (size_t i = 0; i < n; i++)
			names[k++] = all[i].name;
		names[k++] = "help";
		names[k++] = "version";
		len = strcspn(bad + 2, "=");
		{
			char *word = br_xasprintf("%.*s", (int)len, bad + 2);

			near = br_did_you_mean(word, names, k);
			free(word);
		}
	}
	fprintf(stderr, "%s: unknown option '%s'", cmd->name, bad);
	if (near)
		fprintf(stderr, "; did you mean '--%s'?", near);
	fprintf(stderr, "\n%s: try '%s --help'\n", cmd->name, cmd->name);
}

static int set_value(const struct br_command *cmd, const struct br_option *o, const char *arg)
{
	switch (o->type) {
	case BR_OPT_FLAG:
		(*(int *)o->value)++;
		break;
	case BR_OPT_STRING:
		*(const char **)o->value = arg;
		break;
	case BR_OPT_INT: {
		long v;

		if (br_parse_long(arg, -2147483647L, 2147483647L, &v)) {
			fprintf(stderr, "%s: --%s: '%s' is not an integer\n", cmd->name, o->name, arg);
			return -1;
		}
		*(int *)o->value = (int)v;
		break;
	}
	case BR_OPT_LIST:
		br_strlist_add(o->value, arg);
		break;
	}
	return 0;
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

/* --log-format, else $BRINGUP_LOG_FORMAT (bringup.conf's [log] format),
 * else journal when stderr is the journal's stream, else text: a value
 * neither text, json nor journal is the operator's to fix. */
static int log_format_set(const struct br_command *cmd)
{
	const char *env = getenv("BRINGUP_LOG_FORMAT");
	const char *name = cmd->common->log_format	? cmd->common->log_format
			   : env && *env		? env
			   : br_log_stderr_is_journal() ? "journal"
							: "text";
	enum br_log_format format;

	if (br_log_format_parse(name, &format)) {
		fprintf(stderr, "%s: %s '%s': want text, json or journal\n", cmd->name,
			cmd->common->log_format ? "--log-format" : "BRINGUP_LOG_FORMAT", name);
		return -1;
	}
	br_log_set_format(format);
	return 0;
}

enum br_opt_result br_opt_parse(const struct br_command *cmd, int argc, char **argv, int *ret_argi)
{
	struct br_option all[OPT_MAX];
	struct option lopts[OPT_MAX + 2];
	char shorts[OPT_MAX * 2 + 4];
	size_t n = collect(cmd, all), ns = 0, n_operands = 0;
	char **operands = br_xcalloc((size_t)argc + 1, sizeof(*operands));
	enum br_opt_result rc = BR_OPT_OK;
	int c, idx;

	memset(lopts, 0, sizeof(lopts));
	/* '-': every operand comes back in its place (as 1), so options after
	 * a hostname are options whatever POSIXLY_CORRECT says. */
	shorts[ns++] = '-';
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
	lopts[n + 1].name = "version";
	lopts[n + 1].val = 2; /* no short option */
	shorts[ns] = '\0';
	if (cmd->common && !cmd->common->db) {
		const char *env = getenv("BRINGUP_DB");

		cmd->common->db = env && *env ? env : "bringup.db";
	}
	if (cmd->common && !cmd->common->zone) {
		const char *env = getenv("BRINGUP_ZONE");

		cmd->common->zone = env && *env ? env : NULL;
	}
	optind = 1;
	opterr = 0;
	while (rc == BR_OPT_OK && (c = getopt_long(argc, argv, shorts, lopts, &idx)) != -1) {
		const struct br_option *o = NULL;

		if (c == 1) {
			operands[n_operands++] = optarg;
			continue;
		}
		if (c == 'h') {
			br_opt_help(cmd, stdout);
			rc = BR_OPT_EXIT_OK;
			break;
		}
		if (c == 2) {
			printf("%s %s\n", cmd->name, br_version());
			rc = BR_OPT_EXIT_OK;
			break;
		}
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];

			if (c == ':')
				fprintf(stderr, "%s: missing argument for '%s'\n%s: try '%s --help'\n",
					cmd->name, bad, cmd->name, cmd->name);
			else
				unknown_option(cmd, all, n, bad);
			rc = BR_OPT_EXIT_USAGE;
			break;
		}
		if (c >= 256)
			o = &all[c - 256];
		else
			for (size_t i = 0; i < n; i++)
				if (all[i].short_name == c)
					o = &all[i];
		if (!o || set_value(cmd, o, optarg))
			rc = BR_OPT_EXIT_USAGE;
	}
	if (rc != BR_OPT_OK) {
		free(operands);
		return rc;
	}
	/* After "--", the rest are operands as they stand. */
	for (int i = optind; i < argc; i++)
		operands[n_operands++] = argv[i];
	for (size_t i = 0; i < n_operands; i++)
		argv[(size_t)argc - n_operands + i] = operands[i];
	free(operands);
	if (cmd->common) {
		br_log_set_level(level_of(cmd->common->verbose, cmd->common->quiet));
		if (log_format_set(cmd))
			return BR_OPT_EXIT_USAGE;
	}
	*ret_argi = argc - (int)n_operands;
	return BR_OPT_OK;
}
