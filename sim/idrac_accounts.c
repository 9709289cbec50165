/*
 * The AccountService: its password policy, the Accounts collection, account
 * creation (POST, as DSP0266 gives it; a real iDRAC9 fills one of its 16
 * fixed slots by PATCH instead) and changes (PATCH of Password, Enabled,
 * RoleId), held to DMTF's AccountService.v1_12_0 and ManagerAccount.v1_10_0.
 * Slot 2 holds the rack's factory credentials, as iDRAC's root is user 2.
 * A BMC's accounts are what its logins are checked against: a changed
 * password is the only one that works afterwards.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "idrac.h"

/* The BMCs change their accounts on the loop's thread; the MAAS emulator,
 * on its own threads, asks whether a BMC takes the power credentials it
 * was given (sim_account_takes): one lock between the writes and it. */
static pthread_mutex_t accounts_lock = PTHREAD_MUTEX_INITIALIZER;

#define ACCOUNTS "/redfish/v1/AccountService/Accounts"
/* The policy: a client asking for more than MaxPasswordLength (its
 * preference of 32, say) must take the BMC's word for it. */
#define MIN_PASSWORD 8
#define MAX_PASSWORD 20

/* Called with accounts_lock held. */
static void node_accounts_ready(struct sim_node *node, const struct sim_bmc_config *cfg)
{
	struct sim_bmc_state *st = &node->st;
	struct sim_account *a = &st->accounts[1];

	if (st->accounts_ready)
		return;
	st->accounts_ready = 1;
	snprintf(a->user, sizeof(a->user), "%s", cfg->user);
	snprintf(a->password, sizeof(a->password), "%s", cfg->password);
	snprintf(a->role, sizeof(a->role), "Administrator");
	a->enabled = 1;
	a->change_required = sim_fault_has(&node->faults, SIM_F_PASSWORD_CHANGE_REQUIRED);
}

static void accounts_ready(struct sim_ctx *c)
{
	pthread_mutex_lock(&accounts_lock);
	node_accounts_ready(c->node, c->cfg);
	pthread_mutex_unlock(&accounts_lock);
}

/* Called with accounts_lock held. */
static int node_login(struct sim_node *node, const struct sim_bmc_config *cfg, const char *user,
		      const char *password)
{
	node_accounts_ready(node, cfg);
	if (!user || !password)
		return -1;
	for (int i = 0; i < SIM_ACCOUNTS_MAX; i++) {
		const struct sim_account *a = &node->st.accounts[i];

		if (a->user[0] && a->enabled && !strcmp(a->user, user) && !strcmp(a->password, password))
			return i;
	}
	return -1;
}

int sim_account_login(struct sim_ctx *c, const char *user, const char *password)
{
	int slot;

	pthread_mutex_lock(&accounts_lock);
	slot = node_login(c->node, c->cfg, user, password);
	pthread_mutex_unlock(&accounts_lock);
	return slot;
}

int sim_account_takes(struct sim_node *node, const struct sim_bmc_config *cfg, const char *user,
		      const char *password)
{
	int slot;

	pthread_mutex_lock(&accounts_lock);
	slot = node_login(node, cfg, user, password);
	pthread_mutex_unlock(&accounts_lock);
	return slot >= 0;
}

static json_t *change_required_msg(int account)
{
	char *uri = br_xasprintf(ACCOUNTS "/%d", account + 1);
	char *text = br_xasprintf("The password provided for this account must be changed before access is "
				  "granted.  PATCH the Password property for this account located at the "
				  "target URI '%s' to complete this process.",
				  uri);
	json_t *m = sim_msg(SIM_BASE "PasswordChangeRequired", "Critical", text,
			    "Change the password for this account using a PATCH to the Password property at "
			    "the URI provided.");

	json_array_append_new(json_object_get(m, "MessageArgs"), json_string(uri));
	json_object_set_new(m, "MessageArgs@odata.count", json_integer(1));
	free(uri);
	free(text);
	return m;
}

json_t *sim_account_login_info(struct sim_ctx *c, int account)
{
	if (account < 0 || !c->node->st.accounts[account].change_required)
		return NULL;
	return json_pack("[o]", change_required_msg(account));
}

int sim_account_change_pending(struct sim_ctx *c)
{
	const char *m = c->req->method;
	char own[64];
	size_t len;

	if (c->account < 0 || !c->node->st.accounts[c->account].change_required)
		return 0;
	snprintf(own, sizeof(own), ACCOUNTS "/%d", c->account + 1);
	len = strlen(c->req->path);
	while (len > 1 && c->req->path[len - 1] == '/')
		len--;
	if (len == strlen(own) && !strncmp(c->req->path, own, len) &&
	    (!strcmp(m, "GET") || !strcmp(m, "HEAD") || !strcmp(m, "PATCH")))
		return 0;
	if (!strcmp(m, "DELETE") && !strncmp(c->req->path, SIM_R_SESSIONS "/", strlen(SIM_R_SESSIONS "/")))
		return 0;
	sim_reply_error(c, 403, change_required_msg(c->account), NULL);
	c->resp->note = "password_change_required";
	return 1;
}

json_t *sim_r_accounts_service(struct sim_ctx *c)
{
	json_t *a = sim_res("#AccountService.v1_12_0.AccountService", "AccountService", "Account Service",
			    "/redfish/v1/AccountService");

	json_object_set_new(a, "ServiceEnabled", json_true());
	json_object_set_new(a, "MaxPasswordLength", json_integer(MAX_PASSWORD));
	json_object_set_new(a, "MinPasswordLength", json_integer(MIN_PASSWORD));
	json_object_set_new(a, "Accounts", sim_link(ACCOUNTS));
	json_object_set_new(a, "Roles", sim_link("/redfish/v1/AccountService/Roles"));
	return a;
}

json_t *sim_r_accounts(struct sim_ctx *c)
{
	json_t *coll =
	    sim_coll("#ManagerAccountCollection.ManagerAccountCollection", "Accounts Collection", ACCOUNTS);

	accounts_ready(c);
	for (int i = 0; i < SIM_ACCOUNTS_MAX; i++)
		if (c->node->st.accounts[i].user[0])
			sim_coll_add(coll, ACCOUNTS "/%d", i + 1);
	return coll;
}

static struct sim_account *find_account(struct sim_ctx *c, int *ret_slot)
{
	long id;

	accounts_ready(c);
	if (br_parse_long(c->args[0], 1, SIM_ACCOUNTS_MAX, &id) || !c->node->st.accounts[id - 1].user[0])
		return NULL;
	*ret_slot = (int)id - 1;
	return &c->node->st.accounts[id - 1];
}

static json_t *account_doc(const struct sim_account *a, int slot)
{
	char id[16];
	json_t *doc;

	snprintf(id, sizeof(id), "%d", slot + 1);
	doc = sim_res("#ManagerAccount.v1_10_0.ManagerAccount", id, "User Account", ACCOUNTS "/%d", slot + 1);
	json_object_set_new(doc, "UserName", json_string(a->user));
	json_object_set_new(doc, "RoleId", json_string(a->role));
	json_object_set_new(doc, "Enabled", json_boolean(a->enabled));
	json_object_set_new(doc, "Locked", json_false());
	json_object_set_new(doc, "Password", json_null());
	json_object_set_new(doc, "PasswordChangeRequired", json_boolean(a->change_required));
	/* AccountTypes is required (ManagerAccount v1_4+); iDRAC9's users
	 * reach Redfish, IPMI and the web UI (Dell iDRAC9 Redfish API Guide). */
	json_object_set_new(doc, "AccountTypes", json_pack("[s, s]", "Redfish", "OEM"));
	json_object_set_new(doc, "OEMAccountTypes", json_pack("[s, s, s]", "IPMI", "SOL", "WebUI"));
	json_object_set_new(
	    doc, "Links",
	    json_pack("{s:o}", "Role", sim_link("/redfish/v1/AccountService/Roles/%s", a->role)));
	return doc;
}

json_t *sim_r_account(struct sim_ctx *c)
{
	int slot;
	const struct sim_account *a = find_account(c, &slot);

	return a ? account_doc(a, slot) : NULL;
}

static void reply_bad_property(struct sim_ctx *c, const char *property)
{
	char *text = br_xasprintf("The value provided for the property %s is not valid.", property);
	json_t *m = sim_msg(SIM_BASE "PropertyValueError", "Warning", text,
			    "Correct the value for the property in the request body and resubmit the "
			    "request if the operation failed.");

	json_array_append_new(json_object_get(m, "MessageArgs"), json_string(property));
	json_object_set_new(m, "MessageArgs@odata.count", json_integer(1));
	sim_reply_error(c, 400, m, NULL);
	free(text);
}

/* 0 when password is one this BMC takes; else answered 400. */
static int password_ok(struct sim_ctx *c, const char *password)
{
	size_t len = password ? strlen(password) : 0;

	if (!password || len < MIN_PASSWORD || len > MAX_PASSWORD ||
	    sim_fault_has(&c->node->faults, SIM_F_PASSWORD_REFUSED)) {
		if (sim_fault_has(&c->node->faults, SIM_F_PASSWORD_REFUSED))
			c->resp->note = "password_refused";
		reply_bad_property(c, "Password");
		return -1;
	}
	return 0;
}

static int role_ok(const char *role)
{
	return role &&
	       (!strcmp(role, "Administrator") || !strcmp(role, "Operator") || !strcmp(role, "ReadOnly"));
}

static void reply_success(struct sim_ctx *c, int status, json_t *doc)
{
	if (doc) {
		sim_reply(c, status, doc);
		return;
	}
	sim_reply(
	    c, status,
	    json_pack("{s:[o]}", "@Message.ExtendedInfo",
		      sim_msg(SIM_BASE "Success", "OK", "The request completed successfully.", "None")));
}

void sim_w_account(struct sim_ctx *c)
{
	int slot;
	struct sim_account *a = find_account(c, &slot);
	const char *key;
	json_t *v;

	if (!a) {
		sim_reply_not_found(c);
		return;
	}
	json_object_foreach(c->body, key, v)
	{
		if (strcmp(key, "Password") && strcmp(key, "Enabled") && strcmp(key, "RoleId")) {
			reply_bad_property(c, key);
			return;
		}
		if (a->change_required && strcmp(key, "Password")) {
			sim_reply_error(c, 403, change_required_msg(slot), NULL);
			return;
		}
	}
	if ((v = json_object_get(c->body, "Password")) && password_ok(c, json_string_value(v)))
		return;
	if ((v = json_object_get(c->body, "Enabled")) && !json_is_boolean(v)) {
		reply_bad_property(c, "Enabled");
		return;
	}
	if ((v = json_object_get(c->body, "RoleId")) && !role_ok(json_string_value(v))) {
		reply_bad_property(c, "RoleId");
		return;
	}
	pthread_mutex_lock(&accounts_lock);
	if ((v = json_object_get(c->body, "Password"))) {
		snprintf(a->password, sizeof(a->password), "%s", json_string_value(v));
		a->change_required = 0;
	}
	if ((v = json_object_get(c->body, "Enabled")))
		a->enabled = json_is_true(v);
	if ((v = json_object_get(c->body, "RoleId")))
		snprintf(a->role, sizeof(a->role), "%s", json_string_value(v));
	pthread_mutex_unlock(&accounts_lock);
	reply_success(c, 200, NULL);
}

void sim_w_account_create(struct sim_ctx *c)
{
	const char *user = br_json_str(c->body, "UserName"), *role = br_json_str(c->body, "RoleId");
	const char *password = br_json_str(c->body, "Password");
	struct sim_account *a = NULL;
	char location[64];
	int slot = -1;

	accounts_ready(c);
	if (!user || !*user || strlen(user) > SIM_ACCOUNT_USER_MAX) {
		reply_bad_property(c, "UserName");
		return;
	}
	if (!role_ok(role)) {
		reply_bad_property(c, "RoleId");
		return;
	}
	for (int i = 0; i < SIM_ACCOUNTS_MAX; i++)
		if (!strcmp(c->node->st.accounts[i].user, user)) {
			sim_reply_error(
			    c, 409,
			    sim_msg(SIM_BASE "ResourceAlreadyExists", "Critical",
				    "The requested resource already exists.",
				    "Do not repeat the create operation as the resource has already "
				    "been created."),
			    NULL);
			return;
		}
	if (password_ok(c, password))
		return;
	/* slot 1 (Id 1) stays reserved, as iDRAC's anonymous user */
	for (int i = 1; i < SIM_ACCOUNTS_MAX && slot < 0; i++)
		if (!c->node->st.accounts[i].user[0])
			slot = i;
	if (slot < 0) {
		sim_reply_error(
		    c, 400,
		    sim_msg(SIM_BASE "CreateLimitReachedForResource", "Critical",
			    "The create operation failed because the resource has reached the limit "
			    "of possible resources.",
			    "Either delete resources and resubmit the request if the operation "
			    "failed or do not resubmit the request."),
		    NULL);
		return;
	}
	a = &c->node->st.accounts[slot];
	pthread_mutex_lock(&accounts_lock);
	snprintf(a->user, sizeof(a->user), "%s", user);
	snprintf(a->password, sizeof(a->password), "%s", password);
	snprintf(a->role, sizeof(a->role), "%s", role);
	a->enabled = !json_is_false(json_object_get(c->body, "Enabled"));
	a->change_required = 0;
	pthread_mutex_unlock(&accounts_lock);
	snprintf(location, sizeof(location), ACCOUNTS "/%d", slot + 1);
	reply_success(c, 201, account_doc(a, slot));
	sim_response_header(c->resp, "Location", location);
}
