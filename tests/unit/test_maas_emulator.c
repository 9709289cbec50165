/*
 * The MAAS emulator (sim/maas_*.c) driven by the MAAS client (maas/): the
 * two were written from the API description separately, so this checks
 * each against the other's reading of it, with MAAS's wording asserted
 * here. The emulator's sources are compiled into this program because unit
 * tests link the stage libraries, not libsim.
 */
#include "sim/maas_server.c"

#include "sim/maas_actions.c"
#include "sim/maas_api.c"
#include "sim/maas_devices.c"
#include "sim/maas_machines.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "stages/enlist.h"
#include "maas/maas.h"

#define KEY "ck:tk:s3cr3t"

static struct sim_maas *emu;
static struct maas_client *cli;
static char log_path[64];

static void host(struct sim_maas_host *h, int i, int fail)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->hostname, sizeof(h->hostname), "gpu-%02d", i);
	snprintf(h->macs[0], 18, "b0:7b:25:00:%02x:01", i);
	snprintf(h->macs[1], 18, "b0:7b:25:00:%02x:02", i);
	h->n_macs = 2;
	for (int d = 0; d < 3; d++) {
		struct sim_maas_disk *k = &h->disks[d];

		snprintf(k->name, sizeof(k->name), "nvme%dn1", d);
		snprintf(k->serial, sizeof(k->serial), "SER-%02d-%d", i, d);
		snprintf(k->model, sizeof(k->model), d == 1 ? "Dell BOSS-N1" : "Dell Ent NVMe CM7");
		k->size = d == 1 ? 480103981056ULL : 3840755982336ULL;
		snprintf(k->id_path, sizeof(k->id_path), "/dev/disk/by-id/nvme-SER-%02d-%d", i, d);
	}
	h->n_disks = 3;
	h->commission_fail = fail;
	snprintf(h->ip, sizeof(h->ip), "127.0.%d.1", i);
}

static struct maas_client *client(int port, const char *key)
{
	struct maas_options o;
	struct maas_client *c = NULL;
	char url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/MAAS/", port);
	maas_options_init(&o);
	o.url = url;
	o.api_key = key;
	o.backoff_ms = 20;
	o.backoff_max_ms = 50; /* also caps the emulator's Retry-After: 1 */
	o.retries = 10;
	assert_int_equal(maas_client_new(&o, &c, NULL), 0);
	return c;
}

static int busy_percent;
static int commission_ms; /* 0: 200 */

static int setup(void **state)
{
	struct sim_maas_host hosts[3];
	struct sim_maas_config cfg = { 0 };

	(void)state;
	cfg.busy_percent = busy_percent;
	host(&hosts[0], 1, 0);
	host(&hosts[1], 2, 1);
	host(&hosts[2], 3, 0);
	snprintf(log_path, sizeof(log_path), "/tmp/maas-emu-%d.log", (int)getpid());
	cfg.api_key = KEY;
	cfg.log_path = log_path;
	cfg.commission_ms = commission_ms ? commission_ms : 200;
	cfg.deploy_ms = 200;
	cfg.hosts = hosts;
	cfg.n_hosts = 3;
	if (sim_maas_start(&cfg, &emu, NULL))
		return -1;
	cli = client(sim_maas_port(emu), KEY);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	commission_ms = 0;
	maas_client_free(cli);
	sim_maas_stop(emu);
	unlink(log_path);
	return 0;
}

static json_t *call_ok(const char *method, const char *path, const char *form)
{
	struct br_err err = { 0 };
	json_t *doc = NULL;
	int rc = maas_call(cli, method, path, form, &doc, &err);

	if (rc)
		fail_msg("%s %s: %s", method, path, err.msg);
	return doc;
}

static int call_err(const char *method, const char *path, const char *form, char *msg, size_t size)
{
	struct br_err err = { 0 };
	int rc = maas_call(cli, method, path, form, NULL, &err);

	snprintf(msg, size, "%s", err.msg);
	return rc;
}

static char *make_machine(int i)
{
	struct br_buf f;
	char mac[18], name[16];
	json_t *doc;
	char *id;

	br_buf_init(&f, 0);
	snprintf(name, sizeof(name), "gpu-%02d", i);
	maas_form_add(&f, "hostname", name);
	maas_form_add(&f, "architecture", "amd64/generic");
	snprintf(mac, sizeof(mac), "B0:7B:25:00:%02X:01", i);
	maas_form_add(&f, "mac_addresses", mac);
	snprintf(mac, sizeof(mac), "b0:7b:25:00:%02x:02", i);
	maas_form_add(&f, "mac_addresses", mac);
	maas_form_add(&f, "power_type", "redfish");
	maas_form_add(&f, "power_parameters_power_address", "127.0.0.1:8443");
	maas_form_add(&f, "power_parameters_power_user", "root");
	maas_form_add(&f, "power_parameters_power_pass", "hunter2");
	doc = call_ok("POST", "machines/", br_buf_str(&f));
	br_buf_release(&f);
	assert_int_equal(json_integer_value(json_object_get(doc, "status")), 1);
	id = br_xstrdup(json_string_value(json_object_get(doc, "system_id")));
	json_decref(doc);
	return id;
}

static int status_after(const char *id, int64_t wait_ms)
{
	char path[64];
	json_t *doc;
	int st;

	usleep((useconds_t)wait_ms * 1000);
	snprintf(path, sizeof(path), "machines/%s/", id);
	doc = call_ok("GET", path, NULL);
	st = (int)json_integer_value(json_object_get(doc, "status"));
	json_decref(doc);
	return st;
}

static void test_auth(void **state)
{
	struct maas_client *bad = client(sim_maas_port(emu), "ck:tk:wrong");
	struct br_err err = { 0 };
	char *log = NULL;
	size_t len;

	(void)state;
	assert_int_equal(maas_check_access(bad, &err), BR_E_AUTH);
	assert_non_null(strstr(err.msg, "Authorization Error: Invalid API key."));
	maas_client_free(bad);
	assert_int_equal(maas_check_access(cli, &err), 0);
	/* The log has the refusal and never the secret. */
	assert_int_equal(br_read_file(log_path, 1 << 20, &log, &len, NULL), 0);
	assert_non_null(strstr(log, "\"status\":401"));
	assert_null(strstr(log, "s3cr3t"));
	free(log);
}

/* The hosts' MAC index finds what a walk of the hosts finds: the first
 * host with the MAC, a MAC in any case of text that is not one only as
 * that text, none for a MAC no host has. */
static void test_mac_index(void **state)
{
	struct sim_maas m = { 0 };
	struct sim_maas_host hosts[3];

	(void)state;
	assert_int_equal(sim_maas_mac_key("b0:7b:25:00:01:02"), 0xb07b25000102ULL);
	assert_int_equal(sim_maas_mac_key("b0:7b:25:00:01"), UINT64_MAX);
	assert_int_equal(sim_maas_mac_key("b0:7b:25:00:01:02:03"), UINT64_MAX);
	assert_int_equal(sim_maas_mac_key("b07:b25:000:102"), UINT64_MAX);
	host(&hosts[0], 1, 0);
	host(&hosts[1], 2, 0);
	host(&hosts[2], 3, 0);
	snprintf(hosts[2].macs[1], 18, "b0:7b:25:00:02:01"); /* host 2's first MAC */
	snprintf(hosts[0].macs[1], 18, "not-a-mac");
	m.hosts = hosts;
	m.cfg.n_hosts = 3;
	index_host_macs(&m);
	assert_int_equal(m.n_host_macs, 6);
	assert_int_equal(sim_maas_host_by_mac(&m, "b0:7b:25:00:01:01"), 0);
	assert_int_equal(sim_maas_host_by_mac(&m, "b0:7b:25:00:02:01"), 1);
	assert_int_equal(sim_maas_host_by_mac(&m, "b0:7b:25:00:03:01"), 2);
	assert_int_equal(sim_maas_host_by_mac(&m, "not-a-mac"), 0);
	assert_int_equal(sim_maas_host_by_mac(&m, "not-a-mac-either"), -1);
	assert_int_equal(sim_maas_host_by_mac(&m, "b0:7b:25:00:09:01"), -1);
	free(m.host_macs);
}

static void test_create_and_conflicts(void **state)
{
	char msg[BR_ERR_MSG_MAX], *id = make_machine(1), *log = NULL;
	json_t *doc;
	size_t len;

	(void)state;
	assert_int_equal(call_err("POST", "machines/",
				  "hostname=other&mac_addresses=b0%3A7b%3A25%3A00%3A01%3A02", msg,
				  sizeof(msg)),
			 BR_E_INVAL);
	assert_non_null(
	    strstr(msg, "mac_addresses: MAC address b0:7b:25:00:01:02 already in use on gpu-01."));
	assert_int_equal(call_err("POST", "machines/",
				  "hostname=gpu-01&mac_addresses=b0%3A7b%3A25%3A00%3A09%3A01", msg,
				  sizeof(msg)),
			 BR_E_INVAL);
	assert_non_null(strstr(msg, "hostname: Node with this Hostname already exists."));
	assert_int_equal(call_err("POST", "machines/", "hostname=x", msg, sizeof(msg)), BR_E_INVAL);
	assert_non_null(strstr(msg, "mac_addresses: This field is required."));
	assert_int_equal(call_err("POST", "machines/?op=frobnicate", "", msg, sizeof(msg)), BR_E_INVAL);
	assert_non_null(strstr(msg, "Unrecognised signature: method=POST op=frobnicate"));
	assert_int_equal(call_err("GET", "machines/zzzzzz/", NULL, msg, sizeof(msg)), BR_E_NOTFOUND);
	assert_non_null(strstr(msg, "No Machine matches the given query."));
	doc = call_ok("GET", "machines/?mac_address=B0-7B-25-00-01-02", NULL);
	assert_int_equal(json_array_size(doc), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(doc, 0), "system_id")), id);
	json_decref(doc);
	doc = call_ok("GET", "machines/?mac_address=b0:7b:25:00:07:01", NULL);
	assert_int_equal(json_array_size(doc), 0);
	json_decref(doc);
	/* The power password reached MAAS but not its log. */
	assert_int_equal(br_read_file(log_path, 1 << 20, &log, &len, NULL), 0);
	assert_non_null(strstr(log, "\"power_pass_set\":true"));
	assert_null(strstr(log, "hunter2"));
	free(log);
	free(id);
}

static void test_lifecycle(void **state)
{
	char *id = make_machine(1), path[96], msg[BR_ERR_MSG_MAX];
	struct maas_blockdevice *devs = NULL;
	struct maas_machine m;
	size_t n = 0;
	json_t *doc;

	(void)state;
	snprintf(path, sizeof(path), "nodes/%s/blockdevices/1/?op=set_boot_disk", id);
	assert_int_equal(call_err("POST", path, "", msg, sizeof(msg)), BR_E_NOTFOUND); /* none known yet */
	snprintf(path, sizeof(path), "machines/%s/?op=deploy", id);
	assert_int_equal(call_err("POST", path, "", msg, sizeof(msg)), BR_E_STATE);
	assert_non_null(strstr(msg, "Invalid transition: Commissioning -> Deploying."));
	assert_int_equal(status_after(id, 400), 4);
	snprintf(path, sizeof(path), "nodes/%s/blockdevices/", id);
	doc = call_ok("GET", path, NULL);
	assert_int_equal(maas_blockdevices_parse(doc, &devs, &n, NULL), 0);
	json_decref(doc);
	assert_int_equal(n, 3);
	assert_string_equal(devs[0].name, "nvme0n1");
	assert_string_equal(devs[1].serial, "SER-01-1");
	/* MAAS's default boot disk is the lowest id, not the BOSS drive. */
	snprintf(path, sizeof(path), "machines/%s/", id);
	doc = call_ok("GET", path, NULL);
	assert_int_equal(maas_machine_parse(doc, &m, NULL), 0);
	json_decref(doc);
	assert_string_equal(m.boot_disk_serial, "SER-01-0");
	maas_machine_release(&m);
	snprintf(path, sizeof(path), "nodes/%s/blockdevices/%lld/?op=set_boot_disk", id,
		 (long long)devs[1].id);
	assert_null(call_ok("POST", path, ""));
	snprintf(path, sizeof(path), "machines/%s/?op=set_storage_layout", id);
	json_decref(call_ok("POST", path, "storage_layout=flat"));
	snprintf(path, sizeof(path), "machines/%s/?op=deploy", id);
	assert_int_equal(call_err("POST", path, "user_data=%%%%", msg, sizeof(msg)), BR_E_INVAL);
	assert_non_null(strstr(msg, "user_data: Invalid base64 data."));
	json_decref(call_ok("POST", path, "distro_series=jammy&user_data=I2Nsb3VkLWNvbmZpZwo%3D"));
	assert_int_equal(status_after(id, 300), 6);
	assert_int_equal(call_err("POST", path, "", msg, sizeof(msg)), BR_E_STATE);
	assert_non_null(strstr(msg, "Invalid transition: Deployed -> Deploying."));
	/* node_action.py: commission only from New, Failed commissioning,
	 * Ready and Broken; a form error (400) otherwise. */
	snprintf(path, sizeof(path), "machines/%s/?op=commission", id);
	assert_int_equal(call_err("POST", path, "", msg, sizeof(msg)), BR_E_INVAL);
	assert_non_null(strstr(msg, "Commission is not available because of the current state of the node."));
	snprintf(path, sizeof(path), "machines/%s/", id);
	doc = call_ok("GET", path, NULL);
	assert_int_equal(maas_machine_parse(doc, &m, NULL), 0);
	json_decref(doc);
	assert_string_equal(m.boot_disk_serial, "SER-01-1");
	assert_string_equal(m.ip, "127.0.1.1");
	maas_machine_release(&m);
	maas_blockdevices_free(devs, n);
	free(id);
}

static void test_boot_disk_without_layout(void **state)
{
	char *id = make_machine(3), path[96], *log = NULL;
	size_t len;

	(void)state;
	assert_int_equal(status_after(id, 400), 4);
	/* set_boot_disk alone leaves / on the first disk: the field failure. */
	snprintf(path, sizeof(path), "nodes/%s/blockdevices/%lld/?op=set_boot_disk", id,
		 (long long)emu->machines[0].bd_base + 2);
	assert_null(call_ok("POST", path, ""));
	snprintf(path, sizeof(path), "machines/%s/?op=deploy", id);
	json_decref(call_ok("POST", path, ""));
	assert_int_equal(status_after(id, 300), 6);
	assert_int_equal(br_read_file(log_path, 1 << 20, &log, &len, NULL), 0);
	free(log);
	pthread_mutex_lock(&emu->lock);
	assert_int_equal(emu->machines[0].installed_disk, 0);
	pthread_mutex_unlock(&emu->lock);
	free(id);
}

static void test_commission_fail_events_tags(void **state)
{
	char *id = make_machine(2), path[96], msg[BR_ERR_MSG_MAX], form[96];
	struct maas_machine m;
	json_int_t last;
	json_t *doc;

	(void)state;
	assert_int_equal(status_after(id, 300), 2);
	snprintf(path, sizeof(path), "machines/%s/", id);
	doc = call_ok("GET", path, NULL);
	assert_int_equal(maas_machine_parse(doc, &m, NULL), 0);
	json_decref(doc);
	assert_non_null(strstr(m.status_message, "Commissioning failed"));
	maas_machine_release(&m);
	snprintf(path, sizeof(path), "events/?op=query&id=%s", id);
	doc = call_ok("GET", path, NULL);
	assert_non_null(maas_events_failure(doc));
	assert_non_null(strstr(maas_events_failure(doc), "20-maas-03-machine-resources"));
	json_decref(doc);
	/* Across machines, newest first; after= gives only newer ones. */
	doc = call_ok("GET", "events/?op=query&level=DEBUG&limit=1", NULL);
	assert_int_equal(json_integer_value(json_object_get(doc, "count")), 1);
	last = json_integer_value(json_object_get(json_array_get(json_object_get(doc, "events"), 0), "id"));
	json_decref(doc);
	snprintf(path, sizeof(path), "events/?op=query&level=DEBUG&after=%lld", (long long)last);
	doc = call_ok("GET", path, NULL);
	assert_int_equal(json_integer_value(json_object_get(doc, "count")), 0);
	json_decref(doc);
	snprintf(path, sizeof(path), "events/?op=query&level=DEBUG&after=%lld", (long long)last - 1);
	doc = call_ok("GET", path, NULL);
	assert_int_equal(json_integer_value(json_object_get(doc, "count")), 1);
	assert_string_equal(br_json_str(json_array_get(json_object_get(doc, "events"), 0), "node"), id);
	json_decref(doc);
	json_decref(call_ok("POST", "tags/", "name=xe9680&comment=Dell+XE9680"));
	assert_int_equal(call_err("POST", "tags/", "name=xe9680", msg, sizeof(msg)), BR_E_INVAL);
	assert_non_null(strstr(msg, "name: Tag with this Name already exists."));
	snprintf(form, sizeof(form), "add=%s", id);
	doc = call_ok("POST", "tags/xe9680/?op=update_nodes", form);
	assert_int_equal(json_integer_value(json_object_get(doc, "added")), 1);
	json_decref(doc);
	doc = call_ok("GET", "tags/xe9680/?op=machines", NULL);
	assert_int_equal(json_array_size(doc), 1);
	json_decref(doc);
	/* As MAAS's TagHandler.update_nodes: many system_ids in one request,
	 * an unknown one skipped without a word, a machine counted once and
	 * whether or not it had the tag; every add, then every remove. */
	snprintf(form, sizeof(form), "add=%s&add=nosuch&add=%s", id, id);
	doc = call_ok("POST", "tags/xe9680/?op=update_nodes", form);
	assert_int_equal(json_integer_value(json_object_get(doc, "added")), 1);
	json_decref(doc);
	snprintf(form, sizeof(form), "remove=%s&add=%s", id, id);
	doc = call_ok("POST", "tags/xe9680/?op=update_nodes", form);
	assert_int_equal(json_integer_value(json_object_get(doc, "added")), 1);
	assert_int_equal(json_integer_value(json_object_get(doc, "removed")), 1);
	json_decref(doc);
	doc = call_ok("GET", "tags/xe9680/?op=machines", NULL);
	assert_int_equal(json_array_size(doc), 0);
	json_decref(doc);
	assert_int_equal(
	    call_err("POST", "tags/xe9680/?op=update_nodes", "definition=//node", msg, sizeof(msg)),
	    BR_E_STATE);
	assert_non_null(strstr(msg, "doesn't match current definition"));
	{
		/* More fields than Django's DATA_UPLOAD_MAX_NUMBER_FIELDS: 400. */
		struct br_buf many;

		br_buf_init(&many, 0);
		for (int i = 0; i <= SIM_MAAS_PARAMS_MAX; i++)
			br_buf_addf(&many, "%sadd=%s", i ? "&" : "", id);
		assert_int_equal(
		    call_err("POST", "tags/xe9680/?op=update_nodes", br_buf_str(&many), msg, sizeof(msg)),
		    BR_E_INVAL);
		assert_non_null(strstr(msg, "DATA_UPLOAD_MAX_NUMBER_FIELDS"));
		br_buf_release(&many);
	}
	assert_int_equal(call_err("GET", "tags/nope/", NULL, msg, sizeof(msg)), BR_E_NOTFOUND);
	assert_non_null(strstr(msg, "No Tag matches the given query."));
	free(id);
}

/* A busy MAAS answers 503 or 409 + Retry-After; the client's retries get
 * every request through, and the busy answers changed nothing. */
static int setup_busy(void **state)
{
	busy_percent = 40;
	return setup(state);
}

static void test_busy_maas(void **state)
{
	char *log = NULL, *ids[3];
	size_t len;
	json_t *doc;

	(void)state;
	for (int i = 0; i < 3; i++)
		ids[i] = make_machine(i + 1);
	for (int i = 0; i < 20; i++)
		json_decref(call_ok("GET", "machines/", NULL));
	doc = call_ok("GET", "machines/", NULL);
	assert_int_equal(json_array_size(doc), 3);
	json_decref(doc);
	assert_int_equal(br_read_file(log_path, 1 << 20, &log, &len, NULL), 0);
	assert_non_null(strstr(log, "\"status\":503"));
	assert_true(maas_client_requests(cli) > 24);
	free(log);
	for (int i = 0; i < 3; i++)
		free(ids[i]);
	busy_percent = 0;
}

/* ---- enlist (stages/enlist_flow.c) on the emulator's events ------------- */

static void en_system_id(void *ctx, struct stg_enlist_job *job)
{
	(void)ctx;
	(void)job;
}

static void en_done(void *ctx, struct stg_enlist_job *job, enum br_fail_kind kind, const char *reason)
{
	int *deployed = ctx;

	if (kind == BR_FAIL_NONE)
		++*deployed;
	else
		print_message("%s: %s\n", job->hostname, reason);
}

static int setup_enlist(void **state)
{
	/* Testing begins 600 ms in: long after enlist's first look, which
	 * reads every waiting machine once. */
	commission_ms = 900;
	return setup(state);
}

/* enlist reads a machine only for a status change it acts on, and a full
 * events look is paged on from its newest id: at two events a look every
 * look after the first is full, and were any read as every machine, a
 * machine would be read in Testing or Deploying, statuses enlist only
 * waits through. */
static void test_enlist_events_paged(void **state)
{
	const struct stg_enlist_callbacks cb = { en_system_id, en_system_id, en_done };
	struct stg_enlist_job jobs[2];
	struct br_strlist macs[2];
	char names[2][16], serials[2][16], mac[18];
	struct stg_enlist_options o;
	int deployed = 0, waiting_reads = 0, ready_reads = 0, paged = 0;
	char *log = NULL, *line, *save = NULL;
	size_t len;

	(void)state;
	memset(macs, 0, sizeof(macs));
	for (int i = 0; i < 2; i++) { /* gpu-01 and gpu-03: gpu-02 fails commissioning */
		snprintf(names[i], sizeof(names[i]), "gpu-%02d", 2 * i + 1);
		snprintf(serials[i], sizeof(serials[i]), "SER-%02d-0", 2 * i + 1);
		snprintf(mac, sizeof(mac), "b0:7b:25:00:%02x:01", 2 * i + 1);
		br_strlist_add(&macs[i], mac);
		jobs[i] = (struct stg_enlist_job){ .hostname = names[i],
						   .macs = &macs[i],
						   .power_address = "127.0.0.1:1",
						   .power_user = "root",
						   .power_pass = "pw",
						   .boot_disk_serial = serials[i] };
	}
	stg_enlist_options_init(&o);
	o.poll_ms = 20;
	o.events_max = 2;
	assert_int_equal(stg_enlist_run(cli, jobs, 2, &o, &cb, &deployed, NULL), 0);
	assert_int_equal(deployed, 2);
	assert_int_equal(br_read_file(log_path, 1 << 22, &log, &len, NULL), 0);
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *l = json_loads(line, 0, NULL), *st;
		const char *path = br_json_str(l, "path"), *op = br_json_str(l, "op");
		size_t i;

		if (path && !strcmp(path, "machines/") && !strcmp(br_json_str(l, "method"), "GET"))
			json_array_foreach(json_object_get(l, "statuses"), i, st)
			{
				waiting_reads += !strcmp(json_string_value(st), "Testing") ||
						 !strcmp(json_string_value(st), "Deploying");
				ready_reads += !strcmp(json_string_value(st), "Ready");
			}
		/* a full look: the next one pages on */
		paged += op && !strcmp(op, "query") && br_json_int(l, "count", 0) == 2;
		json_decref(l);
	}
	assert_int_equal(waiting_reads, 0);
	assert_int_equal(ready_reads, 2);
	assert_true(paged > 3);
	free(log);
	for (int i = 0; i < 2; i++) {
		stg_enlist_job_release(&jobs[i]);
		br_strlist_release(&macs[i]);
	}
}

/* ---- the typed calls (maas/machines.c, storage.c, tags.c, events.c) ------ */

struct answer {
	int rc;
	json_t *json;
	char msg[BR_ERR_MSG_MAX];
};

static void on_answer(void *ctx, const struct maas_result *res)
{
	struct answer *a = ctx;

	a->rc = res->rc;
	a->json = json_incref(res->json);
	snprintf(a->msg, sizeof(a->msg), "%s", res->err ? res->err->msg : "");
}

/* Run the queued call to its answer. */
static struct answer *await(int queued, struct answer *a)
{
	struct br_err err = { 0 };

	assert_int_equal(queued, 0);
	assert_int_equal(maas_client_run(cli, &err), 0);
	return a;
}

static void answer_release(struct answer *a)
{
	json_decref(a->json);
	memset(a, 0, sizeof(*a));
}

static const char *last_request(const char *what)
{
	static char line[4096];
	FILE *f = fopen(log_path, "r");

	line[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		;
	if (f)
		fclose(f);
	if (!strstr(line, what))
		fail_msg("last request '%s' is not %s", line, what);
	return line;
}

/* Each call sends what MAAS expects and hands back MAAS's answer, or its
 * own words when it refuses; a bad id or tag name is never sent. */
static void test_typed_calls(void **state)
{
	struct br_strlist macs = { 0 };
	const struct maas_machine_spec spec = {
		.hostname = "gpu-03",
		.macs = &macs,
		.power = { NULL, "127.0.0.1:8443", "root", "hunter2", "System.Embedded.1" },
	};
	struct maas_blockdevice *devs = NULL;
	struct answer a = { 0 };
	size_t n = 0;
	char *id;
	const char *ids[1];

	(void)state;
	br_strlist_add(&macs, "b0:7b:25:00:03:01");
	br_strlist_add(&macs, "b0:7b:25:00:03:02");
	await(maas_machines_by_mac(cli, &macs, on_answer, &a), &a);
	assert_int_equal(a.rc, 0);
	assert_int_equal(json_array_size(a.json), 0);
	answer_release(&a);
	await(maas_machine_create(cli, &spec, on_answer, &a), &a);
	assert_int_equal(a.rc, 0);
	assert_string_equal(br_json_str(a.json, "hostname"), "gpu-03");
	id = br_xstrdup(br_json_str(a.json, "system_id"));
	answer_release(&a);
	last_request("\"method\":\"POST\",\"path\":\"machines/\"");
	assert_int_equal(status_after(id, 400), MAAS_READY); /* the emulator commissions new machines */
	/* new power parameters (after a credentials rotation): MAAS keeps
	 * them, and shows them to an admin with op=power_parameters */
	{
		const struct maas_power pw = { "redfish",      "127.0.0.1:9443",    "site",
					       "n3w-Passw0rd", "System.Embedded.1", NULL };
		struct maas_power no_pass = pw;
		char path[64];
		json_t *doc;

		no_pass.password = NULL;
		assert_int_equal(maas_machine_set_power(cli, id, &no_pass, on_answer, &a), BR_E_INVAL);
		assert_int_equal(maas_machine_set_power(cli, "not/one", &pw, on_answer, &a), BR_E_INVAL);
		await(maas_machine_set_power(cli, id, &pw, on_answer, &a), &a);
		assert_int_equal(a.rc, 0);
		assert_string_equal(br_json_str(a.json, "system_id"), id);
		answer_release(&a);
		assert_null(strstr(last_request("\"method\":\"PUT\",\"path\":\"machines/"), "n3w-Passw0rd"));
		snprintf(path, sizeof(path), "machines/%s/?op=power_parameters", id);
		doc = call_ok("GET", path, NULL);
		assert_string_equal(br_json_str(doc, "power_address"), "127.0.0.1:9443");
		assert_string_equal(br_json_str(doc, "power_user"), "site");
		assert_string_equal(br_json_str(doc, "power_pass"), "n3w-Passw0rd");
		assert_string_equal(br_json_str(doc, "node_id"), "System.Embedded.1");
		json_decref(doc);
	}
	/* the same MACs again: MAAS's own words */
	await(maas_machine_create(cli, &spec, on_answer, &a), &a);
	assert_int_equal(a.rc, BR_E_INVAL);
	assert_non_null(strstr(a.msg, "already in use"));
	answer_release(&a);
	await(maas_machines_by_mac(cli, &macs, on_answer, &a), &a);
	assert_int_equal(json_array_size(a.json), 1);
	answer_release(&a);
	ids[0] = id;
	await(maas_machines_by_id(cli, ids, 1, on_answer, &a), &a);
	assert_string_equal(br_json_str(json_array_get(a.json, 0), "system_id"), id);
	answer_release(&a);
	await(maas_block_devices(cli, id, on_answer, &a), &a);
	assert_int_equal(maas_blockdevices_parse(a.json, &devs, &n, NULL), 0);
	assert_int_equal(n, 3);
	answer_release(&a);
	await(maas_set_boot_disk(cli, id, devs[1].id, on_answer, &a), &a);
	assert_int_equal(a.rc, 0);
	answer_release(&a);
	await(maas_set_storage_layout(cli, id, "flat", on_answer, &a), &a);
	assert_int_equal(a.rc, 0);
	assert_string_equal(br_json_str(a.json, "boot_disk/serial"), devs[1].serial);
	answer_release(&a);
	maas_blockdevices_free(devs, n);
	/* mark_broken by the owner only (api/machines.py mark_broken): a
	 * Ready machine has none, so MAAS refuses everyone, with no text */
	await(maas_mark_broken(cli, id, "PSU 2 failed", on_answer, &a), &a);
	assert_int_not_equal(a.rc, 0);
	assert_non_null(strstr(a.msg, "?op=mark_broken: HTTP 403"));
	answer_release(&a);
	await(maas_allocate(cli, id, on_answer, &a), &a);
	assert_int_equal(br_json_int(a.json, "status", -1), MAAS_ALLOCATED);
	answer_release(&a);
	await(maas_mark_broken(cli, id, "PSU 2 failed", on_answer, &a), &a);
	assert_int_equal(br_json_int(a.json, "status", -1), MAAS_BROKEN);
	answer_release(&a);
	await(maas_mark_broken(cli, id, NULL, on_answer, &a), &a);
	assert_int_equal(a.rc, BR_E_STATE);
	assert_non_null(
	    strstr(a.msg, "?op=mark_broken: HTTP 409 Conflict: Invalid transition: Broken -> Broken."));
	answer_release(&a);
	await(maas_mark_fixed(cli, id, on_answer, &a), &a);
	assert_int_equal(br_json_int(a.json, "status", -1), MAAS_READY);
	answer_release(&a);
	/* allocate by system_id: Ready -> Allocated; again: none left (409) */
	await(maas_allocate(cli, id, on_answer, &a), &a);
	assert_int_equal(br_json_int(a.json, "status", -1), MAAS_ALLOCATED);
	answer_release(&a);
	await(maas_allocate(cli, id, on_answer, &a), &a);
	assert_int_equal(a.rc, BR_E_STATE);
	assert_non_null(strstr(a.msg, "No available machine matches constraints"));
	answer_release(&a);
	/* tags */
	await(maas_tag_create(cli, "golden", "passed validation", on_answer, &a), &a);
	assert_int_equal(a.rc, 0);
	answer_release(&a);
	await(maas_tag_create(cli, "golden", NULL, on_answer, &a), &a);
	assert_non_null(strstr(a.msg, "name: Tag with this Name already exists."));
	answer_release(&a);
	await(maas_tag_add(cli, "golden", id, on_answer, &a), &a);
	assert_int_equal(br_json_int(a.json, "added", -1), 1);
	answer_release(&a);
	await(maas_tag_machines(cli, "golden", on_answer, &a), &a);
	assert_int_equal(json_array_size(a.json), 1);
	answer_release(&a);
	await(maas_tags_list(cli, on_answer, &a), &a);
	assert_string_equal(br_json_str(json_array_get(a.json, 0), "name"), "golden");
	answer_release(&a);
	{
		struct maas_machine m;

		await(maas_machine_get(cli, id, on_answer, &a), &a);
		assert_int_equal(maas_machine_parse(a.json, &m, NULL), 0);
		assert_int_equal(m.tags.n, 1);
		assert_string_equal(m.tags.items[0], "golden");
		maas_machine_release(&m);
		answer_release(&a);
	}
	await(maas_tag_remove(cli, "golden", id, on_answer, &a), &a);
	assert_int_equal(br_json_int(a.json, "removed", -1), 1);
	answer_release(&a);
	await(maas_events_since(cli, -1, 5, on_answer, &a), &a);
	assert_true(json_array_size(json_object_get(a.json, "events")) > 0);
	answer_release(&a);
	await(maas_commission(cli, id, on_answer, &a), &a);
	last_request("\"op\":\"commission\"");
	answer_release(&a);
	/* never sent */
	assert_int_equal(maas_commission(cli, "../users", on_answer, &a), BR_E_INVAL);
	assert_int_equal(maas_deploy(cli, "", "jammy", NULL, on_answer, &a), BR_E_INVAL);
	assert_int_equal(maas_tag_add(cli, "gold en", id, on_answer, &a), BR_E_INVAL);
	assert_int_equal(maas_tag_add(cli, "golden", "X7", on_answer, &a), BR_E_INVAL);
	last_request("\"op\":\"commission\"");
	br_strlist_release(&macs);
	free(id);
}

/* Whether the emulator's document has every field of MAAS's, each of the
 * same JSON type (null matching anything: MAAS leaves fields null that
 * the emulator fills, and the other way round), objects and the first
 * element of lists compared the same way. The first difference goes into
 * where. */
static int same_shape(json_t *maas, json_t *emu_doc, const char *at, char *where, size_t size)
{
	const char *key;
	json_t *v;

	if (json_is_null(maas) || json_is_null(emu_doc))
		return 1;
	if ((json_is_number(maas) && json_is_number(emu_doc)) ||
	    (json_is_boolean(maas) && json_is_boolean(emu_doc)))
		return 1;
	if (json_typeof(maas) != json_typeof(emu_doc)) {
		snprintf(where, size, "%s: type %d, MAAS's %d", at, (int)json_typeof(emu_doc),
			 (int)json_typeof(maas));
		return 0;
	}
	if (json_is_array(maas))
		return !json_array_size(maas) || !json_array_size(emu_doc) ||
		       same_shape(json_array_get(maas, 0), json_array_get(emu_doc, 0), at, where, size);
	json_object_foreach(json_is_object(maas) ? maas : NULL, key, v)
	{
		char sub[256];

		snprintf(sub, sizeof(sub), "%s.%s", at, key);
		if (!json_object_get(emu_doc, key)) {
			snprintf(where, size, "%s: missing", sub);
			return 0;
		}
		if (!same_shape(v, json_object_get(emu_doc, key), sub, where, size))
			return 0;
	}
	return 1;
}

static json_t *fixture(const char *name)
{
	const char *top = getenv("BR_TOP");
	char *path = br_xasprintf("%s/tests/fixtures/maas/%s", top ? top : ".", name);
	json_t *doc = json_load_file(path, 0, NULL);

	if (!doc)
		fail_msg("cannot read %s", path);
	free(path);
	return doc;
}

/* The emulator's answers have the shape of MAAS's published examples
 * (tests/fixtures/maas/README.md): an Allocated machine, its block
 * devices, its events, the tags; and a release with erase goes through
 * Disk erasing (maas_release_erase). */
static void test_shape_as_maas(void **state)
{
	char *id = make_machine(1), path[96], where[512] = "";
	json_t *doc, *want;
	struct answer a = { 0 };

	(void)state;
	assert_int_equal(status_after(id, 600), 4);
	snprintf(path, sizeof(path), "system_id=%s", id);
	json_decref(call_ok("POST", "machines/?op=allocate", path));
	json_decref(call_ok("POST", "tags/", "name=bringup-golden"));
	snprintf(path, sizeof(path), "add=%s", id);
	json_decref(call_ok("POST", "tags/bringup-golden/?op=update_nodes", path));

	snprintf(path, sizeof(path), "machines/%s/", id);
	doc = call_ok("GET", path, NULL);
	want = fixture("machine-allocated.json");
	if (!same_shape(want, doc, "machine", where, sizeof(where)))
		fail_msg("%s", where);
	assert_string_equal(json_string_value(json_object_get(doc, "status_name")), "Allocated");
	json_decref(want);
	json_decref(doc);

	snprintf(path, sizeof(path), "nodes/%s/blockdevices/", id);
	doc = call_ok("GET", path, NULL);
	want = fixture("blockdevices.json");
	if (!same_shape(want, doc, "blockdevices", where, sizeof(where)))
		fail_msg("%s", where);
	json_decref(want);
	json_decref(doc);

	doc = call_ok("GET", "events/?op=query&level=DEBUG", NULL);
	want = fixture("events.json");
	if (!same_shape(want, doc, "events", where, sizeof(where)))
		fail_msg("%s", where);
	json_decref(want);
	json_decref(doc);

	doc = call_ok("GET", "tags/", NULL);
	want = fixture("tags.json");
	if (!same_shape(want, doc, "tags", where, sizeof(where)))
		fail_msg("%s", where);
	json_decref(want);
	json_decref(doc);

	await(maas_release_erase(cli, id, MAAS_ERASE_FULL, on_answer, &a), &a);
	assert_int_equal(a.rc, 0);
	assert_string_equal(json_string_value(json_object_get(a.json, "status_name")), "Disk erasing");
	answer_release(&a);
	free(id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mac_index),
		cmocka_unit_test_setup_teardown(test_auth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_and_conflicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lifecycle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boot_disk_without_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commission_fail_events_tags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enlist_events_paged, setup_enlist, teardown),
		cmocka_unit_test_setup_teardown(test_typed_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shape_as_maas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_maas, setup_busy, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
