/* Escaping text for a terminal or a log (common.h, br_buf_add_escaped). */
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* Length of the well-formed UTF-8 sequence at s (at most left bytes), or 0
 * when it is not one. Overlong forms and surrogates count as malformed. */
static size_t utf8_len(const unsigned char *s, size_t left, uint32_t *ret_cp)
{
	size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
	uint32_t cp;

	if (!n || n > left || s[0] > 0xF4)
		return 0;
	cp = s[0] & (0x7F >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	*ret_cp = cp;
	return n;
}

static int add_hex(struct br_buf *b, const unsigned char *s, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++)
		rc = br_buf_addf(b, "\\x%02x", s[i]);
	return rc;
}

int br_buf_add_escaped(struct br_buf *b, const char *text)
{
	char *clean = br_redact_needed(text) ? br_redact(text) : NULL;
	const unsigned char *s = (const unsigned char *)(clean ? clean : text);
	size_t len = s ? strlen((const char *)s) : 0, i = 0;
	int rc = 0;

	while (i < len && !rc) {
		size_t run = i, n;
		uint32_t cp;

		while (run < len && s[run] >= 0x20 && s[run] < 0x7F)
			run++;
		if (run > i) {
			rc = br_buf_add(b, s + i, run - i);
			i = run;
			continue;
		}
		if (s[i] < 0x80) { /* C0 control or DEL */
			rc = add_hex(b, s + i, 1);
			i++;
			continue;
		}
		n = utf8_len(s + i, len - i, &cp);
		if (!n) { /* not UTF-8: a lone byte a terminal may take as C1 */
			n = 1;
			rc = add_hex(b, s + i, 1);
		} else if (cp >= 0x80 && cp < 0xA0) /* C1 controls (CSI is U+009B) */
			rc = add_hex(b, s + i, n);
		else
			rc = br_buf_add(b, s + i, n);
		i += n;
	}
	free(clean);
	return rc;
}

char *br_escape(const char *text)
{
	struct br_buf b;

	if (!text)
		return NULL;
	br_buf_init(&b, 0);
	br_buf_add_escaped(&b, text);
	return b.data ? br_buf_detach(&b) : br_xstrdup("");
}
