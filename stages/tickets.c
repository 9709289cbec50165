/* The tickets stage: faults found, tickets kept, printed for the aisle. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "tickets.h"

/* ---- actions.conf ------------------------------------------------------------ */

static char *trimmed(const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	return br_xstrndup(s, len);
}

int stg_tickets_actions_parse(const char *file, const char *text, struct stg_tickets_actions *ret,
			      struct br_err *err)
{
	struct stg_tickets_actions a = { 0 };
	unsigned line = 0;
	int rc = 0;

	while (*text && !rc) {
		size_t len = strcspn(text, "\n");
		char *l = trimmed(text, len);
		char *eq = strchr(l, '=');

		line++;
		if (*l && *l != '#') {
			char *name = eq ? trimmed(l, (size_t)(eq - l)) : NULL;
			char *value = eq ? trimmed(eq + 1, strlen(eq + 1)) : NULL;

			if (!eq || !*name || !*value)
				rc =
				    br_errf(err, BR_E_INVAL, "%s:%u: want 'fault = action text'", file, line);
			else if (a.n >= STG_TICKETS_ACTIONS_MAX)
				rc = br_errf(err, BR_E_TOOBIG, "%s:%u: more than %d actions", file, line,
					     STG_TICKETS_ACTIONS_MAX);
			if (!rc) {
				a.items = br_xrealloc(a.items, (a.n + 1) * sizeof(*a.items));
				a.items[a.n++] = (struct stg_tickets_action){ name, value };
			} else {
				free(name);
				free(value);
			}
		}
		free(l);
		text += len + (text[len] == '\n');
	}
	if (rc) {
		stg_tickets_actions_release(&a);
		return rc;
	}
	*ret = a;
	return 0;
}

int stg_tickets_actions_load(const char *templates_dir, struct stg_tickets_actions *ret, struct br_err *err)
{
	char *path = br_xasprintf("%s/tickets/actions.conf", templates_dir), *text = NULL;
	size_t len;
	int rc = br_read_file(path, STG_TICKETS_ACTIONS_FILE_MAX, &text, &len, err);

	if (!rc)
		rc = stg_tickets_actions_parse(path, text, ret, err);
	free(text);
	free(path);
	return rc;
}

void stg_tickets_actions_release(struct stg_tickets_actions *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->items[i].fault);
		free(a->items[i].text);
	}
	free(a->items);
	memset(a, 0, sizeof(*a));
}

/* ---- rendering ----------------------------------------------------------------- */

char *stg_tickets_location(const char *rack, int unit)
{
	return br_xasprintf("rack %s U%d", rack ? rack : "?", unit);
}

static void add_var(struct br_buf *b, const struct stg_tickets_vars *v, const char *name, size_t len)
{
	const char *ev = v->evidence ? v->evidence : "";
	const char *colon;

#define IS(s) (len == strlen(s) && !memcmp(name, s, len))
	if (IS("hostname"))
		br_buf_adds(b, v->hostname ? v->hostname : "?");
	else if (IS("rack"))
		br_buf_adds(b, v->rack ? v->rack : "?");
	else if (IS("unit"))
		br_buf_addf(b, "%d", v->unit);
	else if (IS("location"))
		br_buf_addf(b, "rack %s U%d", v->rack ? v->rack : "?", v->unit);
	else if (IS("bmc"))
		br_buf_adds(b, v->bmc ? v->bmc : "?");
	else if (IS("serial"))
		br_buf_adds(b, v->serial ? v->serial : "?");
	else if (IS("service_tag"))
		br_buf_adds(b, v->service_tag ? v->service_tag : "?");
	else if (IS("fault"))
		br_buf_adds(b, v->fault ? v->fault : "?");
	else if (IS("evidence"))
		br_buf_adds(b, *ev ? ev : "?");
	else if (IS("part"))
		br_buf_addf(b, "%.*s", (int)((colon = strstr(ev, ": ")) ? (size_t)(colon - ev) : strlen(ev)),
			    ev);
	else if (IS("component"))
		br_buf_adds(b, v->fault && strchr(v->fault, ':') ? strchr(v->fault, ':') + 1 : "?");
	else
		br_buf_addf(b, "{%.*s}", (int)len, name);
#undef IS
}

char *stg_tickets_render(const struct stg_tickets_actions *a, const struct stg_tickets_vars *v)
{
	const char *text = NULL;
	struct br_buf b;

	for (size_t i = 0; i < a->n && !text; i++)
		if (v->fault && !fnmatch(a->items[i].fault, v->fault, 0))
			text = a->items[i].text;
	for (size_t i = 0; i < a->n && !text; i++)
		if (!strcmp(a->items[i].fault, "default"))
			text = a->items[i].text;
	br_buf_init(&b, STG_TICKETS_TEXT_MAX);
	while (text && *text) {
		const char *close = *text == '{' ? strchr(text, '}') : NULL;

		if (close) {
			add_var(&b, v, text + 1, (size_t)(close - text - 1));
			text = close + 1;
		} else {
			br_buf_addf(&b, "%c", *text++);
		}
	}
	if (!b.len)
		br_buf_addf(&b, "inspect %s for %s", v->hostname ? v->hostname : "?",
			    v->fault ? v->fault : "?");
	return br_buf_detach(&b);
}

const char *stg_tickets_failure_fault(const struct inv_node *node)
{
	return br_fail_kind_name(node->failure_kind == BR_FAIL_NONE ? BR_FAIL_STAGE : node->failure_kind);
}

const char *stg_tickets_node_serial(const struct inv_node *node)
{
	if (!node)
		return NULL;
	if (node->system_serial && *node->system_serial)
		return node->system_serial;
	return node->expected_serial && *node->expected_serial ? node->expected_serial : NULL;
}
