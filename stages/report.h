/*
 * report — the inventory as one self-contained HTML page a person opens
 * from a file share or a laptop: a rack elevation with each node coloured
 * by state, the open tickets, and every node's checks and history. The
 * page needs no network (inline CSS, no scripts, a Content-Security-Policy
 * that forbids loading anything) and every string from the inventory is
 * HTML-escaped: reasons and evidence carry what BMCs and MAAS said.
 *
 * Ownership: stg_report_render appends to a caller-owned buffer; stg_report_default_path
 * returns a string the caller frees.
 */
#ifndef STAGES_REPORT_H
#define STAGES_REPORT_H

#include "stage.h"

#define STG_REPORT_HTML_MAX (64u << 20) /* the whole page */
#define STG_REPORT_EVENTS_MAX 100	/* history rows shown per node; older ones are counted */
#define STG_REPORT_RACK_UNITS 42	/* a rack is drawn at least this tall */
/* The inventory knows the unit a node starts at, not its height: boxes
 * are as tall as the closest spacing of nodes in the rack (four 6U servers
 * at U3, U10, ... read as such), at most this. */
#define STG_REPORT_BOX_UNITS_MAX 8

struct stg_report_stats {
	size_t nodes, tickets, bytes;
	size_t per_state[INV_STATE_COUNT];
};

/* The page as it is built: appends after an error do nothing, so a page is
 * built with no check per line and the error read once at the end. */
struct stg_report_page {
	struct br_buf *html; /* borrowed */
	int rc;
};
void stg_report_add(struct stg_report_page *p, const char *s);
void stg_report_addf(struct stg_report_page *p, const char *fmt, ...) BR_PRINTF(2, 3);
/* text as HTML (element content or a quoted attribute): redacted and made
 * printable as for a terminal (br_escape), then & < > " ' escaped. NULL
 * adds `fallback` (itself escaped; NULL for nothing). */
void stg_report_text(struct stg_report_page *p, const char *text, const char *fallback);

/* Append the page for nodes (those of inv_nodes_list, in its order) and
 * the open tickets among them, titled with the inventory's path, to out
 * (give it STG_REPORT_HTML_MAX as its cap). On error out holds part of a page. */
int stg_report_render(struct inv *inv, const struct inv_node *nodes, size_t n, struct br_buf *out,
		      struct stg_report_stats *ret_stats, struct br_err *err);
/* stg_report_render into path, written atomically. */
int stg_report_write(struct inv *inv, const struct inv_node *nodes, size_t n, const char *path,
		     struct stg_report_stats *ret_stats, struct br_err *err);
/* The report beside the database: bringup.db -> bringup.html. NULL for an
 * in-memory database. */
char *stg_report_default_path(const char *db_path);

/* report_nodes.c: the elevation and the per-node sections. */
void stg_report_elevation(struct stg_report_page *p, const struct inv_node *nodes, size_t n);
int stg_report_node_detail(struct stg_report_page *p, struct inv *inv, const struct inv_node *node,
			   struct br_err *err);
/* Where a node's box and section link to: "n" and its id. */
#define STG_REPORT_ANCHOR_FMT "n%lld"

#endif
