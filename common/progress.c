/* Progress line on a terminal; silence elsewhere. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static int progress_line_live;

void br_progress_clear_line(void)
{
	if (progress_line_live) {
		fputs("\r\033[K", stderr);
		progress_line_live = 0;
	}
}

void br_progress_init(struct br_progress *p, const char *label, size_t total)
{
	memset(p, 0, sizeof(*p));
	p->label = label;
	p->total = total;
	p->start_ms = br_now_ms();
	p->enabled = isatty(STDERR_FILENO) && br_log_get_level() > BR_LOG_ERROR;
}

void br_progress_item(struct br_progress *p, size_t i, const char *name)
{
	if (i >= p->total)
		return;
	if (!p->names) {
		p->names = br_xcalloc(p->total, sizeof(*p->names));
		p->started_ms = br_xcalloc(p->total, sizeof(*p->started_ms));
		for (size_t k = 0; k < p->total; k++)
			p->started_ms[k] = p->start_ms;
	}
	p->names[i] = name;
}

void br_progress_item_start(struct br_progress *p, size_t i)
{
	if (p->started_ms && i < p->total && p->started_ms[i] >= 0)
		p->started_ms[i] = br_now_ms();
}

void br_progress_release(struct br_progress *p)
{
	free(p->names);
	free(p->started_ms);
	p->names = NULL;
	p->started_ms = NULL;
}

static void add_seconds(struct br_buf *b, int64_t ms)
{
	br_buf_addf(b, "%llds", (long long)((ms + 999) / 1000));
}

/* The BR_PROGRESS_NAMED items out longest, oldest first, into pick;
 * returns how many. One pass: a rack of 10,000 is redrawn ten times a
 * second. */
static size_t longest_out(const struct br_progress *p, size_t *pick)
{
	size_t n = 0;

	for (size_t i = 0; p->started_ms && i < p->total; i++) {
		size_t at;

		if (p->started_ms[i] < 0 || !p->names[i])
			continue;
		for (at = n; at > 0 && p->started_ms[pick[at - 1]] > p->started_ms[i]; at--)
			;
		if (at >= BR_PROGRESS_NAMED)
			continue;
		if (n < BR_PROGRESS_NAMED)
			n++;
		memmove(pick + at + 1, pick + at, (n - 1 - at) * sizeof(*pick));
		pick[at] = i;
	}
	return n;
}

void br_progress_format(const struct br_progress *p, int64_t now_ms, size_t columns, struct br_buf *out)
{
	size_t left = p->total > p->done ? p->total - p->done : 0, pick[BR_PROGRESS_NAMED], n_pick;
	int64_t quiet = now_ms - (p->done ? p->last_done_ms : p->start_ms);
	struct br_buf line;
	char *cut;

	br_buf_init(&line, 0);
	br_buf_addf(&line, "%s  %zu/%zu done", p->label, p->done, p->total);
	if (p->failed)
		br_buf_addf(&line, "  %zu failed", p->failed);
	if (left) {
		br_buf_addf(&line, "  %zu left", left);
		n_pick = longest_out(p, pick);
		for (size_t k = 0; k < n_pick; k++) {
			br_buf_addf(&line, "%s%s (", k ? ", " : ": ", p->names[pick[k]]);
			add_seconds(&line, now_ms - p->started_ms[pick[k]]);
			br_buf_adds(&line, ")");
		}
		if (n_pick && left > n_pick)
			br_buf_addf(&line, " +%zu more", left - n_pick);
	}
	/* The rate so far says when the rest will be done only while the
	 * rest are still finishing: after the last straggler has been out
	 * for several times the usual gap, it says nothing. */
	if (left && p->done) {
		int64_t gap = (p->last_done_ms - p->start_ms) / (int64_t)p->done;

		if (quiet > BR_PROGRESS_STUCK_FACTOR * gap && quiet >= BR_PROGRESS_STUCK_MIN_MS) {
			br_buf_adds(&line, "  nothing finished for ");
			add_seconds(&line, quiet);
		} else {
			br_buf_adds(&line, "  ETA ");
			add_seconds(&line, gap * (int64_t)left);
		}
	}
	cut = columns ? br_text_cut(br_buf_str(&line), columns - 1) : NULL;
	br_buf_adds(out, cut ? cut : br_buf_str(&line));
	free(cut);
	br_buf_release(&line);
}

static void draw(struct br_progress *p)
{
	struct br_buf line;

	br_buf_init(&line, 0);
	br_progress_format(p, br_now_ms(), br_term_columns(STDERR_FILENO), &line);
	fprintf(stderr, "\r\033[K%s", br_buf_str(&line));
	fflush(stderr);
	br_buf_release(&line);
	progress_line_live = 1;
	p->last_draw_ms = br_now_ms();
	p->drawn_done = p->done + 1;
}

static void maybe_draw(struct br_progress *p)
{
	if (!p->enabled)
		return;
	if (br_now_ms() - p->last_draw_ms < 100 && p->done < p->total)
		return;
	draw(p);
}

void br_progress_update(struct br_progress *p, size_t done, size_t failed)
{
	if (done > p->done)
		p->last_done_ms = br_now_ms();
	p->done = done;
	p->failed = failed;
	maybe_draw(p);
}

void br_progress_item_done(struct br_progress *p, size_t i, int ok)
{
	if (p->started_ms && i < p->total) {
		if (p->started_ms[i] < 0)
			return; /* counted once */
		p->started_ms[i] = -1;
	}
	p->last_done_ms = br_now_ms();
	p->done++;
	p->failed += !ok;
	maybe_draw(p);
}

void br_progress_finish(struct br_progress *p)
{
	if (p->enabled) {
		/* The last item's draw already said it all, unless a log
		 * line cleared it since. */
		if (p->drawn_done != p->done + 1 || !progress_line_live)
			draw(p);
		fputc('\n', stderr);
		progress_line_live = 0;
	}
	br_progress_release(p);
}
