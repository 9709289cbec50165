/*
 * run — `bringup run`: every pipeline stage in order over one inventory,
 * then a summary (nodes per state, open faults by kind, tickets, time per
 * stage) on the terminal or, with --json, as one document on stdout.
 */
#ifndef BRINGUP_RUN_H
#define BRINGUP_RUN_H

#include "stages/stages.h"

/* Where a stage's executable is (caller frees); NULL when not installed. */
typedef char *(*drv_find_fn)(const char *name);

/* Run `stages` (n of them) with argv's options, less run's own: --json
 * (the summary as JSON; the stages' output goes to stderr) and --only
 * HOST... (each stage given those of the hosts it takes as the inventory
 * stands when it starts (stg_stage_takes), so each node starts at the stage
 * it stands at, and a stage that takes none of them skipped; with --force
 * passed on, every stage all of them). Returns the worst stage exit code
 * (enum stg_exit). */
int drv_run_pipeline(const char *const *stages, size_t n, drv_find_fn find, int argc, char **argv);

/* The pipeline's stages in order (drv_pipeline_n of them). */
extern const char *const drv_pipeline[];
extern const size_t drv_pipeline_n;
/* Path of bringup-NAME: beside this executable first (the build tree),
 * then where make install puts the stages (PREFIX/libexec/bringup, beside
 * PREFIX/bin), then PATH. Caller frees; NULL when not found. */
char *drv_find_stage(const char *name);

/* The pipeline taken apart, for bringup controller: run's options parsed
 * once (who names the command in messages; the stages asked for their
 * option tables; --db checked; SIGTERM, SIGINT and SIGHUP then passed on to
 * the stages running), then pass after pass. 0 with *ret, or the exit code
 * (STG_EXIT_USAGE for an option no stage takes) with *ret NULL. */
struct drv_run;
int drv_run_open(const char *who, const char *const *stages, size_t n, drv_find_fn find, int argc,
		 char **argv, struct drv_run **ret);
/* 1 when a pass is the flow (no --only, host names, --help, --firmware). */
int drv_run_flows(const struct drv_run *r);
/* One pass as bringup run does it, its summary into doc ("stages",
 * "seconds", "nodes", "states", ..., "exit"); the flow's stages take none
 * of the nskip nodes skip names (the follow socket's go ahead carries
 * them). Returns the pass's exit code; 128 + a signal once one came. */
int drv_run_pass(struct drv_run *r, char *const *skip, size_t nskip, json_t *doc);
/* The inventory (--db, $BRINGUP_DB, ./bringup.db) and zone (--zone,
 * $BRINGUP_ZONE; NULL: every zone) the stages are given. */
const char *drv_run_db(const struct drv_run *r);
const char *drv_run_zone(const struct drv_run *r);
int drv_run_json(const struct drv_run *r);
int drv_run_skip_configure(const struct drv_run *r);
/* From now on the stages' stdout goes to stderr, with --json or without
 * (bringup controller: its stdout holds its own lines only). */
void drv_run_stages_to_stderr(struct drv_run *r);
/* The first signal caught since drv_run_open (0: none). */
int drv_run_signal(void);
void drv_run_close(struct drv_run *r);

#endif
