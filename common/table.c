/* Aligned text tables for human summaries. */
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include "common.h"

void br_table_init(struct br_table *t, size_t ncols, const char *const *headers)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols > BR_TABLE_COLS_MAX ? BR_TABLE_COLS_MAX : ncols;
	for (size_t i = 0; i < t->ncols; i++) {
		t->headers[i] = headers[i];
		t->width[i] = br_text_columns(headers[i]);
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
		size_t w = br_text_columns(c);

		t->cells[t->nrows * t->ncols + i] = c;
		if (w > t->width[i])
			t->width[i] = w;
	}
	t->nrows++;
}

/* Each column's width on a line of `columns` (0: no limit): the widest
 * column is narrowed one at a time, never below its header (or 4), until
 * the line fits or nothing can give. */
static void fit(const struct br_table *t, size_t columns, size_t *w)
{
	size_t total = 2 * (t->ncols ? t->ncols - 1 : 0);

	for (size_t i = 0; i < t->ncols; i++)
		total += (w[i] = t->width[i]);
	while (columns && total > columns) {
		size_t widest = t->ncols;

		for (size_t i = 0; i < t->ncols; i++) {
			size_t floor = br_text_columns(t->headers[i]);

			if (floor < 4)
				floor = 4;
			if (w[i] > floor && (widest == t->ncols || w[i] > w[widest]))
				widest = i;
		}
		if (widest == t->ncols)
			break;
		w[widest]--;
		total--;
	}
}

static void print_row(const struct br_table *t, const size_t *w, const char *const *row, FILE *f)
{
	for (size_t i = 0; i < t->ncols; i++) {
		size_t cols = br_text_columns(row[i]);
		char *cut = cols > w[i] ? br_text_cut(row[i], w[i]) : NULL;

		fputs(cut ? cut : row[i], f);
		if (i + 1 == t->ncols)
			fputc('\n', f);
		else
			fprintf(f, "%*s", (int)(w[i] - (cut ? w[i] : cols) + 2), "");
		free(cut);
	}
}

void br_table_print(const struct br_table *t, FILE *f)
{
	br_table_print_fit(t, 0, f);
}

void br_table_print_fit(const struct br_table *t, size_t columns, FILE *f)
{
	size_t w[BR_TABLE_COLS_MAX];

	fit(t, columns, w);
	print_row(t, w, t->headers, f);
	for (size_t r = 0; r < t->nrows; r++)
		print_row(t, w, (const char *const *)&t->cells[r * t->ncols], f);
}

void br_table_print_csv(const struct br_table *t, FILE *f)
{
	for (size_t r = 0; r <= t->nrows; r++)
		for (size_t i = 0; i < t->ncols; i++) {
			const char *c = r ? t->cells[(r - 1) * t->ncols + i] : t->headers[i];

			csv_fwrite(f, c, strlen(c));
			fputc(i + 1 == t->ncols ? '\n' : ',', f);
		}
}

void br_table_release(struct br_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap_rows = 0;
}
