/*
 * templates — a hardware profile's configuration targets, as an engineer
 * writes them by hand in templates/profiles/NAME/:
 *
 *   bios.conf      [bios]  iDRAC BIOS attribute = value (the baseline)
 *                  [boot]  pxe_nic = FQDD of the provisioning NIC,
 *                          mode = persistent | once
 *   firmware.conf  [firmware]  component = minimum version, where component
 *                  is the FQDD iDRAC puts after "__" in a FirmwareInventory
 *                  Id ("Installed-104327-28.39.1002__NIC.Slot.31-1-1"), or
 *                  a shell pattern of it ("NIC.Slot.*")
 *
 * INI syntax (libinih): '#' or ';' starts a comment line, ';' an inline
 * comment; leading blanks are ignored (no continuation lines). Every problem
 * is reported as "FILE:LINE: message" (BR_E_INVAL); nothing is half-loaded.
 *
 * Ownership: struct br_tpl_profile owns every string hung on it
 * (br_tpl_profile_release). Check arrays returned are the caller's
 * (inv_checks_free).
 */
#ifndef BRINGUP_TEMPLATES_H
#define BRINGUP_TEMPLATES_H

#include "common.h"
#include "inventory/inventory.h"

#define BR_TPL_FILE_MAX (1024u * 1024) /* one template file */
#define BR_TPL_LINE_MAX 198            /* characters on one line (libinih's INI_MAX_LINE less 2) */
#define BR_TPL_ENTRIES_MAX 1024        /* attributes or firmware rules in one file */

enum br_tpl_boot_mode {
	BR_TPL_BOOT_PERSISTENT, /* PXE device first in the persistent boot order */
	BR_TPL_BOOT_ONCE,       /* BootSourceOverrideTarget=Pxe, Enabled=Once */
};

struct br_tpl_fw_rule {
	char *component;   /* FQDD or shell pattern */
	char *min_version;
};

struct br_tpl_profile {
	char *name;
	struct br_kv *bios;        /* baseline, in file order */
	size_t n_bios;
	char *pxe_nic;             /* NULL: boot order is left alone */
	enum br_tpl_boot_mode boot_mode;
	struct br_tpl_fw_rule *firmware;
	size_t n_firmware;
};

void br_tpl_profile_release(struct br_tpl_profile *p);

/* Load templates_dir/profiles/NAME/{bios,firmware}.conf into *ret (written
 * only on success). An unknown profile or a missing bios.conf is BR_E_NOTFOUND;
 * firmware.conf is optional (no policy). */
int br_tpl_profile_load(const char *templates_dir, const char *name, struct br_tpl_profile *ret,
			struct br_err *err);

/* Parse one file's text into p (added to what p holds). file names it in
 * messages; kind is "bios" or "firmware" (which sections are allowed). */
int br_tpl_parse_text(const char *file, const char *text, const char *kind, struct br_tpl_profile *p,
		      struct br_err *err);

/* Compare dotted versions component by component ("28.33.0800" <
 * "28.39.1002"): digits numerically, other text case-insensitively, a
 * missing component as less. Returns <0, 0, >0. */
int br_tpl_version_cmp(const char *a, const char *b);

/* Judge hw's installed firmware ("Installed-…" ids; "Previous-…" ones are
 * history) against the policy: one check per matching component named
 * "firmware:<FQDD>", pass or fail with a detail a technician can act on,
 * and an unknown check "firmware:<rule>" for a rule nothing matched. */
int br_tpl_firmware_judge(const struct br_tpl_profile *p, const struct br_hw *hw, struct inv_check **ret_checks,
			  size_t *ret_n);

#endif
