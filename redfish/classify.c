/*
 * classify — what an error answer means for the next attempt, from its
 * status and body alone: whether a BMC's MessageId asks for a retry (and
 * after how long), and whether a login was refused for want of a session
 * slot. A leaf: the transport (http.c) and the session layer (session.c)
 * both ask it, and it asks nobody above it, so redfish/ runs one way
 * (rf_private.h). Each MessageId is the vendor's, named beside it.
 */
#include <stdlib.h>
#include <string.h>

#include "rf_private.h"

/* MessageIds come bare ("RAC0218") or registry-qualified
 * ("IDRAC.2.8.RAC0218"). */
static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix) && (n == m || s[n - m - 1] == '.');
}

int rf_retry_hint(const char *message_id, long *ret_delay_ms)
{
	static const struct {
		const char *id;
		long delay_ms;
	} busy[] = {
		/* Dell iDRAC: "The maximum number of user sessions is reached";
		 * on a login not retried (rf_session_limit_reached), on other
		 * requests a slot frees as another client's request ends. */
		{ "RAC0218", 0 },
		/* Dell iDRAC: "iDRAC is not ready ... retry the operation after
		 * 30 seconds", right after an iDRAC reset. */
		{ "SYS518", 30000 },
	};

	for (size_t i = 0; message_id && i < sizeof(busy) / sizeof(busy[0]); i++)
		if (ends_with(message_id, busy[i].id)) {
			*ret_delay_ms = busy[i].delay_ms;
			return 1;
		}
	return 0;
}

int rf_session_limit_reached(long status, const char *body, size_t len)
{
	char *mid, *text;
	int full = 0;

	if (status < 400 || !body || !len)
		return 0;
	if ((mid = rf_error_message_id(body, len))) {
		full = strstr(mid, "RAC0218") || strstr(mid, "SessionLimitExceeded");
		free(mid);
	}
	if (!full) {
		/* other BMCs say it only in words; the body is capped already */
		text = br_xstrndup(body, len);
		for (char *p = text; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		full = strstr(text, "maximum number of") && strstr(text, "session");
		free(text);
	}
	return full;
}

int rf_context_refused(long status, const char *body, size_t len)
{
	char *text;
	int named;

	if (status != 400 || !body || !len)
		return 0;
	/* the property's name is in the Message or MessageArgs, whatever the
	 * MessageId (Base's PropertyUnknown, or a vendor's own) */
	text = br_xstrndup(body, len);
	named = strstr(text, "Context") != NULL;
	free(text);
	return named;
}
