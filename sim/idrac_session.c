/*
 * Sessions and authentication as iDRAC9 does them: POST to Sessions gives
 * X-Auth-Token and Location, DELETE of the Location logs out, at most eight
 * sessions live at once (the ninth login gets RAC0218), idle ones expire
 * after 30 minutes; HTTP Basic works on every request too.
 */
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

static void reply_unauthorized(struct sim_ctx *c)
{
	sim_reply_error(
	    c, 401,
	    sim_msg(SIM_BASE "InsufficientPrivilege", "Critical",
		    "There are insufficient privileges for the account or credentials associated with "
		    "the current session to perform the requested operation.",
		    "Either abandon the operation or change the associated access rights and resubmit "
		    "the request if the operation failed."),
	    sim_msg(SIM_MSG "SYS415", "Warning",
		    "Unable to complete the operation because an invalid username and/or password is "
		    "entered, and therefore authentication failed.",
		    "Enter valid user name and password and retry the operation."));
	sim_response_header(c->resp, "WWW-Authenticate", "Basic realm=\"RedfishService\"");
}

/* The account these credentials log in as, else -1. */
static int credentials_ok(struct sim_ctx *c, const char *user, const char *password)
{
	if (sim_fault_has(&c->node->faults, SIM_F_BMC_AUTH))
		return -1; /* the BMC has other credentials than the manifest says */
	return sim_account_login(c, user, password);
}

static void expire_sessions(struct sim_bmc_state *st, int64_t now)
{
	for (int i = 0; i < SIM_SESSIONS_MAX; i++)
		if (st->sessions[i].id && now - st->sessions[i].last_ms > SIM_SESSION_IDLE_MS)
			memset(&st->sessions[i], 0, sizeof(st->sessions[i]));
}

struct sim_session *sim_session_of(struct sim_bmc_state *st, const char *token)
{
	for (int i = 0; token && i < SIM_SESSIONS_MAX; i++)
		if (st->sessions[i].id && !strcmp(st->sessions[i].token, token))
			return &st->sessions[i];
	return NULL;
}

int sim_session_check(struct sim_ctx *c)
{
	const char *token = sim_request_header(c->req, "X-Auth-Token");
	struct sim_bmc_state *st = &c->node->st;
	char *user = NULL, *password = NULL;
	int ok = 0;

	expire_sessions(st, c->req->start_ms);
	if (token && !(sim_fault_has(&c->node->faults, SIM_F_BMC_AUTH))) {
		struct sim_session *s = sim_session_of(st, token);

		if (s) {
			s->last_ms = c->req->start_ms;
			c->account = s->account;
			ok = 1;
			/* token_revoked: the BMC forgets the session mid-walk */
			if ((sim_fault_has(&c->node->faults, SIM_F_TOKEN_REVOKED)) &&
			    ++s->uses > SIM_REVOKE_AFTER) {
				memset(s, 0, sizeof(*s));
				c->resp->note = "token_revoked";
				ok = 0;
			}
		}
		c->resp->auth = "session";
	} else if (sim_request_basic_auth(c->req, &user, &password) == 0) {
		c->account = credentials_ok(c, user, password);
		ok = c->account >= 0;
		c->resp->auth = "basic";
	}
	free(user);
	if (password)
		br_secret_free(password);
	if (ok)
		return 0;
	reply_unauthorized(c);
	return BR_E_AUTH;
}

static json_t *session_doc(struct sim_ctx *c, int id, int account, const char *context)
{
	char sid[16];
	json_t *s;

	snprintf(sid, sizeof(sid), "%d", id);
	s = sim_res("#Session.v1_6_0.Session", sid, "User Session", SIM_R_SESSIONS "/%d", id);
	json_object_set_new(s, "Description", json_string("User Session"));
	json_object_set_new(s, "UserName",
			    json_string(account >= 0 ? c->node->st.accounts[account].user : ""));
	json_object_set_new(s, "SessionType", json_string("Redfish"));
	json_object_set_new(s, "Password", json_null());
	if (context && *context)
		json_object_set_new(s, "Context", json_string(context));
	return s;
}

json_t *sim_r_session_service(struct sim_ctx *c)
{
	json_t *s = sim_res("#SessionService.v1_1_8.SessionService", "SessionService", "Session Service",
			    "/redfish/v1/SessionService");

	json_object_set_new(s, "Description", json_string("Session Service"));
	json_object_set_new(s, "ServiceEnabled", json_true());
	json_object_set_new(s, "SessionTimeout", json_integer(SIM_SESSION_IDLE_MS / 1000));
	json_object_set_new(s, "Sessions", sim_link(SIM_R_SESSIONS));
	json_object_set_new(s, "Status", sim_status("OK"));
	return s;
}

json_t *sim_r_sessions(struct sim_ctx *c)
{
	json_t *coll = sim_coll("#SessionCollection.SessionCollection", "Session Collection", SIM_R_SESSIONS);

	for (int i = 0; i < SIM_SESSIONS_MAX; i++)
		if (c->node->st.sessions[i].id)
			sim_coll_add(coll, SIM_R_SESSIONS "/%d", c->node->st.sessions[i].id);
	return coll;
}

static struct sim_session *find_session(struct sim_ctx *c)
{
	long id;

	if (br_parse_long(c->args[0], 1, 1L << 30, &id))
		return NULL;
	for (int i = 0; i < SIM_SESSIONS_MAX; i++)
		if (c->node->st.sessions[i].id == id)
			return &c->node->st.sessions[i];
	return NULL;
}

json_t *sim_r_session(struct sim_ctx *c)
{
	struct sim_session *s = find_session(c);

	return s ? session_doc(c, s->id, s->account, s->context) : NULL;
}

static void new_token(char out[33])
{
	unsigned char raw[16];

	sim_random_bytes(raw, sizeof(raw));
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

void sim_w_session_create(struct sim_ctx *c)
{
	struct sim_bmc_state *st = &c->node->st;
	struct sim_session *slot = NULL;
	char location[64];
	json_t *doc, *info;
	int account = credentials_ok(c, br_json_str(c->body, "UserName"), br_json_str(c->body, "Password"));
	const char *context = br_json_str(c->body, "Context");

	if (json_object_get(c->body, "Context") &&
	    (sim_fault_has(&c->node->faults, SIM_F_SESSION_CONTEXT_REFUSED) || !context ||
	     strlen(context) > SIM_SESSION_CONTEXT_MAX)) {
		/* Base 1.x PropertyUnknown (its MessageArgs the property) */
		sim_reply_error(c, 400,
				sim_msg(SIM_BASE "PropertyUnknown", "Warning",
					"The property Context is not in the list of valid properties for "
					"the resource.",
					"Remove the unknown property from the request body and resubmit "
					"the request if the operation failed."),
				NULL);
		return;
	}
	if (account < 0) {
		reply_unauthorized(c);
		return;
	}
	expire_sessions(st, c->req->start_ms);
	for (int i = 0;
	     i < SIM_SESSIONS_MAX && !slot && !(sim_fault_has(&c->node->faults, SIM_F_SESSIONS_FULL)); i++)
		if (!st->sessions[i].id)
			slot = &st->sessions[i];
	if (!slot) {
		/* As iDRACs answer it: 503, code Base GeneralError, the
		 * ExtendedInfo RAC0218 at Severity Informational (captures in
		 * public issue reports: stmcginnis/gofish#75, IDRAC.2.1, and
		 * bb-Ricardo/check_redfish#89, IDRAC.2.4) */
		sim_reply_error(c, 503,
				sim_msg(SIM_MSG "RAC0218", "Informational",
					"The maximum number of user sessions is reached.",
					"Close one or more sessions before opening another session."),
				NULL);
		return;
	}
	slot->id = ++st->next_session;
	slot->last_ms = c->req->start_ms;
	slot->account = account;
	new_token(slot->token);
	snprintf(slot->context, sizeof(slot->context), "%s", context ? context : "");
	snprintf(location, sizeof(location), SIM_R_SESSIONS "/%d", slot->id);
	doc = session_doc(c, slot->id, account, slot->context);
	/* DSP0266: a session is made for an account that must change its
	 * password, and its answer says so, naming the account */
	if ((info = sim_account_login_info(c, account)))
		json_object_set_new(doc, "@Message.ExtendedInfo", info);
	sim_reply(c, 201, doc);
	/* session_no_location, session_no_token: the session exists all the
	 * same, its @odata.id in the body */
	if (!(sim_fault_has(&c->node->faults, SIM_F_SESSION_NO_LOCATION)))
		sim_response_header(c->resp, "Location", location);
	if (!(sim_fault_has(&c->node->faults, SIM_F_SESSION_NO_TOKEN)))
		sim_response_header(c->resp, "X-Auth-Token", slot->token);
	c->resp->session = "created";
}

void sim_w_session_delete(struct sim_ctx *c)
{
	struct sim_session *s = find_session(c);

	if (!s) {
		sim_reply_not_found(c);
		return;
	}
	memset(s, 0, sizeof(*s));
	sim_reply(
	    c, 200,
	    json_pack("{s:[o]}", "@Message.ExtendedInfo",
		      sim_msg(SIM_BASE "Success", "OK", "The request completed successfully.", "None")));
	c->resp->session = "deleted";
}
