/*
 * rf_private — what the files of redfish/ share and nobody else sees.
 *
 * Layers, each calling only the ones above it in this list (never a
 * driver's function by name):
 *   transport     http.c: requests on the HTTP core (common/http.h), one
 *                 host per BMC: Redfish's headers and credentials, which
 *                 answers are retried, the per-BMC request budget;
 *                 reason.c: error reasons; classify.c: what an error
 *                 answer means for the next attempt (a vendor's "busy"
 *                 MessageId, a full session table), a leaf both the
 *                 transport and the session layer ask; bmc.c: the BMC record (set up,
 *                 fail, resolve links, a body as JSON) and the hand-over
 *                 to the run's driver (struct rf_driver).
 *   session       session.c: service root, X-Auth-Token session or basic
 *                 auth, logout.
 *   walk          walk.c: the link walker, a dependency-driven pipeline that
 *                 issues a child request as soon as its parent's body has
 *                 arrived; parse.c one function per resource type (JSON ->
 *                 br_hw); vendor.c, vendor_dell.c, vendor_hpe.c the quirks
 *                 as data and parse hooks (links to follow are named, the
 *                 walk follows them);
 *                 urlset.c URLs already requested on one BMC.
 *   run           run.c: options, the loop over every BMC, winding a BMC
 *                 down (report, logout, release); drive.c: a driver's
 *                 whole run (options and targets checked, one rf_bmc and
 *                 one driver node per target, the loop, the release).
 *   drivers       discover.c (the walk, reported as br_hw), config.c,
 *                 config_steps.c, config_diff.c (configure), firmware.c,
 *                 firmware_steps.c, firmware_read.c (firmware updates)
 *                 and accounts.c (BMC accounts), each a struct rf_driver
 *                 and a struct rf_drive; none calls another's functions.
 *
 * Every request belongs to one BMC (struct rf_bmc). A request finishes
 * exactly once, through its callback, unless its BMC is cancelled first;
 * when a BMC has nothing queued, delayed or in flight, the transport calls
 * rf_bmc_idle(), which asks the run's driver what comes next.
 */
#ifndef BRINGUP_RF_PRIVATE_H
#define BRINGUP_RF_PRIVATE_H

#include <curl/curl.h>

#include "http.h"
#include "redfish.h"

/* ---- URL set -------------------------------------------------------------- */

struct rf_urlset {
	char **slots;
	size_t n, cap; /* cap is a power of two or 0 */
};
void rf_urlset_release(struct rf_urlset *s);
/* 1 if url was added, 0 if it was already there. Copies url. */
int rf_urlset_add(struct rf_urlset *s, const char *url);

/* ---- requests and BMCs ---------------------------------------------------- */

enum rf_method { RF_GET, RF_POST, RF_DELETE, RF_PATCH };

enum rf_auth { RF_AUTH_NONE, RF_AUTH_BASIC, RF_AUTH_SESSION };

struct rf_req;
struct rf_bmc;
struct rf_http;

/* rc 0: a 2xx answer, body in req->body. Otherwise err says why; for an HTTP
 * error req->status is set (a session POST looks at 404/405/501). */
typedef void (*rf_req_fn)(struct rf_req *req, int rc, const struct br_err *err);

struct rf_req {
	struct br_http_req http; /* first member: the core hands this back;
				  * status, body, attempt are in it */
	struct rf_bmc *bmc;
	enum rf_method method;
	char *url;		/* absolute */
	char *post_body;	/* owned; POST and PATCH */
	char *if_match;		/* owned; sent as If-Match when set */
	int login;		/* the session POST: a full session table
				 * is not retried (session.c uses basic auth) */
	int poll;		/* a poll (rf_req_submit_at): outside the
				 * request budget, bounded by time instead */
	int no_retry_transport; /* an action the BMC may have carried out
				 * although the answer was lost (a reset):
				 * retried only when the BMC said it did not act */
	rf_req_fn fn;
	/* walker's context, opaque to http.c */
	int kind;
	int member_kind;
	long parent;  /* index of a parent record (PCIe device) */
	int pages;    /* collection pages read so far */
	int members;  /* collection members seen so far */
	int expanded; /* url carries $expand */

	/* multipart/form-data instead of a JSON body (firmware pushes):
	 * borrowed, outliving the request; mime and cursor are per attempt */
	const struct rf_multipart *multipart;
	curl_mime *mime;
	size_t mime_pos;

	/* filled by http.c from the answer */
	char *location;	  /* Location header */
	char *etag;	  /* ETag header */
	char *auth_token; /* X-Auth-Token header (secret) */
};

/* A multipart POST (DSP0266 "Multipart HTTP push updates"): a JSON part
 * and a file part, named as the spec names them. iLO's HttpPushUri takes
 * its own form: the session's token first, as a part named sessionKey and
 * as the cookie of that name, then its parameters as a plain field. */
struct rf_multipart {
	const char *json_name; /* "UpdateParameters" */
	const char *json;
	const char *file_part; /* "UpdateFile" */
	const char *file_name;
	const unsigned char *data;
	size_t len;
	int plain_json;	 /* the JSON part without a Content-Type (iLO's "parameters") */
	int session_key; /* the token as part and cookie "sessionKey" (iLO) */
	/* a part "compsig" before the file (iLO's component signature); NULL: none */
	const char *sig_name;
	const unsigned char *sig;
	size_t sig_len;
};

struct rf_vendor;

#define RF_KINDS_MAX 40 /* room for enum rf_kind, below */

struct rf_bmc {
	const struct rf_target *target;
	struct rf_http *http;
	char *base; /* base_url without a trailing '/' */

	/* scheduler (http.c): its queue and caps on the HTTP core */
	struct br_http_host host; /* host.pending: queued + delayed + in flight */
	int spent;		  /* attempts made, against RF_REQUESTS_MAX */

	/* auth (session.c) */
	enum rf_auth auth;
	char *token;		       /* X-Auth-Token, secret */
	char *session_url;	       /* to DELETE at the end */
	int logging_in;		       /* the session POST is in flight */
	char *session_pending;	       /* RF_SESSION_PENDING + the login's Context, until answered */
	int no_context;		       /* the BMC refused the login's Context: sent without */
	int *reclaim_waiting;	       /* reclaim.c: per pending URI, member GETs out; -1: found */
	struct br_loop_timer deadline; /* target's deadline_ms, then the logout's grace */
	int deadline_passed;
	int logging_out;
	int started; /* admitted by the run: deadline running, root requested */

	/* walk (walk.c) */
	enum { RF_BMC_WALKING, RF_BMC_FINISHING, RF_BMC_DONE } phase;
	/* Set while its outcome waits for rf_run_flush_reports. */
	void (*report_later)(struct rf_bmc *bmc);
	struct rf_bmc *report_next;
	int failed;
	struct br_err err;
	struct br_hw hw;
	struct rf_urlset seen;
	char *expand; /* "$expand=.($levels=1)" or NULL */
	/* A resource read again with $expand so that what it links comes in
	 * the one answer (walk.c): the URLs so read, and 1 once a BMC showed
	 * it expands collections only (it answered one with links). */
	struct rf_urlset reread;
	int reread_useless;
	json_t *host_doc;	  /* the host System as the collection gave it, while its re-read is out */
	json_t *inline_functions; /* PCIe functions the host System carried inline, by device URL */
	json_t *deferred_pcie;	  /* Chassis held until the host System is walked, for their PCIeDevices */
	int host_walked;
	int host_lists_pcie; /* the host System listed its PCIe devices itself (iDRAC) */
	char *host_odata;    /* the host System's @odata.id */
	const struct rf_vendor *vendor;
	json_t *root;		 /* the service root, kept for the walk */
	json_t *pcie_hints;	 /* PCIe links from OEM or slot resources (vendor_pcie.c) */
	int shown[RF_KINDS_MAX]; /* documents the walk handled, by enum rf_kind (a failure's reason) */
	int other_systems;	 /* Systems skipped as not the host (a GPU baseboard, a DPU) */
	/* Host choice (walk.c): every System is read before any is walked;
	 * systems holds their documents until the last has come. */
	json_t *systems;
	int systems_pending; /* System GETs issued, not yet answered */
	int systems_listed;  /* the collection's last page has been read */
	int host_chosen;
	int host_failed; /* no host System to take: fail at the walk's end with host_error */
	struct br_err host_error;
	/* Dell Connection View (walk.c): the host System's @odata.id, and
	 * how far its reading went (enabled, refreshed: each once). */
	char *connview_system;
	int connview_refreshed, connview_enable_tried, connview_attrs_read;
	int connview_idrac10; /* read at iDRAC10's path, Systems/{id}/Oem/Dell/DellSwitchConnections */
	/* The firmware inventory read at its schema-defined URI without the
	 * UpdateService first (walk.c): that URI, until it answered; the
	 * UpdateService is read only if it did not. */
	char *fw_by_pattern;

	/* configure (config*.c); NULL for a discovery walk */
	struct rf_cfg_node *cfg;
	/* firmware (firmware*.c); NULL otherwise */
	struct rf_fw_node *fw;
	/* credentials (accounts.c); NULL otherwise */
	struct rf_acct_node *acct;
	/* The login's answer said PasswordChangeRequired (DSP0266): the
	 * account's URL it named, the one thing this session may change. */
	char *password_change_url;
};

/* What a run does with each BMC (each driver file fills one). */
struct rf_driver {
	void (*ready)(struct rf_bmc *bmc); /* logged in (or basic auth): start */
	void (*idle)(struct rf_bmc *bmc);  /* nothing pending: next step or wind down */
	void (*abort)(struct rf_bmc *bmc); /* the loop broke: report the BMC failed */
	/* 1: start BMCs only as the overall cap can serve them (run.c): a
	 * discovery walk keeps its slots busy. 0: every BMC at once, for
	 * work that mostly waits (configure's BIOS jobs). */
	int windowed;
	/* When set, BMCs start only as it agrees (firmware's update slots):
	 * 1 to start bmc now, taking its slot; 0 to pass it over for now.
	 * Those passed over are asked again on every turn. */
	int (*admit)(struct rf_bmc *bmc);

	/* The run's set-up and end (drive.c); each may be 0 or NULL. */
	size_t node_size; /* the driver's state of one BMC, zeroed */
	/* The driver's options (run: its state of the whole run, as
	 * rf_drive_all got it), before any target; one target, after its
	 * base URL. */
	int (*check_run)(const void *run, struct br_err *err);
	int (*check_target)(const void *run, const struct rf_target *target, struct br_err *err);
	/* Tie node (NULL without node_size) to bmc, set up for its target. */
	void (*bind)(struct rf_bmc *bmc, void *node, void *run);
	/* Free what a node still holds when the run ends. */
	void (*node_release)(void *node);
	/* How a BMC starts once admitted; NULL: service root and login
	 * (rf_session_start). */
	void (*start)(struct rf_bmc *bmc);
};

struct rf_http {
	struct br_loop *loop; /* the run's own, or opts->loop */
	int own_loop;
	struct br_http core;
	const struct rf_options *opts;
	struct rf_bmc *bmcs;
	size_t n_bmcs;
	size_t active; /* BMCs not yet done */
	/* Admission (run.c): bmcs[0..next_start) have been started; running
	 * of them are not done. */
	size_t next_start, running;
	int holding;				/* holds the loop while BMCs are active */
	void *run;				/* the driver's state of the whole run (rf_drive_all) */
	struct rf_bmc *reports, **reports_tail; /* outcomes to hand on, FIFO */
	const struct rf_driver *driver;
	/* SIGTERM/SIGINT (common/loop.h): every BMC is stopped and logged out
	 * within RF_INTERRUPT_GRACE_MS, then the loop ends. */
	struct br_loop_fd *signal_watch;
	struct br_loop_timer grace;
	int interrupted; /* the signal caught, 0 if none */
};

/* http.c */
/* The HTTP core for n_bmcs BMCs on opts->loop, or on a loop of its own. */
int rf_http_init(struct rf_http *h, const struct rf_options *opts, size_t n_bmcs, struct br_err *err);
void rf_http_release(struct rf_http *h);
/* bmc's host on h's core (rf_bmc_setup calls it). */
void rf_http_host_init(struct rf_http *h, struct rf_bmc *bmc);
/* A new request for bmc; url is copied. The caller sets kind etc. and then
 * calls rf_req_submit, which takes ownership. */
struct rf_req *rf_req_new(struct rf_bmc *bmc, enum rf_method method, const char *url, int priority,
			  rf_req_fn fn);
void rf_req_submit(struct rf_req *req);
/* Submit req to start no earlier than due_ms (br_now_ms() clock): a timer
 * that is also a request, as job polling needs. Polls (and their retries)
 * do not count toward RF_REQUESTS_MAX: a long job polled often is not a
 * BMC sending too many links; the job's timeout and the BMC's deadline
 * bound them. */
void rf_req_submit_at(struct rf_req *req, int64_t due_ms);
/* Drop a first attempt at url still waiting in bmc's queue, because its
 * document arrived inline elsewhere. 1 if there was one. */
int rf_http_unqueue(struct rf_bmc *bmc, const char *url);
/* Drop everything queued, delayed or in flight for bmc (no callbacks). */
void rf_http_cancel_bmc(struct rf_http *h, struct rf_bmc *bmc);
/* "HTTP 401 on URL: Base.1.12.InsufficientPrivilege" from a status, the
 * error body (may be NULL/empty) and the reason phrase, into out. */
void rf_http_error_reason(struct br_buf *out, long status, const char *url, const char *body, size_t body_len,
			  const char *status_text);
/* The MessageId (or error.code) of a Redfish error body; caller frees. */
char *rf_error_message_id(const char *body, size_t len);
/* The account URI a Base PasswordChangeRequired message names, from a
 * login's answer (@Message.ExtendedInfo) or an error body; NULL when the
 * body carries none. Caller frees. */
char *rf_password_change_uri(const char *body, size_t len);

/* bmc.c */
/* Set up bmcs[i] for targets[i] on h (base URL trimmed, hw initialised);
 * release with rf_bmc_release. */
void rf_bmc_setup(struct rf_http *h, struct rf_bmc *bmc, const struct rf_target *target);
void rf_bmc_release(struct rf_bmc *bmc);
/* Fail the node: records err (prefixed with the BMC) once, cancels the rest. */
void rf_bmc_fail(struct rf_bmc *bmc, const struct br_err *err);
/* rf_bmc_fail with a formatted message. */
void rf_bmc_failf(struct rf_bmc *bmc, int code, const char *fmt, ...) BR_PRINTF(3, 4);
/* Fail the BMC because req did not succeed: "WHAT: HTTP 400 on URL:
 * Base.1.12.PropertyUnknown: The property X is not ..." — the MessageId
 * and, unlike a GET's reason, the first ExtendedInfo Message too. req may
 * be NULL. */
void rf_bmc_fail_request(struct rf_bmc *bmc, struct rf_req *req, const char *what, const struct br_err *err);
/* Resolve a link found in a BMC document into an absolute URL on the same
 * BMC; NULL for links elsewhere (never send credentials to another host). */
char *rf_resolve(struct rf_bmc *bmc, const char *link);
/* The body of a finished GET as a JSON object (new reference), or NULL
 * after failing the BMC with "GET URL: invalid JSON at line ...". */
json_t *rf_req_json(struct rf_req *req);
/* The same without failing the BMC: NULL with err ("GET URL: ..."; code
 * BR_E_TOOBIG for a cap) for the caller to judge. */
json_t *rf_req_parse(struct rf_req *req, struct br_err *err);
/* Start the BMC's deadline timer (rf_run_bmcs, as the BMC starts). */
void rf_bmc_deadline_start(struct rf_bmc *bmc);
/* Hand the BMC to the run's driver: logged in, or nothing pending. */
void rf_bmc_ready(struct rf_bmc *bmc);
void rf_bmc_idle(struct rf_bmc *bmc);

/* run.c */
/* Check options as every run does: caps, timeouts, a readable CA file. */
int rf_options_check(const struct rf_options *o, struct br_err *err);
/* Start every BMC of h (service root, login), run the loop until all are
 * done; if the loop itself breaks, each BMC still running is failed with
 * its reason, handed to h->driver->abort, and released. */
int rf_run_bmcs(struct rf_http *h, struct br_err *err);
/* A BMC with nothing left pending: report it (once), log out, and once
 * the logout has finished, release it. */
void rf_bmc_wind_down(struct rf_bmc *bmc, void (*report_fn)(struct rf_bmc *bmc));
/* Hand on the outcomes wind_down deferred, in the order they came. */
void rf_run_flush_reports(struct rf_http *h);
/* Outcomes handed on by one turn of the run's loop. */
#define RF_REPORTS_PER_TURN 1
/* The first max of them; how many were handed on. */
size_t rf_run_flush_some_reports(struct rf_http *h, size_t max);

/* drive.c: a driver's whole run. Check opts (NULL: defaults) and every
 * target (n of target_size bytes, each starting with its struct
 * rf_target), then run every BMC to its end on one rf_http with run as
 * h->run (rf_run_bmcs), and release them: 0, or what a check or the run's
 * loop said. A target refused is refused before any BMC is touched. */
int rf_drive_all(const struct rf_driver *driver, const void *targets, size_t n, size_t target_size, void *run,
		 const struct rf_options *opts, struct br_err *err);

/* config_diff.c: what configure changes (pure, docs borrowed) */
/* An attribute value as text: strings as they are, numbers and booleans in
 * JSON form; NULL for anything else. Caller frees. */
char *rf_cfg_value_text(json_t *v);
/* Attributes of spec whose value in attrs (a Bios "Attributes" object)
 * differs, in spec order. Caller frees with rf_cfg_changes_free. */
void rf_cfg_bios_diff(json_t *attrs, const struct rf_config_spec *spec, struct rf_config_change **ret,
		      size_t *ret_n);
void rf_cfg_changes_free(struct rf_config_change *c, size_t n);
/* The Bios/Settings PATCH body for the changes, values typed as attrs has
 * them (a number stays a number); NULL with err when a value cannot be. */
json_t *rf_cfg_bios_patch(json_t *attrs, const struct rf_config_change *c, size_t n, struct br_err *err);
/* Boot settings of system against spec, attrs as planned (spec values over
 * the current ones): 0 right already; 1 with a PATCH body for the System
 * and a text of the current and wanted settings (caller frees all three);
 * negative with err when it cannot be done (no PXE device uses the NIC). */
int rf_cfg_boot_plan(json_t *system, json_t *attrs, const struct rf_config_spec *spec, json_t **ret_patch,
		     char **ret_current, char **ret_wanted, struct br_err *err);

/* config.c, config_steps.c: the configure run and one system's steps */
struct rf_cfg_run {
	const struct rf_config_options *o;
	rf_config_done_fn done;
	void *ctx;
	int resets_active;	 /* systems between reset and job end */
	struct rf_bmc **waiting; /* FIFO of systems waiting for a reset slot */
	size_t n_waiting, head;
	const struct rf_config_target *targets;
	size_t *domain_of;  /* [target]: its power domain's number; SIZE_MAX: none */
	int *domain_active; /* [domain]: its systems between reset and job end */
	size_t n_domains;
};

struct rf_cfg_node {
	struct rf_cfg_run *run;
	const struct rf_config_spec *spec;
	size_t domain;	  /* its power domain's number; SIZE_MAX: none */
	const char *step; /* what it is doing, for logs and a stall */
	char *system_url, *bios_url, *settings_url, *settings_link, *reset_url, *manager_url;
	char *boot_url; /* where the boot PATCH goes */
	char *job_url;
	json_t *system; /* last System read */
	json_t *attrs;	/* last Bios Attributes read */
	char *system_etag;
	int verifying; /* the Bios now read is after the job */
	int holds_reset, waiting_reset, forced, retried_412, finished;
	int job_running;	  /* an earlier run's job, found running: no reset */
	int jobs_to_read;	  /* job search: members still being read */
	const char *reset_type;	  /* last sent */
	const char *restart_type; /* the restart the System lists (GracefulRestart first) */
	int apply_on_reset;	  /* the Bios advertises SupportedApplyTimes OnReset */
	int settings_apply;	  /* no job: the reset applies the settings object (DSP0266) */
	int systems_to_read;	  /* several Systems: members still being read */
	json_t *candidates;	  /* ... and those read (owned), for rf_choose_host */
	int64_t reset_ms, deadline_ms;
	struct rf_config_result res;
};

/* Steps (config_steps.c). */
void rf_cfg_begin(struct rf_bmc *bmc);
void rf_cfg_reset_granted(struct rf_bmc *bmc);
/* Run (config.c): a reset slot now (rf_cfg_reset_granted is called) or
 * when one frees up; giving one back hands it to the next waiting system. */
void rf_cfg_want_reset(struct rf_bmc *bmc);
void rf_cfg_release_reset(struct rf_bmc *bmc);

/* classify.c: what an error answer means for the next attempt (a leaf) */
/* 1 when a BMC's MessageId means "busy, retry"; *ret_delay_ms the wait it
 * implies (0 if none). */
int rf_retry_hint(const char *message_id, long *ret_delay_ms);
/* 1 when an error answer says the BMC has no session to spare (iDRAC's
 * RAC0218, Redfish Base's SessionLimitExceeded, or those words): a login
 * not worth repeating, and a reason to use basic auth instead. */
int rf_session_limit_reached(long status, const char *body, size_t len);
/* 1 when a login's error answer is HTTP 400 naming the Context property
 * (a BMC older than Session v1_5_0 that refuses what it does not know). */
int rf_context_refused(long status, const char *body, size_t len);

/* session.c */
void rf_session_start(struct rf_bmc *bmc);
/* Log in again on a BMC whose service root is already read (its restart
 * ended the session): the driver's ready is called again once it is open,
 * or on basic auth where the BMC gives no session. */
void rf_session_reopen(struct rf_bmc *bmc);
/* Called by the walker when the BMC is otherwise done: DELETE the session
 * if one exists. Returns 1 if a logout request was queued. */
int rf_session_logout(struct rf_bmc *bmc);
/* walk.c */
/* The discovery walk of a logged-in BMC (discover.c's driver starts it). */
void rf_walk_start(struct rf_bmc *bmc);
/* Follow the link (or array of links) at path in doc as resources of kind,
 * or, when collection is set, as a collection of member_kind. */
void rf_follow(struct rf_bmc *bmc, json_t *doc, const char *path, int kind, int collection, long parent);
/* Follow the collections a vendor names under the System (system_links). */
void rf_follow_vendor_links(struct rf_bmc *bmc, json_t *system);
/* 1 when a ComputerSystem can be the host, not a GPU baseboard, a DPU or
 * an enclosure controller listed beside it. */
int rf_system_is_host(json_t *doc);
/* Why a ComputerSystem is not a host ("a DPU (SystemType DPU)"), or NULL
 * when it can be one. */
const char *rf_system_not_host(json_t *doc);
/* Of the Systems a BMC lists (an array of documents), the one to take as
 * the host: the one named by `want` (Id or @odata.id) if set, else the one
 * that can be a host. NULL with the reason in err (naming every System
 * seen, and what each is) when there is none, or several and no name. */
json_t *rf_choose_host(json_t *systems, const char *want, struct br_err *err);

/* Resource kinds the walker knows. */
enum rf_kind {
	RF_K_ROOT,
	RF_K_SESSION_SERVICE,
	RF_K_SYSTEM,
	RF_K_PROCESSOR,
	RF_K_ETH,
	RF_K_STORAGE,
	RF_K_DRIVE,
	RF_K_PCIE_DEVICE,
	RF_K_PCIE_FUNCTION,
	RF_K_BIOS,
	RF_K_CHASSIS,
	RF_K_NET_ADAPTER,
	RF_K_NDF,
	RF_K_THERMAL,
	RF_K_THERMAL_SUBSYSTEM,
	RF_K_FAN,
	RF_K_POWER,
	RF_K_POWER_SUBSYSTEM,
	RF_K_PSU,
	RF_K_MANAGER,
	RF_K_MANAGER_ETH,
	RF_K_LOG_SERVICE,
	RF_K_LOG_ENTRY,
	RF_K_UPDATE_SERVICE,
	RF_K_FIRMWARE,
	RF_K_HPE_ADAPTER,
	RF_K_BOOT_OPTION,
	RF_K_HPE_PCI_DEVICE,
	RF_K_PCIE_SLOTS,
	RF_K_VOLUME,
	RF_K_DELL_SWITCH_CONN,
	RF_K_PORT,
	RF_K_DELL_ATTRIBUTES,
	RF_K_HOST_SYSTEM, /* the chosen host System read again with $expand */
	RF_K_COLLECTION,
	RF_K_COUNT
};
_Static_assert(RF_K_COUNT <= RF_KINDS_MAX, "struct rf_bmc counts documents by kind");

/* ---- parse.c: one resource document -> br_hw (docs borrowed) ------------- */

/* Add a MAC seen in a view; a MAC already known keeps its first source and
 * gains permanent. Invalid MACs are ignored. Returns 1 if added. */
int rf_add_mac(struct br_hw *hw, const char *mac, const char *name, const char *source, int permanent,
	       const char *link_status);
/* rf_add_mac with a role (BR_NIC_ROLE_*); a MAC already known takes the
 * name and source of the more standard view (NIC resources over OEM ones
 * over BootOptions). */
int rf_add_mac_role(struct br_hw *hw, const char *mac, const char *name, const char *source, int permanent,
		    const char *link_status, const char *role);
/* 1 when a System EthernetInterface is the host end of the BMC's USB
 * network link (by its name, or its link to the Host Interface). */
int rf_eth_is_bmc_usb(json_t *doc);
/* 1 when a BootOption's UEFI device path reaches its MAC() through USB
 * nodes: the BMC's LAN-over-USB, not a host NIC. */
int rf_boot_path_is_usb(json_t *doc);
/* 1 when a NetworkDeviceFunction is switched off (NetDevFuncType
 * "Disabled", DeviceEnabled false). */
int rf_ndf_is_disabled(json_t *doc);
/* Once the walk is over: a locally administered MAC no standard NIC
 * resource lists is not a host MAC (role bmc_usb). */
void rf_macs_settle(struct br_hw *hw);
/* Host MACs in a BootOption: UefiDevicePath "MAC(3CECEF123456,0x1)", or
 * "MAC:…" in its display name. */
void rf_parse_boot_option(struct br_hw *hw, json_t *doc);
void rf_parse_system(struct br_hw *hw, json_t *doc);
void rf_parse_processor(struct br_hw *hw, json_t *doc);
void rf_parse_ethernet_interface(struct br_hw *hw, json_t *doc);
void rf_parse_network_device_function(struct br_hw *hw, json_t *doc);
/* Returns the index of the PCIe record added (or found by Id), -1 if none. */
long rf_parse_pcie_device(struct br_hw *hw, json_t *doc);
void rf_parse_pcie_function(struct br_hw *hw, long index, json_t *doc);
void rf_parse_drive(struct br_hw *hw, json_t *doc);
/* A Storage Volume (a RAID virtual disk): its identity and member drives. */
void rf_parse_volume(struct br_hw *hw, json_t *doc);
/* neighbors.c: the switch port behind each host port, before any OS runs:
 * Dell's DellSwitchConnections collection (members inline) and a DMTF
 * Port's Ethernet.LLDPReceive. At most RF_NEIGHBORS_MAX ports are kept. */
#define RF_NEIGHBORS_MAX 256
void rf_parse_dell_switch_connections(struct br_hw *hw, json_t *doc);
void rf_parse_port(struct br_hw *hw, json_t *doc);
/* Forget the neighbours read so far (a view read again after a refresh). */
void rf_neighbors_clear(struct br_hw *hw);
/* After a Connection View was parsed into hw: 1 when a host port's data
 * is stale, and (ret_links) how many host ports see a neighbour. */
int rf_neighbors_stale(const struct br_hw *hw, size_t *ret_links);
/* Stores the attributes; the values of those named "...MACAddress" are
 * host NIC MACs (source "Bios"), RF_BIOS_MACS_MAX at most. */
#define RF_BIOS_MACS_MAX 64 /* a node has a few add-in NIC ports, not hundreds */
void rf_parse_bios(struct br_hw *hw, json_t *doc);
void rf_parse_thermal(struct br_hw *hw, json_t *doc);
void rf_parse_fan(struct br_hw *hw, json_t *doc);
void rf_parse_power(struct br_hw *hw, json_t *doc);
/* PowerSubsystem: its PowerSupplyRedundancy groups (the supplies are members). */
void rf_parse_power_subsystem(struct br_hw *hw, json_t *doc);
void rf_parse_power_supply(struct br_hw *hw, json_t *doc);
void rf_parse_manager(struct br_hw *hw, json_t *doc);
void rf_parse_manager_ethernet(struct br_hw *hw, json_t *doc);
/* 1 if a LogService is the system event log. */
int rf_log_service_is_sel(json_t *doc);
void rf_parse_sel_entry(struct br_hw *hw, json_t *doc);
void rf_parse_firmware(struct br_hw *hw, json_t *doc);
/* A string member as a newly allocated copy, or NULL. */
char *rf_dup(json_t *doc, const char *path);
/* The same without leading and trailing blanks (padded serials). */
char *rf_dup_trimmed(json_t *doc, const char *path);

/* ---- vendors (vendor.c, vendor_*.c) -------------------------------------- */

/* A collection under the System's Oem links that the walk reads for a
 * vendor: the link, or an array holding collection links (iLO 5 2.x). */
struct rf_vendor_link {
	const char *path;
	int kind; /* enum rf_kind of its members */
};

struct rf_vendor {
	const char *name;
	/* ServiceRoot "Vendor" value or Oem key, and System Manufacturer prefix. */
	const char *root_key;
	const char *manufacturer;
	/* After the generic System parse: the vendor's fields (may be NULL). */
	void (*on_system)(struct br_hw *hw, json_t *system);
	/* Collections the walk follows from the System, { NULL } ended; the
	 * vendor files name them and never call the walk (may be NULL). */
	const struct rf_vendor_link *system_links;
	/* The family documents its switch neighbours: Dell's Connection View
	 * under the System, DMTF LLDPReceive on the NetworkAdapters' Ports. */
	int dell_switch_connections;
	int port_lldp;
};

extern const struct rf_vendor rf_vendor_dell;
extern const struct rf_vendor rf_vendor_hpe;
const struct rf_vendor *rf_vendor_from_root(json_t *root);
/* The $expand query the service root's ProtocolFeaturesSupported allows
 * ("$expand=.($levels=1)", "$expand=*"), or NULL; the caller frees it. */
char *rf_expand_query(json_t *root);
const struct rf_vendor *rf_vendor_from_manufacturer(const char *manufacturer);
/* vendor_pcie.c: PCIe link width and speed from HPE's PCIDevices and the
 * Chassis' PCIeSlots, kept until the walk ends, then given to the PCIe
 * devices that lack them (standard values win). */
void rf_pcie_hint_hpe(struct rf_bmc *bmc, json_t *doc);
void rf_pcie_hint_slots(struct rf_bmc *bmc, json_t *doc);
void rf_pcie_hints_merge(struct rf_bmc *bmc);
/* HPE iLO 5 BaseNetworkAdapter: PhysicalPorts[].MacAddress. */
void rf_hpe_parse_network_adapter(struct br_hw *hw, json_t *doc);

#endif
