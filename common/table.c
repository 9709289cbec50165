/* Aligned text tables for human summaries. */
#include <stdlib.h>
#include <string.h>

#include "common.h"

void br_table_init(struct br_table *t, size_t ncols, const char *const *headers)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols > BR_TABLE_COLS_MAX ? BR_TABLE_COLS_MAX : ncols;
	for (size_t i = 0; i < t->ncols; i++) {
		t->headers[i] = headers[i];
		t->width[i] = strlen(headers[i]);
	}
}

void br_table_add(struct br_table *t, const char *const *cells)
{
	if (t->nrows == t->cap_rows) {
		t->cap_rows = t->cap_rows ? t->cap_rows * 2 : 16;
		t->cells = br_xrealloc(t->cells, t->cap_rows * t->ncols * sizeof(char *));
	}
	for (size_t i = 0; i < t->ncols; i++) {
		char *c = br_escape(cells[i] ? cells[i] : "-"); /* cells carry BMC and MAAS text */
		size_t w = strlen(c);

		t->cells[t->nrows * t->ncols + i] = c;
		if (w > t->width[i])
			t->width[i] = w;
	}
	t->nrows++;
}

static void print_row(const struct br_table *t, const char *const *row, FILE *f)
{
	for (size_t i = 0; i < t->ncols; i++) {
		if (i + 1 == t->ncols)
			fprintf(f, "%s\n", row[i]);
		else
			fprintf(f, "%-*s  ", (int)t->width[i], row[i]);
	}
}

void br_table_print(const struct br_table *t, FILE *f)
{
	print_row(t, t->headers, f);
	for (size_t r = 0; r < t->nrows; r++)
		print_row(t, (const char *const *)&t->cells[r * t->ncols], f);
}

void br_table_release(struct br_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap_rows = 0;
}
