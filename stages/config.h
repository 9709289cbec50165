/*
 * config — bringup.conf: the settings that are otherwise environment
 * variables (MAAS, SSH, the wiring list, templates and site profiles, the
 * inventory, limits), read from /etc/bringup/bringup.conf, then
 * $XDG_CONFIG_HOME/bringup/bringup.conf (~/.config/...), then the file
 * `bringup --config PATH` names ($BRINGUP_CONFIG), a later file's setting
 * over an earlier one's. A setting becomes its environment variable only
 * where the environment has none, and every command line option beats its
 * variable: command line > environment > file. Secrets are references
 * (env:NAME, file:PATH), never values.
 *
 * Ownership: everything here is the process's, set up once (the first
 * stg_config_apply) and never freed; strings returned are borrowed.
 */
#ifndef STAGES_CONFIG_H
#define STAGES_CONFIG_H

#include "common.h"

#define STG_CONFIG_SYSTEM "/etc/bringup/bringup.conf"
#define STG_CONFIG_MAX_BYTES (1u << 20)
/* Site profiles: searched before the shipped ones (stg_profile_load). */
#define STG_SITE_PROFILES "/etc/bringup/profiles"

/* Read the files (once per process; later calls return the first's
 * result) and set each setting's variable where the environment has none.
 * A file that cannot be read, or a line that is wrong, is BR_E_INVAL with
 * "FILE:LINE: section.key: message" in err (every problem, one a line);
 * the files that are not there are skipped, but for $BRINGUP_CONFIG.
 * $BRINGUP_SYSTEM_CONFIG replaces /etc/bringup/bringup.conf (tests). */
int stg_config_apply(struct br_err *err);

/* One setting as `bringup config show` prints it. */
struct stg_config_setting {
	const char *section, *key, *env;
	int secret;	    /* a reference (env:NAME, file:PATH), never a value */
	const char *value;  /* what the command would use: NULL if unset */
	const char *origin; /* "environment", "FILE:LINE", or NULL */
};
/* The settings, in the files' order, after stg_config_apply; *ret_n of
 * them. Borrowed. */
const struct stg_config_setting *stg_config_settings(size_t *ret_n);
/* The files read, in order (those there), one a line; borrowed. */
const struct br_strlist *stg_config_files(void);

/* Load profile `name`: from the site profiles directory
 * ($BRINGUP_SITE_PROFILES, else STG_SITE_PROFILES: NAME/bios.conf, ...)
 * where it has one, else from templates/profiles/NAME. */
struct prof_profile;
/* The directory profile name is read from (caller frees). */
char *stg_profile_dir(const char *templates, const char *name);
int stg_profile_load(const char *templates, const char *name, struct prof_profile *ret, struct br_err *err);

#endif
