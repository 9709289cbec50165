/* The wiring list in its three forms (and the FILE:LINE: field messages
 * of a bad one), and the cabling judgement: designed cables seen, missing,
 * on a wrong port, swapped between two hosts, and neighbours the design
 * does not have. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "redfish/rf_private.h"
#include "validators/cabling.h"
#include "validators/validators.h"

static char *write_tmp(const char *text, size_t len)
{
	char *path = br_xstrdup("/tmp/br-wiring-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* Load text; on failure the problems are returned joined by '|'. */
static int load(const char *text, size_t len, struct val_wiring *w, char **ret_problems)
{
	char *path = write_tmp(text, len);
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	struct br_buf b;
	int rc = val_wiring_load(path, w, &problems, &err);

	br_buf_init(&b, 0);
	for (size_t i = 0; i < problems.n; i++) {
		const char *p = problems.items[i];

		/* Drop the temporary path, keep ":LINE: field: message". */
		br_buf_addf(&b, "%s%s", i ? "|" : "", strncmp(p, path, strlen(path)) ? p : p + strlen(path));
	}
	*ret_problems = br_buf_detach(&b);
	br_strlist_release(&problems);
	unlink(path);
	free(path);
	return rc;
}

static const char sim_form[] = "hostname,host_port,switch,switch_port\n"
			       "h1,eth0,leaf01,swp1\n"
			       "h1,eth1,leaf02,swp1\n"
			       "h2,eth0,leaf01,swp2\n"
			       "h2,eth1,leaf02,swp2\n"
			       "h3,eth0,leaf01,swp3\n";

static void test_forms(void **state)
{
	struct val_wiring w;
	char *problems = NULL;
	/* NetBox's import: a cable through a patch panel's front port and a
	 * planned one are not what is plugged in; a BOM from a spreadsheet. */
	static const char netbox_import[] =
	    "\xef\xbb\xbfside_a_device,side_a_type,side_a_name,side_b_device,side_b_type,side_b_name,type,"
	    "status,label\n"
	    "leaf01.dc1.example,dcim.interface,swp1,h1,dcim.interface,eth0,cat6,connected,C1\n"
	    "pp-1,dcim.frontport,1,h1,dcim.interface,eth1,cat6,connected,C2\n"
	    "leaf01,dcim.interface,swp9,h9,dcim.interface,eth0,cat6,planned,C3\n"
	    "\"leaf02\",dcim.interface,\" swp1 \",h2,dcim.interface,eth0,,,\n";
	static const char netbox_export[] =
	    "ID,Label,Device A,Termination A,Device B,Termination B,Status,Type\n"
	    "7,C1,h1,eth0,leaf01,swp1,Connected,CAT6\n";

	(void)state;
	assert_int_equal(load(sim_form, strlen(sim_form), &w, &problems), 0);
	assert_string_equal(problems, "");
	free(problems);
	assert_string_equal(w.form, "bringup");
	assert_int_equal(w.n, 5);
	assert_string_equal(w.links[4].dev_a, "h3");
	assert_int_equal(w.links[4].line, 6);
	/* Hosts join the two switches: one network. */
	assert_int_equal(val_wiring_components(&w), 1);
	val_wiring_release(&w);
	/* Two islands the design thought were one fabric. */
	static const char islands[] =
	    "hostname,host_port,switch,switch_port\nh1,ib0,spine1,p1\nh2,ib0,spine2,p1\n"
	    "h3,ib0,spine1,p2\n";
	assert_int_equal(load(islands, strlen(islands), &w, &problems), 0);
	free(problems);
	assert_int_equal(val_wiring_components(&w), 2);
	val_wiring_release(&w);

	assert_int_equal(load(netbox_import, strlen(netbox_import), &w, &problems), 0);
	free(problems);
	assert_string_equal(w.form, "netbox-import");
	assert_int_equal(w.n, 2);
	assert_int_equal(w.skipped, 2);
	assert_string_equal(w.links[1].port_a, "swp1");
	assert_int_equal(w.links[1].line, 5);
	val_wiring_release(&w);

	assert_int_equal(load(netbox_export, strlen(netbox_export), &w, &problems), 0);
	free(problems);
	assert_string_equal(w.form, "netbox-export");
	assert_int_equal(w.n, 1);
	assert_string_equal(w.links[0].port_b, "swp1");
	val_wiring_release(&w);
}

/* The role column: a node's provisioning cable, found from either end
 * (the switch first on a row too), its host port, switch port and line;
 * two for one host counted; a role that is not a word refused by line. */
static void test_roles(void **state)
{
	static const char list[] = "hostname,host_port,switch,switch_port,role\n"
				   "h1,eth0,leaf01,swp1,\n"
				   "h1,eth1,tor01.dc1,swp1, Provisioning \n"
				   "tor01,swp2,h2,eno1,provisioning\n"
				   "h3,eth0,tor01,swp3,provisioning\n"
				   "h3,eth1,tor02,swp3,provisioning\n"
				   "h4,eth0,leaf01,swp4,data\n";
	static const char bad[] = "hostname,host_port,switch,switch_port,role\n"
				  "h1,eth0,leaf01,swp1,pxe net\n"
				  "h1,eth1,leaf01,swp2,pxe\n";
	struct val_wiring w;
	char *problems = NULL;
	const char *hp = NULL, *fp = NULL, *dev;
	unsigned line = 0;
	size_t n = 0;

	(void)state;
	assert_int_equal(load(list, strlen(list), &w, &problems), 0);
	free(problems);
	assert_string_equal(w.links[1].role, "provisioning");
	assert_null(w.links[0].role);
	dev = val_wiring_host_role(&w, "H1", VAL_ROLE_PROVISIONING, &hp, &fp, &line, &n);
	assert_string_equal(dev, "tor01.dc1");
	assert_string_equal(hp, "eth1");
	assert_string_equal(fp, "swp1");
	assert_int_equal(line, 3);
	assert_int_equal(n, 1);
	assert_true(val_same_device(dev, "TOR01"));
	assert_false(val_same_device(dev, "tor02"));
	dev = val_wiring_host_role(&w, "h2", VAL_ROLE_PROVISIONING, &hp, &fp, &line, &n);
	assert_string_equal(dev, "tor01");
	assert_string_equal(hp, "eno1");
	assert_string_equal(fp, "swp2");
	assert_int_equal(line, 4);
	val_wiring_host_role(&w, "h3", VAL_ROLE_PROVISIONING, &hp, &fp, &line, &n);
	assert_int_equal(n, 2);
	assert_null(val_wiring_host_role(&w, "h4", VAL_ROLE_PROVISIONING, &hp, &fp, &line, &n));
	assert_int_equal(n, 0);
	assert_null(val_wiring_host_role(&w, "h9", VAL_ROLE_PROVISIONING, &hp, &fp, &line, &n));
	val_wiring_release(&w);

	assert_int_equal(load(bad, strlen(bad), &w, &problems), BR_E_INVAL);
	assert_non_null(strstr(problems, ":2: role: not a role"));
	assert_null(strstr(problems, ":3:"));
	free(problems);
}

static void test_bad_lists(void **state)
{
	static const char with_nul[] = "hostname,host_port,switch,switch_port\nh1,eth0,le\0af,swp1\n";
	static const struct {
		const char *text;
		size_t len;
		const char *want;
	} bad[] = {
		{ with_nul, sizeof(with_nul) - 1, ":2: a NUL byte" },
		{ "host,port\nh1,eth0\n", 0, ":1: header: not a wiring list" },
		{ "hostname,host_port,switch,switch_port\nh1,,leaf01,swp1\n", 0, ":2: host_port: empty" },
		{ "hostname,host_port,switch,switch_port\nh1,eth0,leaf01,swp1\nh2,eth0,leaf01,swp1\n", 0,
		  ":3: leaf01 swp1 is already cabled at line 2" },
		{ "hostname,host_port,switch,switch_port\nh1,eth0,\"leaf01,swp1\n", 0, "unterminated quote" },
		{ "", 0, ":1: empty wiring list" },
		{ "hostname,host_port,switch,switch_port\nh1,eth0,h1,eth0\n", 0,
		  ":2: switch: a cable from h1 eth0 to itself" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct val_wiring w = { 0 };
		char *problems = NULL;
		size_t len = bad[i].len ? bad[i].len : strlen(bad[i].text);

		assert_int_equal(load(bad[i].text, len, &w, &problems), BR_E_INVAL);
		if (!strstr(problems, bad[i].want))
			fail_msg("case %zu: '%s' not in '%s'", i, bad[i].want, problems);
		assert_null(w.links);
		free(problems);
	}
}

static void judge(const struct val_wiring *w, const struct val_cabling_host *hosts, size_t n, size_t self,
		  struct val_cabling_result *r)
{
	val_cabling_judge(w, &hosts[self], hosts, n, r);
}

static void test_judge(void **state)
{
	struct val_wiring w;
	char *problems = NULL;
	struct val_cabling_result r;
	/* h1 and h2 have their eth1 cables exchanged; h2's eth0 is unplugged;
	 * h3 sits on a switch port nobody is designed for, and has a cable on
	 * eth5 the design does not have. h1's leaf01 announces a port id that
	 * is a MAC, its interface name only in the description. */
	const struct val_lldp_neighbor n1[] = {
		{ "eth0", "leaf01.dc1.example", "0c:42:a1:00:00:01", "swp1" },
		{ "eth1", "leaf02", "swp2", NULL },
	};
	const struct val_lldp_neighbor n2[] = { { "eth1", "LEAF02", "swp1", NULL } };
	const struct val_lldp_neighbor n3[] = { { "eth0", "leaf01", "swp30", NULL },
						{ "eth5", "leaf09", "swp1", NULL } };
	const struct val_cabling_host hosts[] = {
		{ "h1", 1, n1, 2 },
		{ "h2", 1, n2, 1 },
		{ "h3", 1, n3, 2 },
		{ "h4", 0, NULL, 0 },
	};

	(void)state;
	assert_int_equal(load(sim_form, strlen(sim_form), &w, &problems), 0);
	free(problems);

	judge(&w, hosts, 4, 0, &r);
	assert_int_equal(r.result, VAL_FAIL);
	assert_int_equal(r.links_expected, 2);
	assert_int_equal(r.links_ok, 1);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.findings[0].kind, VAL_CABLE_SWAPPED);
	assert_string_equal(r.findings[0].other_host, "h2");
	assert_string_equal(r.findings[0].other_port, "eth1");
	assert_string_equal(r.detail,
			    "eth1: sees leaf02 swp2, expected leaf02 swp1: swapped with h2 eth1: swap the "
			    "cables on leaf02 swp1 and leaf02 swp2");
	val_cabling_result_release(&r);

	judge(&w, hosts, 4, 1, &r);
	assert_int_equal(r.result, VAL_FAIL);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.findings[0].kind, VAL_CABLE_MISSING);
	assert_string_equal(r.findings[0].local_port, "eth0");
	assert_int_equal(r.findings[0].line, 4);
	assert_int_equal(r.findings[1].kind, VAL_CABLE_SWAPPED);
	assert_string_equal(r.findings[1].other_host, "h1");
	val_cabling_result_release(&r);

	/* Without h1's view, h2's eth1 is only known to sit on h1's port. */
	val_cabling_judge(&w, &hosts[1], &hosts[1], 1, &r);
	assert_int_equal(r.findings[1].kind, VAL_CABLE_WRONG);
	assert_non_null(strstr(r.detail, "a port the design gives to h1 eth1"));
	val_cabling_result_release(&r);

	judge(&w, hosts, 4, 2, &r);
	assert_int_equal(r.result, VAL_FAIL);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.findings[0].kind, VAL_CABLE_WRONG);
	assert_null(r.findings[0].other_host);
	assert_string_equal(r.findings[0].seen, "leaf01 swp30");
	assert_int_equal(r.findings[1].kind, VAL_CABLE_UNEXPECTED);
	assert_string_equal(r.findings[1].local_port, "eth5");
	val_cabling_result_release(&r);

	/* No lldpd on the node: unknown, never a pass. */
	judge(&w, hosts, 4, 3, &r);
	assert_int_equal(r.result, VAL_UNKNOWN);
	assert_non_null(strstr(r.detail, "lldpd"));
	val_cabling_result_release(&r);
	val_wiring_release(&w);
}

static void test_all_good(void **state)
{
	struct val_wiring w;
	char *problems = NULL;
	struct val_cabling_result r;
	const struct val_lldp_neighbor n[] = { { "eth0", "leaf01", "swp3", NULL } };
	const struct val_cabling_host h = { "h3.dc1.example", 1, n, 1 };
	const struct val_cabling_host stranger = { "h99", 1, n, 1 };

	(void)state;
	assert_int_equal(load(sim_form, strlen(sim_form), &w, &problems), 0);
	free(problems);
	val_cabling_judge(&w, &h, NULL, 0, &r);
	assert_int_equal(r.result, VAL_PASS);
	assert_string_equal(r.detail, "1 of 1 cables as designed");
	val_cabling_result_release(&r);
	val_cabling_judge(&w, &stranger, NULL, 0, &r);
	assert_int_equal(r.result, VAL_FAIL); /* a neighbour on a port no design cables */
	val_cabling_result_release(&r);
	val_wiring_release(&w);
}

static char *tree_path(const char *rel)
{
	const char *top = getenv("BR_TOP");

	return br_xasprintf("%s/%s", top ? top : ".", rel);
}

/* rdma-core's own example of ibnetdiscover's output (its topology-file
 * man page; tests/fixtures/ibnet/README.md): every adapter carries the
 * factory NodeDescription "MT23108 InfiniHost Mellanox Technologies", so
 * adapters are their GUIDs, each port its own end (one adapter has two
 * cables to one switch), and the switches, whose text is factory too, are
 * GUIDs as well. Against a wiring list by GUID: every cable matches; the
 * two the capture shows at 1xSDR are slow. */
static int is_switch_guid(const char *dev)
{
	return !strcmp(dev, "0x005442ba00003080") || !strcmp(dev, "0x0008f10400410015");
}

static void test_fabric_factory_names(void **state)
{
	char *wpath = tree_path("tests/fixtures/ibnet/rdma-core-wiring.csv"),
	     *npath = tree_path("tests/fixtures/ibnet/rdma-core-topology-example.txt");
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	struct val_wiring w;
	struct val_ibnet net;
	struct val_fabric_result r;
	size_t slow = 0, other = 0, ends_558 = 0;

	(void)state;
	assert_int_equal(val_wiring_load(wpath, &w, &problems, &err), 0);
	assert_int_equal(val_ibnet_load(npath, &net, &problems, &err), 0);
	assert_int_equal(problems.n, 0);
	assert_int_equal(net.n, 7);
	for (size_t i = 0; i < net.n; i++) {
		const struct val_ibnet_link *l = &net.links[i];

		assert_null(strstr(l->dev_a, "MT23108"));
		assert_null(strstr(l->dev_b, "MT23108"));
		assert_int_equal(l->switch_a, is_switch_guid(l->dev_a));
		assert_int_equal(l->switch_b, is_switch_guid(l->dev_b));
		if (!strcmp(l->dev_a, "0x0008f10403960558")) {
			ends_558++;
			assert_true(!strcmp(l->port_a, "1") || !strcmp(l->port_a, "2"));
			assert_string_equal(l->dev_b, "0x005442ba00003080");
		}
	}
	assert_int_equal(ends_558, 2);
	val_fabric_judge(&w, &net, "4xSDR", &r);
	assert_int_equal(r.matched, 7);
	assert_int_equal(r.design_components, 1);
	assert_int_equal(r.seen_components, 1);
	for (size_t i = 0; i < r.n; i++)
		r.findings[i].kind == VAL_CABLE_SLOW ? slow++ : other++;
	assert_int_equal(slow, 2);
	assert_int_equal(other, 0);
	assert_non_null(strstr(r.detail,
			       "0x0008f10403960558 1 - 0x005442ba00003080 12 (wiring line 4) trained "
			       "at 1xSDR, expected 4xSDR"));
	val_fabric_result_release(&r);
	val_fabric_judge(&w, &net, NULL, &r);
	assert_int_equal(r.result, VAL_PASS);
	{
		enum val_result res;
		char *detail;

		assert_int_equal(val_fabric_node_check(&w, &r, "0x0008f10403960558", &res, &detail, NULL), 0);
		assert_int_equal(res, VAL_PASS);
		assert_non_null(strstr(detail, "its 2 designed fabric cables seen as designed"));
		free(detail);
	}
	val_fabric_result_release(&r);
	val_ibnet_release(&net);
	val_wiring_release(&w);
	free(wpath);
	free(npath);
}

/* Each cable of a parse as one comparable line, its ends in order. */
static char *links_text(const struct val_ibnet *net)
{
	char **lines = br_xcalloc(net->n ? net->n : 1, sizeof(*lines));
	struct br_buf b = { 0 };

	for (size_t i = 0; i < net->n; i++) {
		const struct val_ibnet_link *l = &net->links[i];
		char *a = br_xasprintf("%s %s%s", l->dev_a, l->port_a, l->switch_a ? " S" : ""),
		     *z = br_xasprintf("%s %s%s", l->dev_b, l->port_b, l->switch_b ? " S" : "");
		int order = strcmp(a, z) < 0;

		lines[i] = br_xasprintf("%s - %s %s", order ? a : z, order ? z : a, l->rate ? l->rate : "-");
		free(a);
		free(z);
	}
	for (size_t i = 1; i < net->n; i++) /* insertion sort: a handful */
		for (size_t k = i; k > 0 && strcmp(lines[k - 1], lines[k]) > 0; k--) {
			char *t = lines[k];

			lines[k] = lines[k - 1];
			lines[k - 1] = t;
		}
	for (size_t i = 0; i < net->n; i++) {
		br_buf_addf(&b, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	return br_buf_detach(&b);
}

static void load_both(const char *ibnd, const char *ibl, struct val_ibnet *a, struct val_ibnet *b)
{
	char *pa = tree_path(ibnd), *pb = tree_path(ibl);
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };

	assert_int_equal(val_ibnet_load(pa, a, &problems, &err), 0);
	assert_int_equal(val_ibnet_load(pb, b, &problems, &err), 0);
	assert_int_equal(problems.n, 0);
	free(pa);
	free(pb);
}

static int parse_text(const char *text, struct val_ibnet *net, char **ret_problem)
{
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	int rc = val_ibnet_parse(text, strlen(text), "cap.txt", net, &problems, &err);

	*ret_problem = problems.n ? br_xstrdup(problems.items[0]) : NULL;
	br_strlist_release(&problems);
	return rc;
}

/* iblinkinfo's output is a capture as ibnetdiscover's is: the real
 * iblinkinfo and ibnetdiscover of one simulated fabric (ibsim.net, from
 * spine01; the split fabric from gpu01's two ports) give the same cables,
 * named and rated the same, so the same judgement. Far ends given by LID
 * (a subnet manager ran) or, without LIDs, by their text and the line that
 * names this end back; factory texts name devices by GUID. */
static void test_fabric_iblinkinfo(void **state)
{
	struct val_ibnet a, b, a1, b1;
	struct val_wiring w;
	struct val_fabric_result ra, rb;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	char *ta, *tb, *wpath = tree_path("tests/fixtures/ibnet/wiring.csv"), *problem;

	(void)state;
	load_both("tests/fixtures/ibnet/ibnetdiscover.txt", "tests/fixtures/ibnet/iblinkinfo.txt", &a, &b);
	assert_int_equal(b.n, 3);
	ta = links_text(&a);
	tb = links_text(&b);
	assert_string_equal(tb, ta);
	assert_non_null(strstr(tb, "gpu01 mlx5_0/1 - leaf01 2 S 4xSDR\n"));
	free(ta);
	free(tb);
	assert_int_equal(val_wiring_load(wpath, &w, &problems, &err), 0);
	val_fabric_judge(&w, &a, "4xNDR", &ra);
	val_fabric_judge(&w, &b, "4xNDR", &rb);
	assert_int_equal(rb.result, VAL_FAIL);
	assert_int_equal(rb.n, ra.n);
	assert_int_equal(rb.matched, ra.matched);
	assert_int_equal(rb.unreachable, ra.unreachable);
	for (size_t i = 0; i < rb.n; i++)
		assert_int_equal(rb.findings[i].kind, ra.findings[i].kind);
	assert_non_null(strstr(rb.detail, "trained at 4xSDR, expected 4xNDR"));
	val_fabric_result_release(&ra);
	val_fabric_result_release(&rb);
	val_wiring_release(&w);
	val_ibnet_release(&a);
	val_ibnet_release(&b);

	/* the split fabric, each port's view, merged */
	load_both("tests/fixtures/ibnet/split-mlx5_0.txt", "tests/fixtures/ibnet/split-iblinkinfo-mlx5_0.txt",
		  &a, &b);
	load_both("tests/fixtures/ibnet/split-mlx5_1.txt", "tests/fixtures/ibnet/split-iblinkinfo-mlx5_1.txt",
		  &a1, &b1);
	val_ibnet_merge(&a, &a1);
	val_ibnet_merge(&b, &b1);
	assert_int_equal(b.n, 6);
	ta = links_text(&a);
	tb = links_text(&b);
	assert_string_equal(tb, ta);
	free(ta);
	free(tb);
	free(wpath);
	wpath = tree_path("tests/fixtures/ibnet/split-wiring.csv");
	assert_int_equal(val_wiring_load(wpath, &w, &problems, &err), 0);
	val_fabric_judge(&w, &b, NULL, &rb);
	assert_int_equal(rb.design_components, 1);
	assert_int_equal(rb.seen_components, 2);
	val_fabric_result_release(&rb);
	val_wiring_release(&w);
	val_ibnet_release(&a);
	val_ibnet_release(&b);
	val_ibnet_release(&a1);
	val_ibnet_release(&b1);

	/* Factory texts, the same on every adapter and every switch, no LIDs
	 * (ibsim's capture, its texts as the factory's): found by the line
	 * naming this end back, named by GUID. */
	assert_int_equal(
	    parse_text(
		"CA: MT4129 ConnectX7   Mellanox Technologies:\n"
		"      0x0000000000100001      0    1[  ] ==( 4X         53.125 Gbps Active/  "
		"LinkUp)==>       0    2[  ] \"SwitchIB Mellanox Technologies\" ( )\n"
		"CA: MT4129 ConnectX7   Mellanox Technologies:\n"
		"      0x0000000000100003      0    1[  ] ==( 4X         106.25 Gbps Active/  "
		"LinkUp)==>       0    1[  ] \"SwitchIB Mellanox Technologies\" ( )\n"
		"Switch: 0x0000000000200001 SwitchIB Mellanox Technologies:\n"
		"           0    1[  ] ==( 4X         106.25 Gbps Active/  LinkUp)==>       0    "
		"1[  ] \"MT4129 ConnectX7   Mellanox Technologies\" ( )\n"
		"           0    2[  ] ==( 4X          53.125 Gbps Active/  LinkUp)==>       0    "
		"1[  ] \"MT4129 ConnectX7   Mellanox Technologies\" ( )\n"
		"           0    3[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n",
		&b, &problem),
	    0);
	tb = links_text(&b);
	assert_string_equal(tb, "0x0000000000100001 1 - 0x0000000000200001 2 S 4xHDR\n"
				"0x0000000000100003 1 - 0x0000000000200001 1 S 4xNDR\n");
	free(tb);
	val_ibnet_release(&b);

	/* Two adapters of one text, each on port 1 of a switch of one text:
	 * only the LIDs tell which is which; without them, a clear refusal. */
	{
		const char *lids =
		    "CA: MT4129 ConnectX7   Mellanox Technologies:\n"
		    "      0x0000000000100001     11    1[  ] ==( 4X         106.25 Gbps Active/  "
		    "LinkUp)==>       1    1[  ] \"SwitchIB Mellanox Technologies\" ( )\n"
		    "CA: MT4129 ConnectX7   Mellanox Technologies:\n"
		    "      0x0000000000100003     12    1[  ] ==( 4X         106.25 Gbps Active/  "
		    "LinkUp)==>       2    1[  ] \"SwitchIB Mellanox Technologies\" ( )\n"
		    "Switch: 0x0000000000200001 SwitchIB Mellanox Technologies:\n"
		    "           1    1[  ] ==( 4X         106.25 Gbps Active/  LinkUp)==>      11    "
		    "1[  ] \"MT4129 ConnectX7   Mellanox Technologies\" ( )\n"
		    "Switch: 0x0000000000200002 SwitchIB Mellanox Technologies:\n"
		    "           2    1[  ] ==( 4X         106.25 Gbps Active/  LinkUp)==>      12    "
		    "1[  ] \"MT4129 ConnectX7   Mellanox Technologies\" ( )\n";
		const char *nolids =
		    "CA: MT4129 ConnectX7   Mellanox Technologies:\n"
		    "      0x0000000000100001      0    1[  ] ==( 4X         106.25 Gbps Active/  "
		    "LinkUp)==>       0    1[  ] \"SwitchIB Mellanox Technologies\" ( )\n"
		    "CA: MT4129 ConnectX7   Mellanox Technologies:\n"
		    "      0x0000000000100003      0    1[  ] ==( 4X         106.25 Gbps Active/  "
		    "LinkUp)==>       0    1[  ] \"SwitchIB Mellanox Technologies\" ( )\n"
		    "Switch: 0x0000000000200001 SwitchIB Mellanox Technologies:\n"
		    "           0    1[  ] ==( 4X         106.25 Gbps Active/  LinkUp)==>       0    "
		    "1[  ] \"MT4129 ConnectX7   Mellanox Technologies\" ( )\n"
		    "Switch: 0x0000000000200002 SwitchIB Mellanox Technologies:\n"
		    "           0    1[  ] ==( 4X         106.25 Gbps Active/  LinkUp)==>       0    "
		    "1[  ] \"MT4129 ConnectX7   Mellanox Technologies\" ( )\n";

		assert_int_equal(parse_text(lids, &b, &problem), 0);
		tb = links_text(&b);
		assert_string_equal(tb, "0x0000000000100001 1 - 0x0000000000200001 1 S 4xNDR\n"
					"0x0000000000100003 1 - 0x0000000000200002 1 S 4xNDR\n");
		free(tb);
		val_ibnet_release(&b);
		assert_int_equal(parse_text(nolids, &b, &problem), BR_E_INVAL);
		assert_non_null(strstr(problem, "cap.txt:2: the far end (lid 0 port 1 \"SwitchIB Mellanox "
						"Technologies\") is no one node of the capture"));
		free(problem);
	}
	/* -l's one-line form is refused, naming the line */
	assert_int_equal(
	    parse_text("CA: gpu01 mlx5_0:\n0x0000000000100001 \"gpu01 mlx5_0\"  0 1[  ] ==( 4X 2.5 "
		       "Gbps Active/ LinkUp)==>  0x0000000000200001 0 2[  ] \"leaf01\" ( )\n",
		       &b, &problem),
	    BR_E_INVAL);
	assert_string_equal(problem, "cap.txt:2: iblinkinfo -l output: run it without -l");
	free(problem);
	free(wpath);
}

/* Rail-optimised cabling with no spine: every host has a port on leaf01
 * and one on leaf02, but an adapter forwards nothing, so the design is two
 * fabrics, not one (before, the hosts joined the rails into "1 network"). */
static void test_fabric_rails_meet_in_hosts(void **state)
{
	char *wpath = tree_path("tests/fixtures/ibnet/two-rails-wiring.csv"),
	     *npath = tree_path("tests/fixtures/ibnet/ibnetdiscover.txt");
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	struct val_wiring w;
	struct val_ibnet net;
	struct val_fabric_result r;

	(void)state;
	assert_int_equal(val_wiring_load(wpath, &w, &problems, &err), 0);
	assert_int_equal(val_ibnet_load(npath, &net, &problems, &err), 0);
	assert_int_equal(val_wiring_components(&w), 1); /* hosts and switches alike: one graph */
	val_fabric_judge(&w, &net, NULL, &r);
	assert_int_equal(r.result, VAL_FAIL);
	assert_int_equal(r.design_components, 2);
	assert_non_null(strstr(r.detail, "the wiring list makes 2 fabrics"));
	assert_non_null(strstr(r.detail, "the wiring list makes 2 separate fabrics, switch groups no cable "
					 "joins (hosts do not forward between them): {leaf01}; {leaf02}"));
	{
		enum val_result res;
		char *detail;

		/* gpu03's cables are not even in the capture's part; gpu01's are,
		 * and the split fails it all the same */
		assert_int_equal(val_fabric_node_check(&w, &r, "gpu01", &res, &detail, NULL), 0);
		assert_int_equal(res, VAL_FAIL);
		assert_non_null(strstr(detail, "the wiring list makes 2 separate fabrics"));
		free(detail);
	}
	val_fabric_result_release(&r);
	val_ibnet_release(&net);
	val_wiring_release(&w);
	free(wpath);
	free(npath);
}

static void kept_part_check(struct val_fabric_result *r, const struct val_fabric_finding *const *parts)
{
	const char *hosts[] = { "gpu02" }, *kept[] = { "gpu09" };
	const size_t kept_part[] = { 1 };

	val_fabric_owners_keep(r, hosts, 1, kept, kept_part, 1);
	assert_string_equal(parts[0]->owner, "gpu02");
	assert_string_equal(parts[1]->owner, "gpu02");
}

/* A fabric built as two separate networks, read from one host's two ports
 * by the real ibnetdiscover (tests/fixtures/ibnet/README.md, split*):
 * each port sees only its own subnet; merged, the two are two separate
 * fabrics of a design that is one, each told once, whole, on its owner,
 * with its switches, its hosts and the designed cables that would join
 * it to the other. */
static void test_fabric_split(void **state)
{
	char *wpath = tree_path("tests/fixtures/ibnet/split-wiring.csv"),
	     *p0 = tree_path("tests/fixtures/ibnet/split-mlx5_0.txt"),
	     *p1 = tree_path("tests/fixtures/ibnet/split-mlx5_1.txt");
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	struct val_wiring w;
	struct val_ibnet net, other, again;
	struct val_fabric_result r;
	const struct val_fabric_finding *parts[2] = { NULL, NULL };
	enum val_result res;
	char *detail, *component;
	const char *only_gpu02[] = { "gpu02" };

	(void)state;
	assert_int_equal(val_wiring_load(wpath, &w, &problems, &err), 0);
	assert_int_equal(val_ibnet_load(p0, &net, &problems, &err), 0);
	/* One port's view: the other rail is out of its sight. */
	val_fabric_judge(&w, &net, NULL, &r);
	assert_int_equal(r.seen_components, 1);
	assert_non_null(strstr(r.detail, "not reached by discovery: "));
	val_fabric_result_release(&r);
	assert_int_equal(val_ibnet_load(p1, &other, &problems, &err), 0);
	assert_int_equal(val_ibnet_load(p1, &again, &problems, &err), 0);
	assert_int_equal(problems.n, 0);
	val_ibnet_merge(&net, &other);
	assert_int_equal(net.n, 6);
	assert_int_equal(other.n, 0);
	val_ibnet_merge(&net, &again); /* the same cables again: none added */
	assert_int_equal(net.n, 6);
	val_fabric_judge(&w, &net, NULL, &r);
	assert_int_equal(r.result, VAL_FAIL);
	assert_int_equal(r.design_components, 1);
	assert_int_equal(r.seen_components, 2);
	assert_int_equal(r.unreachable, 0);
	for (size_t i = 0; i < r.n; i++)
		if (r.findings[i].kind == VAL_CABLE_SPLIT) {
			assert_true(r.findings[i].part >= 1 && r.findings[i].part <= 2);
			assert_null(parts[r.findings[i].part - 1]);
			parts[r.findings[i].part - 1] = &r.findings[i];
		}
	assert_non_null(parts[0]);
	assert_non_null(parts[1]);
	assert_non_null(strstr(parts[0]->text, "separate fabric 1 of 2 (switches leaf01, spine01)"));
	assert_non_null(strstr(parts[0]->text, "2 hosts on it: gpu01, gpu02"));
	assert_non_null(strstr(parts[0]->text, "2 designed cables that would join it to the others not "
					       "seen: leaf01 32 - spine02 1 (wiring line 7); leaf02 31 - "
					       "spine01 2 (wiring line 8)"));
	assert_non_null(strstr(parts[1]->text, "separate fabric 2 of 2 (switches leaf02, spine02)"));
	assert_string_equal(parts[0]->owner, "gpu01");
	assert_string_equal(parts[1]->owner, "gpu02");
	/* gpu01 owns fabric 1: told whole there, fabric 2 told brief. */
	assert_int_equal(val_fabric_node_check(&w, &r, "gpu01", &res, &detail, &component), 0);
	assert_int_equal(res, VAL_FAIL);
	assert_string_equal(component, "ib-fabric:1");
	assert_non_null(strstr(detail, "leaf01 32 - spine02 1 (wiring line 7)"));
	assert_non_null(strstr(detail, "separate fabric 2 of 2 (switches leaf02, spine02): on it; told "
				       "whole on gpu02's fabric ticket"));
	free(detail);
	free(component);
	/* Only gpu02 validated now: it owns both, gpu01 files none. */
	val_fabric_owners(&r, only_gpu02, 1);
	assert_int_equal(val_fabric_node_check(&w, &r, "gpu01", &res, &detail, &component), 0);
	assert_int_equal(res, VAL_FAIL);
	assert_string_equal(component, VAL_FABRIC_TOLD_ELSEWHERE);
	free(detail);
	free(component);
	assert_int_equal(val_fabric_node_check(&w, &r, "gpu02", &res, &detail, &component), 0);
	assert_string_equal(component, "ib-fabric:1");
	free(detail);
	free(component);
	/* gpu02 told fabric 2 in an earlier round: it keeps it, and gpu01,
	 * validated now, takes fabric 1 (not both on gpu01, by name first). */
	{
		const char *both[] = { "gpu01", "gpu02" }, *kept[] = { "gpu02" };
		const size_t kept_part[] = { 2 };

		val_fabric_owners_keep(&r, both, 2, kept, kept_part, 1);
		assert_string_equal(parts[0]->owner, "gpu01");
		assert_string_equal(parts[1]->owner, "gpu02");
		/* kept where it is no longer on that fabric: chosen again */
		kept_part_check(&r, parts);
	}
	val_fabric_result_release(&r);
	val_ibnet_release(&net);
	val_ibnet_release(&other);
	val_ibnet_release(&again);
	val_wiring_release(&w);
	free(wpath);
	free(p0);
	free(p1);
}

/* Real ibnetdiscover output (tests/fixtures/ibnet/README.md): gpu01 and
 * gpu02 exchanged, leaf02's uplink missing, so leaf02 and its hosts are an
 * island discovery never reached. */
static void test_fabric(void **state)
{
	char *wpath = tree_path("tests/fixtures/ibnet/wiring.csv"),
	     *npath = tree_path("tests/fixtures/ibnet/ibnetdiscover.txt");
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	struct val_wiring w;
	struct val_ibnet net;
	struct val_fabric_result r;
	size_t kinds[VAL_CABLE_SLOW + 1] = { 0 };

	(void)state;
	assert_int_equal(val_wiring_load(wpath, &w, &problems, &err), 0);
	assert_int_equal(val_ibnet_load(npath, &net, &problems, &err), 0);
	assert_int_equal(problems.n, 0);
	assert_int_equal(net.n, 3);
	/* Names as the wiring list has them: switches by the hostname in
	 * "MF0;leaf01:MQM9700/U1", adapters as host + "mlx5_0/PORT". */
	for (size_t i = 0; i < net.n; i++)
		if (!strcmp(net.links[i].dev_a, "gpu01") || !strcmp(net.links[i].dev_b, "gpu01")) {
			int a = !strcmp(net.links[i].dev_a, "gpu01");

			assert_string_equal(a ? net.links[i].port_a : net.links[i].port_b, "mlx5_0/1");
			assert_string_equal(a ? net.links[i].dev_b : net.links[i].dev_a, "leaf01");
			assert_string_equal(a ? net.links[i].port_b : net.links[i].port_a, "2");
			assert_string_equal(net.links[i].rate, "4xSDR");
		}
	val_fabric_judge(&w, &net, "4xSDR", &r);
	assert_int_equal(r.result, VAL_FAIL);
	assert_int_equal(r.design_links, 6);
	assert_int_equal(r.seen_links, 3);
	assert_int_equal(r.matched, 1);
	assert_int_equal(r.design_components, 1);
	assert_int_equal(r.unreachable, 3);
	for (size_t i = 0; i < r.n; i++)
		kinds[r.findings[i].kind]++;
	assert_int_equal(kinds[VAL_CABLE_SWAPPED], 1);
	assert_int_equal(kinds[VAL_CABLE_MISSING], 1); /* leaf02 - spine01: spine01 was reached */
	assert_int_equal(kinds[VAL_CABLE_UNEXPECTED], 0);
	assert_int_equal(kinds[VAL_CABLE_UNREACHABLE], 1);
	assert_int_equal(kinds[VAL_CABLE_SLOW], 0);
	assert_non_null(strstr(r.detail, "leaf02 31 - spine01 2 (wiring line 7) not seen"));
	assert_non_null(
	    strstr(r.detail, "3 designed devices not reached by discovery: gpu03, gpu04, leaf02"));
	/* Each node's own part of it ("fabric" in validate). */
	{
		enum val_result res;
		char *detail;

		assert_int_equal(val_fabric_node_check(&w, &r, "gpu01", &res, &detail, NULL), 0);
		assert_int_equal(res, VAL_FAIL);
		assert_non_null(strstr(detail, "gpu01 mlx5_0/1 and gpu02 mlx5_0/1 are exchanged"));
		assert_null(strstr(detail, "not reached"));
		free(detail);
		assert_int_equal(val_fabric_node_check(&w, &r, "gpu03.example.net", &res, &detail, NULL), 0);
		assert_int_equal(res, VAL_FAIL);
		assert_non_null(
		    strstr(detail, "3 designed devices not reached by discovery: gpu03, gpu04, leaf02"));
		/* the cable that would join its island */
		assert_non_null(strstr(detail, "leaf02 31 - spine01 2 (wiring line 7) not seen"));
		assert_null(strstr(detail, "exchanged"));
		free(detail);
		assert_int_equal(val_fabric_node_check(&w, &r, "gpu09", &res, &detail, NULL), BR_E_NOTFOUND);
	}
	val_fabric_result_release(&r);
	/* The same fabric judged for a faster design: the matched cable is slow. */
	val_fabric_judge(&w, &net, "4xNDR", &r);
	assert_non_null(
	    strstr(r.detail, "leaf01 31 - spine01 1 (wiring line 6) trained at 4xSDR, expected 4xNDR"));
	val_fabric_result_release(&r);
	val_ibnet_release(&net);
	val_wiring_release(&w);
	free(wpath);
	free(npath);
}

static void test_fabric_bad_input(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "hello world\n", ":1: not ibnetdiscover output" },
		{ "#\n# only comments\n", ":1: no Switch or Ca line" },
		{ "Switch\t36 \"S-1\"\t# \"sw\"\n[x]\t\"H-2\"[1]\n", ":2: not an ibnetdiscover port line" },
		{ "[1]\t\"H-2\"[1]\n", ":1: a port line before any Switch" },
		/* ibnetdiscover -p prints one line per port: another format. */
		{ "SW     1    1 0x0002c903007c1a30 4x QDR - CA     3    1 0x0002c9030045f2b1 ( )\n",
		  ":1: not ibnetdiscover" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *path = write_tmp(bad[i].text, strlen(bad[i].text));
		struct br_strlist problems = { 0 };
		struct br_err err = { 0 };
		struct val_ibnet net = { 0 };

		assert_int_equal(val_ibnet_load(path, &net, &problems, &err), BR_E_INVAL);
		assert_true(problems.n >= 1);
		if (!strstr(problems.items[0], bad[i].want))
			fail_msg("case %zu: '%s' not in '%s'", i, bad[i].want, problems.items[0]);
		assert_null(net.links);
		br_strlist_release(&problems);
		unlink(path);
		free(path);
	}
}

/* systemd's predictable names place an interface on its PCIe device
 * (systemd.net-naming-scheme(7), "PCI geographical location"); the names
 * of other schemes place it nowhere. */
static void test_ifname_pci(void **state)
{
	static const struct {
		const char *name, *device;
	} cases[] = {
		{ "enp60s0np0", "0000:3c:00" },
		{ "enp26s0f1np1", "0000:1a:00" },
		{ "enP2p1s0f1", "0002:01:00" },
		{ "ibp26s0", "0000:1a:00" },
		{ "enp4s0f0", "0000:04:00" },
		{ "enp255s31", "0000:ff:1f" },
		{ "eth0", NULL },
		{ "ens1f0np0", NULL },
		{ "eno1", NULL },
		{ "enp256s0", NULL },
		{ "enp1s32", NULL },
		{ "enp", NULL },
		{ "enpxs0", NULL },
		{ "enp1s0x", NULL },
		{ "", NULL },
	};
	char out[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = val_ifname_pci_device(cases[i].name, out);

		if (cases[i].device) {
			assert_int_equal(rc, 0);
			assert_string_equal(out, cases[i].device);
		} else if (rc != -1) {
			fail_msg("'%s' placed on %s", cases[i].name, out);
		}
	}
	assert_int_equal(val_ifname_pci_device(NULL, out), -1);
}

/* A BMC port seeing switch sw port swp (chassis id from the switches
 * file), or nothing. */
static struct br_neighbor bmc_port(const char *port, const char *chassis, const char *swp)
{
	struct br_neighbor nb = { 0 };

	nb.port = (char *)(uintptr_t)port;
	nb.chassis_id = (char *)(uintptr_t)chassis;
	nb.port_id = (char *)(uintptr_t)swp;
	nb.link = chassis != NULL;
	nb.vlan = -1;
	return nb;
}

/* The BMC's view (Connection View: ports by FQDD, switches by chassis
 * MAC) judged by the in-band rules: each BMC port put on the wiring
 * list's host port, a swap between two hosts, an unplugged cable and one
 * on a switch the design does not have, each with the BMC's port name;
 * no view, a view with no link anywhere and a stale view are unknown. */
static void test_bmc_view(void **state)
{
	static const char switches_csv[] = "switch,chassis_id\n"
					   "leaf01,0C-42-A1-00-00-01\n"
					   "leaf02,0c:42:a1:00:00:02\n"
					   "mgmt01,0c:42:a1:00:00:09\n";
	struct val_wiring w;
	struct val_switches sw;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	char *text = NULL, *path;
	struct val_bmc_cabling views[7];
	struct val_cabling_result r;
	/* h1, h2: eth1's cables exchanged; h3: eth0 unplugged; h4: no view at
	 * all; h5: every port No Link; h6: eth1 in the management switch; h7:
	 * both (which BMC port is which designed one cannot be told then) */
	struct br_neighbor p1[] = { bmc_port("NIC.Embedded.1-1-1", "0c:42:a1:00:00:01", "swp1"),
				    bmc_port("NIC.Embedded.2-1-1", "0c:42:a1:00:00:02", "swp2") };
	struct br_neighbor p2[] = { bmc_port("NIC.Embedded.1-1-1", "0c:42:a1:00:00:01", "swp2"),
				    bmc_port("NIC.Embedded.2-1-1", "0c:42:a1:00:00:02", "swp1") };
	struct br_neighbor p3[] = { bmc_port("NIC.Embedded.1-1-1", NULL, NULL),
				    bmc_port("NIC.Embedded.2-1-1", "0c:42:a1:00:00:02", "swp3") };
	struct br_neighbor p6[] = { bmc_port("NIC.Embedded.1-1-1", "0c:42:a1:00:00:01", "swp6"),
				    bmc_port("NIC.Embedded.2-1-1", "0c:42:a1:00:00:09", "swp6") };
	struct br_neighbor p7[] = { bmc_port("NIC.Embedded.1-1-1", NULL, NULL),
				    bmc_port("NIC.Embedded.2-1-1", "0c:42:a1:00:00:09", "swp7") };
	struct br_neighbor p5[] = { bmc_port("NIC.Embedded.1-1-1", NULL, NULL) };
	static const char wiring[] = "hostname,host_port,switch,switch_port\n"
				     "h1,eth0,leaf01,swp1\n"
				     "h1,eth1,leaf02,swp1\n"
				     "h2,eth0,leaf01,swp2\n"
				     "h2,eth1,leaf02,swp2\n"
				     "h3,eth0,leaf01,swp3\n"
				     "h3,eth1,leaf02,swp3\n"
				     "h4,eth0,leaf01,swp4\n"
				     "h5,eth0,leaf01,swp5\n"
				     "h6,eth0,leaf01,swp6\n"
				     "h6,eth1,leaf02,swp6\n"
				     "h7,eth0,leaf01,swp7\n"
				     "h7,eth1,leaf02,swp7\n";
	const struct val_bmc_view v[] = {
		{ "h1", "DellSwitchConnections", p1, 2 }, { "h2", "DellSwitchConnections", p2, 2 },
		{ "h3", "DellSwitchConnections", p3, 2 }, { "h4", NULL, NULL, 0 },
		{ "h5", "DellSwitchConnections", p5, 1 }, { "h6", "DellSwitchConnections", p6, 2 },
		{ "h7", "DellSwitchConnections", p7, 2 },
	};

	(void)state;
	assert_int_equal(load(wiring, strlen(wiring), &w, &text), 0);
	free(text);
	path = write_tmp(switches_csv, strlen(switches_csv));
	assert_int_equal(val_switches_load(path, &sw, &problems, &err), 0);
	unlink(path);
	free(path);
	assert_string_equal(val_switch_by_chassis(&sw, "0C:42:A1:00:00:01"), "leaf01");
	assert_null(val_switch_by_chassis(&sw, "0c:42:a1:00:00:03"));
	for (size_t i = 0; i < 7; i++)
		val_bmc_cabling_build(&w, &sw, &v[i], &views[i]);

	val_bmc_cabling_judge(&w, &views[0], views, 7, &r);
	assert_int_equal(r.result, VAL_FAIL);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.findings[0].kind, VAL_CABLE_SWAPPED);
	assert_string_equal(r.findings[0].local_port, "eth1");
	assert_string_equal(r.findings[0].other_host, "h2");
	assert_string_equal(val_bmc_cabling_port(&views[0], "eth1"), "NIC.Embedded.2-1-1");
	assert_non_null(strstr(r.detail, "by the BMC's DellSwitchConnections"));
	assert_non_null(strstr(r.detail, "eth1 is the BMC's NIC.Embedded.2-1-1"));
	val_cabling_result_release(&r);

	val_bmc_cabling_judge(&w, &views[2], views, 7, &r);
	assert_int_equal(r.result, VAL_FAIL);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.findings[0].kind, VAL_CABLE_MISSING);
	assert_string_equal(r.findings[0].local_port, "eth0");
	assert_string_equal(r.findings[0].expected, "leaf01 swp3");
	assert_non_null(strstr(r.detail, "eth0 is the BMC's NIC.Embedded.1-1-1"));
	val_cabling_result_release(&r);

	val_bmc_cabling_judge(&w, &views[5], views, 7, &r);
	assert_int_equal(r.result, VAL_FAIL);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.findings[0].kind, VAL_CABLE_WRONG);
	assert_string_equal(r.findings[0].local_port, "eth1");
	assert_string_equal(r.findings[0].seen, "mgmt01 swp6");
	assert_string_equal(r.findings[0].expected, "leaf02 swp6");
	val_cabling_result_release(&r);

	/* two faults on one host: both designed cables missing, and the BMC
	 * port on the foreign switch named as the BMC names it */
	val_bmc_cabling_judge(&w, &views[6], views, 7, &r);
	assert_int_equal(r.result, VAL_FAIL);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.findings[2].kind, VAL_CABLE_UNEXPECTED);
	assert_string_equal(r.findings[2].local_port, "NIC.Embedded.2-1-1");
	assert_string_equal(r.findings[2].seen, "mgmt01 swp7");
	val_cabling_result_release(&r);

	val_bmc_cabling_judge(&w, &views[3], views, 7, &r);
	assert_int_equal(r.result, VAL_UNKNOWN);
	assert_non_null(strstr(r.detail, "judged in band"));
	val_cabling_result_release(&r);
	val_bmc_cabling_judge(&w, &views[4], views, 7, &r);
	assert_int_equal(r.result, VAL_UNKNOWN);
	assert_non_null(strstr(r.detail, "no link on any host port"));
	val_cabling_result_release(&r);

	/* a stale view is not judged */
	p1[0].stale = 1;
	val_bmc_cabling_release(&views[0]);
	val_bmc_cabling_build(&w, &sw, &v[0], &views[0]);
	val_bmc_cabling_judge(&w, &views[0], views, 7, &r);
	assert_int_equal(r.result, VAL_UNKNOWN);
	assert_non_null(strstr(r.detail, "stale"));
	val_cabling_result_release(&r);

	for (size_t i = 0; i < 7; i++)
		val_bmc_cabling_release(&views[i]);
	val_switches_release(&sw);
	val_wiring_release(&w);
}

/* After deploy, the BMC's view against the OS's LLDP: agreeing ports are
 * paired (which OS interface each BMC port is); a BMC port whose switch
 * end no OS interface sees is a stale view; an OS neighbour the BMC shows
 * on no port is named; a port the wiring list calls eth0 that the OS calls
 * eno1 is a NIC the OS names differently; nothing to compare, no check. */
static void test_bmc_views_compare(void **state)
{
	static const char wiring[] = "hostname,host_port,switch,switch_port\n"
				     "h1,eth0,leaf01,swp1\n"
				     "h1,eth1,leaf02,swp1\n";
	struct val_wiring w;
	char *text = NULL, *detail = NULL;
	struct val_bmc_cabling mapped;
	enum val_result result;
	struct br_neighbor ports[] = { bmc_port("NIC.Embedded.1-1-1", "0c:42:a1:00:00:01", "swp1"),
				       bmc_port("NIC.Embedded.2-1-1", "0C-42-A1-00-00-02", "swp1") };
	/* the OS: leaf01 by chassis MAC, leaf02 by name only (its port id a MAC) */
	struct val_os_neighbor os[] = { { "eth0", "0c:42:a1:00:00:01", "leaf01", "swp1", NULL },
					{ "eth1", NULL, "leaf02.dc1", "0c:42:a1:00:00:99", "swp1" } };
	struct val_os_neighbor moved[] = { { "eth0", "0c:42:a1:00:00:01", "leaf01", "swp1", NULL },
					   { "eth1", NULL, "leaf02", "swp9", NULL } };
	struct val_os_neighbor renamed[] = { { "eno1", "0c:42:a1:00:00:01", "leaf01", "swp1", NULL },
					     { "eth1", NULL, "leaf02", "swp1", NULL } };
	struct val_bmc_view v = { "h1", "DellSwitchConnections", ports, 2 }, none = { "h1", NULL, NULL, 0 };
	struct val_switches sw = { 0 };
	struct val_switch items[] = {
		{ (char *)(uintptr_t) "leaf01", (char *)(uintptr_t) "0c:42:a1:00:00:01", 2 },
		{ (char *)(uintptr_t) "leaf02", (char *)(uintptr_t) "0c:42:a1:00:00:02", 3 }
	};

	(void)state;
	sw.items = items;
	sw.n = 2;
	assert_int_equal(load(wiring, strlen(wiring), &w, &text), 0);
	free(text);
	val_bmc_cabling_build(&w, &sw, &v, &mapped);

	assert_int_equal(val_bmc_views_compare(&v, &mapped, &sw, os, 2, &result, &detail), 0);
	assert_int_equal(result, VAL_PASS);
	assert_string_equal(detail, "the BMC's DellSwitchConnections and the OS's LLDP agree on 2 ports "
				    "(NIC.Embedded.1-1-1 is eth0, NIC.Embedded.2-1-1 is eth1)");
	free(detail);

	assert_int_equal(val_bmc_views_compare(&v, &mapped, &sw, moved, 2, &result, &detail), 0);
	assert_int_equal(result, VAL_FAIL);
	assert_non_null(
	    strstr(detail, "the BMC's NIC.Embedded.2-1-1 sees leaf02 swp1, which no OS interface sees"));
	assert_non_null(strstr(detail, "the OS's eth1 sees leaf02 swp9, which the BMC shows on no port"));
	free(detail);

	assert_int_equal(val_bmc_views_compare(&v, &mapped, &sw, renamed, 2, &result, &detail), 0);
	assert_int_equal(result, VAL_FAIL);
	assert_string_equal(detail,
			    "the wiring list's eth0 (the BMC's NIC.Embedded.1-1-1, by the switch port it "
			    "sees) is eno1 to the OS: a NIC the OS names differently");
	free(detail);

	assert_int_equal(val_bmc_views_compare(&none, NULL, &sw, os, 2, &result, &detail), BR_E_NOTFOUND);
	assert_int_equal(val_bmc_views_compare(&v, NULL, &sw, os, 0, &result, &detail), BR_E_NOTFOUND);
	val_bmc_cabling_release(&mapped);
	val_wiring_release(&w);
}

/* A switches file that cannot name switches stops the stage: its header,
 * empty fields, one chassis id given to two switches. */
static void test_switches_bad(void **state)
{
	static const char bad[] = "switch,chassis_id\n"
				  "leaf01,0c:42:a1:00:00:01\n"
				  ",0c:42:a1:00:00:02\n"
				  "leaf03,\n"
				  "leaf04,0C-42-A1-00-00-01\n";
	static const char no_header[] = "name,mac\nleaf01,0c:42:a1:00:00:01\n";
	struct val_switches sw;
	struct br_strlist problems = { 0 };
	struct br_err err = { 0 };
	char *path = write_tmp(bad, strlen(bad));

	(void)state;
	assert_int_equal(val_switches_load(path, &sw, &problems, &err), BR_E_INVAL);
	assert_int_equal(problems.n, 3);
	assert_non_null(strstr(problems.items[0], ":3: switch: empty"));
	assert_non_null(strstr(problems.items[1], ":4: chassis_id: empty"));
	assert_non_null(
	    strstr(problems.items[2], ":5: chassis_id: 0c:42:a1:00:00:01 is also leaf01's (line 2)"));
	br_strlist_release(&problems);
	unlink(path);
	free(path);
	path = write_tmp(no_header, strlen(no_header));
	assert_int_equal(val_switches_load(path, &sw, &problems, &err), BR_E_INVAL);
	assert_non_null(strstr(problems.items[0], ":1: header: want 'switch,chassis_id'"));
	br_strlist_release(&problems);
	unlink(path);
	free(path);
}

/* Both views in the formats they come in: the iDRAC's Connection View as
 * the R7615 capture has it (tests/fixtures/redfish/dell/understack,
 * Apache-2.0) read by discover's parser, and real lldpd 1.0.16's
 * `lldpctl -f json` (tests/fixtures/probe/lldp) read by the probe's. They
 * are two different machines: every linked BMC port and every OS
 * neighbour is a disagreement, named. Then the OS's capture with each
 * interface's neighbour rewritten to the switch end one BMC port shows (its
 * chassis MAC unpadded as iDRAC prints it, its port): those two ports
 * agree and only the four others are named; a host cabled on those two
 * alone passes, each BMC port paired with its OS interface. */
static void test_bmc_views_real_formats(void **state)
{
	char *cv = tree_path("tests/fixtures/redfish/dell/understack/switch_connections.json"),
	     *lp = tree_path("tests/fixtures/probe/lldp/lldpctl-two-ports.json"), *text = NULL,
	     *detail = NULL;
	json_t *doc, *nbs = NULL, *nb;
	struct br_err err = { 0 };
	struct br_hw hw = { 0 };
	struct val_os_neighbor os[8];
	struct br_neighbor two[2];
	struct val_bmc_view v;
	enum val_result result;
	size_t len, i, n = 0;

	(void)state;
	assert_non_null(doc = json_load_file(cv, 0, NULL));
	rf_parse_dell_switch_connections(&hw, doc);
	json_decref(doc);
	assert_int_equal(br_read_file(lp, 1u << 20, &text, &len, &err), 0);
	assert_int_equal(val_lldp_parse_json(text, len, &nbs, &err), 0);
	assert_int_equal(json_array_size(nbs), 2);
	json_array_foreach(nbs, i, nb) os[n++] =
	    (struct val_os_neighbor){ br_json_str(nb, "local_port"), br_json_str(nb, "chassis_id"),
				      br_json_str(nb, "system_name"), br_json_str(nb, "port_id"),
				      br_json_str(nb, "port_description") };
	v = (struct val_bmc_view){ "r7615", "DellSwitchConnections", hw.neighbors, hw.n_neighbors };

	assert_int_equal(val_bmc_views_compare(&v, NULL, NULL, os, n, &result, &detail), 0);
	assert_int_equal(result, VAL_FAIL);
	assert_non_null(strstr(detail,
			       "the BMC's NIC.Slot.1-1-1 sees c4:7e:e0:e4:32:df Ethernet1/6, which no OS "
			       "interface sees"));
	assert_non_null(strstr(detail,
			       "the OS's enp26s0np0 sees leaf-su01-rail1 swp1, which the BMC shows on no "
			       "port"));
	/* the iDRAC's own port and the ports with no link are no host port to compare */
	assert_null(strstr(detail, "iDRAC.Embedded.1"));
	assert_null(strstr(detail, "NIC.Embedded.1-1-1"));
	free(detail);

	/* the OS sees what NIC.Slot.1-1-1 and NIC.Slot.2-1-1 see */
	json_object_set_new(json_array_get(nbs, 0), "chassis_id", json_string("c4:7e:e0:e4:32:df"));
	json_object_set_new(json_array_get(nbs, 0), "port_id", json_string("Ethernet1/6"));
	json_object_set_new(json_array_get(nbs, 1), "chassis_id", json_string("c4:7e:e0:e4:10:7f"));
	json_object_set_new(json_array_get(nbs, 1), "port_id", json_string("Ethernet1/8"));
	n = 0;
	json_array_foreach(nbs, i, nb) os[n++] =
	    (struct val_os_neighbor){ br_json_str(nb, "local_port"), br_json_str(nb, "chassis_id"),
				      br_json_str(nb, "system_name"), br_json_str(nb, "port_id"),
				      br_json_str(nb, "port_description") };
	/* six linked BMC ports, two OS interfaces: the four the OS does not
	 * see are named, the two it sees are not */
	assert_int_equal(val_bmc_views_compare(&v, NULL, NULL, os, n, &result, &detail), 0);
	assert_int_equal(result, VAL_FAIL);
	assert_non_null(strstr(detail, "the BMC's NIC.Slot.1-2-1 sees"));
	assert_null(strstr(detail, "NIC.Slot.1-1-1 sees"));
	assert_null(strstr(detail, "NIC.Slot.2-1-1 sees"));
	assert_null(strstr(detail, "the OS's"));
	free(detail);
	/* a host cabled on those two ports alone: the views agree, paired */
	for (i = n = 0; i < hw.n_neighbors; i++)
		if (!strcmp(hw.neighbors[i].port, "NIC.Slot.1-1-1") ||
		    !strcmp(hw.neighbors[i].port, "NIC.Slot.2-1-1"))
			two[n++] = hw.neighbors[i];
	assert_int_equal(n, 2);
	v.ports = two;
	v.n = 2;
	assert_int_equal(val_bmc_views_compare(&v, NULL, NULL, os, 2, &result, &detail), 0);
	assert_int_equal(result, VAL_PASS);
	assert_non_null(strstr(detail, "NIC.Slot.1-1-1 is enp26s0np0"));
	assert_non_null(strstr(detail, "NIC.Slot.2-1-1 is enp60s0np0"));
	free(detail);

	json_decref(nbs);
	br_hw_release(&hw);
	free(text);
	free(cv);
	free(lp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ifname_pci),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_bad_lists),
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_all_good),
		cmocka_unit_test(test_bmc_view),
		cmocka_unit_test(test_switches_bad),
		cmocka_unit_test(test_bmc_views_compare),
		cmocka_unit_test(test_bmc_views_real_formats),
		cmocka_unit_test(test_fabric),
		cmocka_unit_test(test_fabric_split),
		cmocka_unit_test(test_fabric_bad_input),
		cmocka_unit_test(test_fabric_factory_names),
		cmocka_unit_test(test_fabric_iblinkinfo),
		cmocka_unit_test(test_fabric_rails_meet_in_hosts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
