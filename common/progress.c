/* Progress line on a terminal; silence elsewhere. */
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

static void draw(struct br_progress *p)
{
	int64_t elapsed = br_now_ms() - p->start_ms;
	char eta[32] = "";

	if (p->done && p->done < p->total) {
		int64_t left = elapsed * (int64_t)(p->total - p->done) / (int64_t)p->done;

		snprintf(eta, sizeof(eta), "  ETA %llds", (long long)(left + 999) / 1000);
	}
	fprintf(stderr, "\r\033[K%s  %zu/%zu", p->label, p->done, p->total);
	if (p->failed)
		fprintf(stderr, "  %zu failed", p->failed);
	fprintf(stderr, "%s", eta);
	fflush(stderr);
	progress_line_live = 1;
	p->last_draw_ms = br_now_ms();
}

void br_progress_update(struct br_progress *p, size_t done, size_t failed)
{
	p->done = done;
	p->failed = failed;
	if (!p->enabled)
		return;
	if (br_now_ms() - p->last_draw_ms < 100 && done < p->total)
		return;
	draw(p);
}

void br_progress_finish(struct br_progress *p)
{
	if (!p->enabled)
		return;
	draw(p);
	fputc('\n', stderr);
	progress_line_live = 0;
}
