/* What fits on the operator's terminal: its width, and text cut to it. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common.h"

size_t br_term_columns(int fd)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	long v;

	/* COLUMNS first, as ls(1) and every curses program take it: it is
	 * how a person (or a test) sizes output that goes to a pipe. */
	if (env && *env && !br_parse_long(env, 1, BR_TERM_COLUMNS_MAX, &v))
		return (size_t)v;
	if (isatty(fd) && !ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

const char *br_ellipsis(void)
{
	const char *vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };

	/* The first of these that is set decides the character set, as
	 * setlocale(3) reads them; "…" only where it is UTF-8. */
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return strstr(v, "UTF-8") || strstr(v, "utf-8") || strstr(v, "UTF8") ||
				       strstr(v, "utf8")
				   ? "\u2026"
				   : "...";
	}
	return "...";
}

size_t br_text_columns(const char *s)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
		n += (*p & 0xC0) != 0x80;
	return n;
}

char *br_text_cut(const char *s, size_t cols)
{
	const char *dots = br_ellipsis();
	size_t dots_cols = br_text_columns(dots), keep = 0, seen = 0;
	struct br_buf b;
	char *out;

	if (br_text_columns(s) <= cols)
		return br_xstrdup(s);
	if (cols <= dots_cols)
		return br_xasprintf("%.*s", (int)cols, "...");
	/* Whole characters only: a UTF-8 sequence is never split. */
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p & 0xC0) != 0x80 && seen++ == cols - dots_cols)
			break;
		keep++;
	}
	br_buf_init(&b, 0);
	br_buf_add(&b, s, keep);
	br_buf_adds(&b, dots);
	out = br_xstrdup(br_buf_str(&b));
	br_buf_release(&b);
	return out;
}
