/* What firmware.c (the run, its update slots) and firmware_steps.c (one
 * machine's updates) share; private to redfish/. */
#ifndef BRINGUP_RF_FIRMWARE_H
#define BRINGUP_RF_FIRMWARE_H

#include "rf_private.h"

/* A rack or a power domain: its machines updating now. */
struct rf_fw_group {
	int active;
};

struct rf_fw_run {
	const struct rf_fw_options *o;
	rf_fw_done_fn done;
	rf_fw_sending_fn sending;
	void *ctx;
	int active, peak;	    /* machines holding an update slot; the most at once */
	struct rf_fw_group *groups; /* every kind's groups */
	size_t n_groups;
	const struct rf_fw_target *targets; /* the run's, in order */
	size_t *group_of; /* [target * RF_FW_GROUP_KINDS + kind]: index in groups; SIZE_MAX: none */
};

/* Where one machine is in its updates. */
enum rf_fw_phase {
	RF_FW_LOOKING,	 /* the first FirmwareInventory read, then the tasks */
	RF_FW_TASK,	 /* following an update's task */
	RF_FW_RETURNING, /* the BMC restarting: waiting for its service root */
	RF_FW_VERIFYING, /* reading the inventory back after an update */
	RF_FW_ILO,	 /* iLO's own push sent: its UpdateService state and the inventory, polled */
};

struct rf_fw_node {
	struct rf_fw_run *run;
	const struct rf_fw_target *t;
	const char *step; /* what it is doing, for logs and a stall */
	int holds_slot, finished;
	size_t index; /* the target's, in run->targets */
	char *multipart_url, *simple_url, *inventory_url, *tasks_url;
	/* iLO's HttpPushUri (with Oem.Hpe), the UpdateService polled after it,
	 * and its Oem.Hpe Result before anything was sent (a failure of an
	 * earlier update stays there) */
	char *ilo_push_url, *update_url, *ilo_prior;
	int ilo_busy;  /* its State said an update was under way when read */
	int relogging; /* a new session asked for (iLO's push needs one after a restart) */
	int relogged;  /* ... once per update */
	char *apply_multipart,
	    *apply_simple; /* the apply times each form advertises, "a, b"; NULL: none said */
	enum rf_fw_phase phase;
	json_t *members;       /* the inventory read so far (documents) */
	int to_read;	       /* inventory members (or tasks) still being read */
	struct rf_urlset seen; /* this read's member and page URLs: a BMC's paging may repeat or loop */
	int pages;	       /* this read's collection pages */
	json_t *tasks;	       /* the UpdateService's tasks still running, documents */
	size_t cur;	       /* the update under way */
	char *task_url;
	char *params; /* the UpdateParameters of the multipart push under way */
	struct rf_multipart form;
	int64_t task_deadline_ms, return_deadline_ms;
	int read_gen; /* reads of an earlier round, answering late, are ignored */
	struct rf_fw_result res;
};

/* firmware_steps.c: a logged-in machine's updates (the driver's ready);
 * the next update (or the end) once the inventory and tasks are read; what
 * a whole inventory read means for the phase; waiting for a restarting
 * BMC; a Task's state (a Dell job's JobState in the Task's terms). */
void rf_fw_begin(struct rf_bmc *bmc);
/* The driver's ready: the first (rf_fw_begin), or the session opened again. */
void rf_fw_ready(struct rf_bmc *bmc);
void rf_fw_next_update(struct rf_bmc *bmc);
void rf_fw_inventory_read(struct rf_bmc *bmc);
void rf_fw_poll_root(struct rf_bmc *bmc, int64_t due_ms);
/* The BMC restarting into its new firmware: the session is gone, wait. */
void rf_fw_to_returning(struct rf_bmc *bmc);
/* iLO's own push: the path of its HttpPushUri when the UpdateService is
 * iLO's (Oem.Hpe) and names /cgi-bin/uploadFile, else NULL; its Oem.Hpe
 * Result as "MessageId (args)" (NULL: none; caller frees); whether a State
 * says no update is under way (Idle, Complete, Error, or none). */
const char *rf_fw_ilo_push(json_t *update_service);
char *rf_fw_ilo_result(json_t *hpe);
int rf_fw_ilo_idle(const char *state);
/* iLO's push under way: its UpdateService read again at due_ms. */
void rf_fw_poll_ilo(struct rf_bmc *bmc, int64_t due_ms);
int rf_fw_task_running(const char *state);
const char *rf_fw_task_state(json_t *doc);

/* firmware_read.c: the inventory member that is component (iDRAC's
 * "Installed-…__FQDD", or one whose Id is it; borrowed), and its Version;
 * the whole inventory read anew into fn->members (then
 * rf_fw_inventory_read); the running tasks read into fn->tasks (then
 * rf_fw_next_update), and the one whose request was an update of u. */
json_t *rf_fw_member(json_t *members, const char *component);
const char *rf_fw_version(json_t *members, const char *component);
void rf_fw_read_inventory(struct rf_bmc *bmc);
void rf_fw_read_tasks(struct rf_bmc *bmc);
json_t *rf_fw_task_for(struct rf_bmc *bmc, const struct rf_fw_update *u);

#endif
