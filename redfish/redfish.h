/*
 * redfish — read (and later configure) BMCs over DMTF Redfish, many at once,
 * on one libcurl multi handle; plus the IPMI fallback through ipmitool.
 *
 * The client walks @odata.id links from /redfish/v1 and never hard-codes a
 * path below it. Vendor quirks (Dell iDRAC, HPE iLO) live in one small place
 * per vendor (redfish/vendor_*.c). It knows no database: results are handed
 * to the caller as struct br_hw records (common/hw.h).
 *
 * Ownership: targets and options are borrowed for the duration of the call.
 * The br_hw passed to a done callback belongs to the library and is released
 * when the callback returns; copy what you keep.
 */
#ifndef BRINGUP_REDFISH_H
#define BRINGUP_REDFISH_H

#include "common.h"

/* Caps on what a BMC may send us. */
#define RF_BODY_MAX (8u * 1024 * 1024)    /* one response body */
#define RF_MEMBERS_MAX 4096               /* members of one collection, all pages */
#define RF_PAGES_MAX 64                   /* nextLink pages of one collection */
#define RF_REQUESTS_MAX 2000              /* requests spent on one BMC in one walk */

/* Error codes beyond common's (all negative). */
enum rf_errcode {
	RF_E_HTTP = -100,    /* a non-success HTTP status; message carries it */
	RF_E_NO_REDFISH = -101, /* /redfish/v1 absent: try IPMI */
};

struct rf_target {
	const char *name;     /* hostname, for logs and reasons */
	const char *base_url; /* "https://10.0.0.5" or "http://127.0.0.1:8001" */
	const char *user;
	const char *password; /* never logged */
	void *user_data;
};

struct rf_options {
	int per_bmc_inflight; /* requests in flight per BMC; default 4 */
	int total_inflight;   /* requests in flight overall; default 512 */
	long timeout_ms;      /* one request, default 15000 */
	long connect_timeout_ms; /* default 5000 */
	int retries;          /* per request on timeouts, resets, 5xx; default 5 */
	long backoff_ms;      /* first retry delay, doubled each time with jitter; default 500 */
	long backoff_max_ms;  /* default 30000 */
	const char *ca_file;  /* NULL: system store */
	int insecure;         /* skip TLS verification, only when asked */
	int use_sessions;     /* 1: X-Auth-Token sessions (default); 0: basic auth */
	int use_expand;       /* 1: use $expand where advertised (default) */
};

void rf_options_init(struct rf_options *opts);

/* Called once per target, in completion order, from inside rf_discover_all.
 * rc is 0 or an error code; on error err names the BMC and the cause
 * ("bmc 10.0.0.5: HTTP 401 on https://10.0.0.5/redfish/v1/SessionService/Sessions:
 * Base.1.12.InsufficientPrivilege"). hw is never NULL; on error it holds
 * what was read before the failure (partial: do not store it as facts).
 * The callback runs as soon as the walk ends; the session DELETE follows,
 * and rf_discover_all returns only after every DELETE has finished. */
typedef void (*rf_done_fn)(const struct rf_target *target, int rc, struct br_hw *hw,
			   const struct br_err *err, void *ctx);

/* Discover every target concurrently. Returns 0 when the run itself worked
 * (individual BMC failures go to the callback), or an error for a run that
 * could not start (curl init, bad CA file). */
int rf_discover_all(const struct rf_target *targets, size_t n, const struct rf_options *opts,
		    rf_done_fn done, void *ctx, struct br_err *err);

/* ---- IPMI fallback (redfish/ipmi.c), through ipmitool -I lanplus ---------- */

struct rf_ipmi_target {
	const char *name;
	const char *host;
	int port;             /* 623 by default */
	const char *user;
	const char *password; /* handed to ipmitool through its environment, never argv */
	void *user_data;
};

typedef void (*rf_ipmi_done_fn)(const struct rf_ipmi_target *target, int rc, struct br_hw *hw,
				const struct br_err *err, void *ctx);

/* Read power state, FRU (serials, model), SDR (fans, temperatures, PSUs),
 * SEL and the BMC's LAN MAC of every target, running up to max_parallel
 * ipmitool processes at once. timeout_s bounds each ipmitool call. */
int rf_ipmi_discover_all(const struct rf_ipmi_target *targets, size_t n, int max_parallel,
			 int timeout_s, rf_ipmi_done_fn done, void *ctx, struct br_err *err);

#endif
