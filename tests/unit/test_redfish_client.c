/* rf_discover_all against scripted fake BMCs (libmicrohttpd, one daemon and
 * port per BMC): what the client sent (in-flight counts, auth headers,
 * session DELETEs) and how each failure ends (reasons, bounds). */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <microhttpd.h>

#include "redfish/rf_private.h"

struct fake_bmc {
	struct MHD_Daemon *daemon;
	int port;
	char base[64];
	json_t *tree; /* path -> document */
	/* knobs */
	int latency_ms;
	int expand;	      /* advertise and honour $expand */
	int page_size;	      /* >0: page collections with nextLink */
	int sessions_405;     /* POST Sessions -> 405 */
	int login_401;	      /* POST Sessions -> 401 + Redfish error */
	int busy_first;	      /* first N requests -> 503 (RAC0218, Retry-After: 0) */
	const char *truncate; /* path answered with cut JSON */
	const char *huge;     /* path answered with more than RF_BODY_MAX */
	/* what it saw, under mu */
	pthread_mutex_t mu;
	int inflight, max_inflight, requests, gets, posts, deletes, unauthorised, basic_seen;
};

static char *huge_body;

/* ---- the fake BMC ---------------------------------------------------------- */

static void put(struct fake_bmc *b, const char *path, json_t *doc)
{
	json_object_set_new(b->tree, path, doc);
}

static json_t *link_to(const char *path)
{
	return json_pack("{s:s}", "@odata.id", path);
}

/* Members prefix0 .. prefix(n-1) */
static json_t *collection(int n, const char *prefix)
{
	json_t *members = json_array();
	char path[128];

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s%d", prefix, i);
		json_array_append_new(members, link_to(path));
	}
	return json_pack("{s:o, s:i}", "Members", members, "Members@odata.count", n);
}

/* A small iDRAC-like tree: one System with n_eth NICs, one Chassis whose
 * NetworkDeviceFunction repeats NIC 0 and adds one, one Manager with a SEL. */
static void build_tree(struct fake_bmc *b, int n_eth)
{
	char path[128], mac[32];
	json_t *root;

	b->tree = json_object();
	root = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:{s:o}}", "@odata.id", "/redfish/v1", "Vendor",
			 "Dell", "Systems", link_to("/redfish/v1/Systems"), "Chassis",
			 link_to("/redfish/v1/Chassis"), "Managers", link_to("/redfish/v1/Managers"),
			 "SessionService", link_to("/redfish/v1/SessionService"), "Links", "Sessions",
			 link_to("/redfish/v1/SessionService/Sessions"));
	if (b->expand)
		json_object_set_new(root, "ProtocolFeaturesSupported",
				    json_pack("{s:{s:b, s:b, s:b, s:b}}", "ExpandQuery", "ExpandAll", 1,
					      "Levels", 1, "Links", 1, "NoLinks", 1));
	put(b, "/redfish/v1", root);
	put(b, "/redfish/v1/Systems", collection(1, "/redfish/v1/Systems/System.Embedded."));
	snprintf(path, sizeof(path), "SN-%d", b->port);
	put(b, "/redfish/v1/Systems/System.Embedded.0",
	    json_pack("{s:s, s:s, s:s, s:s, s:o}", "@odata.id", "/redfish/v1/Systems/System.Embedded.0",
		      "Manufacturer", "Dell Inc.", "SKU", "TAG1234", "SerialNumber", path,
		      "EthernetInterfaces",
		      link_to("/redfish/v1/Systems/System.Embedded.0/EthernetInterfaces")));
	put(b, "/redfish/v1/Systems/System.Embedded.0/EthernetInterfaces",
	    collection(n_eth, "/redfish/v1/Systems/System.Embedded.0/EthernetInterfaces/NIC."));
	for (int i = 0; i < n_eth; i++) {
		snprintf(path, sizeof(path),
			 "/redfish/v1/Systems/System.Embedded.0/EthernetInterfaces/NIC.%d", i);
		snprintf(mac, sizeof(mac), "02:00:00:00:%02X:%02X", b->port & 0xff, i);
		put(b, path,
		    json_pack("{s:s, s:s, s:s}", "@odata.id", path, "Id", strrchr(path, '/') + 1,
			      "PermanentMACAddress", mac));
	}
	put(b, "/redfish/v1/Chassis", collection(1, "/redfish/v1/Chassis/C"));
	put(b, "/redfish/v1/Chassis/C0",
	    json_pack("{s:s, s:o}", "@odata.id", "/redfish/v1/Chassis/C0", "NetworkAdapters",
		      link_to("/redfish/v1/Chassis/C0/NetworkAdapters")));
	put(b, "/redfish/v1/Chassis/C0/NetworkAdapters",
	    collection(1, "/redfish/v1/Chassis/C0/NetworkAdapters/NA"));
	put(b, "/redfish/v1/Chassis/C0/NetworkAdapters/NA0",
	    json_pack("{s:s, s:o}", "@odata.id", "/redfish/v1/Chassis/C0/NetworkAdapters/NA0",
		      "NetworkDeviceFunctions", link_to("/redfish/v1/Chassis/C0/NetworkAdapters/NA0/F")));
	put(b, "/redfish/v1/Chassis/C0/NetworkAdapters/NA0/F",
	    collection(2, "/redfish/v1/Chassis/C0/NetworkAdapters/NA0/F/"));
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/redfish/v1/Chassis/C0/NetworkAdapters/NA0/F/%d", i);
		snprintf(mac, sizeof(mac), "02:00:00:00:%02x:%02x", b->port & 0xff, i ? 0xee : 0);
		put(b, path,
		    json_pack("{s:s, s:s, s:{s:s}}", "@odata.id", path, "Id", "F", "Ethernet", "MACAddress",
			      mac));
	}
	put(b, "/redfish/v1/Managers", collection(1, "/redfish/v1/Managers/M"));
	put(b, "/redfish/v1/Managers/M0",
	    json_pack("{s:s, s:s, s:o}", "@odata.id", "/redfish/v1/Managers/M0", "FirmwareVersion",
		      "7.00.00.171", "LogServices", link_to("/redfish/v1/Managers/M0/LogServices")));
	put(b, "/redfish/v1/Managers/M0/LogServices",
	    json_pack("{s:[{s:s}]}", "Members", "@odata.id", "/redfish/v1/Managers/M0/LogServices/Sel"));
	put(b, "/redfish/v1/Managers/M0/LogServices/Sel",
	    json_pack("{s:s, s:s, s:o}", "@odata.id", "/redfish/v1/Managers/M0/LogServices/Sel", "Id", "Sel",
		      "Entries", link_to("/redfish/v1/Managers/M0/LogServices/Sel/Entries")));
	put(b, "/redfish/v1/Managers/M0/LogServices/Sel/Entries",
	    json_pack("{s:[{s:s, s:s, s:s, s:s}]}", "Members", "@odata.id",
		      "/redfish/v1/Managers/M0/LogServices/Sel/Entries/1", "Id", "1", "Severity", "Critical",
		      "MessageId", "PSU0003"));
}

/* Collections with members inline ($expand) and/or one page of them. */
static json_t *shape(struct fake_bmc *b, const char *path, json_t *doc, int expand, long skip)
{
	json_t *members = json_object_get(doc, "Members"), *out, *page, *m;
	size_t i, n = json_array_size(members);
	size_t end = b->page_size > 0 ? (size_t)skip + (size_t)b->page_size : n;
	char next[256];

	if (!members || (!expand && b->page_size <= 0))
		return json_incref(doc);
	out = json_copy(doc);
	page = json_array();
	for (i = (size_t)skip; i < n && i < end; i++) {
		m = json_array_get(members, i);
		json_t *full = json_object_get(b->tree, br_json_str(m, "@odata.id"));

		json_array_append(page, expand && full ? full : m);
	}
	json_object_set_new(out, "Members", page);
	if (end < n) {
		snprintf(next, sizeof(next), "%s?$skip=%zu", path, end);
		json_object_set_new(out, "Members@odata.nextLink", json_string(next));
	}
	return out;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body, const char *hdr,
			     const char *val, const char *hdr2, const char *val2)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(strlen(body), (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	MHD_add_response_header(r, "Content-Type", "application/json");
	if (hdr)
		MHD_add_response_header(r, hdr, val);
	if (hdr2)
		MHD_add_response_header(r, hdr2, val2);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static const char privilege_error[] =
    "{\"error\":{\"code\":\"Base.1.12.GeneralError\",\"@Message.ExtendedInfo\":"
    "[{\"MessageId\":\"Base.1.12.InsufficientPrivilege\"}]}}";

static enum MHD_Result serve(struct fake_bmc *b, struct MHD_Connection *c, const char *method,
			     const char *url)
{
	const char *token = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Auth-Token");
	const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	const char *skip = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "$skip");
	const char *exp = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "$expand");
	json_t *doc, *out;
	char *text;
	enum MHD_Result ret;
	int busy;

	pthread_mutex_lock(&b->mu);
	busy = b->busy_first > 0 ? b->busy_first-- : 0;
	if (auth && !strncmp(auth, "Basic ", 6))
		b->basic_seen++;
	pthread_mutex_unlock(&b->mu);
	if (busy)
		return reply(
		    c, 503, "{\"error\":{\"@Message.ExtendedInfo\":[{\"MessageId\":\"IDRAC.2.8.RAC0218\"}]}}",
		    "Retry-After", "0", NULL, NULL);
	if (!strcmp(method, "POST")) {
		__atomic_add_fetch(&b->posts, 1, __ATOMIC_SEQ_CST);
		if (b->sessions_405)
			return reply(c, 405, "{}", NULL, NULL, NULL, NULL);
		if (b->login_401)
			return reply(c, 401, privilege_error, NULL, NULL, NULL, NULL);
		return reply(c, 201, "{}", "X-Auth-Token", "tok-secret-1", "Location",
			     "/redfish/v1/SessionService/Sessions/77");
	}
	if (!strcmp(method, "DELETE")) {
		__atomic_add_fetch(&b->deletes, 1, __ATOMIC_SEQ_CST);
		if (!token || strcmp(token, "tok-secret-1") ||
		    strcmp(url, "/redfish/v1/SessionService/Sessions/77"))
			return reply(c, 404, "{}", NULL, NULL, NULL, NULL);
		return reply(c, 204, "", NULL, NULL, NULL, NULL);
	}
	__atomic_add_fetch(&b->gets, 1, __ATOMIC_SEQ_CST);
	if (strcmp(url, "/redfish/v1") && !(token && !strcmp(token, "tok-secret-1")) &&
	    !(auth && b->sessions_405)) {
		__atomic_add_fetch(&b->unauthorised, 1, __ATOMIC_SEQ_CST);
		return reply(c, 401, "{}", NULL, NULL, NULL, NULL);
	}
	if (b->truncate && !strcmp(url, b->truncate))
		return reply(c, 200, "{\"Members\": [ {\"@odata.id\": \"/redf", NULL, NULL, NULL, NULL);
	if (b->huge && !strcmp(url, b->huge))
		return reply(c, 200, huge_body, NULL, NULL, NULL, NULL);
	/* One connection thread at a time in the tree: shaping an answer takes
	 * references to its members, and MHD serves each connection on its own
	 * thread (a reference count raced from two threads left the tree
	 * unfreed under ASan). */
	pthread_mutex_lock(&b->mu);
	doc = json_object_get(b->tree, url);
	if (!doc) {
		pthread_mutex_unlock(&b->mu);
		return reply(c, 404, "{}", NULL, NULL, NULL, NULL);
	}
	out = shape(b, url, doc, b->expand && exp, skip ? strtol(skip, NULL, 10) : 0);
	text = json_dumps(out, JSON_COMPACT);
	json_decref(out);
	out = NULL;
	pthread_mutex_unlock(&b->mu);
	ret = reply(c, 200, text, NULL, NULL, NULL, NULL);
	free(text);
	json_decref(out);
	return ret;
}

/* In flight: from the whole request being read to the answer queued (the
 * latency sleep is in between), as the simulator counts it. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size,
				  void **con_cls)
{
	struct fake_bmc *b = cls;
	enum MHD_Result ret;

	if (!*con_cls) {
		*con_cls = b;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&b->mu);
	b->requests++;
	if (++b->inflight > b->max_inflight)
		b->max_inflight = b->inflight;
	pthread_mutex_unlock(&b->mu);
	if (b->latency_ms)
		nanosleep(&(struct timespec){ .tv_sec = b->latency_ms / 1000,
					      .tv_nsec = (long)(b->latency_ms % 1000) * 1000000 },
			  NULL);
	ret = serve(b, c, method, url);
	pthread_mutex_lock(&b->mu);
	b->inflight--;
	pthread_mutex_unlock(&b->mu);
	return ret;
}

static void fake_start(struct fake_bmc *b, int n_eth)
{
	const union MHD_DaemonInfo *info;

	pthread_mutex_init(&b->mu, NULL);
	b->daemon = MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG, 0, NULL,
	    NULL, on_request, b, MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	assert_non_null(b->daemon);
	info = MHD_get_daemon_info(b->daemon, MHD_DAEMON_INFO_BIND_PORT);
	b->port = info->port;
	snprintf(b->base, sizeof(b->base), "http://127.0.0.1:%d", b->port);
	build_tree(b, n_eth);
}

static void fake_stop(struct fake_bmc *b)
{
	MHD_stop_daemon(b->daemon);
	json_decref(b->tree);
	pthread_mutex_destroy(&b->mu);
}

/* ---- the client side ------------------------------------------------------- */

struct result {
	int called, rc;
	char msg[BR_ERR_MSG_MAX];
	char serial[64], tag[32], bmc_fw[32];
	size_t nics, host_nics, sel, nics_permanent, unreadable, neighbors;
	char neighbor_port[64], neighbor_switch[32];
	long unreadable_status;
	char unreadable_url[256], unreadable_reason[BR_ERR_MSG_MAX];
	int64_t at_ms;
};

struct run {
	struct result res[8];
	int64_t start_ms;
};

static void on_done(const struct rf_target *t, int rc, struct br_hw *hw, const struct br_err *err, void *ctx)
{
	struct run *run = ctx;
	struct result *r = &run->res[(intptr_t)t->user_data];

	r->called++;
	r->rc = rc;
	r->at_ms = br_now_ms() - run->start_ms;
	if (err)
		snprintf(r->msg, sizeof(r->msg), "%s", err->msg);
	snprintf(r->serial, sizeof(r->serial), "%s", hw->system_serial ? hw->system_serial : "");
	snprintf(r->tag, sizeof(r->tag), "%s", hw->service_tag ? hw->service_tag : "");
	snprintf(r->bmc_fw, sizeof(r->bmc_fw), "%s", hw->bmc_firmware ? hw->bmc_firmware : "");
	r->nics = hw->n_nics;
	r->host_nics = br_hw_host_nics(hw);
	r->sel = hw->n_sel;
	r->unreadable = hw->n_unreadable;
	if (hw->n_unreadable) {
		r->unreadable_status = hw->unreadable[0].status;
		snprintf(r->unreadable_url, sizeof(r->unreadable_url), "%s", hw->unreadable[0].url);
		snprintf(r->unreadable_reason, sizeof(r->unreadable_reason), "%s", hw->unreadable[0].reason);
	}
	for (size_t i = 0; i < hw->n_nics; i++)
		r->nics_permanent += hw->nics[i].permanent;
	r->neighbors = hw->n_neighbors;
	if (hw->n_neighbors) {
		snprintf(r->neighbor_port, sizeof(r->neighbor_port), "%s", hw->neighbors[0].port);
		snprintf(r->neighbor_switch, sizeof(r->neighbor_switch), "%s",
			 hw->neighbors[0].chassis_id ? hw->neighbors[0].chassis_id : "");
	}
}

static int discover(const char *const *bases, size_t n, const struct rf_options *o, struct run *run)
{
	struct rf_target t[8];
	struct br_err err = { 0 };
	int rc;

	memset(run, 0, sizeof(*run));
	for (size_t i = 0; i < n; i++)
		t[i] = (struct rf_target){ .name = bases[i],
					   .base_url = bases[i],
					   .user = "root",
					   .password = "calvin",
					   .user_data = (void *)(intptr_t)i };
	run->start_ms = br_now_ms();
	rc = rf_discover_all(t, n, o, on_done, run, &err);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(run->res[i].called, 1);
	return rc;
}

static void fast_options(struct rf_options *o)
{
	rf_options_init(o);
	o->timeout_ms = 3000;
	o->backoff_ms = 5;
	o->backoff_max_ms = 50;
}

static void test_walk_three_bmcs(void **state)
{
	struct fake_bmc b[3] = { { .expand = 1 }, { .expand = 0 }, { .page_size = 3 } };
	const char *bases[3];
	struct rf_options o;
	struct run run;

	(void)state;
	for (int i = 0; i < 3; i++) {
		b[i].latency_ms = 20;
		fake_start(&b[i], 10);
		bases[i] = b[i].base;
	}
	fast_options(&o);
	assert_int_equal(discover(bases, 3, &o, &run), 0);
	for (int i = 0; i < 3; i++) {
		struct result *r = &run.res[i];
		char serial[32];

		snprintf(serial, sizeof(serial), "SN-%d", b[i].port);
		assert_int_equal(r->rc, 0);
		assert_string_equal(r->serial, serial);
		assert_string_equal(r->tag, "TAG1234");
		assert_string_equal(r->bmc_fw, "7.00.00.171");
		/* 10 NICs + 1 NDF-only MAC; NDF 0 repeats NIC 0 */
		assert_int_equal(r->nics, 11);
		assert_int_equal(r->nics_permanent, 10);
		assert_int_equal(r->sel, 1);
		assert_int_equal(b[i].posts, 1);
		assert_int_equal(b[i].deletes, 1);
		assert_int_equal(b[i].unauthorised, 0);
		assert_int_equal(b[i].basic_seen, 0);
		assert_in_range(b[i].max_inflight, 2, 4);
	}
	/* $expand saves the member GETs: 10 NICs, 2 functions and more */
	assert_true(b[0].gets + 12 <= b[1].gets);
	/* pages of 3: more GETs than the plain walk */
	assert_true(b[2].gets > b[1].gets);
	for (int i = 0; i < 3; i++)
		fake_stop(&b[i]);
}

static void test_inflight_cap(void **state)
{
	struct fake_bmc b = { .latency_ms = 25 };
	const char *bases[1];
	struct rf_options o;
	struct run run;

	(void)state;
	fake_start(&b, 40);
	bases[0] = b.base;
	fast_options(&o);
	o.per_bmc_inflight = 2;
	assert_int_equal(discover(bases, 1, &o, &run), 0);
	assert_int_equal(run.res[0].nics, 41);
	assert_int_equal(b.max_inflight, 2);
	fast_options(&o);
	b.max_inflight = 0;
	assert_int_equal(discover(bases, 1, &o, &run), 0);
	assert_int_equal(b.max_inflight, 4);
	fake_stop(&b);
}

static void test_login_401(void **state)
{
	struct fake_bmc b = { .login_401 = 1 };
	const char *bases[1];
	struct rf_options o;
	struct run run;
	char want[256];

	(void)state;
	fake_start(&b, 1);
	bases[0] = b.base;
	fast_options(&o);
	assert_int_equal(discover(bases, 1, &o, &run), 0);
	assert_int_equal(run.res[0].rc, BR_E_AUTH);
	snprintf(want, sizeof(want),
		 "bmc 127.0.0.1:%d: HTTP 401 on %s/redfish/v1/SessionService/Sessions: "
		 "Base.1.12.InsufficientPrivilege",
		 b.port, b.base);
	assert_string_equal(run.res[0].msg, want);
	assert_int_equal(b.posts, 1); /* a 401 is not retried */
	assert_int_equal(b.deletes, 0);
	fake_stop(&b);
}

static void test_failures_still_log_out(void **state)
{
	struct fake_bmc b[3] = { { .truncate = "/redfish/v1/Chassis/C0" },
				 { .huge = "/redfish/v1/Managers/M0" },
				 { .latency_ms = 0 } };
	const char *bases[3];
	struct rf_options o;
	struct run run;
	char want[256];

	(void)state;
	for (int i = 0; i < 3; i++) {
		fake_start(&b[i], 2);
		bases[i] = b[i].base;
	}
	/* 100,000 members in one collection */
	put(&b[2], "/redfish/v1/Systems/System.Embedded.0/EthernetInterfaces",
	    collection(100000, "/redfish/v1/Systems/System.Embedded.0/EthernetInterfaces/NIC."));
	fast_options(&o);
	assert_int_equal(discover(bases, 3, &o, &run), 0);

	/* A Chassis cut short is not the node's identity: listed as
	 * unreadable, the node keeps its serial and MACs. */
	assert_int_equal(run.res[0].rc, 0);
	snprintf(want, sizeof(want), "SN-%d", b[0].port);
	assert_string_equal(run.res[0].serial, want);
	assert_int_equal(run.res[0].host_nics, 2);
	assert_int_equal(run.res[0].unreadable, 1);
	assert_int_equal(run.res[0].unreadable_status, 200);
	snprintf(want, sizeof(want), "%s/redfish/v1/Chassis/C0", b[0].base);
	assert_string_equal(run.res[0].unreadable_url, want);
	snprintf(want, sizeof(want), "GET %s/redfish/v1/Chassis/C0: invalid JSON", b[0].base);
	assert_memory_equal(run.res[0].unreadable_reason, want, strlen(want));

	/* a cap hit is no isolated resource: the BMC is not to be trusted */
	assert_int_equal(run.res[1].rc, BR_E_TOOBIG);
	snprintf(want, sizeof(want),
		 "bmc 127.0.0.1:%d: GET %s/redfish/v1/Managers/M0: response body exceeds %u bytes", b[1].port,
		 b[1].base, RF_BODY_MAX);
	assert_string_equal(run.res[1].msg, want);

	assert_int_equal(run.res[2].rc, BR_E_TOOBIG);
	assert_non_null(strstr(run.res[2].msg, "collection has more than 4096 members"));
	for (int i = 0; i < 3; i++) {
		assert_int_equal(b[i].deletes, 1);
		fake_stop(&b[i]);
	}
}

/* Connection View where iDRAC10 has it (Systems/{id}/Oem/Dell/
 * DellSwitchConnections): the iDRAC9 path's 404 is no unreadable resource,
 * the other path is read; a BMC with neither shows no neighbours, and
 * nothing is unreadable either. */
static void test_connection_view_idrac10(void **state)
{
	struct fake_bmc b[2] = { { 0 }, { 0 } };
	const char *bases[2];
	struct rf_options o;
	struct run run;

	(void)state;
	for (int i = 0; i < 2; i++) {
		fake_start(&b[i], 2);
		bases[i] = b[i].base;
	}
	put(&b[0], "/redfish/v1/Systems/System.Embedded.0/Oem/Dell/DellSwitchConnections",
	    json_pack("{s:s, s:[{s:s, s:s, s:s, s:s}]}", "@odata.id",
		      "/redfish/v1/Systems/System.Embedded.0/Oem/Dell/DellSwitchConnections", "Members",
		      "FQDD", "NIC.Integrated.1-1-1", "StaleData", "NotStale", "SwitchConnectionID",
		      "c4:7e:e0:e4:10:7f", "SwitchPortConnectionID", "Ethernet1/5"));
	fast_options(&o);
	assert_int_equal(discover(bases, 2, &o, &run), 0);
	assert_int_equal(run.res[0].rc, 0);
	assert_int_equal(run.res[0].neighbors, 1);
	assert_string_equal(run.res[0].neighbor_port, "NIC.Integrated.1-1-1");
	assert_string_equal(run.res[0].neighbor_switch, "c4:7e:e0:e4:10:7f");
	assert_int_equal(run.res[0].unreadable, 0);
	assert_int_equal(run.res[1].rc, 0);
	assert_int_equal(run.res[1].neighbors, 0);
	assert_int_equal(run.res[1].unreadable, 0);
	for (int i = 0; i < 2; i++)
		fake_stop(&b[i]);
}

/* A BMC without the log service it links (a 404, as iDRACs and iLOs
 * answer for services their licence or generation lacks): the node is
 * discovered on what it did show, the 404 listed; a 404 on the System
 * still fails it, naming the URL. */
static void test_missing_log_service(void **state)
{
	struct fake_bmc b[2] = { { 0 }, { 0 } };
	const char *bases[2];
	struct rf_options o;
	struct run run;
	char want[256];

	(void)state;
	for (int i = 0; i < 2; i++) {
		fake_start(&b[i], 2);
		bases[i] = b[i].base;
	}
	json_object_del(b[0].tree, "/redfish/v1/Managers/M0/LogServices/Sel");
	json_object_del(b[1].tree, "/redfish/v1/Systems/System.Embedded.0");
	fast_options(&o);
	assert_int_equal(discover(bases, 2, &o, &run), 0);

	assert_int_equal(run.res[0].rc, 0);
	assert_int_equal(run.res[0].host_nics, 3);
	assert_string_equal(run.res[0].bmc_fw, "7.00.00.171");
	assert_int_equal(run.res[0].unreadable, 1);
	assert_int_equal(run.res[0].unreadable_status, 404);
	snprintf(want, sizeof(want), "%s/redfish/v1/Managers/M0/LogServices/Sel", b[0].base);
	assert_string_equal(run.res[0].unreadable_url, want);

	assert_int_equal(run.res[1].rc, RF_E_HTTP);
	assert_non_null(strstr(run.res[1].msg, "HTTP 404"));
	assert_non_null(strstr(run.res[1].msg, "/redfish/v1/Systems/System.Embedded.0"));
	/* what names the machine is kept on failure; no host MAC is */
	assert_string_equal(run.res[1].bmc_fw, "7.00.00.171");
	assert_int_equal(run.res[1].host_nics, 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(b[i].deletes, 1);
		fake_stop(&b[i]);
	}
}

/* Two hosts behind one BMC, each System with its own NIC: without a name
 * the node fails listing both; named, only that System's serial and MACs
 * are taken, never the other's. */
static void test_two_hosts(void **state)
{
	struct fake_bmc b = { 0 };
	const char *base;
	struct rf_target t[3];
	struct run run;
	struct rf_options o;
	struct br_err err = { 0 };
	const char *names[3] = { NULL, "System.Embedded.1", "/redfish/v1/Systems/System.Embedded.0" };

	(void)state;
	fake_start(&b, 1);
	base = b.base;
	put(&b, "/redfish/v1/Systems", collection(2, "/redfish/v1/Systems/System.Embedded."));
	put(&b, "/redfish/v1/Systems/System.Embedded.1",
	    json_pack("{s:s, s:s, s:s, s:s, s:o}", "@odata.id", "/redfish/v1/Systems/System.Embedded.1", "Id",
		      "System.Embedded.1", "Manufacturer", "Dell Inc.", "SerialNumber", "SN-SECOND",
		      "EthernetInterfaces",
		      link_to("/redfish/v1/Systems/System.Embedded.1/EthernetInterfaces")));
	put(&b, "/redfish/v1/Systems/System.Embedded.1/EthernetInterfaces",
	    collection(1, "/redfish/v1/Systems/System.Embedded.1/EthernetInterfaces/NIC."));
	put(&b, "/redfish/v1/Systems/System.Embedded.1/EthernetInterfaces/NIC.0",
	    json_pack("{s:s, s:s}", "@odata.id",
		      "/redfish/v1/Systems/System.Embedded.1/EthernetInterfaces/NIC.0", "PermanentMACAddress",
		      "b0:7b:25:00:00:01"));
	json_object_set_new(json_object_get(b.tree, "/redfish/v1/Systems/System.Embedded.0"), "Id",
			    json_string("System.Embedded.0"));
	/* the Chassis' NICs are System.Embedded.0's */
	json_object_set_new(json_object_get(b.tree, "/redfish/v1/Chassis/C0"), "Links",
			    json_pack("{s:[{s:s}]}", "ComputerSystems", "@odata.id",
				      "/redfish/v1/Systems/System.Embedded.0"));
	fast_options(&o);
	memset(&run, 0, sizeof(run));
	for (int i = 0; i < 3; i++)
		t[i] = (struct rf_target){ .name = base,
					   .base_url = base,
					   .user = "root",
					   .password = "calvin",
					   .user_data = (void *)(intptr_t)i,
					   .system = names[i] };
	for (int i = 0; i < 3; i++)
		assert_int_equal(rf_discover_all(&t[i], 1, &o, on_done, &run, &err), 0);

	assert_int_equal(run.res[0].rc, BR_E_INVAL);
	assert_non_null(strstr(run.res[0].msg,
			       "the BMC manages 2 hosts; name one in the manifest's system column: "
			       "System.Embedded.0 (a host), System.Embedded.1 (a host)"));
	assert_int_equal(run.res[0].host_nics, 0);

	assert_int_equal(run.res[1].rc, 0);
	assert_string_equal(run.res[1].serial, "SN-SECOND");
	assert_int_equal(run.res[1].host_nics, 1); /* not the Chassis' NICs of the other host */

	assert_int_equal(run.res[2].rc, 0);
	snprintf(err.msg, sizeof(err.msg), "SN-%d", b.port);
	assert_string_equal(run.res[2].serial, err.msg);
	assert_int_equal(run.res[2].host_nics, 2); /* its own NIC, and the Chassis' extra one */
	fake_stop(&b);
}

static void test_busy_then_ok(void **state)
{
	struct fake_bmc b = { .busy_first = 3 };
	const char *bases[1];
	struct rf_options o;
	struct run run;

	(void)state;
	fake_start(&b, 2);
	bases[0] = b.base;
	fast_options(&o);
	assert_int_equal(discover(bases, 1, &o, &run), 0);
	assert_int_equal(run.res[0].rc, 0);
	assert_int_equal(run.res[0].nics, 3);
	assert_int_equal(b.deletes, 1);
	/* retries exhausted: the 503 and its MessageId make the reason */
	b.busy_first = 1000;
	o.retries = 2;
	assert_int_equal(discover(bases, 1, &o, &run), 0);
	assert_int_equal(run.res[0].rc, RF_E_HTTP);
	assert_non_null(strstr(run.res[0].msg, "after 3 attempts: HTTP 503 on "));
	assert_non_null(strstr(run.res[0].msg, "/redfish/v1: IDRAC.2.8.RAC0218"));
	fake_stop(&b);
}

static void test_basic_auth_fallback(void **state)
{
	struct fake_bmc b = { .sessions_405 = 1 };
	const char *bases[1];
	struct rf_options o;
	struct run run;

	(void)state;
	fake_start(&b, 4);
	bases[0] = b.base;
	fast_options(&o);
	assert_int_equal(discover(bases, 1, &o, &run), 0);
	assert_int_equal(run.res[0].rc, 0);
	assert_int_equal(run.res[0].nics, 5);
	assert_int_equal(b.posts, 1);
	assert_int_equal(b.deletes, 0);
	assert_true(b.basic_seen >= b.gets - 1); /* all but the service root */
	fake_stop(&b);
}

/* A BMC that accepts connections and never answers fails by itself within
 * (retries + 1) x timeout + backoff; a healthy one in the same run is not
 * held up, and a refused port fails fast. */
static void test_dead_bmc_bounded(void **state)
{
	struct fake_bmc good = { 0 };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int sink = socket(AF_INET, SOCK_STREAM, 0), closed_port;
	char dead[64], refused[64];
	const char *bases[3];
	struct rf_options o;
	struct run run;

	(void)state;
	assert_int_equal(bind(sink, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(sink, 64), 0);
	getsockname(sink, (struct sockaddr *)&sa, &len);
	snprintf(dead, sizeof(dead), "http://127.0.0.1:%d", ntohs(sa.sin_port));
	{
		int s = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in sb = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

		bind(s, (struct sockaddr *)&sb, sizeof(sb));
		len = sizeof(sb);
		getsockname(s, (struct sockaddr *)&sb, &len);
		closed_port = ntohs(sb.sin_port);
		close(s);
	}
	snprintf(refused, sizeof(refused), "http://127.0.0.1:%d", closed_port);
	fake_start(&good, 2);
	bases[0] = dead;
	bases[1] = good.base;
	bases[2] = refused;
	fast_options(&o);
	o.timeout_ms = 300;
	o.retries = 2;
	assert_int_equal(discover(bases, 3, &o, &run), 0);
	assert_int_equal(run.res[0].rc, BR_E_TIMEOUT);
	assert_non_null(strstr(run.res[0].msg, "after 3 attempts"));
	assert_in_range(run.res[0].at_ms, 900, 900 + 3 * 50 + 400);
	assert_int_equal(run.res[1].rc, 0);
	assert_true(run.res[1].at_ms < 600);
	assert_int_equal(run.res[2].rc, BR_E_UNREACHABLE);
	assert_true(run.res[2].at_ms < 600);
	fake_stop(&good);
	close(sink);
}

static void test_bad_options(void **state)
{
	struct rf_target t = { .name = "x", .base_url = "http://127.0.0.1:1" };
	struct rf_options o;
	struct br_err err = { 0 };

	(void)state;
	rf_options_init(&o);
	o.ca_file = "/nonexistent/ca.pem";
	assert_int_equal(rf_discover_all(&t, 1, &o, on_done, NULL, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "/nonexistent/ca.pem"));
	rf_options_init(&o);
	o.per_bmc_inflight = 0;
	assert_int_equal(rf_discover_all(&t, 1, &o, on_done, NULL, &err), BR_E_INVAL);
	t.base_url = "ftp://127.0.0.1";
	rf_options_init(&o);
	assert_int_equal(rf_discover_all(&t, 1, &o, on_done, NULL, &err), BR_E_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_three_bmcs),	    cmocka_unit_test(test_inflight_cap),
		cmocka_unit_test(test_login_401),	    cmocka_unit_test(test_failures_still_log_out),
		cmocka_unit_test(test_missing_log_service), cmocka_unit_test(test_connection_view_idrac10),
		cmocka_unit_test(test_two_hosts),	    cmocka_unit_test(test_busy_then_ok),
		cmocka_unit_test(test_basic_auth_fallback), cmocka_unit_test(test_dead_bmc_bounded),
		cmocka_unit_test(test_bad_options),
	};
	int rc;

	br_log_init("test_redfish_client", getenv("RF_DEBUG") ? BR_LOG_DEBUG : BR_LOG_ERROR);
	huge_body = br_xmalloc(RF_BODY_MAX + 4096);
	memset(huge_body, ' ', RF_BODY_MAX + 4095);
	huge_body[0] = '{';
	huge_body[RF_BODY_MAX + 4094] = '}';
	huge_body[RF_BODY_MAX + 4095] = '\0';
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(huge_body);
	return rc;
}
