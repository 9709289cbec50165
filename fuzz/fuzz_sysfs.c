/* The probe's sysfs and procfs readers (validators val_probe_run over a
 * sysroot): CPU and cpufreq, hwmon and thermal zones, InfiniBand ports,
 * NVMe controllers and block devices, mountinfo, PCI attributes and config
 * space through libpci's sysfs access, the RTC, DMI.
 *
 * Each process builds one small tree (FUZZ_FILES below, a node's shape)
 * in a temporary directory; an input is split at NUL bytes and its i-th
 * piece becomes the i-th file's content (files past the last piece keep
 * their seed content; the last file, PCI config space, takes all that is
 * left), then the whole probe reads the tree as it would a node's. */
#include <errno.h>
#include <sys/stat.h>

#include "fuzz/fuzz.h"

#include "common.h"
#include "validators/validators.h"

struct fuzz_file {
	const char *path, *seed;
};

#define PCI "sys/bus/pci/devices/0000:00:06.0/"
#define CPU "sys/devices/system/cpu/cpu0/cpufreq/"
#define IB "sys/class/infiniband/mlx5_0/ports/1/"

static const struct fuzz_file files[] = {
	{ "proc/self/mountinfo", "25 1 259:2 / / rw,relatime - ext4 /dev/nvme0n1p2 rw\n" },
	{ "proc/cpuinfo", "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n\n" },
	{ CPU "scaling_governor", "performance\n" },
	{ CPU "scaling_max_freq", "3800000\n" },
	{ CPU "cpuinfo_max_freq", "3800000\n" },
	{ CPU "scaling_cur_freq", "2000000\n" },
	{ "sys/devices/system/cpu/online", "0\n" },
	{ "sys/devices/system/cpu/intel_pstate/no_turbo", "0\n" },
	{ "sys/class/hwmon/hwmon0/name", "coretemp\n" },
	{ "sys/class/hwmon/hwmon0/temp1_input", "45000\n" },
	{ "sys/class/hwmon/hwmon0/temp1_label", "Package id 0\n" },
	{ "sys/class/hwmon/hwmon0/fan1_input", "9000\n" },
	{ "sys/class/thermal/thermal_zone0/temp", "44000\n" },
	{ "sys/class/thermal/thermal_zone0/type", "x86_pkg_temp\n" },
	{ IB "state", "4: ACTIVE\n" },
	{ IB "phys_state", "5: LinkUp\n" },
	{ IB "rate", "400 Gb/sec (4X NDR)\n" },
	{ IB "lid", "0x12\n" },
	{ "sys/class/nvme/nvme0/serial", "S6EYNA0T123456\n" },
	{ "sys/class/nvme/nvme0/model", "Dell Ent NVMe CM6 RI 1.92TB\n" },
	{ "sys/class/nvme/nvme0/firmware_rev", "2.1.8\n" },
	{ "sys/block/nvme0n1/dev", "259:0\n" },
	{ "sys/block/nvme0n1/size", "3750748848\n" },
	{ "sys/block/nvme0n1/nvme0n1p2/partition", "2\n" },
	{ PCI "vendor", "0x10de\n" },
	{ PCI "device", "0x2335\n" },
	{ PCI "class", "0x030200\n" },
	{ PCI "current_link_speed", "32.0 GT/s PCIe\n" },
	{ PCI "current_link_width", "16\n" },
	{ PCI "max_link_speed", "32.0 GT/s PCIe\n" },
	{ PCI "max_link_width", "16\n" },
	{ PCI "numa_node", "0\n" },
	{ "sys/class/rtc/rtc0/since_epoch", "1796050000\n" },
	{ "sys/class/dmi/id/product_name", "PowerEdge XE9680\n" },
	{ "proc/sys/kernel/hostname", "gpu-r01-u03\n" },
	/* last: binary, so it takes the rest of the input, NULs and all;
	 * libpci reads the device's config space from it */
	{ PCI "config", "" },
};

#define N_FILES (sizeof(files) / sizeof(files[0]))

static char root[64];

static void mkdirs(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof buf, "%s", path);
	for (char *s = buf + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(buf, 0755) && errno != EEXIST)
				abort();
			*s = '/';
		}
}

static void put(const char *rel, const void *data, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	mkdirs(path);
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (len && fwrite(data, 1, len, f) != len)
		abort();
	if (fclose(f) != 0)
		abort();
}

static void remove_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_sysfs: could not remove %s\n", root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct val_probe_opts opts = { 0 };
	struct br_err err = { 0 };
	size_t at = 0;
	json_t *doc = NULL;

	if (!root[0]) {
		const char *dir = getenv("TMPDIR");

		snprintf(root, sizeof root, "%s/brfuzz-sysfs-XXXXXX", dir && strlen(dir) < 32 ? dir : "/tmp");
		if (!mkdtemp(root))
			abort();
		atexit(remove_root);
	}
	for (size_t i = 0; i < N_FILES; i++) {
		const uint8_t *end = at < size ? memchr(data + at, 0, size - at) : NULL;

		if (at < size) {
			size_t len = end && i + 1 < N_FILES ? (size_t)(end - (data + at)) : size - at;

			put(files[i].path, data + at, len);
			at += len + 1;
		} else {
			put(files[i].path, files[i].seed, strlen(files[i].seed));
		}
	}
	opts.root = root;
	if (val_probe_run(&opts, &doc, &err) == 0)
		json_decref(doc);
	return 0;
}
