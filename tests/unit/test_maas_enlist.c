/*
 * Unit tests for what enlist takes from templates/: the cloud-init
 * user-data rendering, plus base64 against RFC 4648's vectors. (The
 * boot-disk rule is validators' now: test_rules.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "stages/enlist.h"
#include "inventory/inventory.h"
#include "common.h"

static char *tree_path(const char *rel)
{
	const char *top = getenv("BR_TOP");

	return br_xasprintf("%s/%s", top ? top : ".", rel);
}

static void test_render_userdata(void **state)
{
	char *tpl = tree_path("templates/cloud-init/user-data"), *text = NULL;
	struct br_strlist ntp = { 0 }, pkgs = { 0 }, keys = { 0 }, none = { 0 };
	struct stg_enlist_userdata_vars v = { "gpu-r01-u03", &keys, &ntp, &pkgs };
	struct br_err err = { 0 };

	(void)state;
	br_strlist_add(&keys, "ssh-ed25519 AAAAkey validator@bringup");
	br_strlist_add(&ntp, "10.0.0.1");
	br_strlist_add(&ntp, "ntp2.example.net");
	br_strlist_add(&pkgs, "lldpd");
	br_strlist_add(&pkgs, "chrony");
	br_strlist_add(&pkgs, "nvme-cli");
	assert_int_equal(stg_enlist_render_userdata(tpl, &v, &text, &err), 0);
	assert_int_equal(strncmp(text, "#cloud-config\n", 14), 0);
	assert_non_null(strstr(text, "hostname: gpu-r01-u03\n"));
	/* List items keep the placeholder's indentation; values are quoted. */
	assert_non_null(strstr(text, "  servers:\n    - \"10.0.0.1\"\n    - \"ntp2.example.net\"\n"));
	assert_non_null(
	    strstr(text, "ssh_authorized_keys:\n  - \"ssh-ed25519 AAAAkey validator@bringup\"\n"));
	assert_non_null(strstr(text, "packages:\n  - \"lldpd\"\n  - \"chrony\"\n  - \"nvme-cli\"\n"));
	/* The server reaches bootcmd's shell as an argument, not inside its text. */
	assert_non_null(strstr(text, "\"pool $1 iburst\" || true', bringup-ntp, \"10.0.0.1\"]\n"));
	for (const char *const *ph = (const char *const[]){ "@HOSTNAME@", "@NTP_FIRST@", "@NTP_SERVERS@",
							    "@SSH_AUTHORIZED_KEYS@", "@PACKAGES@", NULL };
	     *ph; ph++)
		assert_null(strstr(text, *ph));
	free(text);
	/* Several keys: one item each. */
	br_strlist_add(&keys, "ssh-rsa AAAAsecond other@bringup");
	assert_int_equal(stg_enlist_render_userdata(tpl, &v, &text, &err), 0);
	assert_non_null(strstr(text, "ssh_authorized_keys:\n  - \"ssh-ed25519 AAAAkey validator@bringup\"\n"
				     "  - \"ssh-rsa AAAAsecond other@bringup\"\npackage_update: true\n"));
	free(text);
	/* No key (--no-ssh-key): the key is left out, not an empty list, which
	 * cloud-init's schema refuses (ssh_authorized_keys: minItems 1). */
	v.ssh_pubkeys = &none;
	assert_int_equal(stg_enlist_render_userdata(tpl, &v, &text, &err), 0);
	assert_null(strstr(text, "ssh_authorized_keys"));
	assert_null(strstr(text, "[]"));
	assert_non_null(strstr(text, "bringup-ntp, \"10.0.0.1\"]\npackage_update: true\n"));
	free(text);
	br_strlist_release(&keys);
	br_strlist_release(&ntp);
	br_strlist_release(&pkgs);
	free(tpl);
}

/* A template whose rendering is not one YAML mapping is refused before
 * anything is sent, naming the line. */
static void test_render_userdata_refuses_bad_yaml(void **state)
{
	static const char *const bad[][2] = {
		{ "#cloud-config\nhostname: @HOSTNAME@\npackages:\n  - a\n - b\n", "line 5" },
		{ "#cloud-config\n- @HOSTNAME@\n", "not a mapping" },
		{ "#cloud-config\na: 1\n---\nb: 2\n", "2 YAML documents" },
		{ "hostname: @HOSTNAME@\n", "#cloud-config" },
		{ "#cloud-config\nkey: [unclosed\n", "line" },
	};
	char path[] = "/tmp/br-ud-XXXXXX";
	struct br_strlist ntp = { 0 }, pkgs = { 0 }, keys = { 0 };
	struct stg_enlist_userdata_vars v = { "n1", &keys, &ntp, &pkgs };
	/* Placeholders in comments stay as written: expanded there, a list's
	 * second item landed outside the comment and broke the document. */
	static const char commented[] = "#cloud-config\n  # lists: @PACKAGES@\npackages:\n  @PACKAGES@\n";
	struct br_err err0 = { 0 };
	char *out = NULL;
	int fd0 = mkstemp(path);

	(void)state;
	assert_true(fd0 >= 0);
	assert_int_equal(write(fd0, commented, strlen(commented)), (ssize_t)strlen(commented));
	close(fd0);
	br_strlist_add(&pkgs, "a");
	br_strlist_add(&pkgs, "b");
	assert_int_equal(stg_enlist_render_userdata(path, &v, &out, &err0), 0);
	assert_string_equal(out, "#cloud-config\n  # lists: @PACKAGES@\npackages:\n  - \"a\"\n  - \"b\"\n");
	free(out);
	br_strlist_release(&pkgs);
	unlink(path);
	memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct br_err err = { 0 };
		char *text = NULL;
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, bad[i][0], strlen(bad[i][0])), (ssize_t)strlen(bad[i][0]));
		close(fd);
		assert_int_equal(stg_enlist_render_userdata(path, &v, &text, &err), BR_E_INVAL);
		assert_null(text);
		assert_non_null(strstr(err.msg, bad[i][1]));
		unlink(path);
		memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	}
}

/* An NTP server goes into chrony's configuration and a shell argument on
 * every node: anything but a host name or address is refused. */
static void test_ntp_server_names(void **state)
{
	struct br_strlist ntp = { 0 }, pkgs = { 0 };
	struct stg_enlist_inputs in;
	struct br_err err = { 0 };

	(void)state;
	br_strlist_add(&ntp, "10.0.0.1, ntp.example.net fd00::1");
	assert_int_equal(stg_enlist_inputs_load(&in, "/nonexistent", NULL, &ntp, &pkgs, &err), 0);
	assert_int_equal(in.ntp.n, 3);
	stg_enlist_inputs_release(&in);
	br_strlist_release(&ntp);
	br_strlist_add(&ntp, "ntp\"';reboot;'");
	assert_int_equal(stg_enlist_inputs_load(&in, "/nonexistent", NULL, &ntp, &pkgs, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "not a host name or IP address"));
	stg_enlist_inputs_release(&in);
	br_strlist_release(&ntp);
}

/* A node read over IPMI alone has no host MAC: enlist's reason says what
 * the operator must supply and how, not "run discover first". */
static void test_ipmi_node_without_macs(void **state)
{
	const struct inv_manifest_row row = { "n1", "r01", 3, "10.0.0.9", "root", "env:PW", "xe9680", "ipmi",
					      NULL, NULL,  2, NULL,	  NULL,	  NULL,	    NULL };
	struct stg_enlist_inputs in = { 0 };
	struct stg_enlist_node_inputs ni = { 0 };
	struct br_err err = { 0 };
	struct inv_node node;
	struct inv *inv = NULL;
	struct br_hw hw;

	(void)state;
	assert_int_equal(inv_open(":memory:", &inv, &err), 0);
	assert_int_equal(inv_import(inv, &row, 1, "rack.csv", NULL, &err), 0);
	assert_int_equal(inv_node_get(inv, "n1", &node, &err), 0);
	assert_int_equal(stg_enlist_node_prepare(inv, &node, &in, &ni, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "run bringup discover first")); /* not discovered yet */
	stg_enlist_node_inputs_release(&ni);

	br_hw_init(&hw);
	hw.source = br_xstrdup("ipmi");
	hw.bmc_mac = br_xstrdup("52:54:00:ab:cd:ef");
	assert_int_equal(inv_store_hw(inv, "n1", &hw, INV_NEW, INV_DISCOVERED, "discovered over IPMI", &err),
			 0);
	br_hw_release(&hw);
	assert_int_equal(stg_enlist_node_prepare(inv, &node, &in, &ni, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "answers IPMI only"));
	assert_non_null(strstr(err.msg, "52:54:00:ab:cd:ef"));
	assert_non_null(strstr(err.msg, "MAC of the NIC the node PXE-boots from"));
	stg_enlist_node_inputs_release(&ni);
	inv_node_release(&node);
	inv_close(inv);
}

static void test_base64(void **state)
{
	static const char *const vectors[][2] = {
		{ "", "" },
		{ "f", "Zg==" },
		{ "fo", "Zm8=" },
		{ "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		char *b = stg_enlist_base64(vectors[i][0], strlen(vectors[i][0]));

		assert_string_equal(b, vectors[i][1]);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_userdata),
		cmocka_unit_test(test_render_userdata_refuses_bad_yaml),
		cmocka_unit_test(test_ntp_server_names),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_ipmi_node_without_macs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
