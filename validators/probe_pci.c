/* PCIe facts: identity and topology from sysfs, link capability and status
 * from the Express capability through libpci (sysfs or an `lspci -xxxx`
 * dump), and the kernel's own link attributes beside them. A narrow link is
 * only actionable with the bridge above it (the slot, riser or cable to
 * reseat), so every device names its upstream bridge. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pci/pci.h>

#include "probe_private.h"

#define VAL_PCI_WARNINGS_MAX 64
#define VAL_PCI_CONFIG_MAX 4096		    /* PCIe extended config space */
#define VAL_PCI_DUMP_MAX (64 * 1024 * 1024) /* -xxxx is ~16 KiB a device: 4096 devices */

/* libpci's error callback must not return (it is declared noreturn and the
 * library's callers assume it exits). The probe must not exit on a bad dump
 * or a strange sysfs tree, so the callback jumps back to the guarded call.
 * One probe runs at a time per process, so file scope is enough. */
static jmp_buf pci_guard;
static char pci_fail_msg[512];
static json_t *pci_warnings;

static void pci_fail(char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void pci_fail(char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pci_fail_msg, sizeof(pci_fail_msg), fmt, ap);
	va_end(ap);
	longjmp(pci_guard, 1);
}

static void pci_warn(char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void pci_warn(char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (pci_warnings && json_array_size(pci_warnings) < VAL_PCI_WARNINGS_MAX)
		json_array_append_new(pci_warnings, json_string(msg));
}

static void pci_quiet(char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void pci_quiet(char *fmt, ...)
{
	(void)fmt;
}

/* pci_init + pci_scan_bus under the guard; 0 or -1 with pci_fail_msg. */
static int pci_open_guarded(struct pci_access *pacc)
{
	if (setjmp(pci_guard))
		return -1;
	pci_init(pacc);
	pci_scan_bus(pacc);
	return 0;
}

static struct pci_cap *find_express_guarded(struct pci_dev *d)
{
	if (setjmp(pci_guard))
		return NULL;
	return pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
}

double val_pcie_speed_gts(unsigned code)
{
	static const double gts[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };

	return code < sizeof(gts) / sizeof(gts[0]) ? gts[code] : 0;
}

static json_t *speed_json(unsigned code)
{
	double g = val_pcie_speed_gts(code);

	return g > 0 ? json_real(g) : json_null();
}

static const char *port_type_name(unsigned type)
{
	switch (type) {
	case PCI_EXP_TYPE_ENDPOINT:
		return "endpoint";
	case PCI_EXP_TYPE_LEG_END:
		return "legacy_endpoint";
	case PCI_EXP_TYPE_ROOT_PORT:
		return "root_port";
	case PCI_EXP_TYPE_UPSTREAM:
		return "switch_upstream";
	case PCI_EXP_TYPE_DOWNSTREAM:
		return "switch_downstream";
	case PCI_EXP_TYPE_PCI_BRIDGE:
		return "pcie_to_pci_bridge";
	case PCI_EXP_TYPE_PCIE_BRIDGE:
		return "pci_to_pcie_bridge";
	case PCI_EXP_TYPE_ROOT_INT_EP:
		return "root_complex_integrated_endpoint";
	case PCI_EXP_TYPE_ROOT_EC:
		return "root_complex_event_collector";
	default:
		return "unknown";
	}
}

/* The Express capability's link registers. LnkCap2 exists from capability
 * version 2; its vector says which speeds the port supports at all. */
static json_t *express_json(struct pci_dev *d, struct pci_cap *cap)
{
	unsigned flags = pci_read_word(d, cap->addr + PCI_EXP_FLAGS);
	unsigned version = flags & PCI_EXP_FLAGS_VERS;
	unsigned type = (flags & PCI_EXP_FLAGS_TYPE) >> 4;
	u32 devcap = pci_read_long(d, cap->addr + PCI_EXP_DEVCAP);
	u32 lnkcap = pci_read_long(d, cap->addr + PCI_EXP_LNKCAP);
	unsigned lnksta = pci_read_word(d, cap->addr + PCI_EXP_LNKSTA);
	json_t *ex, *speeds = json_array();

	ex = json_pack(
	    "{s:s, s:i, s:i, s:{s:o, s:i, s:i, s:i}, s:{s:o, s:i, s:i}}", "port_type", port_type_name(type),
	    "cap_version", (int)version, "max_payload_bytes", 128 << (devcap & PCI_EXP_DEVCAP_PAYLOAD),
	    "link_cap", "speed_gts", speed_json(lnkcap & PCI_EXP_LNKCAP_SPEED), "speed_code",
	    (int)(lnkcap & PCI_EXP_LNKCAP_SPEED), "width", (int)((lnkcap & PCI_EXP_LNKCAP_WIDTH) >> 4),
	    "port", (int)(lnkcap >> 24), "link_status", "speed_gts",
	    speed_json(lnksta & PCI_EXP_LNKSTA_SPEED), "speed_code", (int)(lnksta & PCI_EXP_LNKSTA_SPEED),
	    "width", (int)((lnksta & PCI_EXP_LNKSTA_WIDTH) >> 4));
	if (version >= 2) {
		u32 lnkcap2 = pci_read_long(d, cap->addr + PCI_EXP_LNKCAP2);
		unsigned vec = PCI_EXP_LNKCAP2_SPEED(lnkcap2);

		for (unsigned bit = 0; bit < 7; bit++)
			if (vec & (1u << bit))
				json_array_append_new(speeds, speed_json(bit + 1));
	}
	json_object_set_new(ex, "link_cap2_speeds_gts", speeds);
	if (flags & PCI_EXP_FLAGS_SLOT) {
		u32 sltcap = pci_read_long(d, cap->addr + PCI_EXP_SLTCAP);

		json_object_set_new(ex, "physical_slot", json_integer((sltcap & PCI_EXP_SLTCAP_PSN) >> 19));
	}
	return ex;
}

/* "32.0 GT/s PCIe" (newer kernels), "8 GT/s" (older), "Unknown". */
static json_t *sysfs_speed_gts(const char *s)
{
	char *end = NULL;
	double v;

	if (!s)
		return json_null();
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0 || strncmp(end, " GT/s", 5) != 0)
		return json_null();
	return json_real(v);
}

static json_t *sysfs_link(struct val_probe *p, const char *dir)
{
	static const char *const names[] = { "current_link_speed", "current_link_width", "max_link_speed",
					     "max_link_width" };
	json_t *link = json_object();
	int any = 0;

	for (size_t i = 0; i < 4; i++) {
		char *rel = br_xasprintf("%s/%s", dir, names[i]);
		char *s = NULL;

		/* Conventional PCI devices have no link attributes: absent is normal. */
		if (val_read_attr(p, rel, 1, &s) == 0) {
			any = 1;
			if (i % 2 == 0) {
				json_object_set_new(link, names[i], json_string(s));
				json_object_set_new(link, i == 0 ? "current_speed_gts" : "max_speed_gts",
						    sysfs_speed_gts(s));
			} else {
				long w;

				json_object_set_new(link, names[i],
						    br_parse_long(s, 0, 64, &w) ? json_null()
										: json_integer(w));
			}
		}
		free(s);
		free(rel);
	}
	if (!any) {
		json_decref(link);
		return json_null();
	}
	return link;
}

/* The parent directory in the kernel's device tree: a bridge's BDF, or the
 * host bridge ("pci0000:00") for a device on a root bus. */
static json_t *sysfs_upstream(struct val_probe *p, const char *dir)
{
	char *real = val_realpath(p, dir);
	json_t *up = json_null();

	if (real) {
		char *slash = strrchr(real, '/');
		unsigned dom, bus, dev, fn;
		char tail;

		if (slash) {
			*slash = '\0';
			slash = strrchr(real, '/');
			if (slash && sscanf(slash + 1, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) == 4)
				up = json_string(slash + 1);
		}
		free(real);
	}
	return up;
}

static json_t *sysfs_driver(struct val_probe *p, const char *dir)
{
	char *rel = br_xasprintf("%s/driver", dir);
	char target[PATH_MAX];
	ssize_t n = val_readlink(p, rel, target, sizeof(target) - 1);
	json_t *drv = json_null();

	if (n > 0) {
		char *base;

		target[n] = '\0';
		base = strrchr(target, '/');
		drv = json_string(base ? base + 1 : target);
	}
	free(rel);
	return drv;
}

/* /sys/bus/pci/slots/NAME/address is "DDDD:BB:DD": the device in that slot. */
static json_t *sysfs_slots(struct val_probe *p)
{
	json_t *slots = json_object();
	char **names;
	size_t n;

	if (val_list_dir(p, "/sys/bus/pci/slots", NULL, &names, &n))
		return slots;
	for (size_t i = 0; i < n; i++) {
		char *rel = br_xasprintf("/sys/bus/pci/slots/%s/address", names[i]);
		char *addr = NULL;

		if (val_read_attr(p, rel, 1, &addr) == 0 && addr[0])
			json_object_set_new(slots, addr, json_string(names[i]));
		free(addr);
		free(rel);
	}
	val_names_free(names, n);
	return slots;
}

static json_t *slot_of(json_t *slots, const char *bdf)
{
	const char *dot = strrchr(bdf, '.');
	char key[32];

	if (!dot || (size_t)(dot - bdf) >= sizeof(key))
		return json_null();
	memcpy(key, bdf, (size_t)(dot - bdf));
	key[dot - bdf] = '\0';
	{
		json_t *name = json_object_get(slots, key);

		return name ? json_incref(name) : json_null();
	}
}

/* One merged view for rules: the Express registers when readable (the
 * device's own word), else the kernel's attributes; and whether they agree. */
static json_t *merged_link(json_t *ex, json_t *sys)
{
	json_t *cur_w = NULL, *max_w = NULL, *cur_s = NULL, *max_s = NULL;
	const char *source;
	json_t *link;

	if (json_is_object(ex)) {
		source = "libpci";
		cur_w = json_object_get(json_object_get(ex, "link_status"), "width");
		max_w = json_object_get(json_object_get(ex, "link_cap"), "width");
		cur_s = json_object_get(json_object_get(ex, "link_status"), "speed_gts");
		max_s = json_object_get(json_object_get(ex, "link_cap"), "speed_gts");
	} else if (json_is_object(sys)) {
		source = "sysfs";
		cur_w = json_object_get(sys, "current_link_width");
		max_w = json_object_get(sys, "max_link_width");
		cur_s = json_object_get(sys, "current_speed_gts");
		max_s = json_object_get(sys, "max_speed_gts");
	} else {
		return json_null();
	}
	link = json_pack("{s:s, s:O?, s:O?, s:O?, s:O?}", "source", source, "width_current", cur_w,
			 "width_max", max_w, "speed_current_gts", cur_s, "speed_max_gts", max_s);
	if (json_is_object(ex) && json_is_object(sys)) {
		int agree = json_equal(cur_w, json_object_get(sys, "current_link_width")) &&
			    json_equal(max_w, json_object_get(sys, "max_link_width")) &&
			    json_equal(cur_s, json_object_get(sys, "current_speed_gts")) &&
			    json_equal(max_s, json_object_get(sys, "max_speed_gts"));

		json_object_set_new(link, "sysfs_agrees", json_boolean(agree));
	}
	return link;
}

static int parse_bdf(const char *s, int *dom, int *bus, int *dev, int *fn)
{
	unsigned a, b, c, d;
	char tail;

	if (sscanf(s, "%x:%x:%x.%x%c", &a, &b, &c, &d, &tail) != 4 || a > 0xffff || b > 0xff || c > 0x1f ||
	    d > 7)
		return -1;
	*dom = (int)a;
	*bus = (int)b;
	*dev = (int)c;
	*fn = (int)d;
	return 0;
}

/* Express capability through libpci, or null with the reason noted. */
static json_t *device_express(struct val_probe *p, struct pci_access *pacc, const char *bdf, int sysfs)
{
	struct pci_dev *d = NULL;
	struct pci_cap *cap;
	int dom, bus, dev, fn;

	if (parse_bdf(bdf, &dom, &bus, &dev, &fn))
		return json_null();
	for (struct pci_dev *it = pacc->devices; it; it = it->next)
		if (it->domain == dom && it->bus == bus && it->dev == dev && it->func == fn)
			d = it;
	if (!d)
		return json_null();
	if (sysfs) {
		/* The kernel gives non-root readers only the first 64 bytes of
		 * config space, and libpci then reads 0xff past them: the link
		 * registers would be garbage. Only a full header is trusted. */
		char *rel = br_xasprintf("/sys/bus/pci/devices/%s/config", bdf);
		char *config = NULL;
		size_t len = 0;
		int ok = val_read_whole(p, rel, VAL_PCI_CONFIG_MAX, &config, &len) == 0;

		if (ok && len < 256) {
			char *path = val_path(p, rel);
			char *why = br_xasprintf(
			    "unreadable: only %zu bytes of config space (reading all of it needs root)", len);

			val_note(p, path, why);
			free(why);
			free(path);
			ok = 0;
		}
		free(config);
		free(rel);
		if (!ok)
			return json_null();
	}
	cap = find_express_guarded(d);
	if (!cap)
		return json_null();
	return express_json(d, cap);
}

static json_t *sysfs_device(struct val_probe *p, struct pci_access *pacc, json_t *slots, const char *bdf)
{
	char *dir = br_xasprintf("/sys/bus/pci/devices/%s", bdf);
	char *rel;
	json_t *dev, *ex, *sys;

	dev = json_pack("{s:s}", "bdf", bdf);
#define ATTR(name, optional)                                                                                 \
	rel = br_xasprintf("%s/" name, dir);                                                                 \
	json_object_set_new(dev, name, val_attr_json(p, rel, optional));                                     \
	free(rel)
	ATTR("vendor", 0);
	ATTR("device", 0);
	ATTR("class", 0);
	ATTR("subsystem_vendor", 1);
	ATTR("subsystem_device", 1);
#undef ATTR
	rel = br_xasprintf("%s/numa_node", dir);
	json_object_set_new(dev, "numa_node", val_attr_int(p, rel, 1));
	free(rel);
	json_object_set_new(dev, "slot", slot_of(slots, bdf));
	json_object_set_new(dev, "upstream", sysfs_upstream(p, dir));
	json_object_set_new(dev, "driver", sysfs_driver(p, dir));
	ex = pacc ? device_express(p, pacc, bdf, 1) : json_null();
	sys = sysfs_link(p, dir);
	json_object_set_new(dev, "link", merged_link(ex, sys));
	json_object_set_new(dev, "express", ex);
	json_object_set_new(dev, "sysfs_link", sys);
	free(dir);
	return dev;
}

static json_t *dump_device(struct pci_dev *d, struct pci_access *pacc, json_t *bridges)
{
	char bdf[16], key[8], hex[16];
	unsigned class = (unsigned)pci_read_long(d, PCI_CLASS_REVISION) >> 8;
	json_t *dev, *ex;
	struct pci_cap *cap;

	snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%u", (unsigned)d->domain, d->bus, d->dev, d->func);
	dev = json_pack("{s:s}", "bdf", bdf);
	snprintf(hex, sizeof(hex), "0x%04x", pci_read_word(d, PCI_VENDOR_ID));
	json_object_set_new(dev, "vendor", json_string(hex));
	snprintf(hex, sizeof(hex), "0x%04x", pci_read_word(d, PCI_DEVICE_ID));
	json_object_set_new(dev, "device", json_string(hex));
	snprintf(hex, sizeof(hex), "0x%06x", class);
	json_object_set_new(dev, "class", json_string(hex));
	json_object_set_new(dev, "numa_node", json_null());
	json_object_set_new(dev, "slot", json_null());
	/* A dump has no tree: the bridge whose secondary bus this device sits on. */
	snprintf(key, sizeof(key), "%04x:%02x", (unsigned)d->domain, d->bus);
	json_object_set(dev, "upstream",
			json_object_get(bridges, key) ? json_object_get(bridges, key) : json_null());
	(void)pacc;
	cap = find_express_guarded(d);
	ex = cap ? express_json(d, cap) : json_null();
	json_object_set_new(dev, "link", merged_link(ex, NULL));
	json_object_set_new(dev, "express", ex);
	json_object_set_new(dev, "sysfs_link", json_null());
	return dev;
}

/* Secondary bus -> bridge BDF, from type-1 headers. */
static json_t *bridge_map(struct pci_access *pacc)
{
	json_t *map = json_object();

	for (struct pci_dev *d = pacc->devices; d; d = d->next) {
		char key[8], bdf[16];

		if ((pci_read_byte(d, PCI_HEADER_TYPE) & 0x7f) != PCI_HEADER_TYPE_BRIDGE)
			continue;
		snprintf(key, sizeof(key), "%04x:%02x", (unsigned)d->domain,
			 pci_read_byte(d, PCI_SECONDARY_BUS));
		snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%u", (unsigned)d->domain, d->bus, d->dev, d->func);
		json_object_set_new(map, key, json_string(bdf));
	}
	return map;
}

static int dev_cmp(const void *a, const void *b)
{
	const struct pci_dev *x = *(struct pci_dev *const *)a, *y = *(struct pci_dev *const *)b;

	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->bus != y->bus)
		return x->bus < y->bus ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (int)x->func - (int)y->func;
}

static void dump_devices(struct pci_access *pacc, json_t *devices, json_t *section)
{
	json_t *bridges = bridge_map(pacc);
	struct pci_dev **list = NULL;
	size_t n = 0;

	for (struct pci_dev *d = pacc->devices; d && n < VAL_PCI_DEVICES_MAX; d = d->next) {
		list = br_xrealloc(list, (n + 1) * sizeof(*list));
		list[n++] = d;
	}
	if (n)
		qsort(list, n, sizeof(*list), dev_cmp);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(devices, dump_device(list[i], pacc, bridges));
	if (n == VAL_PCI_DEVICES_MAX)
		json_object_set_new(section, "truncated", json_true());
	free(list);
	json_decref(bridges);
}

static void sysfs_devices(struct val_probe *p, struct pci_access *pacc, json_t *devices, json_t *section)
{
	json_t *slots = sysfs_slots(p);
	char **names;
	size_t n;

	if (val_list_class(p, "/sys/bus/pci/devices", NULL, &names, &n)) {
		char *path = val_path(p, "/sys/bus/pci/devices");

		json_object_set_new(section, "status", json_string("absent"));
		json_object_set_new(section, "error", json_pack("s+", path, ": no PCI devices directory"));
		free(path);
		json_decref(slots);
		return;
	}
	for (size_t i = 0; i < n && i < VAL_PCI_DEVICES_MAX; i++)
		json_array_append_new(devices, sysfs_device(p, pacc, slots, names[i]));
	if (n > VAL_PCI_DEVICES_MAX)
		json_object_set_new(section, "truncated", json_true());
	val_names_free(names, n);
	json_decref(slots);
}

json_t *val_probe_pci(struct val_probe *p)
{
	const char *dump = p->opts->pci_dump;
	char *sysfs_path = val_path(p, "/sys/bus/pci");
	struct pci_access *pacc = pci_alloc();
	json_t *section, *devices = json_array();
	struct stat st;
	int opened;

	pci_warnings = json_array();
	pacc->error = pci_fail;
	pacc->warning = pci_warn;
	pacc->debug = pci_quiet;
	section = json_pack("{s:s, s:s, s:s}", "source", dump ? "dump" : "sysfs", "path",
			    dump ? dump : sysfs_path, "status", "ok");
	if (dump) {
		pacc->method = PCI_ACCESS_DUMP;
		pci_set_param(pacc, "dump.name", (char *)(uintptr_t)dump);
	} else {
		pacc->method = PCI_ACCESS_SYS_BUS_PCI;
		pci_set_param(pacc, "sysfs.path", sysfs_path);
	}
	/* libpci reports an unreadable dump through its fatal callback; a
	 * missing file is checked first so its message carries errno. */
	if (dump && (stat(dump, &st) != 0 || access(dump, R_OK) != 0)) {
		int why = errno;

		json_object_set_new(section, "status", json_string(why == ENOENT ? "absent" : "unreadable"));
		json_object_set_new(section, "error", json_pack("s++", dump, ": ", strerror(why)));
		val_note(p, dump, strerror(why));
		opened = -1;
	} else if (dump && st.st_size > VAL_PCI_DUMP_MAX) {
		/* libpci reads a dump whole into memory, one device at a time. */
		json_object_set_new(section, "status", json_string("too big"));
		json_object_set_new(section, "error",
				    json_pack("s+", dump, ": larger than VAL_PCI_DUMP_MAX"));
		val_note(p, dump, "too big");
		opened = -1;
	} else {
		opened = pci_open_guarded(pacc);
		if (opened) {
			json_object_set_new(section, "status",
					    json_string(dump ? "malformed" : "unreadable"));
			json_object_set_new(section, "error", json_pack("s+", "libpci: ", pci_fail_msg));
		}
	}
	if (dump) {
		if (!opened)
			dump_devices(pacc, devices, section);
	} else {
		sysfs_devices(p, opened ? NULL : pacc, devices, section);
	}
	json_object_set_new(section, "count", json_integer((json_int_t)json_array_size(devices)));
	json_object_set_new(section, "devices", devices);
	json_object_set_new(section, "libpci_warnings", pci_warnings);
	pci_warnings = NULL;
	pci_cleanup(pacc);
	free(sysfs_path);
	return section;
}
