/*
 * Unit tests for maas/: the API key, the OAuth PLAINTEXT header, form
 * encoding, error answers turned into reasons, and machine documents.
 * The error bodies are MAAS's own wording (maasserver/api/machines.py,
 * maasserver/exceptions.py, maasserver/forms); the machine document has the
 * shape of GET /MAAS/api/2.0/machines/{id}/ on MAAS 3.x, trimmed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "maas/maas.h"

static void test_key_parse(void **state)
{
	struct maas_key key = { 0 };
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(maas_key_parse("ck:tk:s3cret", &key, &err), 0);
	assert_string_equal(key.consumer_key, "ck");
	assert_string_equal(key.token_key, "tk");
	assert_string_equal(key.token_secret, "s3cret");
	maas_key_release(&key);
	assert_null(key.token_secret);
	for (const char *const *bad =
		 (const char *const[]){ "", "ck:tk", "ck:tk:", ":tk:s", "ck::s", "a:b:c:d", NULL };
	     *bad; bad++) {
		assert_int_equal(maas_key_parse(*bad, &key, &err), BR_E_INVAL);
		assert_non_null(strstr(err.msg, "consumer_key:token_key:token_secret")
				    ? err.msg
				    : strstr(err.msg, "empty"));
	}
	/* The message describes the shape and never quotes the key. */
	assert_int_equal(maas_key_parse("abc:defsecret", &key, &err), BR_E_INVAL);
	assert_null(strstr(err.msg, "defsecret"));
}

static void test_oauth_header(void **state)
{
	struct maas_key key = { 0 };
	struct br_buf b;

	(void)state;
	assert_int_equal(maas_key_parse("Ck7:Tk9:se cr&t", &key, NULL), 0);
	br_buf_init(&b, 0);
	assert_int_equal(maas_oauth_header(&key, "0123abcd", 1764454800, &b), 0);
	assert_string_equal(
	    br_buf_str(&b),
	    "OAuth oauth_version=\"1.0\", oauth_signature_method=\"PLAINTEXT\", "
	    "oauth_consumer_key=\"Ck7\", oauth_token=\"Tk9\", oauth_signature=\"%26se%20cr%26t\", "
	    "oauth_nonce=\"0123abcd\", oauth_timestamp=\"1764454800\"");
	br_buf_release(&b);
	maas_key_release(&key);
}

static void test_form_encoding(void **state)
{
	struct br_buf f;

	(void)state;
	br_buf_init(&f, 0);
	assert_int_equal(maas_form_add(&f, "hostname", "gpu-r01-u03"), 0);
	assert_int_equal(maas_form_add(&f, "mac_addresses", "b0:7b:25:de:ad:01"), 0);
	assert_int_equal(maas_form_add(&f, "mac_addresses", "b0:7b:25:de:ad:02"), 0);
	assert_int_equal(maas_form_add(&f, "power_parameters_power_pass", "p@ss w+rd&x=1/~"), 0);
	assert_int_equal(maas_form_add(&f, "comment", NULL), 0);
	assert_string_equal(br_buf_str(&f), "hostname=gpu-r01-u03"
					    "&mac_addresses=b0%3A7b%3A25%3Ade%3Aad%3A01"
					    "&mac_addresses=b0%3A7b%3A25%3Ade%3Aad%3A02"
					    "&power_parameters_power_pass=p%40ss%20w%2Brd%26x%3D1%2F~"
					    "&comment=");
	br_buf_release(&f);
	/* A capped form refuses to grow rather than truncating a field. */
	br_buf_init(&f, 16);
	assert_int_equal(maas_form_add(&f, "user_data", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), BR_E_TOOBIG);
	assert_int_equal(f.len, 0);
	br_buf_release(&f);
}

static void test_error_mapping(void **state)
{
	static const char mac_in_use[] =
	    "{\"mac_addresses\": [\"MAC address b0:7b:25:de:ad:01 already in use on gpu-r01-u03.\"]}";
	static const char two_fields[] = "{\"hostname\": [\"Node with this Hostname already exists.\"], "
					 "\"__all__\": [\"Power type is required.\"]}";
	struct br_err err = { 0 };

	(void)state;
	assert_int_equal(
	    maas_error_from_response(400, mac_in_use, sizeof(mac_in_use) - 1, "POST machines/", &err),
	    BR_E_INVAL);
	assert_string_equal(err.msg, "MAAS POST machines/: HTTP 400 Bad Request: mac_addresses: MAC address "
				     "b0:7b:25:de:ad:01 already in use on gpu-r01-u03.");
	assert_int_equal(
	    maas_error_from_response(400, two_fields, sizeof(two_fields) - 1, "POST machines/", &err),
	    BR_E_INVAL);
	assert_string_equal(err.msg, "MAAS POST machines/: HTTP 400 Bad Request: hostname: Node with this "
				     "Hostname already exists.; Power type is required.");
	assert_int_equal(maas_error_from_response(401, "Authorization Error: Invalid API key.", 37,
						  "GET users/?op=whoami", &err),
			 BR_E_AUTH);
	assert_string_equal(err.msg,
			    "MAAS refused the API key on GET users/?op=whoami (HTTP 401: Authorization "
			    "Error: Invalid API key.)");
	assert_int_equal(
	    maas_error_from_response(403, "You do not have permission.\n", 28, "POST tags/", &err),
	    BR_E_AUTH);
	assert_string_equal(err.msg, "MAAS POST tags/: HTTP 403 Forbidden: You do not have permission.");
	assert_int_equal(maas_error_from_response(404, "No Machine matches the given query.", 35,
						  "GET machines/xyz/", &err),
			 BR_E_NOTFOUND);
	assert_string_equal(
	    err.msg, "MAAS GET machines/xyz/: HTTP 404 Not Found: No Machine matches the given query.");
	assert_int_equal(maas_error_from_response(409, "Invalid transition: Commissioning -> Deploying.", 47,
						  "POST machines/abc/?op=deploy", &err),
			 BR_E_STATE);
	assert_non_null(
	    strstr(err.msg, "HTTP 409 Conflict: Invalid transition: Commissioning -> Deploying."));
	assert_int_equal(maas_error_from_response(400, "Unrecognised signature: method=POST op=frobnicate",
						  50, "POST machines/?op=frobnicate", &err),
			 BR_E_INVAL);
	assert_non_null(strstr(err.msg, "Unrecognised signature: method=POST op=frobnicate"));
	assert_int_equal(maas_error_from_response(503, "", 0, "GET machines/", &err), BR_E_UNREACHABLE);
	assert_string_equal(err.msg, "MAAS GET machines/: HTTP 503 Service Unavailable");
	assert_int_equal(maas_error_from_response(500, "boom", 4, "GET x/", &err), MAAS_E_HTTP);
	assert_int_equal(maas_error_from_response(418, NULL, 0, "GET x/", &err), MAAS_E_HTTP);
	assert_string_equal(err.msg, "MAAS GET x/: HTTP 418");
	/* Issue 29: the text was cut at MAAS_REASON_MAX before it was redacted,
	 * so a password the server echoed across the cut left its first bytes. */
	{
		struct br_buf body;
		const char *pw = "Cut-Across-0123456789";

		br_redact_add(pw);
		br_buf_init(&body, 0);
		br_buf_adds(&body, "{\"power_parameters\": [\"");
		for (int k = 0; k < MAAS_REASON_MAX - 5; k++)
			br_buf_adds(&body, "x");
		br_buf_addf(&body, "%s rejected\"]}", pw);
		assert_int_equal(
		    maas_error_from_response(400, br_buf_str(&body), body.len, "POST machines/", &err),
		    BR_E_INVAL);
		assert_null(strstr(err.msg, "Cut-A"));
		assert_non_null(strstr(err.msg, "xxxxx<reda"));
		br_buf_release(&body);
		br_redact_remove(pw);
	}
}

static void test_error_cap(void **state)
{
	char body[4096];
	struct br_err err = { 0 };

	(void)state;
	memset(body, 'x', sizeof(body));
	body[100] = '\n';
	maas_error_from_response(500, body, sizeof(body), "GET x/", &err);
	assert_true(strlen(err.msg) < MAAS_REASON_MAX + 64);
	assert_null(strchr(err.msg, '\n'));
	assert_non_null(strstr(err.msg, "..."));
}

static const char machine_doc[] =
    "{\"system_id\": \"4y3h7n\", \"hostname\": \"gpu-r01-u03\", \"status\": 6, \"status_name\": \"Deployed\","
    " \"status_message\": \"Deployed\", \"power_state\": \"on\", \"ip_addresses\": [\"127.0.0.1\"],"
    " \"boot_disk\": {\"id\": 12, \"name\": \"nvme1n1\", \"serial\": \"BTYF123400AB480B\", \"model\": "
    "\"Dell BOSS-N1\"},"
    " \"interface_set\": [{\"name\": \"eno1\", \"mac_address\": \"B0:7B:25:DE:AD:01\"},"
    " {\"name\": \"eno2\", \"mac_address\": \"b0:7b:25:de:ad:02\"}, {\"name\": \"bond0\"}],"
    " \"tag_names\": [\"xe9680\"]}";

static void test_machine_parse(void **state)
{
	struct maas_machine m;
	struct br_err err = { 0 };
	json_t *doc = json_loads(machine_doc, 0, NULL);

	(void)state;
	assert_non_null(doc);
	assert_int_equal(maas_machine_parse(doc, &m, &err), 0);
	assert_string_equal(m.system_id, "4y3h7n");
	assert_int_equal(m.status, MAAS_DEPLOYED);
	assert_string_equal(m.boot_disk_serial, "BTYF123400AB480B");
	assert_string_equal(m.ip, "127.0.0.1");
	assert_int_equal(m.macs.n, 2);
	assert_string_equal(m.macs.items[0], "b0:7b:25:de:ad:01");
	maas_machine_release(&m);
	json_decref(doc);
	doc = json_loads("{\"hostname\": \"x\"}", 0, NULL);
	assert_int_equal(maas_machine_parse(doc, &m, &err), BR_E_PROTO);
	json_decref(doc);
	assert_string_equal(maas_status_name(MAAS_FAILED_COMMISSIONING), "Failed commissioning");
	assert_string_equal(maas_status_name(22), "Failed testing");
	assert_string_equal(maas_status_name(99), "Unknown");
	assert_string_equal(maas_status_name(-1), "Unknown");
}

static void test_blockdevices_and_events(void **state)
{
	struct maas_blockdevice *devs = NULL;
	struct br_err err = { 0 };
	size_t n = 0;
	json_t *doc =
	    json_loads("[{\"id\": 3, \"name\": \"nvme0n1\", \"serial\": \"S6CKNE0W700001\", \"model\": "
		       "\"Dell Ent NVMe\", \"size\": 3840755982336, \"id_path\": \"/dev/disk/by-id/nvme-x\"},"
		       " {\"name\": \"no id\"}, {\"id\": 4, \"name\": \"nvme1n1\", \"serial\": \"B1\"}]",
		       0, NULL);

	(void)state;
	assert_int_equal(maas_blockdevices_parse(doc, &devs, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(devs[0].id, 3);
	assert_int_equal(devs[0].size, 3840755982336ULL);
	assert_string_equal(devs[1].serial, "B1");
	assert_null(devs[1].model);
	maas_blockdevices_free(devs, n);
	json_decref(doc);
	doc = json_loads("{}", 0, NULL);
	assert_int_equal(maas_blockdevices_parse(doc, &devs, &n, &err), BR_E_PROTO);
	json_decref(doc);
	doc = json_loads("{\"count\": 2, \"events\": [{\"type\": \"Commissioning\", \"description\": \"ok\", "
			 "\"level\": \"INFO\"}, {\"type\": \"Failed commissioning\", \"level\": \"ERROR\", "
			 "\"description\": \"Script 50-maas-01-commissioning failed\"}]}",
			 0, NULL);
	assert_string_equal(maas_events_failure(doc), "Script 50-maas-01-commissioning failed");
	json_decref(doc);
	assert_null(maas_events_failure(NULL));
}

/* NODE_CHANGED_STATUS as MAAS's events API gives it: the new status is
 * read from the description by display name; anything else is not one. */
static void test_event_new_status(void **state)
{
	static const struct {
		const char *json;
		int want;
	} cases[] = {
		{ "{\"type\": \"Node changed status\", \"description\": \"From 'Commissioning' to "
		  "'Testing'\"}",
		  MAAS_TESTING },
		{ "{\"type\": \"Node changed status\", \"description\": \"From 'Testing' to 'Ready'\"}",
		  MAAS_READY },
		{ "{\"type\": \"Node changed status\", \"description\": \"From 'Ready' to 'Allocated' (to "
		  "admin)\"}",
		  MAAS_ALLOCATED },
		{ "{\"type\": \"Node changed status\", \"description\": \"From 'Deploying' to 'Releasing "
		  "failed'\"}",
		  MAAS_FAILED_RELEASING },
		{ "{\"type\": \"Node changed status\", \"description\": \"From 'Ready' to 'Sleeping'\"}",
		  MAAS_EVENT_STATUS_UNREAD },
		{ "{\"type\": \"Node changed status\", \"description\": \"Ready to Allocated\"}",
		  MAAS_EVENT_STATUS_UNREAD },
		{ "{\"type\": \"Node changed status\", \"description\": \"From 'Ready' to 'Deploy\"}",
		  MAAS_EVENT_STATUS_UNREAD },
		{ "{\"type\": \"Node changed status\"}", MAAS_EVENT_STATUS_UNREAD },
		{ "{\"type\": \"Ready\", \"description\": \"From 'Testing' to 'Ready'\"}",
		  MAAS_EVENT_NOT_STATUS },
		{ "{\"description\": \"From 'Testing' to 'Ready'\"}", MAAS_EVENT_NOT_STATUS },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *e = json_loads(cases[i].json, 0, NULL);

		assert_non_null(e);
		assert_int_equal(maas_event_new_status(e), cases[i].want);
		json_decref(e);
	}
	assert_int_equal(maas_event_new_status(NULL), MAAS_EVENT_NOT_STATUS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_parse),
		cmocka_unit_test(test_oauth_header),
		cmocka_unit_test(test_form_encoding),
		cmocka_unit_test(test_error_mapping),
		cmocka_unit_test(test_error_cap),
		cmocka_unit_test(test_machine_parse),
		cmocka_unit_test(test_blockdevices_and_events),
		cmocka_unit_test(test_event_new_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
