/*
 * metrics — the inventory (and the last `bringup run`) as a Prometheus
 * text-format file for node_exporter's textfile collector: nodes per
 * state, nodes failing each check, failed nodes by kind and the BMC's
 * share of them, open tickets; from a run, each stage's wall time and
 * exit code. The file is written beside itself and renamed into place,
 * so the collector never reads half of one. Every metric is a gauge
 * named bringup_*.
 */
#ifndef STAGES_METRICS_H
#define STAGES_METRICS_H

#include <jansson.h>

#include "common.h"
#include "inventory/inventory.h"

/* The variable --metrics-file and bringup.conf's [metrics] file set. */
#define STG_METRICS_ENV "BRINGUP_METRICS_FILE"

/* The metrics file asked for ($BRINGUP_METRICS_FILE), or NULL. Static. */
const char *stg_metrics_path(void);
/* Whether path can be written where it is: an existing, writable
 * directory, and not itself a directory. 0, or BR_E_INVAL with err naming
 * the path and why: an operator's mistake to stop on before any node. */
int stg_metrics_path_check(const char *path, struct br_err *err);
/* `bringup run`'s own option: take --metrics-file PATH (or =PATH) out of
 * argv[0..*argc) (the stages refuse it), before any "--", and set
 * STG_METRICS_ENV to it. 0, or BR_E_INVAL for one without a PATH or one
 * stg_metrics_path_check refuses. */
int stg_metrics_take_option(int *argc, char **argv, struct br_err *err);

/* The metrics of inv, and with run (bringup run's summary document,
 * borrowed: its "stages", "seconds", "exit"; NULL for none) the run's,
 * written to path atomically: a temporary file beside it (path.tmp.XXXXXX,
 * mode 0644), synced, renamed over path. 0, or an error naming the path
 * (the temporary file removed). */
int stg_metrics_write(struct inv *inv, const json_t *run, const char *path, struct br_err *err);

/* bringup run's hook, at its end: with a metrics file asked for, the
 * inventory at db and the run document into it. Returns exit_code, or
 * STG_EXIT_UNREACHABLE (3) when it could not be written (logged; run's
 * "exit" then says 3 too). */
int stg_metrics_after_run(const char *db, json_t *run, int exit_code);

#endif
