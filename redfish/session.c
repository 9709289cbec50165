/*
 * session — how a BMC walk starts and ends: read the service root
 * (unauthenticated, DSP0266 allows it), log in, and at the end log out.
 *
 * One X-Auth-Token session per BMC serves every request of the walk; iDRACs
 * allow only a handful of sessions at once, so a session is always DELETEd
 * once it exists, whatever happened in between. A BMC that offers no
 * SessionService, or refuses the POST with 404/405/501, gets basic auth.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "rf_private.h"

static void use_basic_auth(struct rf_bmc *bmc)
{
	bmc->auth = RF_AUTH_BASIC;
	rf_bmc_ready(bmc);
}

/* Tell the caller the session's URI before its first use: a run killed
 * from now on leaves a session the caller knows of. */
static void session_opened(struct rf_bmc *bmc)
{
	const struct rf_options *o = bmc->http->opts;
	struct br_err e = { 0 };

	if (!bmc->session_url || !o->session_opened)
		return;
	if (o->session_opened(bmc->target, bmc->session_url, bmc->session_pending, o->session_ctx, &e))
		br_warn("redfish", "%s: session %s not recorded (a kill now would leave it open): %s",
			bmc->base, bmc->session_url, e.msg);
	free(bmc->session_pending);
	bmc->session_pending = NULL;
}

/* The login was answered and made no session: the pending record goes. */
static void login_refused(struct rf_bmc *bmc)
{
	const struct rf_options *o = bmc->http->opts;

	if (bmc->session_pending && o->session_closed)
		o->session_closed(bmc->target, bmc->session_pending, o->session_ctx);
	free(bmc->session_pending);
	bmc->session_pending = NULL;
}

/* RF_SESSION_PENDING and a Context no other login has: 16 random bytes. */
static char *pending_context(void)
{
	unsigned char raw[16];
	char hex[2 * sizeof(raw) + 1];

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return NULL;
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	return br_xasprintf("%sbringup-%s", RF_SESSION_PENDING, hex);
}

static void login(struct rf_bmc *bmc, const char *sessions_link);

static void on_login(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	const char *where = req->location;
	json_t *doc = NULL;

	bmc->logging_in = 0;
	if (rc && bmc->session_pending &&
	    rf_context_refused(req->http.status, req->http.body.data, req->http.body.len)) {
		/* older than Session v1_5_0: log in as before, a kill between
		 * its answer and session_opened leaves what the BMC expires */
		br_info("redfish", "%s: the login's Context refused (%s); logging in without it", bmc->base,
			err->msg);
		login_refused(bmc);
		bmc->no_context = 1;
		login(bmc, req->url);
		return;
	}
	if (rc && req->http.status >= 400)
		login_refused(bmc); /* answered: the BMC made no session */
	if (rc && rf_session_limit_reached(req->http.status, req->http.body.data, req->http.body.len)) {
		/* Sessions leaked by others (or by a killed run of ours) fill
		 * the BMC's table until they expire, 30 minutes on an iDRAC;
		 * basic auth needs no slot. */
		br_warn("redfish", "%s: no session slot free (%s), using basic auth", bmc->base, err->msg);
		use_basic_auth(bmc);
		return;
	}
	if (rc && (req->http.status == 404 || req->http.status == 405 || req->http.status == 501)) {
		br_debug("redfish", "%s: sessions refused (HTTP %ld), using basic auth", bmc->base,
			 req->http.status);
		use_basic_auth(bmc);
		return;
	}
	if (rc) {
		rf_bmc_fail(bmc, err);
		return;
	}
	if (!where) {
		/* some BMCs send the session's @odata.id in the body only */
		doc = br_json_parse(req->http.body.data, req->http.body.len, RF_BODY_MAX, NULL);
		where = br_json_str(doc, "@odata.id");
	}
	bmc->session_url = where ? rf_resolve(bmc, where) : NULL;
	json_decref(doc);
	session_opened(bmc);
	{
		char *uri = rf_password_change_uri(req->http.body.data, req->http.body.len);

		if (uri) {
			/* Lenovo XCC's factory account, and any BMC that wants
			 * its default password changed (DSP0266): the session
			 * may only PATCH that account's Password. */
			bmc->password_change_url = rf_resolve(bmc, uri);
			br_info("redfish", "%s: the BMC requires a password change for %s", bmc->base, uri);
			free(uri);
		}
	}
	if (!bmc->session_url)
		br_warn("redfish", "%s: session has no Location; it will expire by itself", bmc->base);
	if (!req->auth_token) {
		/* The BMC made a session all the same: basic auth does the
		 * work, and deletes the session at the end. */
		br_debug("redfish", "%s: session without X-Auth-Token, using basic auth", bmc->base);
		use_basic_auth(bmc);
		return;
	}
	bmc->token = req->auth_token;
	req->auth_token = NULL;
	bmc->auth = RF_AUTH_SESSION;
	rf_bmc_ready(bmc);
}

static void login(struct rf_bmc *bmc, const char *sessions_link)
{
	const struct rf_options *o = bmc->http->opts;
	char *url = rf_resolve(bmc, sessions_link);
	struct rf_req *req;
	json_t *body;

	if (!url) {
		use_basic_auth(bmc);
		return;
	}
	req = rf_req_new(bmc, RF_POST, url, 100, on_login);
	body = json_pack("{s:s, s:s}", "UserName", bmc->target->user ? bmc->target->user : "", "Password",
			 bmc->target->password ? bmc->target->password : "");
	if (o->session_opening && !bmc->no_context && !bmc->session_pending &&
	    (bmc->session_pending = pending_context())) {
		struct br_err e = { 0 };

		/* recorded before it is sent: whatever the BMC makes of it can
		 * be found by a later run, however this one ends */
		if (o->session_opening(bmc->target, bmc->session_pending, o->session_ctx, &e))
			br_warn("redfish",
				"%s: login not recorded (a kill before its answer would leave "
				"its session open): %s",
				bmc->base, e.msg);
		json_object_set_new(body, "Context",
				    json_string(bmc->session_pending + strlen(RF_SESSION_PENDING)));
	}
	req->post_body = body ? json_dumps(body, JSON_COMPACT) : NULL;
	json_decref(body);
	free(url);
	/* Not cancelled by an interrupt: a session the BMC made must be
	 * known to be deleted (rf_bmc_ready then fails the BMC instead). */
	bmc->logging_in = 1;
	req->login = 1;
	rf_req_submit(req);
}

static void on_session_service(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	json_t *doc;
	const char *link;

	if (rc) {
		rf_bmc_fail(bmc, err);
		return;
	}
	if (!(doc = rf_req_json(req)))
		return;
	link = br_json_str(doc, "Sessions/@odata.id");
	if (link)
		login(bmc, link);
	else
		use_basic_auth(bmc);
	json_decref(doc);
}

/* "$expand=.($levels=1)" when ProtocolFeaturesSupported.ExpandQuery says
 * the server can (NoLinks "." expands what is not under Links; ExpandAll
 * "*" expands everything), else NULL. The query and its options are
 * DSP0266's (clause 7.3, "Query parameters": $expand with ".", "*", "~"
 * and $levels; the service root's ExpandQuery says which it serves). */
char *rf_expand_query(json_t *root)
{
	json_t *q = br_json_path(root, "ProtocolFeaturesSupported/ExpandQuery");
	const char *what = NULL;

	if (!json_is_object(q))
		return NULL;
	if (json_is_true(json_object_get(q, "NoLinks")))
		what = ".";
	else if (json_is_true(json_object_get(q, "ExpandAll")))
		what = "*";
	if (!what)
		return NULL;
	if (json_is_true(json_object_get(q, "Levels")))
		return br_xasprintf("$expand=%s($levels=1)", what);
	return br_xasprintf("$expand=%s", what);
}

static void on_root(struct rf_req *req, int rc, const struct br_err *err)
{
	struct rf_bmc *bmc = req->bmc;
	const struct rf_options *o = bmc->http->opts;
	struct br_err perr;

	if (rc == RF_E_HTTP && req->http.status == 404) {
		br_errf(&perr, RF_E_NO_REDFISH, "%s", err->msg);
		rf_bmc_fail(bmc, &perr);
		return;
	}
	if (rc) {
		rf_bmc_fail(bmc, err);
		return;
	}
	if (!(bmc->root = rf_req_json(req)))
		return;
	if (o->use_expand)
		bmc->expand = rf_expand_query(bmc->root);
	if (!o->use_sessions) {
		use_basic_auth(bmc);
		return;
	}
	rf_session_reopen(bmc);
}

void rf_session_reopen(struct rf_bmc *bmc)
{
	const char *link;

	if ((link = br_json_str(bmc->root, "Links/Sessions/@odata.id"))) {
		login(bmc, link);
	} else if ((link = br_json_str(bmc->root, "SessionService/@odata.id"))) {
		char *url = rf_resolve(bmc, link);

		if (!url) {
			use_basic_auth(bmc);
			return;
		}
		rf_req_submit(rf_req_new(bmc, RF_GET, url, 100, on_session_service));
		free(url);
	} else {
		use_basic_auth(bmc);
	}
}

void rf_session_start(struct rf_bmc *bmc)
{
	char *url = br_xasprintf("%s/redfish/v1", bmc->base);

	rf_req_submit(rf_req_new(bmc, RF_GET, url, 100, on_root));
	free(url);
}

static void on_logout(struct rf_req *req, int rc, const struct br_err *err)
{
	const struct rf_options *o = req->bmc->http->opts;

	if (rc && req->http.status != 404)
		br_warn("redfish", "%s: logout failed: %s", req->bmc->base, err->msg);
	else if (o->session_closed)
		o->session_closed(req->bmc->target, req->bmc->session_url, o->session_ctx);
	br_secret_free(req->bmc->token);
	req->bmc->token = NULL;
	req->bmc->auth = RF_AUTH_NONE;
}

int rf_session_logout(struct rf_bmc *bmc)
{
	/* a session without a token is deleted with basic auth */
	if (bmc->auth == RF_AUTH_NONE || !bmc->session_url || bmc->logging_out)
		return 0;
	bmc->logging_out = 1;
	rf_req_submit(rf_req_new(bmc, RF_DELETE, bmc->session_url, 1000, on_logout));
	return 1;
}
