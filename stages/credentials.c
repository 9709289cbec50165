/* `bringup credentials rotate`: the two phases over every selected BMC. */
#define _GNU_SOURCE /* explicit_bzero, getrandom */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "credentials.h"
#include "manifest.h"

/* One node's rotation; secrets here are zeroed when it ends. */
struct job {
	struct inv_node *node;
	struct stg_credentials_node *out;
	char *factory; /* the password the inventory references now */
	char *pending; /* the new one, once known (a stored or site one, or generated) */
	char *new_ref; /* where the new one is kept */
	char *base_url;
	int recorded;		  /* the inventory already references new_ref */
	int set_ok;		  /* the BMC took the new password */
	int try_pending;	  /* the factory password was refused: the new one may be on it already */
	int verified;		  /* a login with the new password worked */
	int change_required;	  /* the login said PasswordChangeRequired */
	const char *user;	  /* the account the new password is for: --site-user, else bmc_user */
	const char *factory_user; /* --site-user: the account to retire once the new one is recorded */
	char *previous_user;	  /* ... the bmc_user before an earlier run recorded the site account */
	int ipmi;		  /* an IPMI-only BMC (bmc_type ipmi): ipmitool's user commands */
	int store_failed;	  /* the store refused or lost the new password (generate) */
	char *host;		  /* ... its address and UDP port */
	int port;
};

struct ctx {
	struct stg_credentials_options *o;
	struct inv *inv; /* where each Redfish session is recorded */
	struct job *jobs;
	size_t n;
};

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

static int all_classes(const char *s)
{
	int upper = 0, lower = 0, digit = 0;

	for (; *s; s++) {
		upper |= *s >= 'A' && *s <= 'Z';
		lower |= *s >= 'a' && *s <= 'z';
		digit |= *s >= '0' && *s <= '9';
	}
	return upper && lower && digit;
}

char *stg_password_generate(int length, int min_length, int max_length, struct br_err *err)
{
	const size_t n_alpha = sizeof(alphabet) - 1;
	const unsigned limit = 256 - 256 % n_alpha; /* bytes past it would favour the first letters */
	unsigned char raw[64];
	char *out;
	size_t got = 0, used = sizeof(raw);

	if (length <= 0)
		length = STG_PASSWORD_LENGTH;
	if (max_length > 0 && length > max_length)
		length = max_length;
	if (min_length > 0 && length < min_length)
		length = min_length;
	if ((max_length > 0 && min_length > max_length) || length < 3 || length > STG_PASSWORD_LENGTH_MAX) {
		br_errf(err, BR_E_UNSUPPORTED,
			"the BMC's password policy (%d-%d characters) leaves no length to use", min_length,
			max_length);
		return NULL;
	}
	out = br_xcalloc((size_t)length + 1, 1);
	for (int tries = 0; tries < 100; tries++) {
		got = 0;
		while (got < (size_t)length) {
			if (used == sizeof(raw)) {
				if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
					br_secret_free(out);
					explicit_bzero(raw, sizeof(raw));
					br_errf(err, BR_E_IO, "getrandom: %s", strerror(errno));
					return NULL;
				}
				used = 0;
			}
			if (raw[used] < limit)
				out[got++] = alphabet[raw[used] % n_alpha];
			used++;
		}
		out[got] = '\0';
		if (all_classes(out))
			break;
	}
	explicit_bzero(raw, sizeof(raw));
	return out;
}

/* The store's file for a host, or NULL for a name that is not one file's. */
static char *store_path(const char *dir, const char *hostname)
{
	if (!hostname || !*hostname || hostname[0] == '.' || strchr(hostname, '/'))
		return NULL;
	return br_xasprintf("%s/%s", dir, hostname);
}

/* Write the secret to DIR/HOST (0600) by a fsynced temporary file renamed
 * over it, then fsync the directory: once this returns 0 the secret
 * survives a crash, which is what lets the BMC be asked to take it. */
static int store_write(const char *dir, const char *hostname, const char *secret, struct br_err *err)
{
	char *path = store_path(dir, hostname), *tmp = br_xasprintf("%s/.%s.new", dir, hostname);
	size_t len = strlen(secret);
	int fd, rc = 0, dfd;

	if (!path) {
		free(tmp);
		return br_errf(err, BR_E_INVAL, "host name '%s' cannot name a file", hostname);
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = br_errf(err, BR_E_IO, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (fchmod(fd, 0600) || write(fd, secret, len) != (ssize_t)len || write(fd, "\n", 1) != 1 ||
	    fsync(fd)) {
		rc = br_errf(err, BR_E_IO, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) || rename(tmp, path)) {
		rc = br_errf(err, BR_E_IO, "%s: %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		if (fsync(dfd))
			rc = br_errf(err, BR_E_IO, "%s: fsync: %s", dir, strerror(errno));
		close(dfd);
	}
out:
	free(path);
	free(tmp);
	return rc;
}

int stg_credentials_options_check(struct stg_stage *st, struct stg_credentials_options *o)
{
	struct stat sb;
	const char *dir;

	if (stg_bmc_opts_finish(&o->bmc, st->cmd->name, &o->rf))
		return st->exit = STG_EXIT_USAGE;
	if (!!o->store == !!o->site_password)
		return stg_stage_usage(
		    st, "give one of --store file:DIR|exec:PROGRAM (a password per BMC) or --site-password "
			"env:VAR|file:PATH (one for all)");
	if (o->factory_user && !o->site_user)
		return stg_stage_usage(st, "--factory-user goes with --site-user");
	if (o->site_user && (!*o->site_user || strlen(o->site_user) > 64))
		return stg_stage_usage(st, "--site-user must be a user name of 1-64 characters");
	if (o->length && (o->length < 8 || o->length > STG_PASSWORD_LENGTH_MAX))
		return stg_stage_usage(st, "--length must be 8-%d", STG_PASSWORD_LENGTH_MAX);
	if (o->site_password) {
		struct br_err err = { 0 };
		char *secret = NULL;

		if (br_secret_resolve(o->site_password, &secret, &err))
			return stg_stage_usage(st, "--site-password: %s", err.msg);
		br_secret_free(secret);
		return 0;
	}
	if (!strncmp(o->store, "exec:", 5)) {
		const char *prog = o->store + 5;
		const char *why = prog[0] != '/'	 ? "not an absolute path"
				  : stat(prog, &sb)	 ? strerror(errno)
				  : !S_ISREG(sb.st_mode) ? "not a file"
				  : access(prog, X_OK)	 ? strerror(errno)
							 : NULL;

		if (why)
			return stg_stage_usage(
			    st, "--store exec:%s: the helper must be an executable absolute path: %s", prog,
			    why);
		o->store_exec = prog;
		return 0;
	}
	if (strncmp(o->store, "file:", 5) || !o->store[5])
		return stg_stage_usage(st, "--store '%s': give file:DIR or exec:PROGRAM", o->store);
	dir = o->store + 5;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return stg_stage_usage(st, "--store: cannot make %s: %s", dir, strerror(errno));
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
		return stg_stage_usage(st, "--store: %s is not a directory", dir);
	if (sb.st_mode & 077)
		return stg_stage_usage(st, "--store: %s is open to other users (mode %03o): chmod 700 it",
				       dir, (unsigned)(sb.st_mode & 0777));
	o->store_dir = br_xstrdup(dir);
	return 0;
}

static void job_release(struct job *j)
{
	br_secret_free(j->factory);
	br_secret_free(j->pending);
	free(j->new_ref);
	free(j->base_url);
	free(j->previous_user);
	free(j->host);
}

/* Fail the node's rotation with kind (the ticket it files) and reason
 * (taken); the first failure stays. */
static void fail_job_take(struct job *j, enum br_fail_kind kind, char *reason)
{
	if (j->out->result == STG_CRED_FAILED) {
		free(reason);
		return;
	}
	j->out->reason = reason;
	j->out->result = STG_CRED_FAILED;
	j->out->fail_kind = kind;
}
#define fail_job(j, kind, ...) fail_job_take((j), (kind), br_xasprintf(__VA_ARGS__))

/* The kind of a failure seen while a BMC was asked to take or prove the
 * new password: the store's if the store failed (generate), else the
 * BMC's (refused, unreachable, not logging in: the reason says which).
 * Only credentials rotate takes either back (stg_failed_in). */
static enum br_fail_kind bmc_kind(const struct job *j)
{
	return j->store_failed ? BR_FAIL_CREDENTIAL_STORE : BR_FAIL_BMC_CREDENTIALS;
}

/* What each node's rotation starts from; a node that cannot start is failed. */
static void prepare(struct ctx *cx, struct stg_stage *st, struct stg_credentials_run *run)
{
	for (size_t i = 0; i < st->n; i++) {
		struct inv_node *node = &st->nodes[i];
		struct job *j;
		struct br_err err = { 0 };
		char *host = NULL, *reason = NULL;
		int port;

		if (node->state == INV_RETIRED)
			continue;
		j = &cx->jobs[cx->n++];
		j->node = node;
		j->out = &run->nodes[run->n++];
		j->out->hostname = br_xstrdup(node->hostname);
		j->out->result = STG_CRED_ROTATED;
		j->out->password_ref = br_xstrdup(node->bmc_password_ref ? node->bmc_password_ref : "");
		if (cx->o->site_password) {
			j->new_ref = br_xstrdup(cx->o->site_password);
		} else if (cx->o->store_exec) {
			/* NULL until the helper keeps one */
			if (node->hostname[0] == '-' ||
			    stg_store_exec_lookup(cx->o->store_exec, node->hostname, &j->new_ref, &err)) {
				fail_job(j, BR_FAIL_CREDENTIAL_STORE, "%s",
					 node->hostname[0] == '-' ? "host name cannot be a helper's argument"
								  : err.msg);
				continue;
			}
		} else if (!(j->new_ref = store_path(cx->o->store_dir, node->hostname))) {
			fail_job(j, BR_FAIL_CREDENTIAL_STORE, "host name cannot name a file in the store");
			continue;
		} else {
			char *path = j->new_ref;

			j->new_ref = br_xasprintf("file:%s", path);
			free(path);
		}
		j->user = cx->o->site_user ? cx->o->site_user : node->bmc_user;
		j->recorded = j->new_ref && node->bmc_password_ref &&
			      !strcmp(node->bmc_password_ref, j->new_ref) && node->bmc_user &&
			      !strcmp(node->bmc_user, j->user);
		/* the factory account is the one the inventory named before the
		 * site account was recorded: its bmc_user now, or the one the
		 * event of an earlier run's record names */
		if (cx->o->site_user && cx->o->factory_user)
			j->factory_user = cx->o->factory_user;
		else if (cx->o->site_user && !j->recorded)
			j->factory_user = node->bmc_user;
		else if (cx->o->site_user &&
			 inv_node_bmc_user_before(st->inv, node->hostname, j->user, &j->previous_user, &err))
			fail_job(j, BR_FAIL_STAGE, "%s", err.msg);
		else
			j->factory_user = j->previous_user;
		if (j->factory_user && !strcmp(j->factory_user, j->user)) {
			fail_job(j, BR_FAIL_STAGE, "the site account is the factory account '%s'", j->user);
			continue;
		}
		j->ipmi = node->bmc_type && !strcmp(node->bmc_type, "ipmi");
		if (j->ipmi && cx->o->site_user) {
			fail_job(j, BR_FAIL_STAGE,
				 "IPMI-only BMC: a site account (--site-user) is not made over IPMI; "
				 "rotate it without --site-user");
			continue;
		}
		if (stg_bmc_endpoint(node, cx->o->bmc.scheme, &j->factory, &host, &port, &j->base_url,
				     &reason)) {
			fail_job(j, BR_FAIL_STAGE, "%s", reason);
			free(reason);
			continue;
		}
		j->host = host;
		j->port = port > 0 ? port : 623;
		/* the new password, where an earlier run (or the site) already has it */
		if (cx->o->site_password ||
		    (cx->o->store_exec ? j->new_ref != NULL : !access(j->new_ref + 5, F_OK))) {
			if (br_secret_resolve(j->new_ref, &j->pending, &err))
				fail_job(j, BR_FAIL_CREDENTIAL_STORE, "%s", err.msg);
		}
		if (j->recorded) {
			/* the inventory's reference is the new one: it is what to check */
			br_secret_free(j->pending);
			j->pending = j->factory;
			j->factory = NULL;
		}
	}
}

static int live(const struct job *j)
{
	return j->out->result != STG_CRED_FAILED;
}

static void set_target(struct rf_account_target *t, struct job *j, const struct stg_bmc_opts *b,
		       enum rf_account_op op, const char *user, const char *password)
{
	*t = (struct rf_account_target){
		.target = { .name = j->node->hostname,
			    .base_url = j->base_url,
			    .user = user,
			    .password = password,
			    .user_data = j,
			    .deadline_ms = stg_bmc_deadline_ms(b, 0, STG_DISCOVER_DEADLINE_S) },
		.op = op,
	};
}

static int policy_length(const struct stg_credentials_options *o, const struct rf_account_policy *p,
			 int change_required)
{
	if (o->length)
		return o->length;
	return change_required && !p->max_length ? STG_PASSWORD_LENGTH_UNKNOWN_POLICY : STG_PASSWORD_LENGTH;
}

/* A new password for j, written to the store before any BMC sees it. */
static int generate(struct ctx *cx, struct job *j, int length, int min_length, int max_length,
		    struct br_err *err)
{
	j->pending = stg_password_generate(length, min_length, max_length, err);
	if (!j->pending)
		return err->code;
	br_redact_add(j->pending);
	if (cx->o->store_exec) {
		char *ref = NULL;

		if (stg_store_exec_put(cx->o->store_exec, j->node->hostname, j->pending, &ref, err)) {
			j->store_failed = 1;
			br_secret_free(j->pending);
			j->pending = NULL;
			return br_err_prefix(err, "store the new password");
		}
		free(j->new_ref);
		j->new_ref = ref;
		return 0;
	}
	if (store_write(cx->o->store_dir, j->node->hostname, j->pending, err)) {
		j->store_failed = 1;
		br_secret_free(j->pending);
		j->pending = NULL;
		return br_err_prefix(err, "store the new password");
	}
	return 0;
}

/* The new password, asked for just before the BMC gets it: a stored or
 * site one as it is, else a new one, written to the store first. */
static int new_password(const struct rf_account_target *t, const struct rf_account_policy *p,
			const char **ret_password, struct br_err *err, void *arg)
{
	struct ctx *cx = arg;
	struct job *j = t->target.user_data;
	size_t len;
	int change_required = !p->min_length && !p->max_length;

	if (j->pending) {
		len = strlen(j->pending);
		if ((p->min_length && len < (size_t)p->min_length) ||
		    (p->max_length && len > (size_t)p->max_length))
			return br_errf(
			    err, BR_E_UNSUPPORTED,
			    "the new password (%s) is %zu characters, the BMC's policy wants %d-%d",
			    j->new_ref, len, p->min_length, p->max_length);
		*ret_password = j->pending;
		return 0;
	}
	if (generate(cx, j, policy_length(cx->o, p, change_required), p->min_length, p->max_length, err))
		return err->code;
	*ret_password = j->pending;
	return 0;
}

/* Phase one's outcome for a job, over Redfish or IPMI. */
static void set_done(struct job *j, int rc, const struct br_err *err)
{
	char *why;

	if (!rc) {
		j->set_ok = 1;
		return;
	}
	if (rc == BR_E_AUTH && j->pending) {
		j->try_pending = 1; /* an earlier run may have got this far */
		return;
	}
	why = stg_bmc_failure_reason(rc, err ? err->msg : "failed");
	fail_job(j, bmc_kind(j), "%s%s",
		 j->store_failed ? "" : "the BMC did not take the new password: ", why);
	free(why);
}

/* Phase two's: a login with the new password. */
static void check_done(struct job *j, int rc, const struct br_err *err)
{
	char *why;

	if (!rc) {
		j->verified = 1;
		return;
	}
	why = stg_bmc_failure_reason(rc, err ? err->msg : "failed");
	if (j->recorded)
		fail_job(j, bmc_kind(j), "the recorded password (%s) does not log in: %s", j->new_ref, why);
	else if (j->set_ok)
		fail_job(j, bmc_kind(j),
			 "the BMC took the new password but does not log in with it: %s (new password in %s)",
			 why, j->new_ref);
	else
		fail_job(j, bmc_kind(j),
			 "neither the referenced password (%s) nor the new one (%s) logs in: %s",
			 j->node->bmc_password_ref, j->new_ref, why);
	free(why);
}

/* An IPMI BMC states no policy: its new password is known (and stored)
 * before ipmitool is run, within what Set User Password takes. */
static int ipmi_new_password(struct ctx *cx, struct job *j, struct br_err *err)
{
	return j->pending ? 0 : generate(cx, j, cx->o->length, 0, RF_IPMI_PASSWORD_MAX, err);
}

static struct rf_ipmi_target ipmi_target(struct job *j, const char *user, const char *password)
{
	return (struct rf_ipmi_target){ .name = j->node->hostname,
					.host = j->host,
					.port = j->port,
					.user = user,
					.password = password,
					.user_data = j };
}

static void on_set(const struct rf_account_target *t, int rc, const struct rf_account_result *res,
		   const struct br_err *err, void *arg)
{
	struct job *j = t->target.user_data;

	j->change_required |= res->password_change_required;
	set_done(j, rc, err);
}

static void on_check(const struct rf_account_target *t, int rc, const struct rf_account_result *res,
		     const struct br_err *err, void *arg)
{
	check_done(t->target.user_data, rc, err);
}

static void on_ipmi_set(const struct rf_ipmi_target *t, int rc, struct br_hw *hw, const struct br_err *err,
			void *arg)
{
	set_done(t->user_data, rc, err);
}

static void on_ipmi_check(const struct rf_ipmi_target *t, int rc, struct br_hw *hw, const struct br_err *err,
			  void *arg)
{
	check_done(t->user_data, rc, err);
}

static void on_retired(const struct rf_account_target *t, int rc, const struct rf_account_result *res,
		       const struct br_err *err, void *arg)
{
	struct job *j = t->target.user_data;
	char *why;

	if (!rc)
		return;
	why = stg_bmc_failure_reason(rc, err ? err->msg : "failed");
	/* the site account is recorded and works: only the retirement failed */
	fail_job(j, bmc_kind(j),
		 "the site account %s is recorded (%s), but the factory account %s is still enabled: %s",
		 j->user, j->new_ref, j->factory_user, why);
	free(why);
}

static int run_pass(struct ctx *cx, struct rf_account_target *targets, size_t n, rf_account_done_fn done)
{
	struct rf_options ro = cx->o->rf;
	struct br_err err = { 0 };

	if (!n)
		return 0;
	stg_bmc_sessions_record(&ro, cx->inv);
	if (rf_accounts_all(targets, n, &ro, new_password, done, cx, &err)) {
		br_error("credentials", "%s", err.msg);
		return STG_EXIT_UNREACHABLE;
	}
	return 0;
}

/* The IPMI-only BMCs' pass of a phase: set (targets given) or check. */
static int run_ipmi_pass(struct ctx *cx, const struct rf_ipmi_user_target *set,
			 const struct rf_ipmi_target *check, size_t n)
{
	const struct rf_ipmi_options io = { cx->o->bmc.ipmi_parallel, cx->o->bmc.timeout_s, NULL, 0, NULL };
	struct br_err err = { 0 };
	int rc;

	if (!n)
		return 0;
	rc = set ? rf_ipmi_password_set(set, n, &io, on_ipmi_set, cx, &err)
		 : rf_ipmi_login_check(check, n, &io, on_ipmi_check, cx, &err);
	if (rc) {
		br_error("credentials", "%s", err.msg);
		return STG_EXIT_UNREACHABLE;
	}
	return 0;
}

static void record(struct stg_stage *st, struct job *j, struct stg_credentials_run *run)
{
	struct br_err err = { 0 };

	if (!j->verified) {
		fail_job(j, BR_FAIL_STAGE, "stopped before a login with the new password");
		return;
	}
	if (j->recorded) {
		j->out->result = STG_CRED_ALREADY;
		return;
	}
	if (inv_node_set_bmc_credentials(st->inv, j->node->hostname, j->user, j->new_ref, &err)) {
		fail_job(j, BR_FAIL_STAGE,
			 "the BMC is on the new password (%s) but the inventory refused it: %s", j->new_ref,
			 err.msg);
		return;
	}
	free(j->out->password_ref);
	j->out->password_ref = br_xstrdup(j->new_ref);
	j->out->result = STG_CRED_ROTATED;
}

static int rotation_kind(enum br_fail_kind k)
{
	return k == BR_FAIL_BMC_CREDENTIALS || k == BR_FAIL_MAAS_POWER || k == BR_FAIL_CREDENTIAL_STORE;
}

/* An inventory write of the outcome refused: logged with the node, and a
 * write the inventory itself could not make ends the stage with exit 3. */
static void outcome_unrecorded(struct stg_stage *st, const struct job *j, const struct br_err *err)
{
	br_log_node(BR_LOG_ERROR, "inventory", j->node->hostname, j->node->bmc,
		    "the rotation's outcome is not recorded: %s", err->msg);
	if (stg_inventory_refused(err))
		stg_stage_unwritable(st, 1, err->msg);
}

/* Each node's outcome into its state: a failed rotation fails the node
 * with its kind, so that tickets files one and status shows it (a node a
 * stage before failed keeps that failure: its stage takes it back); a node
 * a rotation failed before, now rotated (and, for maas_power, MAAS told),
 * goes back to the state it was failed from. */
static void record_outcomes(struct stg_stage *st, struct ctx *cx)
{
	for (size_t i = 0; i < cx->n; i++) {
		struct job *j = &cx->jobs[i];
		struct inv_node *node = j->node;
		struct br_err err = { 0 };
		enum inv_state from = INV_NEW;
		int again = 0;

		if (j->out->result == STG_CRED_FAILED) {
			/* one that never started (an operator's matter) or was
			 * stopped is only reported */
			if (!rotation_kind(j->out->fail_kind) ||
			    (node->state == INV_FAILED && !rotation_kind(node->failure_kind)))
				continue;
			if (inv_node_fail(st->inv, node->hostname, node->state, j->out->fail_kind,
					  j->out->reason, &err))
				outcome_unrecorded(st, j, &err);
			continue;
		}
		if (node->state != INV_FAILED || !rotation_kind(node->failure_kind) ||
		    (node->failure_kind == BR_FAIL_MAAS_POWER &&
		     j->out->maas_power != STG_MAAS_POWER_UPDATED))
			continue;
		if (inv_node_failed_from(st->inv, node->hostname, &from, &again, &err) || from == INV_FAILED)
			from = INV_NEW; /* no event says: from the start */
		err = (struct br_err){ 0 };
		if (inv_node_set_state(st->inv, node->hostname, INV_FAILED, from,
				       "BMC credentials rotated: back where the failed rotation left it",
				       &err))
			outcome_unrecorded(st, j, &err);
	}
}

/* Whether MAAS is to hear of the rotation: some node it has enlisted is
 * selected and --no-maas is not given. Then MAAS must be named (URL and
 * key, as enlist takes them) before any node is touched: 0, or
 * STG_EXIT_USAGE after saying what is wrong. */
static int maas_check(struct stg_stage *st, struct stg_credentials_options *o, int *ret_needed)
{
	struct br_err err = { 0 };
	const char *enlisted = NULL;

	*ret_needed = 0;
	for (size_t i = 0; !o->no_maas && !enlisted && i < st->n; i++)
		if (st->nodes[i].state != INV_RETIRED && st->nodes[i].maas_system_id &&
		    *st->nodes[i].maas_system_id)
			enlisted = st->nodes[i].hostname;
	if (!enlisted)
		return 0;
	if (!o->maas.url || !*o->maas.url)
		return stg_stage_usage(
		    st,
		    "%s is enlisted in MAAS: set MAAS_URL (or --maas-url) so that MAAS gets its "
		    "new power parameters, or pass --no-maas",
		    enlisted);
	if (!stg_maas_url_is_api_root(o->maas.url))
		return stg_stage_usage(st, "--maas-url '%s' is not MAAS's API root (http://HOST:5240/MAAS/)",
				       o->maas.url);
	if (o->maas.timeout_s < 1)
		return stg_stage_usage(st, "--maas-timeout must be positive");
	if (stg_maas_opts_key(&o->maas, &err))
		return stg_stage_usage(st, "MAAS API key: %s", err.msg);
	*ret_needed = 1;
	return 0;
}

/* MAAS's answer to one node's new power parameters. */
static void on_maas_power(void *arg, const struct maas_result *res)
{
	struct job *j = arg;

	if (!res->rc) {
		j->out->maas_power = STG_MAAS_POWER_UPDATED;
		br_log_node(BR_LOG_INFO, "credentials", j->node->hostname, j->node->bmc,
			    "MAAS machine %s has the new power parameters", j->node->maas_system_id);
		return;
	}
	j->out->maas_power = STG_MAAS_POWER_FAILED;
	fail_job(j, BR_FAIL_MAAS_POWER,
		 "the BMC is on the new password (%s, recorded), but MAAS refused the new power parameters "
		 "of machine %s, so MAAS cannot power it until a rerun gives them: %s",
		 j->new_ref, j->node->maas_system_id, res->err ? res->err->msg : "failed");
}

/* Give MAAS the new power parameters of every live node it has enlisted.
 * Every run sends them, for nodes just rotated and for those recorded
 * before: a run stopped between the record and this leaves MAAS with the
 * old ones, and a PUT of the same parameters again changes nothing. A
 * MAAS that refuses or cannot be reached fails that node alone. */
static void maas_update(struct ctx *cx)
{
	struct maas_options mo;
	struct maas_client *client = NULL;
	struct br_err err = { 0 };
	size_t queued = 0;

	maas_options_init(&mo);
	stg_maas_opts_apply(&cx->o->maas, &mo);
	if (maas_client_new(&mo, &client, &err)) {
		for (size_t i = 0; i < cx->n; i++)
			if (live(&cx->jobs[i]) && cx->jobs[i].node->maas_system_id) {
				cx->jobs[i].out->maas_power = STG_MAAS_POWER_FAILED;
				fail_job(&cx->jobs[i], BR_FAIL_MAAS_POWER, "MAAS: %s", err.msg);
			}
		return;
	}
	for (size_t i = 0; i < cx->n; i++) {
		struct job *j = &cx->jobs[i];
		char *address;
		int rc;

		if (!live(j) || !j->node->maas_system_id || !*j->node->maas_system_id)
			continue;
		/* the parameters enlist gave (stages/enlist_steps.c create), the
		 * new credentials in them */
		address = stg_maas_power_address(j->node->bmc, j->ipmi);
		rc =
		    maas_machine_set_power(client, j->node->maas_system_id,
					   &(const struct maas_power){ .type = j->ipmi ? "ipmi" : "redfish",
								       .address = address,
								       .user = j->user,
								       .password = j->pending,
								       .driver = j->ipmi ? "LAN_2_0" : NULL },
					   on_maas_power, j);
		free(address);
		if (rc) {
			j->out->maas_power = STG_MAAS_POWER_FAILED;
			fail_job(j, BR_FAIL_MAAS_POWER, "MAAS power parameters of '%s' not sent: %s",
				 j->node->maas_system_id, br_strerror(rc));
		} else {
			queued++;
		}
	}
	if (queued && maas_client_run(client, &err))
		for (size_t i = 0; i < cx->n; i++)
			if (live(&cx->jobs[i]) && cx->jobs[i].node->maas_system_id &&
			    cx->jobs[i].out->maas_power == STG_MAAS_POWER_NONE) {
				cx->jobs[i].out->maas_power = STG_MAAS_POWER_FAILED;
				fail_job(&cx->jobs[i], BR_FAIL_MAAS_POWER, "MAAS: %s", err.msg);
			}
	maas_client_free(client);
}

int stg_credentials_rotate(struct stg_stage *st, struct stg_credentials_options *o,
			   struct stg_credentials_run *run)
{
	struct ctx cx = { .o = o, .inv = st->inv };
	struct rf_account_target *targets;
	struct rf_ipmi_user_target *ipmi_set;
	struct rf_ipmi_target *ipmi_check;
	size_t k = 0, m = 0;
	int rc, maas_needed;

	if (maas_check(st, o, &maas_needed))
		return st->exit;
	run->nodes = br_xcalloc(st->n ? st->n : 1, sizeof(*run->nodes));
	cx.jobs = br_xcalloc(st->n ? st->n : 1, sizeof(*cx.jobs));
	targets = br_xcalloc(st->n ? st->n : 1, sizeof(*targets));
	ipmi_set = br_xcalloc(st->n ? st->n : 1, sizeof(*ipmi_set));
	ipmi_check = br_xcalloc(st->n ? st->n : 1, sizeof(*ipmi_check));
	prepare(&cx, st, run);
	stg_bmc_sessions_reclaim(st, &o->bmc, &o->rf);

	/* Phase one: recorded nodes prove their password; the others take
	 * the new one, logged in with the referenced one (an IPMI BMC's known
	 * and stored first: it states no policy). */
	for (size_t i = 0; i < cx.n; i++) {
		struct job *j = &cx.jobs[i];
		struct br_err err = { 0 };

		if (!live(j) || j->recorded)
			continue;
		if (j->ipmi && ipmi_new_password(&cx, j, &err)) {
			fail_job(j, bmc_kind(j), "%s", err.msg);
		} else if (j->ipmi) {
			ipmi_set[m].target = ipmi_target(j, j->node->bmc_user, j->factory);
			ipmi_set[m++].new_password = j->pending;
		} else {
			set_target(&targets[k], j, &o->bmc,
				   o->site_user ? RF_ACCOUNT_CREATE : RF_ACCOUNT_SET_PASSWORD,
				   j->node->bmc_user, j->factory);
			targets[k++].account_user = o->site_user;
		}
	}
	rc = run_pass(&cx, targets, k, on_set);
	if (!rc)
		rc = run_ipmi_pass(&cx, ipmi_set, NULL, m);
	/* Phase two: a login with the new password, wherever it may be on the
	 * BMC: just set, recorded before, or set by a run that stopped. */
	k = m = 0;
	for (size_t i = 0; !rc && i < cx.n; i++) {
		struct job *j = &cx.jobs[i];

		if (!live(j) || !(j->recorded || j->set_ok || j->try_pending))
			continue;
		if (j->ipmi)
			ipmi_check[m++] = ipmi_target(j, j->user, j->pending);
		else
			set_target(&targets[k++], j, &o->bmc, RF_ACCOUNT_CHECK, j->user, j->pending);
	}
	if (!rc)
		rc = run_pass(&cx, targets, k, on_check);
	if (!rc)
		rc = run_ipmi_pass(&cx, NULL, ipmi_check, m);
	for (size_t i = 0; !rc && i < cx.n; i++) {
		struct job *j = &cx.jobs[i];

		j->out->password_change_required = j->change_required;
		if (live(j))
			record(st, j, run);
	}
	/* MAAS's power parameters, once the new credential is proven and
	 * recorded and before the factory account is retired: with a site
	 * account, MAAS logs in with the factory account until it has the
	 * new one, so retiring it first would leave MAAS unable to power the
	 * node; a MAAS that refuses fails the node here, which keeps its
	 * factory account (and MAAS's power control) until a rerun, finding
	 * the site account recorded, updates MAAS and then retires it. With a
	 * new password on the factory account, MAAS's one stopped working in
	 * phase one: this is the earliest it can be given the new one. */
	if (!rc && maas_needed)
		maas_update(&cx);
	/* Phase three, a site account only: with it recorded, the factory
	 * account is disabled, logged in as the site account. */
	k = 0;
	for (size_t i = 0; !rc && o->site_user && i < cx.n; i++) {
		struct job *j = &cx.jobs[i];

		if (!live(j))
			continue;
		if (!j->factory_user) {
			j->out->reason = br_xstrdup(
			    "factory account not retired by this run: name it with --factory-user");
			continue;
		}
		set_target(&targets[k], j, &o->bmc, RF_ACCOUNT_DISABLE, j->user, j->pending);
		targets[k++].account_user = j->factory_user;
	}
	if (!rc)
		rc = run_pass(&cx, targets, k, on_retired);
	if (!rc)
		record_outcomes(st, &cx);
	for (size_t i = 0; i < cx.n; i++) {
		run->rotated += cx.jobs[i].out->result == STG_CRED_ROTATED;
		run->already += cx.jobs[i].out->result == STG_CRED_ALREADY;
		run->failed += cx.jobs[i].out->result == STG_CRED_FAILED;
		job_release(&cx.jobs[i]);
	}
	free(cx.jobs);
	free(targets);
	free(ipmi_set);
	free(ipmi_check);
	if (rc)
		st->exit = rc;
	return rc;
}

void stg_credentials_run_release(struct stg_credentials_run *run)
{
	for (size_t i = 0; i < run->n; i++) {
		free(run->nodes[i].hostname);
		free(run->nodes[i].reason);
		free(run->nodes[i].password_ref);
	}
	free(run->nodes);
	memset(run, 0, sizeof(*run));
}

static const char *result_name(enum stg_credentials_result r)
{
	switch (r) {
	case STG_CRED_ROTATED:
		return "rotated";
	case STG_CRED_ALREADY:
		return "already";
	case STG_CRED_FAILED:
		return "failed";
	}
	return "?";
}

json_t *stg_credentials_json(const void *arg)
{
	const struct stg_credentials_run *run = arg;
	json_t *nodes = json_array();

	for (size_t i = 0; i < run->n; i++) {
		const struct stg_credentials_node *n = &run->nodes[i];

		static const char *const maas_power[] = { NULL, "updated", "failed" };

		json_array_append_new(
		    nodes, json_pack("{s:s, s:s, s:s?, s:s?, s:s, s:b, s:s?}", "hostname", n->hostname,
				     "result", result_name(n->result), "reason", n->reason, "failure_kind",
				     n->result == STG_CRED_FAILED ? br_fail_kind_name(n->fail_kind) : NULL,
				     "password_ref", n->password_ref, "password_change_required",
				     n->password_change_required, "maas_power", maas_power[n->maas_power]));
	}
	return json_pack("{s:o, s:I, s:I, s:I}", "nodes", nodes, "rotated", (json_int_t)run->rotated,
			 "already", (json_int_t)run->already, "failed", (json_int_t)run->failed);
}

void stg_credentials_print(const void *arg)
{
	const struct stg_credentials_run *run = arg;

	for (size_t i = 0; i < run->n; i++) {
		const struct stg_credentials_node *n = &run->nodes[i];
		char *why = n->reason ? br_escape(n->reason) : NULL;

		printf("%-20s %-8s %s%s%s%s%s%s\n", n->hostname, result_name(n->result), n->password_ref,
		       n->maas_power == STG_MAAS_POWER_UPDATED ? " (MAAS updated)" : "", why ? ": " : "",
		       n->result == STG_CRED_FAILED ? br_fail_kind_name(n->fail_kind) : "",
		       n->result == STG_CRED_FAILED ? ": " : "", why ? why : "");
		free(why);
	}
	printf("rotated %zu, already %zu, failed %zu\n", run->rotated, run->already, run->failed);
}
