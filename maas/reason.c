/* Turning MAAS error answers into reasons a person can act on. */
#include <stdlib.h>
#include <string.h>

#include "maas_private.h"

/* Plain text on one line, capped: MAAS sometimes answers an HTML page. The
 * text is redacted before it is cut, so that a secret the server echoed
 * cannot leave its first characters at the cut. */
static void add_text(struct br_buf *out, const char *s, size_t len)
{
	char *line, *clean;
	size_t n;

	while (len && (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == '\t'))
		len--;
	line = br_xstrndup(s, len);
	for (char *p = line; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	clean = br_redact(line);
	n = strlen(clean);
	br_buf_add(out, clean, n < MAAS_REASON_MAX ? n : MAAS_REASON_MAX);
	if (n > MAAS_REASON_MAX)
		br_buf_adds(out, "...");
	free(clean);
	free(line);
}

/* {"field": ["msg", ...], "__all__": [...]} as "field: msg msg; msg". */
static void add_fields(struct br_buf *out, json_t *doc)
{
	const char *field;
	json_t *val;

	json_object_foreach(doc, field, val)
	{
		if (out->len)
			br_buf_adds(out, "; ");
		if (strcmp(field, "__all__"))
			br_buf_addf(out, "%s: ", field);
		if (json_is_string(val)) {
			add_text(out, json_string_value(val), json_string_length(val));
		} else if (json_is_array(val)) {
			size_t i;
			json_t *m;

			json_array_foreach(val, i, m)
			{
				if (i)
					br_buf_adds(out, " ");
				if (json_is_string(m))
					add_text(out, json_string_value(m), json_string_length(m));
			}
		}
	}
}

int maas_error_from_response(long status, const char *body, size_t len, const char *what, struct br_err *err)
{
	struct br_buf text;
	json_t *doc = NULL;
	int code;

	switch (status) {
	case 400:
		code = BR_E_INVAL;
		break;
	case 401:
	case 403:
		code = BR_E_AUTH;
		break;
	case 404:
		code = BR_E_NOTFOUND;
		break;
	case 409:
		code = BR_E_STATE;
		break;
	case 502:
	case 503:
	case 504:
		code = BR_E_UNREACHABLE;
		break;
	default:
		code = MAAS_E_HTTP;
		break;
	}
	br_buf_init(&text, 4 * MAAS_REASON_MAX);
	if (body && len && (body[0] == '{'))
		doc = br_json_parse_bounded(body, len, MAAS_BODY_MAX, MAAS_JSON_VALUES_MAX, NULL);
	if (json_is_object(doc))
		add_fields(&text, doc);
	else if (body)
		add_text(&text, body, len);
	json_decref(doc);
	if (br_redact_needed(br_buf_str(&text))) { /* a field name that echoes the request */
		char *clean = br_redact(br_buf_str(&text));

		br_buf_reset(&text);
		br_buf_adds(&text, clean);
		free(clean);
	}
	if (status == 401)
		br_errf(err, code, "MAAS refused the API key on %s (HTTP 401: %s)", what,
			text.len ? br_buf_str(&text) : "Unauthorized");
	else
		br_errf(err, code, "MAAS %s: HTTP %ld%s%s%s%s", what, status,
			br_http_status_phrase(status) ? " " : "",
			br_http_status_phrase(status) ? br_http_status_phrase(status) : "",
			text.len ? ": " : "", br_buf_str(&text));
	br_buf_release(&text);
	return code;
}
