/* CSV files read row by row through libcsv, each row with the line it
 * started on, so every problem can be told as FILE:LINE. */
#include <csv.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

struct csv_state {
	const char *path;
	unsigned line;	   /* line being fed to the parser */
	unsigned row_line; /* line the current row started on */
	struct br_strlist fields;
	br_csv_row_fn fn;
	void *ctx;
	int stop;
};

static void on_field(void *data, size_t len, void *ctx)
{
	struct csv_state *st = ctx;
	char *s = br_xstrndup(data ? data : "", data ? len : 0);

	if (!st->fields.n)
		st->row_line = st->line;
	br_strlist_add(&st->fields, s);
	free(s);
}

static void on_row(int term, void *ctx)
{
	struct csv_state *st = ctx;

	(void)term;
	if (!st->stop && st->fields.n)
		st->stop = st->fn(st->ctx, st->row_line, &st->fields);
	br_strlist_release(&st->fields);
}

void br_csv_problem(struct br_strlist *problems, const char *path, unsigned line, const char *field,
		    const char *fmt, ...)
{
	struct br_buf b;
	va_list ap;

	br_buf_init(&b, 0);
	br_buf_addf(&b, "%s:%u: ", path, line);
	if (field)
		br_buf_addf(&b, "%s: ", field);
	va_start(ap, fmt);
	br_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	br_strlist_add(problems, br_buf_str(&b));
	br_buf_release(&b);
}

int br_csv_read(const char *path, size_t max_bytes, br_csv_row_fn fn, void *ctx, struct br_strlist *problems,
		struct br_err *err)
{
	struct csv_state st = { .path = path, .fn = fn, .ctx = ctx };
	struct csv_parser parser;
	char *data = NULL, *p, *end;
	size_t len, nul;
	int rc;

	rc = br_read_file(path, max_bytes, &data, &len, err);
	if (rc)
		return rc;
	nul = strnlen(data, len);
	if (nul < len) {
		unsigned line = 1;

		for (size_t i = 0; i < nul; i++)
			line += data[i] == '\n';
		br_csv_problem(problems, path, line, NULL, "a NUL byte at offset %zu: not a text file", nul);
		free(data);
		return 0;
	}
	if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL)) {
		free(data);
		return br_errf(err, BR_E_NOMEM, "%s: cannot set up the CSV parser", path);
	}
	p = data;
	/* Spreadsheets save UTF-8 CSV with a byte-order mark. */
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	/* One line at a time, so the line a row starts on is known. */
	for (st.line = 1; p < data + len && !st.stop; p = end + 1, st.line++) {
		size_t n;

		end = memchr(p, '\n', (size_t)(data + len - p));
		if (!end)
			end = data + len;
		n = (size_t)(end - p) + (end < data + len);
		if (csv_parse(&parser, p, n, on_field, on_row, &st) != n) {
			br_csv_problem(problems, path, st.line, NULL, "malformed CSV: %s",
				       csv_strerror(csv_error(&parser)));
			st.stop = 1;
		}
	}
	if (!st.stop && csv_fini(&parser, on_field, on_row, &st))
		br_csv_problem(problems, path, st.line - 1, NULL, "malformed CSV: %s (unterminated quote?)",
			       csv_strerror(csv_error(&parser)));
	csv_free(&parser);
	br_strlist_release(&st.fields);
	free(data);
	return 0;
}
