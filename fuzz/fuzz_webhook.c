/* What the tickets webhook takes from outside (stages/webhook.c): the
 * receiver's Retry-After (common/http.c, br_http_retry_after_ms), and the
 * webhook URL masked and registered for redaction (common/urlmask.c), then
 * a line quoting it escaped as the log shows it. Input: the header value,
 * a newline, the URL. */
#include "fuzz/fuzz.h"

#include "common.h"
#include "http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *nl = strchr(text, '\n'), *url = nl ? nl + 1 : text, *masked,
	     *shown;

	if (nl)
		*nl = '\0';
	(void)br_http_retry_after_ms(text, (time_t)1764460800);
	masked = br_url_masked(url);
	(void)br_url_has_credentials(url);
	br_url_redact(url);
	shown = br_escape(url);
	free(shown);
	free(masked);
	br_url_unredact(url);
	free(text);
	return 0;
}
