/*
 * The MAAS emulator's HTTP side: libmicrohttpd with a thread per
 * connection (a --latency-ms sleep then holds only its own connection),
 * request bodies, form and query parameters, OAuth checking, injected
 * busy answers, and the request log.
 */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <microhttpd.h>

#include "sim/maas_private.h"

#define API_PREFIX "/MAAS/api/2.0/"

struct conn {
	struct br_buf body;
	int too_big;
};

static void params_add(struct sim_maas_params *p, const char *name, size_t name_len, const char *value,
		       size_t value_len)
{
	if (p->n >= SIM_MAAS_PARAMS_MAX) {
		p->too_many = 1;
		return;
	}
	p->items[p->n].name = br_xstrndup(name, name_len);
	p->items[p->n].value = br_xstrndup(value, value_len);
	MHD_http_unescape(p->items[p->n].name);
	MHD_http_unescape(p->items[p->n].value);
	p->n++;
}

static void params_release(struct sim_maas_params *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->items[i].name);
		explicit_bzero(p->items[i].value, strlen(p->items[i].value)); /* power_pass */
		free(p->items[i].value);
	}
	p->n = 0;
}

/* application/x-www-form-urlencoded: '+' is a space before unescaping. */
static void parse_form(struct sim_maas_params *p, char *s)
{
	while (s && *s) {
		char *amp = strchr(s, '&'), *eq;
		size_t len = amp ? (size_t)(amp - s) : strlen(s);

		for (size_t i = 0; i < len; i++)
			if (s[i] == '+')
				s[i] = ' ';
		eq = memchr(s, '=', len);
		if (eq)
			params_add(p, s, (size_t)(eq - s), eq + 1, len - (size_t)(eq - s) - 1);
		else if (len)
			params_add(p, s, len, "", 0);
		s = amp ? amp + 1 : NULL;
	}
}

/* OAuth header parameter value, percent-decoded; caller frees. */
static char *oauth_param(const char *header, const char *name)
{
	size_t nlen = strlen(name);

	for (const char *p = header; (p = strstr(p, name)); p += nlen) {
		const char *q;

		if ((p != header && p[-1] != ' ' && p[-1] != ',') || strncmp(p + nlen, "=\"", 2))
			continue;
		p += nlen + 2;
		q = strchr(p, '"');
		if (!q)
			return NULL;
		{
			char *v = br_xstrndup(p, (size_t)(q - p));

			MHD_http_unescape(v);
			return v;
		}
	}
	return NULL;
}

static int key_is(const char *ck, const char *tk, const char *sig, const char *want_ck, const char *want_tk,
		  const char *want_secret)
{
	return want_ck && ck && tk && sig && !strcmp(ck, want_ck) && !strcmp(tk, want_tk) && sig[0] == '&' &&
	       !strcmp(sig + 1, want_secret);
}

/* NULL when the request carries a known key (*ret_user says whose); else
 * the 401 text. */
static const char *check_auth(struct sim_maas *m, const char *header, const char **ret_user)
{
	char *ck, *tk, *sig, *nonce, *ts, *method;
	const char *why = NULL;

	if (!header || strncmp(header, "OAuth ", 6))
		return "Authorization Error: Invalid API key.";
	ck = oauth_param(header, "oauth_consumer_key");
	tk = oauth_param(header, "oauth_token");
	sig = oauth_param(header, "oauth_signature");
	nonce = oauth_param(header, "oauth_nonce");
	ts = oauth_param(header, "oauth_timestamp");
	method = oauth_param(header, "oauth_signature_method");
	if (!nonce || !*nonce || !ts || !*ts)
		why = "Authorization Error: Missing OAuth parameter(s): oauth_nonce, oauth_timestamp";
	else if (!method || strcmp(method, "PLAINTEXT"))
		why = "Authorization Error: Unsupported signature method.";
	else if (key_is(ck, tk, sig, m->consumer_key, m->token_key, m->token_secret))
		*ret_user = SIM_MAAS_ADMIN;
	else if (key_is(ck, tk, sig, m->op_consumer_key, m->op_token_key, m->op_token_secret))
		*ret_user = SIM_MAAS_OPERATOR;
	else
		why = "Authorization Error: Invalid API key.";
	free(ck);
	free(tk);
	if (sig)
		explicit_bzero(sig, strlen(sig));
	free(sig);
	free(nonce);
	free(ts);
	free(method);
	return why;
}

static void log_request(struct sim_maas *m, const struct sim_maas_req *req, const struct sim_maas_reply *r,
			int64_t start_ms)
{
	json_t *line;
	char when[21];
	char *text;

	if (!m->log)
		return;
	br_iso_time(when);
	line = json_pack("{s:s, s:I, s:s, s:s, s:o, s:i, s:I}", "time", when, "at_ms",
			 (json_int_t)(start_ms - m->start_ms), "method", req->method, "path", req->path, "op",
			 br_json_string_or_null(req->op), "status", r->status, "ms",
			 (json_int_t)(br_now_ms() - start_ms));
	if (r->log)
		json_object_update(line, r->log);
	text = json_dumps(line, JSON_COMPACT);
	if (text) {
		fprintf(m->log, "%s\n", text);
		fflush(m->log);
	}
	free(text);
	json_decref(line);
}

static enum MHD_Result on_query_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct sim_maas_params *p = cls;

	(void)kind;
	if (p->n < SIM_MAAS_PARAMS_MAX) {
		p->items[p->n].name = br_xstrdup(key);
		p->items[p->n].value = br_xstrdup(value ? value : "");
		p->n++;
	} else {
		p->too_many = 1;
	}
	return MHD_YES;
}

/* A share of requests is answered as a busy MAAS would: 503, or for a
 * POST the 409 + Retry-After of database contention (src/maasserver/utils/views.py
 * WebApplicationHandler: a request whose transaction keeps failing to
 * serialise is answered 409 Conflict with Retry-After once its retries are
 * spent). A state conflict (NodeStateViolation, src/maasserver/exceptions.py)
 * is a plain 409, without Retry-After: retrying it cannot help. */
static int busy(struct sim_maas *m, const char *method, struct sim_maas_reply *r)
{
	uint64_t z;

	if (m->cfg.busy_percent <= 0)
		return 0;
	z = (m->rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ULL;
	if ((int)((z >> 20) % 100) >= m->cfg.busy_percent)
		return 0;
	r->retry_after = 1;
	if (!strcmp(method, "POST") && (z & 1))
		sim_maas_reply_text(r, 409, "Conflict: could not serialize access due to concurrent update");
	else
		sim_maas_reply_text(r, 503, "Service Unavailable: MAAS is busy, try again.");
	return 1;
}

static void serve(struct sim_maas *m, struct MHD_Connection *mc, const char *url, const char *method,
		  struct conn *c, struct sim_maas_reply *r)
{
	struct sim_maas_req req = { method, "", NULL, { .n = 0 }, NULL, "", 0 };
	int64_t start = br_now_ms();
	const char *why;

	if (m->cfg.latency_ms > 0)
		usleep((useconds_t)m->cfg.latency_ms * 1000);
	MHD_get_connection_values(mc, MHD_GET_ARGUMENT_KIND, on_query_arg, &req.params);
	if (c->body.len)
		parse_form(&req.params, c->body.data);
	req.op = sim_maas_param(&req.params, "op");
	req.authorization = MHD_lookup_connection_value(mc, MHD_HEADER_KIND, "Authorization");
	pthread_mutex_lock(&m->lock);
	if (strncmp(url, API_PREFIX, strlen(API_PREFIX))) {
		req.path = url;
		sim_maas_reply_text(r, 404, "Not Found");
	} else if ((req.path = url + strlen(API_PREFIX)), !strcmp(req.path, "version/")) {
		sim_maas_reply_json(r, 200,
				    json_pack("{s:s, s:s, s:[s,s,s]}", "version", "3.4.0", "subversion",
					      "emulated", "capabilities", "networks-management",
					      "static-ipaddresses", "authenticate-api"));
	} else if ((why = check_auth(m, MHD_lookup_connection_value(mc, MHD_HEADER_KIND, "Authorization"),
				     &req.user))) {
		sim_maas_reply_text(r, 401, "%s", why);
	} else if (c->too_big) {
		sim_maas_reply_text(r, 413, "Request body larger than %u bytes", SIM_MAAS_BODY_MAX);
	} else if (req.params.too_many) {
		/* Django's TooManyFieldsSent, answered 400 */
		sim_maas_reply_text(r, 400,
				    "The number of GET/POST parameters exceeded "
				    "settings.DATA_UPLOAD_MAX_NUMBER_FIELDS.");
	} else if (!busy(m, method, r)) {
		req.user_is_admin = !strcmp(req.user, SIM_MAAS_ADMIN);
		sim_maas_dispatch(m, &req, r);
	}
	log_request(m, &req, r, start);
	pthread_mutex_unlock(&m->lock);
	params_release(&req.params);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *mc, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_size,
				  void **con_cls)
{
	struct sim_maas *m = cls;
	struct sim_maas_reply r = { 0 };
	struct MHD_Response *resp;
	struct conn *c = *con_cls;
	enum MHD_Result ret;
	char retry[16];

	(void)version;
	if (!c) {
		c = br_xcalloc(1, sizeof(*c));
		br_buf_init(&c->body, SIM_MAAS_BODY_MAX);
		*con_cls = c;
		return MHD_YES;
	}
	if (*upload_size) {
		if (br_buf_add(&c->body, upload_data, *upload_size))
			c->too_big = 1;
		*upload_size = 0;
		return MHD_YES;
	}
	serve(m, mc, url, method, c, &r);
	if (r.render)
		r.render(&r);
	/* Serialising a long machine list is the emulator's slowest work:
	 * done here, outside the state lock, so answers overlap. */
	if (r.json) {
		r.body = json_dumps(r.json, JSON_COMPACT);
		json_decref(r.json);
	}
	resp = MHD_create_response_from_buffer(r.body ? strlen(r.body) : 0, r.body ? r.body : (void *)"",
					       r.body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(resp, "Content-Type", r.content_type ? r.content_type : "application/json");
	if (r.retry_after > 0) {
		snprintf(retry, sizeof(retry), "%d", r.retry_after);
		MHD_add_response_header(resp, "Retry-After", retry);
	}
	ret = MHD_queue_response(mc, (unsigned)r.status, resp);
	MHD_destroy_response(resp);
	json_decref(r.log);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *mc, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct conn *c = *con_cls;

	(void)cls, (void)mc, (void)toe;
	if (!c)
		return;
	if (c->body.data)
		explicit_bzero(c->body.data, c->body.len);
	br_buf_release(&c->body);
	free(c);
	*con_cls = NULL;
}

/* "consumer:token:secret" into its parts (the caller's); -1 when malformed. */
static int split_key(const char *key, char **ret_ck, char **ret_tk, char **ret_secret)
{
	const char *a = key ? strchr(key, ':') : NULL, *b = a ? strchr(a + 1, ':') : NULL;

	if (!b || !b[1])
		return -1;
	*ret_ck = br_xstrndup(key, (size_t)(a - key));
	*ret_tk = br_xstrndup(a + 1, (size_t)(b - a - 1));
	*ret_secret = br_xstrdup(b + 1);
	return 0;
}

uint64_t sim_maas_mac_key(const char *mac)
{
	uint64_t key = 0;
	int digits = 0;

	for (const char *p = mac; *p; p++) {
		int v = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;

		if (v < 0 && (*p != ':' || digits % 2))
			return UINT64_MAX;
		if (v >= 0) {
			if (++digits > 12)
				return UINT64_MAX;
			key = key << 4 | (uint64_t)v;
		}
	}
	return digits == 12 ? key : UINT64_MAX;
}

static int cmp_host_mac(const void *a, const void *b)
{
	const struct sim_maas_host_mac *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->host > y->host) - (x->host < y->host);
}

int sim_maas_host_by_mac(const struct sim_maas *m, const char *mac)
{
	uint64_t key = sim_maas_mac_key(mac);
	size_t lo = 0, hi = m->n_host_macs;

	while (lo < hi) { /* the first entry whose key is not below key */
		size_t mid = lo + (hi - lo) / 2;

		if (m->host_macs[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Entries of one key go by host: the first whose text is the MAC is
	 * the first host that has it, as a walk of the hosts finds it. */
	for (; lo < m->n_host_macs && m->host_macs[lo].key == key; lo++) {
		int h = m->host_macs[lo].host;

		for (size_t k = 0; k < m->hosts[h].n_macs; k++)
			if (!strcmp(m->hosts[h].macs[k], mac))
				return h;
	}
	return -1;
}

static void index_host_macs(struct sim_maas *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->cfg.n_hosts; i++)
		n += m->hosts[i].n_macs;
	m->host_macs = br_xcalloc(n + 1, sizeof(*m->host_macs));
	for (size_t i = 0; i < m->cfg.n_hosts; i++)
		for (size_t k = 0; k < m->hosts[i].n_macs; k++)
			m->host_macs[m->n_host_macs++] =
			    (struct sim_maas_host_mac){ sim_maas_mac_key(m->hosts[i].macs[k]), (int)i };
	qsort(m->host_macs, m->n_host_macs, sizeof(*m->host_macs), cmp_host_mac);
}

static int copy_config(struct sim_maas *m, const struct sim_maas_config *cfg, struct br_err *err)
{
	if (split_key(cfg->api_key, &m->consumer_key, &m->token_key, &m->token_secret) ||
	    (cfg->operator_api_key &&
	     split_key(cfg->operator_api_key, &m->op_consumer_key, &m->op_token_key, &m->op_token_secret)))
		return br_errf(err, BR_E_INVAL, "MAAS emulator: API key must be consumer:token:secret");
	if (cfg->n_hosts > SIM_MAAS_HOSTS_MAX)
		return br_errf(err, BR_E_TOOBIG, "MAAS emulator: %zu hosts, at most %d", cfg->n_hosts,
			       SIM_MAAS_HOSTS_MAX);
	m->cfg = *cfg;
	m->hosts = br_xcalloc(cfg->n_hosts + 1, sizeof(*m->hosts));
	if (cfg->n_hosts)
		memcpy(m->hosts, cfg->hosts, cfg->n_hosts * sizeof(*m->hosts));
	m->cfg.hosts = m->hosts;
	index_host_macs(m);
	m->cfg.api_key = NULL;
	m->cfg.operator_api_key = NULL;
	if (cfg->tls_key_pem && cfg->tls_cert_pem) {
		m->tls_key = br_xstrdup(cfg->tls_key_pem);
		m->tls_cert = br_xstrdup(cfg->tls_cert_pem);
	}
	m->cfg.tls_key_pem = m->cfg.tls_cert_pem = NULL;
	if (m->cfg.commission_ms <= 0)
		m->cfg.commission_ms = SIM_MAAS_COMMISSION_MS;
	if (m->cfg.deploy_ms <= 0)
		m->cfg.deploy_ms = SIM_MAAS_DEPLOY_MS;
	m->next_event_id = 1;
	m->start_ms = br_now_ms();
	m->next_bd_id = 1;
	if (getrandom(&m->rng, sizeof(m->rng), 0) != sizeof(m->rng))
		m->rng = (uint64_t)br_now_ms();
	return 0;
}

int sim_maas_start(const struct sim_maas_config *cfg, struct sim_maas **ret_maas, struct br_err *err)
{
	struct sim_maas *m = br_xcalloc(1, sizeof(*m));
	const union MHD_DaemonInfo *info;
	struct sockaddr_in addr = { 0 };
	struct MHD_OptionItem tls_opts[] = {
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, NULL },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, NULL },
		{ MHD_OPTION_END, 0, NULL },
	};
	sigset_t all, old;
	int rc, tls;

	pthread_mutex_init(&m->lock, NULL);
	rc = copy_config(m, cfg, err);
	if (rc)
		goto fail;
	if (cfg->log_path) {
		m->log_path = br_xstrdup(cfg->log_path);
		m->log = fopen(cfg->log_path, "a");
		if (!m->log) {
			rc =
			    br_errf(err, BR_E_IO, "MAAS emulator: cannot open request log %s", cfg->log_path);
			goto fail;
		}
	}
	tls = m->tls_key && m->tls_cert;
	tls_opts[0].ptr_value = m->tls_key;
	tls_opts[1].ptr_value = m->tls_cert;
	if (!tls)
		tls_opts[0].option = MHD_OPTION_END;
	/* The daemon's threads inherit this mask: process signals (the
	 * simulator's SIGTERM) must reach the thread that waits for them. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)cfg->port);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	m->daemon = MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL |
		(tls ? MHD_USE_TLS : 0),
	    (uint16_t)cfg->port, NULL, NULL, on_request, m, MHD_OPTION_NOTIFY_COMPLETED, on_completed, m,
	    MHD_OPTION_CONNECTION_LIMIT, 4096u, MHD_OPTION_CONNECTION_TIMEOUT, 120u, MHD_OPTION_SOCK_ADDR,
	    (struct sockaddr *)&addr, MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!m->daemon) {
		rc = br_errf(err, BR_E_IO, "MAAS emulator: cannot listen on 127.0.0.1:%d%s", cfg->port,
			     tls ? " (or the TLS key and certificate were refused)" : "");
		goto fail;
	}
	info = MHD_get_daemon_info(m->daemon, MHD_DAEMON_INFO_BIND_PORT);
	m->port = info ? info->port : cfg->port;
	*ret_maas = m;
	return 0;
fail:
	sim_maas_stop(m);
	return rc;
}

int sim_maas_port(const struct sim_maas *maas)
{
	return maas->port;
}

void sim_maas_stop(struct sim_maas *m)
{
	if (!m)
		return;
	if (m->daemon)
		MHD_stop_daemon(m->daemon);
	if (m->log)
		fclose(m->log);
	free(m->log_path);
	if (m->hosts)
		explicit_bzero(m->hosts, m->cfg.n_hosts * sizeof(*m->hosts)); /* BMC passwords */
	free(m->hosts);
	free(m->host_macs);
	if (m->machines) /* power_pass: MAAS keeps it, the emulator wipes it */
		explicit_bzero(m->machines, m->n_machines * sizeof(*m->machines));
	free(m->machines);
	free(m->consumer_key);
	free(m->token_key);
	br_secret_free(m->token_secret);
	free(m->op_consumer_key);
	free(m->op_token_key);
	br_secret_free(m->op_token_secret);
	br_secret_free(m->tls_key);
	free(m->tls_cert);
	pthread_mutex_destroy(&m->lock);
	free(m);
}
