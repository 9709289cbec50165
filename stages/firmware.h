/*
 * firmware — `bringup firmware`, between discover and configure: from the
 * node's firmware policy (firmware.conf) and the catalogue of images
 * (firmware-images.conf), plan what to update on each discovered node and
 * in which order (stg_fw_plan_node), check every image's SHA-256 before
 * anything is sent, update through the BMC (redfish.h, rf_firmware_all) at
 * most --max-updates machines at once, the profile's max_per_rack per
 * rack and max_per_power_domain per power domain (the manifest's
 * power_domain column), and record the versions read back. A node left below the policy
 * is left `discovered` for configure to judge (and the gate to
 * quarantine); a failed update fails it (firmware_update_failed) with the
 * BMC's message. --report: the versions across the rack per model and
 * component, and which nodes differ.
 *
 * Ownership: plans own their strings (stg_fw_plan_release); images and
 * profiles are borrowed from the run.
 */
#ifndef STAGES_FIRMWARE_H
#define STAGES_FIRMWARE_H

#include "inventory/inventory.h"
#include "profile/profile.h"
#include "redfish/redfish.h"
#include "bmcopts.h"
#include "stage.h"

#define STG_FW_IMAGE_MAX (4ull * 1024 * 1024 * 1024) /* one image file: a GPU bundle is ~1 GiB */
#define STG_FW_MAX_UPDATES_DEFAULT 4

/* One component to update. */
struct stg_fw_item {
	char *component;		   /* the FQDD the BMC lists */
	char *from;			   /* installed version */
	const char *min;		   /* the policy's minimum (borrowed from the profile) */
	const struct prof_fw_image *image; /* NULL when refused */
	char *refused;			   /* why no image applies; NULL when one does */
};

struct stg_fw_plan {
	struct stg_fw_item *items; /* in update order: bmc, bios, nic, gpu, drive, cpld, other */
	size_t n;
	size_t refused; /* items with no image: the node gets no update */
};
void stg_fw_plan_release(struct stg_fw_plan *plan);

/* Plan the node whose System Model is model and whose BMC listed hw's
 * firmware: every installed component a policy rule of p puts below its
 * minimum, with the catalogue's image for it (its component pattern
 * matches, model is among its models, its version at least the minimum;
 * the highest such), or refused saying why (no image of the component, or
 * none for this model). Pure. */
void stg_fw_plan_node(const struct prof_profile *p, const struct br_hw *hw, const char *model,
		      struct stg_fw_plan *ret);

/* ---- the consistency view ---------------------------------------------------- */

struct stg_fw_seen {
	char *model, *component, *version;
	char *hostname;
};
/* The firmware of every node (model, installed component, version) as one
 * JSON document: {"components":[{"model", "component", "versions":
 * [{"version", "nodes":[...]}] (most nodes first), "differ":[hosts not on
 * the most common version]}]}, ordered by model and component; only
 * components whose versions differ when differing_only. New reference. */
json_t *stg_fw_consistency(const struct stg_fw_seen *seen, size_t n, int differing_only);
/* Read every node's firmware from the inventory into that view (new
 * reference), or NULL with err. */
json_t *stg_fw_consistency_read(struct inv *inv, const struct inv_node *nodes, size_t n, int differing_only,
				struct br_err *err);

/* ---- the run -------------------------------------------------------------------- */

struct stg_firmware_options {
	struct stg_bmc_opts bmc;
	int dry_run, report, all;
	int max_updates; /* --max-updates, $BRINGUP_MAX_UPDATES */
	const char *image_base_url;
	int poll_ms, task_timeout_s, bmc_return_s;
	struct rf_options rf;
};

struct stg_firmware_image {
	const struct prof_fw_image *image;
	unsigned char *data;
	size_t len;
	char *uri;	    /* on --image-base-url, or NULL */
	unsigned char *sig; /* its compsig, checked; NULL: none */
	size_t sig_len;
};

struct stg_firmware_job {
	struct inv_node *node; /* borrowed from st */
	const struct prof_profile *profile;
	struct stg_fw_plan plan;
	struct rf_fw_update *updates;
	size_t n_updates;
	char *password, *base_url, *host;
	int port;
	int ipmi; /* discovered over IPMI: nothing to update through */
	/* outcome */
	int done, ok, interrupted;
	char *result; /* "updated", "current", "refused", "planned", "failed", "skipped" */
	char *reason;
	char **versions; /* read back, per plan item */
	const char **methods;
	int *sent;
};

struct stg_firmware_run {
	struct stg_stage *st;
	const struct stg_firmware_options *o;
	struct stg_firmware_job *jobs;
	size_t n_jobs, failed, updated, sent;
	struct stg_firmware_image *images;
	size_t n_images;
	struct stg_profiles profiles;
	json_t *report; /* --report */
	int max_at_once;
};

int stg_firmware_options_check(struct stg_stage *st, struct stg_firmware_options *o);
int stg_firmware_run(struct stg_stage *st, const struct stg_firmware_options *o,
		     struct stg_firmware_run *run);
json_t *stg_firmware_json(const void *run);
void stg_firmware_print(const void *run);
void stg_firmware_run_release(struct stg_firmware_run *run);

#endif
