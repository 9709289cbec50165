/*
 * follow — status --follow: every transition of the site as it is
 * recorded, from any machine that reaches the inventory (PostgreSQL wakes
 * the follower with NOTIFY; on SQLite it reads again every poll).
 *
 * Ownership: stg_follow borrows the stage and the host names.
 */
#ifndef STAGES_FOLLOW_H
#define STAGES_FOLLOW_H

#include "stages/stage.h"

/* How often a follower that is not told reads again (SQLite), and the
 * longest it sleeps before it looks for a signal (PostgreSQL). */
#define STG_EVENTS_POLL_MS 500
/* Events read per query: a burst (a whole rack imported) comes in pages. */
#define STG_EVENTS_PAGE 512
/* The schema_version of each --json line ({id, at, hostname, from, to,
 * reason}: docs/schema/event.schema.json). */
#define STG_SCHEMA_EVENT 1

/* Print each event recorded after the newest one now, one line each (text,
 * or one JSON object with --json), of st's zone (--zone) and, when nhosts
 * is not 0, of those hosts only, until SIGINT or SIGTERM (then 0) or the
 * inventory fails (an exit code, said on stderr). stdout is flushed after
 * each line, so a pipe sees it at once. */
int stg_follow(struct stg_stage *st, char *const *hosts, size_t nhosts);

#endif
