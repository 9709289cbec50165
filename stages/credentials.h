/*
 * credentials — `bringup credentials rotate`: move each node's BMC from the
 * factory password the manifest references to a site password, in two
 * phases so that access is never lost: the new password is written to its
 * store (file:DIR/HOSTNAME, 0600) before the BMC is asked to take it; the
 * BMC then takes it (a PATCH of the account's Password, also what a
 * PasswordChangeRequired login demands); a login with it proves it; only
 * then does the inventory's bmc_password reference move to the store. A
 * run stopped anywhere is finished by the next one: a BMC that refuses the
 * factory password is tried with the stored one. A node MAAS has enlisted
 * (it has a system_id) then gives MAAS its new power parameters, before a
 * factory account is retired; a MAAS that refuses fails that node.
 * A node whose rotation failed is failed in the inventory with the kind
 * typed where the failure was seen (its ticket's fault); only a later
 * rotation that succeeds takes it back to the state it was in.
 *
 * Ownership: struct stg_credentials_run owns its nodes and their strings;
 * release it with stg_credentials_run_release. Secrets are never in it.
 */
#ifndef STAGES_CREDENTIALS_H
#define STAGES_CREDENTIALS_H

#include "bmcopts.h"
#include "maasopts.h"
#include "stage.h"

/* The generated password's length when the BMC's policy allows it. */
#define STG_PASSWORD_LENGTH 32
/* When the BMC's policy cannot be read (a PasswordChangeRequired login may
 * read nothing): IPMI 2.0's 20-byte limit, which any BMC that also speaks
 * IPMI keeps. */
#define STG_PASSWORD_LENGTH_UNKNOWN_POLICY 20
#define STG_PASSWORD_LENGTH_MAX 128

struct stg_credentials_options {
	struct stg_bmc_opts bmc;
	/* file:DIR: one generated password per BMC in DIR/HOSTNAME; exec:PROGRAM:
	 * the site's helper keeps it (credentials_store.c) */
	const char *store;
	const char *site_password; /* env:VAR or file:PATH: one password for every BMC */
	int length;		   /* generated length wanted; 0: STG_PASSWORD_LENGTH */
	/* A site account instead of a new password on the factory one:
	 * created with the Administrator role, logged in with, recorded
	 * (bmc_user and bmc_password), and only then the factory account
	 * (factory_user, else the bmc_user the inventory had) disabled. */
	const char *site_user;
	const char *factory_user;
	char *store_dir;	/* the file: store's directory (stg_credentials_options_check) */
	const char *store_exec; /* the exec: store's helper program */
	/* MAAS, for the nodes it has enlisted (a system_id): their power
	 * parameters get the new credentials. no_maas: leave MAAS alone. */
	struct stg_maas_opts maas;
	int no_maas;
	struct rf_options rf;
};

enum stg_credentials_result {
	STG_CRED_ROTATED, /* on the new password now, recorded */
	STG_CRED_ALREADY, /* the recorded reference already was the new one, and it works */
	STG_CRED_FAILED,  /* nothing recorded; reason says what the BMC did */
};

struct stg_credentials_node {
	char *hostname;
	enum stg_credentials_result result;
	char *reason; /* failed: why; else NULL */
	/* failed: the kind the node is failed with in the inventory (its
	 * ticket's fault): bmc_credentials, maas_power, credential_store, or
	 * a BMC fault discover also names (bmc_auth, bmc_unreachable, ...) */
	enum br_fail_kind fail_kind;
	char *password_ref;	      /* the reference recorded (the new one), or the old on failure */
	int password_change_required; /* the BMC's login said so */
	/* MAAS's power parameters: STG_MAAS_POWER_NONE (not enlisted, or
	 * --no-maas), _UPDATED (it has the new credentials), _FAILED */
	int maas_power;
};
enum { STG_MAAS_POWER_NONE, STG_MAAS_POWER_UPDATED, STG_MAAS_POWER_FAILED };

struct stg_credentials_run {
	struct stg_credentials_node *nodes;
	size_t n, rotated, already, failed;
};

/* Check the options and make the store's directory (0700) before any node
 * is touched: 0, or STG_EXIT_USAGE after saying what is wrong. */
int stg_credentials_options_check(struct stg_stage *st, struct stg_credentials_options *o);
/* Rotate every selected node's BMC password. 0 when the run itself worked
 * (nodes may have failed: run->failed), else an exit code. */
int stg_credentials_rotate(struct stg_stage *st, struct stg_credentials_options *o,
			   struct stg_credentials_run *run);
void stg_credentials_run_release(struct stg_credentials_run *run);
json_t *stg_credentials_json(const void *run);
void stg_credentials_print(const void *run);

/* The exec: store (credentials_store.c). Its helper is run with a verb
 * and the host name in argv, never a secret. `PROGRAM store HOST` gets the
 * new password on standard input (one line), keeps it, and prints the
 * reference every stage reads it back through (env:VAR or file:PATH);
 * put checks that the reference gives the password back before returning
 * it (caller frees). `PROGRAM lookup HOST` prints the reference of the
 * password it keeps for HOST, or nothing (*ret_ref NULL): how a rerun
 * finds the password a stopped run stored. A helper that exits nonzero or
 * prints anything else is an error naming it. */
int stg_store_exec_put(const char *program, const char *host, const char *secret, char **ret_ref,
		       struct br_err *err);
int stg_store_exec_lookup(const char *program, const char *host, char **ret_ref, struct br_err *err);

/* A password of `length` letters and digits from the kernel's random
 * source (getrandom), at least one upper, one lower and one digit (the
 * complexity rules BMCs apply), length clamped into the policy's
 * [min_length, max_length] (0: unstated). Caller frees with
 * br_secret_free; NULL with err when the policy leaves no length
 * (min above max) or the random source fails. */
char *stg_password_generate(int length, int min_length, int max_length, struct br_err *err);

#endif
