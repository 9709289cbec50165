/* Profiles (profile/): the INI parser's messages (FILE:LINE: field:
 * message), what each file and section accepts, hardware.conf's values,
 * and the shipped xe9680 profile matching the simulated rack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "stages/config.h"
#include "sim/sim.h" /* the counts the simulated rack serves */

static int parse(const char *text, enum prof_file kind, struct prof_profile *p, struct br_err *err)
{
	prof_init(p);
	memset(err, 0, sizeof(*err));
	return prof_parse_text("t.conf", text, kind, p, err);
}

static void test_bios_ok(void **state)
{
	struct prof_profile p;
	struct br_err err;

	assert_int_equal(
	    parse("# comment\n; another\n\n[bios]\n  BootMode = Uefi ; inline\nSysProfile=PerfOptimized\n"
		  "PxeDev1VlanId = 0\n[boot]\npxe_nic = NIC.Embedded.1-1-1\nmode = once\n",
		  PROF_FILE_BIOS, &p, &err),
	    0);
	assert_int_equal(p.n_bios, 3);
	assert_string_equal(p.bios[0].key, "BootMode");
	assert_string_equal(p.bios[0].value, "Uefi");
	assert_string_equal(p.bios[1].value, "PerfOptimized");
	assert_string_equal(p.bios[2].value, "0");
	assert_string_equal(p.pxe_nic, "NIC.Embedded.1-1-1");
	assert_int_equal(p.boot_mode, PROF_BOOT_ONCE);
	assert_null(p.pxe_switch);
	assert_int_equal(p.connection_view_enable, 0);
	prof_release(&p);
	/* the provisioning switch by name pattern, Connection View switched on */
	assert_int_equal(
	    parse("[boot]\npxe_nic = NIC.Embedded.1-1-1\npxe_switch = tor-*-a\nconnection_view = enable\n",
		  PROF_FILE_BIOS, &p, &err),
	    0);
	assert_string_equal(p.pxe_switch, "tor-*-a");
	assert_int_equal(p.connection_view_enable, 1);
	prof_release(&p);
}

/* Every message names the file and the line of the first problem. */
static void test_bios_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "[bios]\nBootMode = Uefi\nthis line has no equals\n",
		  "t.conf:3: expected '[section]' or 'name = value'" },
		{ "[bios\nBootMode = Uefi\n", "t.conf:1: expected" },
		{ "BootMode = Uefi\n", "t.conf:1: BootMode: outside a section" },
		{ "[bios]\nBootMode = Uefi\n\n[biso]\nX = 1\n", "t.conf:4: unknown section [biso]" },
		{ "[bios]\nBootMode = Uefi\nBootMode = Bios\n", "t.conf:3: BootMode: set twice" },
		{ "[bios]\nBoot Mode = Uefi\n", "t.conf:2: Boot Mode: not a BIOS attribute name" },
		{ "[bios]\nBootMode =\n", "t.conf:2: BootMode: empty value" },
		{ "[boot]\nmode = sometimes\n", "t.conf:2: mode: 'sometimes': must be persistent or once" },
		{ "[boot]\npxe_nic = eth0\n", "t.conf:2: pxe_nic: 'eth0' is not a NIC FQDD" },
		{ "[boot]\npxe = NIC.Embedded.1-1-1\n", "t.conf:2: pxe: unknown setting in [boot]" },
		{ "[boot]\npxe_switch = tor a\n", "t.conf:2: pxe_switch: 'tor a' is not a switch name" },
		{ "[boot]\nconnection_view = on\n",
		  "t.conf:2: connection_view: 'on': must be enable or leave" },
		{ "[boot]\npxe_switch = a\npxe_switch = b\n", "t.conf:3: pxe_switch: set twice" },
		/* our own problem on line 2 comes after inih's on line ... none: order kept */
		{ "[bios]\nA = 1\nB = 2\nnot a pair\nA = 3\n", "t.conf:4: expected" },
		{ "[bios]\nA = 1\nA = 3\nnot a pair\n", "t.conf:3: A: set twice" },
		{ "[firmware]\nNIC.Slot.* = 1\n", "t.conf:1: unknown section [firmware]" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct prof_profile p;
		struct br_err err;

		assert_int_equal(parse(cases[i].text, PROF_FILE_BIOS, &p, &err), BR_E_INVAL);
		if (!strstr(err.msg, cases[i].want))
			fail_msg("case %zu: '%s' not in '%s'", i, cases[i].want, err.msg);
		prof_release(&p);
	}
}

static void test_long_line(void **state)
{
	struct prof_profile p;
	struct br_err err;
	char *text = malloc(2000);

	memcpy(text, "[bios]\nA = ", 11);
	memset(text + 11, 'x', 1500);
	memcpy(text + 1511, "\nB = 1\n", 8);
	assert_int_equal(parse(text, PROF_FILE_BIOS, &p, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "t.conf:2: line longer than"));
	prof_release(&p);
	free(text);
}

static void test_firmware_parse(void **state)
{
	struct prof_profile p;
	struct br_err err;

	assert_int_equal(parse("[firmware]\nBIOS.Setup.1-1 = 2.3.5\nNIC.Slot.* = 28.39.1002\n",
			       PROF_FILE_FIRMWARE, &p, &err),
			 0);
	assert_int_equal(p.n_firmware, 2);
	assert_string_equal(p.firmware[1].component, "NIC.Slot.*");
	assert_string_equal(p.firmware[1].min_version, "28.39.1002");
	prof_release(&p);
	assert_int_equal(parse("[firmware]\nNIC.Slot.* = latest\n", PROF_FILE_FIRMWARE, &p, &err),
			 BR_E_INVAL);
	assert_non_null(strstr(err.msg, "t.conf:2: NIC.Slot.*: 'latest' is not a version"));
	prof_release(&p);
	assert_int_equal(parse("[bios]\nA = 1\n", PROF_FILE_FIRMWARE, &p, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "t.conf:1: unknown section [bios]"));
	prof_release(&p);
}

static const char hw_good[] =
    "[system]\nmodel = PowerEdge XE9680\n"
    "[gpu]\ncount = 8\nlink_width = 16\nlink_speed = Gen5\npower_limit_w = 700\nnvlinks = 18\nnvlink_gbs = "
    "26\n"
    "[nic]\nfabric = 8\nfabric_link_width = 16\nfabric_link_speed = Gen5\nethernet = 2\n"
    "[nvme]\ncount = 9\n[fans]\ncount = 12\n[psu]\ncount = 6\n"
    "[cpu]\nrated_mhz = 4000\ngovernors = performance, schedutil\n"
    "[clock]\nmax_skew = 500ms\n"
    "[ib]\nports = 8\nrate_gbps = 400\nlink_layer = InfiniBand\nlink_downed_max = 0\n"
    "symbol_error_max = 4294967295\n"
    "[time_limits]\ndiscover = 10m\nconfigure = 1h\nenlist = 5400\nvalidate = 90s\n";

static void test_hardware_ok(void **state)
{
	struct prof_profile p;
	struct br_err err;

	assert_int_equal(parse(hw_good, PROF_FILE_HARDWARE, &p, &err), 0);
	assert_string_equal(p.hw.model, "PowerEdge XE9680");
	assert_int_equal(p.hw.gpus, 8);
	assert_int_equal(p.hw.gpu_link.width, 16);
	assert_string_equal(p.hw.gpu_link.speed, "Gen5");
	assert_int_equal(p.hw.gpu_power_limit_w, 700);
	assert_int_equal(p.hw.fabric_nics, 8);
	assert_int_equal(p.hw.fabric_link.width, 16);
	assert_string_equal(p.hw.fabric_link.speed, "Gen5");
	assert_int_equal(p.hw.ethernet_nics, 2);
	assert_int_equal(p.hw.nvme, 9);
	assert_int_equal(p.hw.fans, 12);
	assert_int_equal(p.hw.psus, 6);
	assert_int_equal(p.hw.cpu_rated_mhz, 4000);
	assert_int_equal(p.hw.governors.n, 2);
	assert_string_equal(p.hw.governors.items[1], "schedutil");
	assert_int_equal(p.hw.clock_skew_max_ms, 500);
	assert_int_equal(p.hw.limits.discover_s, 600);
	assert_int_equal(p.hw.limits.configure_s, 3600);
	assert_int_equal(p.hw.limits.enlist_s, 5400);
	assert_int_equal(p.hw.limits.validation_s, 90); /* "validate", the older name */
	/* not stated: the defaults */
	assert_int_equal(p.hw.limits.commissioning_s, PROF_COMMISSIONING_DEFAULT_S);
	assert_int_equal(p.hw.limits.deployment_s, PROF_DEPLOYMENT_DEFAULT_S);
	prof_release(&p);

	assert_int_equal(parse("[time_limits]\ncommissioning = 90s\ndeployment = 20m\nvalidation = 1500ms\n",
			       PROF_FILE_HARDWARE, &p, &err),
			 0);
	assert_int_equal(p.hw.limits.commissioning_s, 90);
	assert_int_equal(p.hw.limits.deployment_s, 1200);
	assert_int_equal(p.hw.limits.validation_s, 2); /* whole seconds, rounded up */
	prof_release(&p);

	assert_int_equal(parse("[reprovision]\nerase = quick\n", PROF_FILE_HARDWARE, &p, &err), 0);
	assert_int_equal(p.hw.erase, PROF_ERASE_QUICK);
	assert_int_equal(p.hw.max_attempts, PROF_ATTEMPTS_DEFAULT);
	prof_release(&p);
	assert_int_equal(parse("[lifecycle]\nmax_attempts = 5\n", PROF_FILE_HARDWARE, &p, &err), 0);
	assert_int_equal(p.hw.max_attempts, 5);
	prof_release(&p);

	/* Left out entirely: every enforced limit has its default. */
	assert_int_equal(parse("[gpu]\ncount = 4\n", PROF_FILE_HARDWARE, &p, &err), 0);
	assert_int_equal(p.hw.limits.validation_s, PROF_VALIDATION_DEFAULT_S);
	assert_int_equal(p.hw.erase, PROF_ERASE_NO);
	prof_release(&p);

	/* Left out: not stated, so not checked. */
	assert_int_equal(parse("[gpu]\ncount = 4\n", PROF_FILE_HARDWARE, &p, &err), 0);
	assert_int_equal(p.hw.gpus, 4);
	assert_int_equal(p.hw.psus, -1);
	assert_int_equal(p.hw.cpu_rated_mhz, -1);
	assert_int_equal(p.hw.gpu_power_limit_w, -1);
	assert_int_equal(p.hw.ib_ports, -1);
	assert_int_equal(p.hw.gpu_nvlinks, -1);
	assert_int_equal(p.hw.gpu_nvlink_gbs, -1);
	assert_int_equal(p.hw.ib_rate_gbps, -1);
	assert_null(p.hw.ib_link_layer);
	assert_int_equal(p.hw.ib_symbol_error_max, -1);
	assert_int_equal(p.hw.clock_skew_max_ms, -1);
	assert_int_equal(p.hw.gpu_link.width, 0);
	assert_null(p.hw.gpu_link.speed);
	assert_int_equal(p.hw.governors.n, 0);
	prof_release(&p);
}

/* Each problem names FILE:LINE and the field (section.name). */
static void test_hardware_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "[gpu]\ncount = eight\n", "t.conf:2: gpu.count: 'eight' is not a count of 0-4096" },
		{ "[gpu]\ncount = -1\n", "t.conf:2: gpu.count: '-1' is not a count" },
		{ "[gpu]\ncount = 8\n\ncount = 4\n", "t.conf:4: gpu.count: set twice" },
		{ "[gpu]\nlink_width = 17\n", "t.conf:2: gpu.link_width: '17' is not a PCIe link width" },
		{ "[gpu]\nlink_width = 0\n", "t.conf:2: gpu.link_width: '0' is not a PCIe link width" },
		{ "[gpu]\nlink_speed = PCIe5\n",
		  "t.conf:2: gpu.link_speed: 'PCIe5' is not a PCIe generation" },
		{ "[gpu]\nlink_speed = Gen9\n", "t.conf:2: gpu.link_speed: 'Gen9' is not a PCIe generation" },
		{ "[gpu]\nlanes = 16\n", "t.conf:2: gpu.lanes: unknown setting in [gpu] (count, link_width, "
					 "link_speed, power_limit_w, nvlinks, nvlink_gbs, gpudirect_rdma, "
					 "gpudirect_switch, nvlink_fabric, firmware)" },
		{ "[gpu]\npower_limit_w = 700W\n",
		  "t.conf:2: gpu.power_limit_w: '700W' is not a power in whole watts (1-100000)" },
		{ "[gpu]\npower_limit_w = 0\n", "t.conf:2: gpu.power_limit_w: '0' is not a power" },
		{ "[gpu]\nnvlink_gbs = 26.562\n",
		  "t.conf:2: gpu.nvlink_gbs: '26.562' is not a link speed in whole GB/s" },
		{ "[gpu]\ngpudirect_rdma = on\n", "t.conf:2: gpu.gpudirect_rdma: 'on' is not yes or no" },
		{ "[gpu]\nnvlinks = many\n", "t.conf:2: gpu.nvlinks: 'many' is not a count" },
		{ "[ib]\nrate_gbps = 400G\n",
		  "t.conf:2: ib.rate_gbps: '400G' is not a port rate in whole Gb/s" },
		{ "[ib]\nrate_gbps = 0\n", "t.conf:2: ib.rate_gbps: '0' is not a port rate" },
		{ "[ib]\nlink_layer = IB\n", "t.conf:2: ib.link_layer: 'IB' is not InfiniBand or Ethernet" },
		{ "[ib]\nlink_downed_max = -1\n",
		  "t.conf:2: ib.link_downed_max: '-1' is not a count of errors" },
		{ "[ib]\nsymbol_error_max = 4294967296\n",
		  "t.conf:2: ib.symbol_error_max: '4294967296' is not a count of errors (0-4294967295)" },
		{ "[ib]\nspeed = NDR\n",
		  "t.conf:2: ib.speed: unknown setting in [ib] (ports, rate_gbps, link_layer" },
		{ "[gpu]\npower_limit_w = 700\npower_limit_w = 600\n",
		  "t.conf:3: gpu.power_limit_w: set twice" },
		{ "[nic]\nfabric = 8\nfabric_link_width = x16\n",
		  "t.conf:3: nic.fabric_link_width: 'x16' is not" },
		{ "[nvme]\ncount = 9 drives\n", "t.conf:2: nvme.count: '9 drives' is not a count" },
		{ "[fans]\ncount =\n", "t.conf:2: fans.count: '' is not a count" },
		{ "[psu]\nmin = 2\n", "t.conf:2: psu.min: unknown setting in [psu] (count)" },
		{ "[cpu]\nrated_mhz = 4 GHz\n",
		  "t.conf:2: cpu.rated_mhz: '4 GHz' is not a frequency in MHz" },
		{ "[cpu]\ngovernors = perf-ormance\n",
		  "t.conf:2: cpu.governors: 'perf-ormance' is not a cpufreq governor" },
		{ "[cpu]\ngovernors = ,\n", "t.conf:2: cpu.governors: empty list" },
		{ "[clock]\nmax_skew = 1 minute\n",
		  "t.conf:2: clock.max_skew: '1 minute' is not a duration" },
		{ "[time_limits]\nvalidate = 8d\n",
		  "t.conf:2: time_limits.validate: '8d' is not a duration" },
		{ "[time_limits]\nvalidate = 200h\n",
		  "t.conf:2: time_limits.validate: '200h' is not a duration" },
		{ "[time_limits]\ncommissioning = soon\n",
		  "t.conf:2: time_limits.commissioning: 'soon' is not a duration" },
		{ "[time_limits]\ndeployment = -5\n",
		  "t.conf:2: time_limits.deployment: '-5' is not a duration" },
		{ "[time_limits]\nvalidation = 0\n", "t.conf:2: time_limits.validation: a time limit of 0" },
		{ "[time_limits]\nvalidation = 1m\nvalidate = 2m\n",
		  "t.conf:3: time_limits.validate: set twice" },
		{ "[reprovision]\nerase = wipe\n",
		  "t.conf:2: reprovision.erase: 'wipe' is not no, yes, quick or secure" },
		{ "[lifecycle]\nmax_attempts = 0\n",
		  "t.conf:2: lifecycle.max_attempts: '0' is not a number of attempts of 1-100" },
		{ "[lifecycle]\nmax_attempts = three\n",
		  "t.conf:2: lifecycle.max_attempts: 'three' is not a number of attempts" },
		{ "[lifecycle]\nmax_tries = 3\n",
		  "t.conf:2: lifecycle.max_tries: unknown setting in [lifecycle] (max_attempts)" },
		{ "[time_limits]\ncomissioning = 1m\n",
		  "t.conf:2: time_limits.comissioning: unknown setting in [time_limits]" },
		{ "[system]\nmodel =\n", "t.conf:2: system.model: empty value" },
		{ "[gate]\nrequired = pcie, th/ermal\n",
		  "t.conf:2: gate.required: 'th/ermal' is not a check name" },
		{ "[gate]\nrequired = ,\n", "t.conf:2: gate.required: empty list" },
		{ "[gpus]\ncount = 8\n", "t.conf:1: unknown section [gpus] ([system] [gpu]" },
		{ "count = 8\n", "t.conf:1: count: outside a section" },
		{ "[gpu]\ncount 8\n", "t.conf:2: expected '[section]' or 'name = value'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct prof_profile p;
		struct br_err err;

		assert_int_equal(parse(cases[i].text, PROF_FILE_HARDWARE, &p, &err), BR_E_INVAL);
		if (!strstr(err.msg, cases[i].want))
			fail_msg("case %zu: '%s' not in '%s'", i, cases[i].want, err.msg);
		prof_release(&p);
	}
}

static void test_duration(void **state)
{
	int64_t ms = -1;

	assert_int_equal(prof_parse_duration_ms("30", &ms), 0);
	assert_int_equal(ms, 30000);
	assert_int_equal(prof_parse_duration_ms("250ms", &ms), 0);
	assert_int_equal(ms, 250);
	assert_int_equal(prof_parse_duration_ms("2h", &ms), 0);
	assert_int_equal(ms, 7200000);
	assert_int_equal(prof_parse_duration_ms("168h", &ms), 0);
	assert_int_equal(prof_parse_duration_ms("169h", &ms), BR_E_INVAL);
	assert_int_equal(prof_parse_duration_ms("-1s", &ms), BR_E_INVAL);
	assert_int_equal(prof_parse_duration_ms("1.5s", &ms), BR_E_INVAL);
	assert_int_equal(prof_parse_duration_ms("", &ms), BR_E_INVAL);
	assert_int_equal(prof_parse_duration_ms("99999999999999999999s", &ms), BR_E_INVAL);
}

/* The boot-disk file: clauses in order, outside any section. */
static void test_boot_disk_parse(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "# c\nlargest = NVMe\n",
		  "t.conf:2: largest: unknown clause (model_contains, smallest, volume)" },
		{ "model_contains = BOSS\nsmallest =\n", "t.conf:2: smallest: empty value" },
		{ "[disk]\nsmallest = NVMe\n", "t.conf:1: unknown section [disk] (none: clauses only)" },
		{ "smallest NVMe\n", "t.conf:1: expected '[section]' or 'name = value'" },
	};
	struct prof_profile p;
	struct br_err err;

	assert_int_equal(
	    parse("# the OS disk\nmodel_contains = BOSS\nsmallest = NVMe\nmodel_contains = M.2\n",
		  PROF_FILE_BOOT_DISK, &p, &err),
	    0);
	assert_int_equal(p.n_boot_disk, 3);
	assert_int_equal(p.boot_disk[0].kind, PROF_DISK_MODEL_CONTAINS);
	assert_string_equal(p.boot_disk[0].value, "BOSS");
	assert_int_equal(p.boot_disk[1].kind, PROF_DISK_SMALLEST);
	assert_string_equal(p.boot_disk[1].value, "NVMe");
	assert_string_equal(p.boot_disk[2].value, "M.2");
	prof_release(&p);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(cases[i].text, PROF_FILE_BOOT_DISK, &p, &err), BR_E_INVAL);
		if (!strstr(err.msg, cases[i].want))
			fail_msg("case %zu: '%s' not in '%s'", i, cases[i].want, err.msg);
		prof_release(&p);
	}
}

/* A site profile of the same name is the one loaded (bringup.conf's
 * [templates] site_profiles); a name the site lacks is the shipped one. */
static void test_site_profile_first(void **state)
{
	const char *top = getenv("BR_TOP");
	char site[] = "/tmp/br-unit-site.XXXXXX", *dir, *shipped, *file;
	struct prof_profile p;
	struct br_err err = { 0 };
	FILE *f;

	(void)state;
	if (!top)
		top = ".";
	shipped = br_xasprintf("%s/templates", top);
	assert_non_null(mkdtemp(site));
	dir = br_xasprintf("%s/xe9680", site);
	assert_int_equal(mkdir(dir, 0755), 0);
	file = br_xasprintf("%s/bios.conf", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("[bios]\nSiteOnlyAttribute = Enabled\n", f);
	fclose(f);
	setenv("BRINGUP_SITE_PROFILES", site, 1);
	assert_int_equal(stg_profile_load(shipped, "xe9680", &p, &err), 0);
	assert_int_equal(p.n_bios, 1);
	assert_string_equal(p.bios[0].key, "SiteOnlyAttribute");
	prof_release(&p);
	free(stg_profile_dir(shipped, "xe9680")); /* no leak either way */
	assert_int_equal(stg_profile_load(shipped, "sr675v3", &p, &err), 0);
	assert_true(p.n_bios > 1); /* the shipped one */
	prof_release(&p);
	unsetenv("BRINGUP_SITE_PROFILES");
	unlink(file);
	rmdir(dir);
	rmdir(site);
	free(file);
	free(dir);
	free(shipped);
}

/* The shipped xe9680 profile loads, and an unknown one is refused. */
static void test_profile_load(void **state)
{
	const char *top = getenv("BR_TOP");
	char *dir = NULL;
	struct prof_profile p;
	struct br_err err = { 0 };

	if (!top)
		top = ".";
	dir = br_xasprintf("%s/templates", top);
	assert_int_equal(prof_load(dir, "xe9680", &p, &err), 0);
	assert_true(p.n_bios >= 8);
	assert_string_equal(p.pxe_nic, "NIC.Embedded.1-1-1");
	assert_int_equal(p.boot_mode, PROF_BOOT_PERSISTENT);
	assert_true(p.n_firmware >= 3);
	assert_non_null(strstr(p.boot_disk_file, "profiles/xe9680/boot-disk"));
	assert_int_equal(p.n_boot_disk, 3);
	assert_int_equal(p.boot_disk[1].kind, PROF_DISK_VOLUME);
	assert_string_equal(p.boot_disk[1].value, "RAID1");
	/* hardware.conf describes the rack the simulator serves */
	assert_string_equal(p.hw.model, "PowerEdge XE9680");
	assert_int_equal(p.hw.gpus, SIM_GPUS);
	assert_int_equal(p.hw.gpu_link.width, 16);
	assert_string_equal(p.hw.gpu_link.speed, "Gen5");
	/* the GPUs' VBIOS held to the firmware policy's HGX GPU rule */
	assert_string_equal(p.hw.gpu_firmware, "GPU.SXM.*");
	assert_non_null(prof_fw_rule(&p, p.hw.gpu_firmware));
	assert_int_equal(p.hw.fabric_nics, SIM_FABRIC_NICS);
	assert_int_equal(p.hw.ethernet_nics, SIM_ETH_NICS);
	assert_int_equal(p.hw.nvme, SIM_DATA_DRIVES + 1); /* and the BOSS card */
	assert_int_equal(p.hw.fans, 12);		  /* the Dell machine's, sim/vendor.c's shapes */
	assert_int_equal(p.hw.psus, 6);
	assert_true(p.hw.cpu_rated_mhz > 2000); /* cpufreq_capped caps at 2.0 GHz */
	assert_string_equal(p.hw.governors.items[0], "performance");
	assert_true(p.hw.clock_skew_max_ms > 0);
	assert_true(p.hw.limits.validation_s > 0);
	assert_true(p.hw.limits.commissioning_s > 0 && p.hw.limits.deployment_s > 0);
	/* [gate] required: names and patterns, in file order */
	assert_true(p.hw.gate_required.n >= 12);
	assert_string_equal(p.hw.gate_required.items[0], "cabling");
	assert_string_equal(p.hw.gate_required.items[p.hw.gate_required.n - 1], "firmware:*");
	prof_release(&p);
	assert_int_equal(prof_load(dir, "nosuch", &p, &err), BR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "profile 'nosuch'"));
	assert_int_equal(prof_load(dir, "../etc", &p, &err), BR_E_INVAL);
	free(dir);
}

/* A broken optional file stops the load with its FILE:LINE. */
static void test_profile_load_errors(void **state)
{
	char dir[] = "/tmp/br-prof-XXXXXX";
	char *path, *fw_path;
	struct prof_profile p;
	struct br_err err = { 0 };
	FILE *f;

	assert_non_null(mkdtemp(dir));
	path = br_xasprintf("%s/profiles", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	free(path);
	path = br_xasprintf("%s/profiles/t", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	free(path);
	path = br_xasprintf("%s/profiles/t/bios.conf", dir);
	f = fopen(path, "w");
	fputs("[bios]\nBootMode = Uefi\n", f);
	fclose(f);
	free(path);
	assert_int_equal(prof_load(dir, "t", &p, &err), 0);
	assert_null(p.boot_disk_file);
	assert_int_equal(p.hw.gpus, -1);
	/* A profile with no hardware.conf can prove nothing: it promotes nothing. */
	assert_int_equal(prof_check_provable(&p, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg,
			       "/profiles/t/hardware.conf: no such file: [gpu] count, [nic] fabric "
			       "or ethernet, [nvme] count, [psu] count, [clock] max_skew not stated"));
	prof_release(&p);
	path = br_xasprintf("%s/profiles/t/hardware.conf", dir);
	f = fopen(path, "w");
	fputs("[gpu]\ncount = 0\n[nic]\nethernet = 2\n[psu]\ncount = 2\n[gate]\noptional = clock\n", f);
	fclose(f);
	assert_int_equal(prof_load(dir, "t", &p, &err), 0);
	assert_string_equal(p.hw.gate_optional.items[0], "clock");
	assert_int_equal(prof_check_provable(&p, &err), BR_E_INVAL);
	assert_non_null(
	    strstr(err.msg, "/profiles/t/hardware.conf: [nvme] count, [clock] max_skew not stated"));
	prof_release(&p);
	f = fopen(path, "w");
	fputs("[gpu]\ncount = 0\n[nic]\nethernet = 2\n[nvme]\ncount = 1\n[psu]\ncount = 2\n"
	      "[clock]\nmax_skew = 1s\n",
	      f);
	fclose(f);
	assert_int_equal(prof_load(dir, "t", &p, &err), 0);
	assert_int_equal(prof_check_provable(&p, &err), 0);
	prof_release(&p);
	/* An InfiniBand fabric cannot be optional: its judgement must block. */
	f = fopen(path, "w");
	fputs("[gpu]\ncount = 0\n[nic]\nethernet = 2\n[nvme]\ncount = 1\n[psu]\ncount = 2\n"
	      "[clock]\nmax_skew = 1s\n[ib]\nports = 1\nlink_layer = InfiniBand\n[gate]\noptional = fab*\n",
	      f);
	fclose(f);
	assert_int_equal(prof_load(dir, "t", &p, &err), 0);
	assert_int_equal(prof_check_provable(&p, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg,
			       "/profiles/t/hardware.conf: [gate] optional = fab* with [ib] link_layer = "
			       "InfiniBand: the fabric of an InfiniBand node must be proven"));
	prof_release(&p);
	/* [gpu] firmware names a component of a firmware.conf there is none of */
	f = fopen(path, "w");
	fputs("[gpu]\ncount = 8\nfirmware = GPU.SXM.*\n", f);
	fclose(f);
	assert_int_equal(prof_load(dir, "t", &p, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "/profiles/t/hardware.conf:3: gpu.firmware: 'GPU.SXM.*' is no "
					"component of firmware.conf's [firmware] (the GPUs' VBIOS minimum"));
	/* [ib] firmware names a component firmware.conf has no rule for (a
	 * typo of NIC.Slot.*): refused with the file, its line and the field */
	fw_path = br_xasprintf("%s/profiles/t/firmware.conf", dir);
	f = fopen(fw_path, "w");
	fputs("[firmware]\nNIC.Slot.* = 28.39.1002\n", f);
	fclose(f);
	f = fopen(path, "w");
	fputs("[gpu]\ncount = 8\n[ib]\nports = 8\n\nfirmware = NIC.Slots.*\n", f);
	fclose(f);
	assert_int_equal(prof_load(dir, "t", &p, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "/profiles/t/hardware.conf:6: ib.firmware: 'NIC.Slots.*' is no "
					"component of firmware.conf's [firmware] (the HCAs' minimum"));
	/* ... and loads once it names the policy's component */
	f = fopen(path, "w");
	fputs("[gpu]\ncount = 8\n[ib]\nports = 8\n\nfirmware = NIC.Slot.*\n", f);
	fclose(f);
	assert_int_equal(prof_load(dir, "t", &p, &err), 0);
	assert_string_equal(p.hw.ib_firmware, "NIC.Slot.*");
	assert_non_null(prof_fw_rule(&p, p.hw.ib_firmware));
	prof_release(&p);
	unlink(fw_path);
	free(fw_path);
	f = fopen(path, "w");
	fputs("[gpu]\ncount = 8\nlink_width = 12\n", f);
	fclose(f);
	assert_int_equal(prof_load(dir, "t", &p, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "/profiles/t/hardware.conf:3: gpu.link_width: '12'"));
	unlink(path);
	free(path);
	path = br_xasprintf("%s/profiles/t/boot-disk", dir);
	f = fopen(path, "w");
	fputs("biggest = any\n", f);
	fclose(f);
	assert_int_equal(prof_load(dir, "t", &p, &err), BR_E_INVAL);
	assert_non_null(strstr(err.msg, "/profiles/t/boot-disk:1: biggest: unknown clause"));
	unlink(path);
	free(path);
	path = br_xasprintf("%s/profiles/t/bios.conf", dir);
	unlink(path);
	free(path);
	path = br_xasprintf("%s/profiles/t", dir);
	rmdir(path);
	free(path);
	path = br_xasprintf("%s/profiles", dir);
	rmdir(path);
	free(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bios_ok),
		cmocka_unit_test(test_bios_errors),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_firmware_parse),
		cmocka_unit_test(test_hardware_ok),
		cmocka_unit_test(test_hardware_errors),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_boot_disk_parse),
		cmocka_unit_test(test_profile_load),
		cmocka_unit_test(test_profile_load_errors),
		cmocka_unit_test(test_site_profile_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
