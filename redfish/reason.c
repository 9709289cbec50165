/*
 * reason — turn a failed HTTP answer into the one line a technician reads:
 * "HTTP 401 on https://10.0.0.5/redfish/v1/SessionService/Sessions:
 * Base.1.12.InsufficientPrivilege". The Redfish error body (DSP0266
 * "error" object) says the most; the reason phrase is the last resort.
 */
#include <string.h>

#include "rf_private.h"

/* Error bodies are small; a huge one is not worth parsing for a reason. */
#define RF_ERROR_BODY_MAX (64u * 1024)

char *rf_error_message_id(const char *body, size_t len)
{
	json_t *doc, *info;
	const char *id;
	char *ret = NULL;

	if (!body || !len || len > RF_ERROR_BODY_MAX)
		return NULL;
	doc = br_json_parse(body, len, RF_ERROR_BODY_MAX, NULL);
	if (!doc)
		return NULL;
	info = br_json_path(doc, "error/@Message.ExtendedInfo");
	id = json_is_array(info) ? br_json_str(json_array_get(info, 0), "MessageId") : NULL;
	if (!id)
		id = br_json_str(doc, "error/code");
	if (id && *id)
		ret = br_xstrdup(id);
	json_decref(doc);
	return ret;
}

/* One ExtendedInfo array: the first PasswordChangeRequired's URI. */
static char *change_uri_in(json_t *info)
{
	size_t i;
	json_t *m;

	json_array_foreach(info, i, m)
	{
		const char *id = br_json_str(m, "MessageId");
		const char *dot = id ? strrchr(id, '.') : NULL;
		json_t *args = json_object_get(m, "MessageArgs");

		if (dot && !strcmp(dot + 1, "PasswordChangeRequired") &&
		    json_is_string(json_array_get(args, 0)))
			return br_xstrdup(json_string_value(json_array_get(args, 0)));
	}
	return NULL;
}

char *rf_password_change_uri(const char *body, size_t len)
{
	json_t *doc;
	char *ret;

	if (!body || !len || len > RF_ERROR_BODY_MAX)
		return NULL;
	doc = br_json_parse(body, len, RF_ERROR_BODY_MAX, NULL);
	ret = change_uri_in(json_object_get(doc, "@Message.ExtendedInfo"));
	if (!ret)
		ret = change_uri_in(br_json_path(doc, "error/@Message.ExtendedInfo"));
	json_decref(doc);
	return ret;
}

void rf_http_error_reason(struct br_buf *out, long status, const char *url, const char *body, size_t body_len,
			  const char *status_text)
{
	char *mid = rf_error_message_id(body, body_len);
	const char *why = mid;

	if (!why)
		why = status_text && *status_text ? status_text : br_http_status_phrase(status);
	br_buf_addf(out, "HTTP %ld on %s", status, url);
	if (why)
		br_buf_addf(out, ": %s", why);
	free(mid);
}
