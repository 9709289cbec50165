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

#endif
