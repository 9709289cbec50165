/*
 * accounts — the credentials driver and rf_accounts_all: one rf_bmc per
 * BMC, run by drive.c as every driver is. A BMC's life:
 * service root -> login -> AccountService (policy) -> Accounts -> every
 * member (find the account by UserName) -> the PATCH or POST -> report ->
 * logout. A login that says PasswordChangeRequired goes straight to the
 * PATCH of the account it names: nothing else is allowed to that session.
 */
#include <stdlib.h>
#include <string.h>

#include "rf_private.h"

struct rf_acct_run {
	rf_account_password_fn password;
	rf_account_done_fn done;
	void *ctx;
};

struct rf_acct_node {
	struct rf_acct_run *run;
	const struct rf_account_target *t;
	struct rf_account_result res;
	char *accounts_url;
	char *etag; /* of the account found, sent as If-Match */
	int members_pending;
	int finished;
	const char *step;
};

static const char *wanted_user(const struct rf_account_target *t)
{
	return t->account_user ? t->account_user : t->target.user;
}

static void finish(struct rf_bmc *bmc)
{
	bmc->acct->finished = 1;
}

static void on_changed(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;

	if (rc) {
		rf_bmc_fail_request(bmc, req, bmc->acct->step, err);
		return;
	}
	bmc->acct->res.changed = 1;
	finish(bmc);
}

static void send_change(struct rf_bmc *bmc, enum rf_method method, const char *url, json_t *body,
			const char *step)
{
	struct rf_acct_node *an = bmc->acct;
	struct rf_req *req = rf_req_new(bmc, method, url, 50, on_changed);

	req->post_body = json_dumps(body, JSON_COMPACT);
	if (an->etag && method == RF_PATCH)
		req->if_match = br_xstrdup(an->etag);
	an->step = step;
	rf_req_submit(req);
}

/* The account is known (or, for a create, known to be absent): change it. */
static void change(struct rf_bmc *bmc)
{
	struct rf_acct_node *an = bmc->acct;
	const struct rf_account_target *t = an->t;
	const char *password = NULL;
	struct br_err err = { 0 };
	json_t *body;

	if (t->op == RF_ACCOUNT_DISABLE) {
		body = json_pack("{s:b}", "Enabled", 0);
		send_change(bmc, RF_PATCH, an->res.account_url, body, "disable the account");
		json_decref(body);
		return;
	}
	if (an->run->password(t, &an->res.policy, &password, &err, an->run->ctx) || !password) {
		if (!err.msg[0])
			br_errf(&err, BR_E_INVAL, "no new password");
		rf_bmc_fail(bmc, &err);
		return;
	}
	if (t->op == RF_ACCOUNT_CREATE && !an->res.account_url) {
		body = json_pack("{s:s, s:s, s:s, s:b}", "UserName", wanted_user(t), "Password", password,
				 "RoleId", t->role ? t->role : "Administrator", "Enabled", 1);
		send_change(bmc, RF_POST, an->accounts_url, body, "create the account");
	} else {
		body = json_pack("{s:s}", "Password", password);
		if (t->op == RF_ACCOUNT_CREATE)
			json_object_set_new(body, "Enabled", json_true());
		send_change(bmc, RF_PATCH, an->res.account_url, body, "set the account's password");
	}
	json_decref(body);
}

static void members_done(struct rf_bmc *bmc)
{
	struct rf_acct_node *an = bmc->acct;

	if (!an->res.account_url && an->t->op != RF_ACCOUNT_CREATE) {
		rf_bmc_failf(bmc, BR_E_NOTFOUND, "no account '%s' in %s", wanted_user(an->t),
			     an->accounts_url);
		return;
	}
	change(bmc);
}

static void on_member(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_acct_node *an = bmc->acct;
	json_t *doc;

	an->members_pending--;
	if (rc) {
		rf_bmc_fail_request(bmc, req, "read an account", err);
		return;
	}
	if (!(doc = rf_req_json(req)))
		return;
	if (!an->res.account_url && br_json_str(doc, "UserName") &&
	    !strcmp(br_json_str(doc, "UserName"), wanted_user(an->t))) {
		an->res.account_url = br_xstrdup(req->url);
		free(an->etag);
		an->etag = req->etag ? br_xstrdup(req->etag) : NULL;
		if (!an->etag && br_json_str(doc, "@odata.etag"))
			an->etag = br_xstrdup(br_json_str(doc, "@odata.etag"));
	}
	json_decref(doc);
	if (!an->members_pending && !bmc->failed)
		members_done(bmc);
}

static void on_accounts(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_acct_node *an = bmc->acct;
	json_t *doc, *members, *m;
	size_t i;

	if (rc) {
		rf_bmc_fail_request(bmc, req, "read the Accounts collection", err);
		return;
	}
	if (!(doc = rf_req_json(req)))
		return;
	members = json_object_get(doc, "Members");
	if (!json_is_array(members) || json_array_size(members) > RF_ACCOUNTS_MAX) {
		json_decref(doc);
		rf_bmc_failf(bmc, BR_E_PROTO, "%s: Members is not a list of at most %d accounts", req->url,
			     RF_ACCOUNTS_MAX);
		return;
	}
	json_array_foreach(members, i, m)
	{
		char *url = br_json_str(m, "@odata.id") ? rf_resolve(bmc, br_json_str(m, "@odata.id")) : NULL;

		if (!url)
			continue;
		an->members_pending++;
		rf_req_submit(rf_req_new(bmc, RF_GET, url, 50, on_member));
		free(url);
	}
	json_decref(doc);
	if (!an->members_pending)
		members_done(bmc);
}

static int policy_int(json_t *doc, const char *name)
{
	json_t *v = json_object_get(doc, name);

	return json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) < 4096
		   ? (int)json_integer_value(v)
		   : 0;
}

/* The session may only change the account the login named. */
static void change_required(struct rf_bmc *bmc, char *url)
{
	struct rf_acct_node *an = bmc->acct;

	an->res.password_change_required = 1;
	if (an->t->op == RF_ACCOUNT_CHECK) {
		free(url);
		finish(bmc);
		return;
	}
	if (an->t->op != RF_ACCOUNT_SET_PASSWORD) {
		free(url);
		rf_bmc_failf(bmc, BR_E_STATE, "the BMC requires the password of %s to be changed first",
			     an->t->target.user ? an->t->target.user : "?");
		return;
	}
	free(an->res.account_url);
	an->res.account_url = url;
	change(bmc);
}

static void on_service(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	struct rf_acct_node *an = bmc->acct;
	const char *link;
	json_t *doc;

	if (rc && req->http.status == 403) {
		/* basic auth: no login answer said it, the first refusal does */
		char *uri = rf_password_change_uri(req->http.body.data, req->http.body.len);
		char *url = uri ? rf_resolve(bmc, uri) : NULL;

		free(uri);
		if (url) {
			change_required(bmc, url);
			return;
		}
	}
	if (rc) {
		rf_bmc_fail_request(bmc, req, "read the AccountService", err);
		return;
	}
	if (!(doc = rf_req_json(req)))
		return;
	an->res.policy.min_length = policy_int(doc, "MinPasswordLength");
	an->res.policy.max_length = policy_int(doc, "MaxPasswordLength");
	link = br_json_str(doc, "Accounts/@odata.id");
	an->accounts_url = link ? rf_resolve(bmc, link) : NULL;
	json_decref(doc);
	if (an->t->op == RF_ACCOUNT_CHECK) {
		finish(bmc);
		return;
	}
	if (!an->accounts_url) {
		rf_bmc_failf(bmc, BR_E_UNSUPPORTED, "%s: the AccountService links no Accounts", req->url);
		return;
	}
	rf_req_submit(rf_req_new(bmc, RF_GET, an->accounts_url, 50, on_accounts));
}

static void on_ready(struct rf_bmc *bmc)
{
	const char *link = br_json_str(bmc->root, "AccountService/@odata.id");
	char *url;

	if (bmc->password_change_url) {
		change_required(bmc, br_xstrdup(bmc->password_change_url));
		return;
	}
	url = link ? rf_resolve(bmc, link) : NULL;
	if (!url) {
		rf_bmc_failf(bmc, BR_E_UNSUPPORTED, "%s/redfish/v1 links no AccountService", bmc->base);
		return;
	}
	bmc->acct->step = "read the AccountService";
	rf_req_submit(rf_req_new(bmc, RF_GET, url, 50, on_service));
	free(url);
}

static void report(struct rf_bmc *bmc)
{
	struct rf_acct_node *an = bmc->acct;

	an->run->done(an->t, bmc->failed ? bmc->err.code : 0, &an->res, bmc->failed ? &bmc->err : NULL,
		      an->run->ctx);
}

static void on_idle(struct rf_bmc *bmc)
{
	struct rf_acct_node *an = bmc->acct;

	if (bmc->phase == RF_BMC_WALKING && !bmc->failed && !an->finished)
		rf_bmc_failf(bmc, BR_E_STATE, "stopped before it could %s", an->step ? an->step : "start");
	rf_bmc_wind_down(bmc, report);
}

static void node_release(void *node)
{
	struct rf_acct_node *an = node;

	free(an->res.account_url);
	free(an->accounts_url);
	free(an->etag);
	memset(an, 0, sizeof(*an));
}

static int check_target(const void *run, const struct rf_target *target, struct br_err *err)
{
	const struct rf_account_target *t = (const struct rf_account_target *)target;
	const struct rf_acct_run *r = run;

	if (!wanted_user(t) || (t->op != RF_ACCOUNT_CHECK && t->op != RF_ACCOUNT_DISABLE && !r->password))
		return br_errf(err, BR_E_INVAL, "redfish: target %s: no account or no password source",
			       target->name ? target->name : "?");
	return 0;
}

static void bind_node(struct rf_bmc *bmc, void *node, void *run)
{
	struct rf_acct_node *an = node;

	an->run = run;
	an->t = (const struct rf_account_target *)bmc->target;
	bmc->acct = an;
}

static const struct rf_driver accounts_driver = {
	.ready = on_ready,
	.idle = on_idle,
	.abort = report,
	.node_size = sizeof(struct rf_acct_node),
	.check_target = check_target,
	.bind = bind_node,
	.node_release = node_release,
};

int rf_accounts_all(const struct rf_account_target *targets, size_t n, const struct rf_options *opts,
		    rf_account_password_fn password, rf_account_done_fn done, void *ctx, struct br_err *err)
{
	struct rf_acct_run run = { .password = password, .done = done, .ctx = ctx };

	return rf_drive_all(&accounts_driver, targets, n, sizeof(*targets), &run, opts, err);
}
