/* Rendering templates/cloud-init/user-data for one node, checking that what
 * MAAS will hand cloud-init is a YAML mapping (libyaml), and base64. */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "enlist.h"

/* A YAML double-quoted scalar: JSON string syntax is valid YAML. */
static int add_quoted(struct br_buf *out, const char *s)
{
	json_t *j = json_string(s);
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	int rc = text ? br_buf_adds(out, text) : BR_E_INVAL;

	free(text);
	json_decref(j);
	return rc;
}

/* An empty list whose placeholder stands alone on its line under a
 * "key:" line: both lines are left out (cloud-init's schema refuses an
 * empty ssh_authorized_keys: minItems 1; the key left out adds none).
 * Returns how many template bytes past the placeholder were consumed (its
 * newline), or -1 when the list cannot be dropped so (then "[]"). */
static long drop_empty_key(struct br_buf *out, const char *line, const char *p, size_t name_len)
{
	size_t indent = (size_t)(p - line), end, start, key_indent;
	const char *after = p + name_len;

	if (line + strspn(line, " ") != p || (*after != '\n' && *after))
		return -1;
	/* out ends with this line's indent, after the key line's newline */
	if (out->len < indent + 2 || out->data[out->len - indent - 1] != '\n')
		return -1;
	end = out->len - indent - 1;
	for (start = end; start > 0 && out->data[start - 1] != '\n'; start--)
		;
	key_indent = strspn(out->data + start, " ");
	if (key_indent >= indent || end < 2 || out->data[end - 1] != ':' ||
	    out->data[start + key_indent] == '#' || out->data[start + key_indent] == '-')
		return -1;
	out->len = start;
	out->data[start] = '\0';
	return *after ? 1 : 0;
}

/* "- item" lines; continuation lines get the placeholder's column. */
static int add_list(struct br_buf *out, char *const *items, size_t n, size_t indent)
{
	int rc = 0;

	if (!n)
		return br_buf_adds(out, "[]");
	for (size_t i = 0; i < n && !rc; i++) {
		if (i) {
			rc = br_buf_adds(out, "\n");
			for (size_t k = 0; k < indent && !rc; k++)
				rc = br_buf_adds(out, " ");
		}
		if (!rc)
			rc = br_buf_adds(out, "- ");
		if (!rc)
			rc = add_quoted(out, items[i]);
	}
	return rc;
}

static int render(const char *tpl, const struct stg_enlist_userdata_vars *v, struct br_buf *out)
{
	const char *first_ntp = v->ntp_servers->n ? v->ntp_servers->items[0] : "ntp.ubuntu.com";
	const char *line = tpl;
	int rc = 0;

	for (const char *p = tpl; *p && !rc; p++) {
		size_t indent = (size_t)(p - line);

		if (*p == '\n')
			line = p + 1;
		/* Comment lines are copied as they are: a list expanded inside a
		 * comment put its second item on a line of its own, outside the
		 * comment, and broke the whole document. */
		if (*p != '@' || line[strspn(line, " \t")] == '#') {
			rc = br_buf_add(out, p, 1);
		} else if (!strncmp(p, "@HOSTNAME@", 10)) {
			rc = br_buf_adds(out, v->hostname);
			p += 9;
		} else if (!strncmp(p, "@NTP_FIRST@", 11)) {
			rc = add_quoted(out, first_ntp);
			p += 10;
		} else if (!strncmp(p, "@NTP_SERVERS@", 13)) {
			rc = add_list(out, v->ntp_servers->items, v->ntp_servers->n, indent);
			p += 12;
		} else if (!strncmp(p, "@SSH_AUTHORIZED_KEYS@", 21)) {
			long skip = v->ssh_pubkeys->n ? -1 : drop_empty_key(out, line, p, 21);

			if (skip < 0)
				rc = add_list(out, v->ssh_pubkeys->items, v->ssh_pubkeys->n, indent);
			p += 20 + (skip > 0 ? skip : 0);
			if (skip > 0)
				line = p + 1;
		} else if (!strncmp(p, "@PACKAGES@", 10)) {
			rc = add_list(out, v->packages->items, v->packages->n, indent);
			p += 9;
		} else {
			rc = br_buf_add(out, p, 1);
		}
	}
	return rc;
}

/* Parse the rendered text as cloud-init will: one YAML document whose top
 * node is a mapping. Names the line and column of the first problem. */
static int check_yaml(const char *text, size_t len, const char *hostname, struct br_err *err)
{
	yaml_parser_t parser;
	yaml_event_t event;
	int depth = 0, documents = 0, rc = 0, done = 0;

	if (!yaml_parser_initialize(&parser))
		return br_errf(err, BR_E_NOMEM, "user-data for %s: cannot start the YAML parser", hostname);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done && !rc) {
		if (!yaml_parser_parse(&parser, &event)) {
			rc = br_errf(err, BR_E_INVAL, "user-data for %s: line %zu, column %zu: %s", hostname,
				     parser.problem_mark.line + 1, parser.problem_mark.column + 1,
				     parser.problem ? parser.problem : "invalid YAML");
			break;
		}
		switch (event.type) {
		case YAML_DOCUMENT_START_EVENT:
			documents++;
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
		case YAML_SCALAR_EVENT:
			if (depth == 0 && event.type != YAML_MAPPING_START_EVENT)
				rc = br_errf(err, BR_E_INVAL,
					     "user-data for %s: line %zu: the document is not a mapping",
					     hostname, event.start_mark.line + 1);
			if (event.type != YAML_SCALAR_EVENT)
				depth++;
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&event);
	}
	if (!rc && documents != 1)
		rc = br_errf(err, BR_E_INVAL, "user-data for %s: %d YAML documents, want one", hostname,
			     documents);
	yaml_parser_delete(&parser);
	return rc;
}

int stg_enlist_render_userdata(const char *template_path, const struct stg_enlist_userdata_vars *vars,
			       char **ret_text, struct br_err *err)
{
	struct br_buf out;
	char *tpl = NULL;
	size_t len;
	int rc;

	rc = br_read_file(template_path, STG_ENLIST_USER_DATA_MAX, &tpl, &len, err);
	if (rc)
		return br_err_prefix(err, "user-data template");
	br_buf_init(&out, STG_ENLIST_USER_DATA_MAX);
	rc = render(tpl, vars, &out);
	free(tpl);
	if (rc) {
		br_buf_release(&out);
		return br_errf(err, rc, "user-data for %s: larger than %u bytes once rendered",
			       vars->hostname, STG_ENLIST_USER_DATA_MAX);
	}
	if (!out.data || strncmp(out.data, "#cloud-config\n", 14)) {
		br_buf_release(&out);
		return br_errf(err, BR_E_INVAL,
			       "user-data template %s: the first line must be '#cloud-config'",
			       template_path);
	}
	rc = check_yaml(out.data, out.len, vars->hostname, err);
	if (rc) {
		br_buf_release(&out);
		return br_err_prefix(err, "%s", template_path);
	}
	*ret_text = br_buf_detach(&out);
	return 0;
}

char *stg_enlist_base64(const char *data, size_t len)
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = br_xmalloc((len + 2) / 3 * 4 + 1), *o = out;
	const unsigned char *in = (const unsigned char *)data;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		*o++ = alphabet[(v >> 18) & 63];
		*o++ = alphabet[(v >> 12) & 63];
		*o++ = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
		*o++ = i + 2 < len ? alphabet[v & 63] : '=';
	}
	*o = '\0';
	return out;
}
