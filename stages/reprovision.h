/*
 * reprovision — take named nodes back for another pass: each machine is
 * released in MAAS (marked fixed first when it was marked broken, as MAAS
 * releases no broken machine) and the node reset to `configured` (or `new`
 * to discover it again), an event recording why. A node that failed before
 * it was deployed is reset to the input of the stage it failed in instead
 * (`new` for discover, `discovered` for configure), so the pipeline run
 * after it starts there and never pushes it through stages it has not
 * passed. A node whose profile says
 * [reprovision] erase is released with its disks erased and waited for
 * until MAAS has it Ready. Its history, facts and
 * tickets stay; the pipeline run after it updates them.
 *
 * Ownership: nodes are borrowed from the stage.
 */
#ifndef STAGES_REPROVISION_H
#define STAGES_REPROVISION_H

#include "maas/maas.h"
#include "stage.h"

struct stg_reprovision_options {
	struct maas_options maas;
	int no_maas;		 /* reset in the inventory only */
	int rediscover;		 /* back to `new`, not `configured` */
	int poll_ms;		 /* while MAAS erases; default 1000 */
	int64_t wait_timeout_ms; /* for Ready after an erasing release; default 1 h */
};
void stg_reprovision_options_init(struct stg_reprovision_options *o);

struct stg_reprovision_run {
	size_t reset, released, erased, errors;
};

/* Release st->nodes in MAAS and reset them. 0, or nonzero with st->exit
 * set when MAAS or the inventory cannot be reached. */
int stg_reprovision_run(struct stg_stage *st, const struct stg_reprovision_options *o,
			struct stg_reprovision_run *run);

#endif
