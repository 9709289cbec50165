/* CPU frequency scaling, hwmon sensors and thermal zones, InfiniBand ports:
 * all plain sysfs attributes, read as the kernel prints them. */
#define _GNU_SOURCE
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_private.h"

#define VAL_CPUS_MAX 8192

static void set_attr(struct val_probe *p, json_t *obj, const char *key, const char *dir, const char *file,
		     int as_int, int optional)
{
	char *rel = br_xasprintf("%s/%s", dir, file);

	json_object_set_new(obj, key,
			    as_int ? val_attr_int(p, rel, optional) : val_attr_json(p, rel, optional));
	free(rel);
}

/* "model name : Intel(R) Xeon(R) ..." on x86; the value of the first
 * matching key, and the number of "processor" lines. */
static void cpuinfo(struct val_probe *p, json_t *section)
{
	static const char *const keys[] = { "model name", "Model", "cpu model", "CPU part" };
	char *text = NULL;
	size_t len = 0, processors = 0;
	json_t *model = NULL;

	if (val_read_whole(p, "/proc/cpuinfo", VAL_PROCFILE_MAX, &text, &len)) {
		json_object_set_new(section, "model", json_null());
		json_object_set_new(section, "processors", json_null());
		return;
	}
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n'), *colon;

		if (nl)
			*nl = '\0';
		if (strncmp(line, "processor", 9) == 0 &&
		    (line[9] == '\t' || line[9] == ' ' || line[9] == ':'))
			processors++;
		colon = strchr(line, ':');
		for (size_t k = 0; !model && colon && k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t kl = strlen(keys[k]);

			if (strncmp(line, keys[k], kl) == 0 &&
			    (line[kl] == '\t' || line[kl] == ' ' || line[kl] == ':')) {
				const char *v = colon + 1;

				while (*v == ' ')
					v++;
				model = json_string(v);
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	json_object_set_new(section, "model", model ? model : json_null());
	json_object_set_new(section, "processors", json_integer((json_int_t)processors));
}

static int is_cpu_dir(const char *name)
{
	if (strncmp(name, "cpu", 3) != 0 || !name[3])
		return 0;
	for (const char *c = name + 3; *c; c++)
		if (!isdigit((unsigned char)*c))
			return 0;
	return 1;
}

static json_t *cpu_core(struct val_probe *p, const char *name, json_t *summary)
{
	char *dir = br_xasprintf("/sys/devices/system/cpu/%s/cpufreq", name);
	json_t *core;
	char **probe_names;
	size_t n;
	long id = -1;

	br_parse_long(name + 3, 0, VAL_CPUS_MAX * 64L, &id);
	core = json_pack("{s:I}", "cpu", (json_int_t)id);

	/* No cpufreq directory is normal in a VM; it is said once per core. */
	if (val_list_dir(p, dir, NULL, &probe_names, &n)) {
		json_object_set_new(core, "cpufreq", json_string("absent"));
		free(dir);
		return core;
	}
	val_names_free(probe_names, n);
	set_attr(p, core, "scaling_governor", dir, "scaling_governor", 0, 0);
	set_attr(p, core, "scaling_driver", dir, "scaling_driver", 0, 1);
	set_attr(p, core, "scaling_max_freq_khz", dir, "scaling_max_freq", 1, 0);
	set_attr(p, core, "scaling_min_freq_khz", dir, "scaling_min_freq", 1, 1);
	set_attr(p, core, "cpuinfo_max_freq_khz", dir, "cpuinfo_max_freq", 1, 0);
	set_attr(p, core, "scaling_cur_freq_khz", dir, "scaling_cur_freq", 1, 1);
	free(dir);
	{
		json_t *gov = json_object_get(core, "scaling_governor");
		json_t *govs = json_object_get(summary, "governors");
		json_t *smax = json_object_get(core, "scaling_max_freq_khz");
		json_t *lowest = json_object_get(summary, "scaling_max_freq_khz_min");

		if (json_is_string(gov))
			json_object_set_new(
			    govs, json_string_value(gov),
			    json_integer(json_integer_value(json_object_get(govs, json_string_value(gov))) +
					 1));
		if (json_is_integer(smax) &&
		    (json_is_null(lowest) || json_integer_value(smax) < json_integer_value(lowest)))
			json_object_set(summary, "scaling_max_freq_khz_min", smax);
	}
	return core;
}

json_t *val_probe_cpu(struct val_probe *p)
{
	json_t *section = json_object(), *cores = json_array();
	json_t *summary = json_pack("{s:{}, s:n}", "governors", "scaling_max_freq_khz_min");
	char **names;
	size_t n, ncores = 0;

	cpuinfo(p, section);
	json_object_set_new(section, "online", val_attr_json(p, "/sys/devices/system/cpu/online", 0));
	if (val_list_class(p, "/sys/devices/system/cpu", "cpu", &names, &n) == 0) {
		for (size_t i = 0; i < n && ncores < VAL_CPUS_MAX; i++) {
			if (!is_cpu_dir(names[i]))
				continue;
			json_array_append_new(cores, cpu_core(p, names[i], summary));
			ncores++;
		}
		val_names_free(names, n);
	}
	json_object_set_new(section, "boost", val_attr_int(p, "/sys/devices/system/cpu/cpufreq/boost", 1));
	json_object_set_new(
	    section, "intel_pstate",
	    json_pack("{s:o, s:o, s:o, s:o}", "status",
		      val_attr_json(p, "/sys/devices/system/cpu/intel_pstate/status", 1), "no_turbo",
		      val_attr_int(p, "/sys/devices/system/cpu/intel_pstate/no_turbo", 1), "max_perf_pct",
		      val_attr_int(p, "/sys/devices/system/cpu/intel_pstate/max_perf_pct", 1), "min_perf_pct",
		      val_attr_int(p, "/sys/devices/system/cpu/intel_pstate/min_perf_pct", 1)));
	json_object_set_new(summary, "cores", json_integer((json_int_t)ncores));
	json_object_set_new(section, "summary", summary);
	json_object_set_new(section, "cores", cores);
	return section;
}

/* hwmon: tempN_input in millidegrees C, fanN_input in RPM, with labels. */
static json_t *hwmon_device(struct val_probe *p, const char *name)
{
	char *dir = br_xasprintf("/sys/class/hwmon/%s", name);
	json_t *dev = json_pack("{s:s}", "hwmon", name), *temps = json_array(), *fans = json_array();
	char **files;
	size_t n;

	set_attr(p, dev, "name", dir, "name", 0, 0);
	if (val_list_dir(p, dir, NULL, &files, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			size_t fl = strlen(files[i]);
			int is_temp = strncmp(files[i], "temp", 4) == 0,
			    is_fan = strncmp(files[i], "fan", 3) == 0;
			char *sensor, *label;
			json_t *s;

			if (!(is_temp || is_fan) || fl < 7 || strcmp(files[i] + fl - 6, "_input") != 0)
				continue;
			sensor = br_xstrndup(files[i], fl - 6);
			label = br_xasprintf("%s_label", sensor);
			s = json_pack("{s:s}", "sensor", sensor);
			set_attr(p, s, "label", dir, label, 0, 1);
			if (is_temp) {
				char *crit = br_xasprintf("%s_crit", sensor);
				json_t *mc;

				set_attr(p, s, "input_millicelsius", dir, files[i], 1, 0);
				mc = json_object_get(s, "input_millicelsius");
				json_object_set_new(s, "celsius",
						    json_is_integer(mc)
							? json_real((double)json_integer_value(mc) / 1000.0)
							: json_null());
				set_attr(p, s, "crit_millicelsius", dir, crit, 1, 1);
				free(crit);
				json_array_append_new(temps, s);
			} else {
				char *max = br_xasprintf("%s_max", sensor);

				set_attr(p, s, "rpm", dir, files[i], 1, 0);
				set_attr(p, s, "max_rpm", dir, max, 1, 1);
				free(max);
				json_array_append_new(fans, s);
			}
			free(label);
			free(sensor);
		}
		val_names_free(files, n);
	}
	json_object_set_new(dev, "temps", temps);
	json_object_set_new(dev, "fans", fans);
	free(dir);
	return dev;
}

json_t *val_probe_thermal(struct val_probe *p)
{
	json_t *hwmon = json_array(), *zones = json_array();
	char **names;
	size_t n;

	if (val_list_class(p, "/sys/class/hwmon", "hwmon", &names, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			json_array_append_new(hwmon, hwmon_device(p, names[i]));
		val_names_free(names, n);
	}
	if (val_list_class(p, "/sys/class/thermal", "thermal_zone", &names, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			char *dir = br_xasprintf("/sys/class/thermal/%s", names[i]);
			json_t *z = json_pack("{s:s}", "zone", names[i]), *mc;

			set_attr(p, z, "type", dir, "type", 0, 0);
			set_attr(p, z, "temp_millicelsius", dir, "temp", 1, 0);
			mc = json_object_get(z, "temp_millicelsius");
			json_object_set_new(z, "celsius",
					    json_is_integer(mc)
						? json_real((double)json_integer_value(mc) / 1000.0)
						: json_null());
			json_array_append_new(zones, z);
			free(dir);
		}
		val_names_free(names, n);
	}
	return json_pack("{s:o, s:o}", "hwmon", hwmon, "zones", zones);
}

/* "4: ACTIVE" -> code 4, name "ACTIVE". */
static void split_state(json_t *port, const char *key, const char *code_key)
{
	const char *s = json_string_value(json_object_get(port, key));
	const char *colon = s ? strchr(s, ':') : NULL;
	long code;
	char *num;

	if (!colon)
		return;
	num = br_xstrndup(s, (size_t)(colon - s));
	if (br_parse_long(num, 0, 1000, &code) == 0) {
		json_object_set_new(port, code_key, json_integer(code));
		while (*++colon == ' ')
			;
		json_object_set_new(port, key, json_string(colon));
	}
	free(num);
}

/* The port error counters a flapping or marginal link raises (IBA
 * PortCounters, as ib_core prints them under ports/N/counters); absent on
 * a driver that keeps none, which the rule reports as not judged. */
static const char *const ib_counters[] = {
	"link_downed",	   "link_error_recovery",	  "symbol_error",
	"port_rcv_errors", "local_link_integrity_errors", "excessive_buffer_overrun_errors",
};

static json_t *ib_port_counters(struct val_probe *p, const char *dir)
{
	char *cdir = br_xasprintf("%s/counters", dir);
	json_t *c = json_object();

	for (size_t i = 0; i < sizeof(ib_counters) / sizeof(ib_counters[0]); i++)
		set_attr(p, c, ib_counters[i], cdir, ib_counters[i], 1, 1);
	free(cdir);
	return c;
}

/* The HCA's PCIe function: the kernel's device link (".../0000:a1:00.0"),
 * else the directory above infiniband/ in the class entry's real path. */
static json_t *ib_pci_function(struct val_probe *p, const char *dir)
{
	char *rel = br_xasprintf("%s/device", dir), target[PATH_MAX], *real, *cut, *base;
	ssize_t n = val_readlink(p, rel, target, sizeof(target) - 1);
	json_t *bdf = json_null();

	free(rel);
	if (n > 0) {
		target[n] = '\0';
		base = strrchr(target, '/');
		return json_string(base ? base + 1 : target);
	}
	real = val_realpath(p, dir);
	cut = real ? strstr(real, "/infiniband/") : NULL;
	if (cut) {
		*cut = '\0';
		base = strrchr(real, '/');
		if (base && strchr(base, ':'))
			bdf = json_string(base + 1);
	}
	free(real);
	return bdf;
}

static json_t *ib_port(struct val_probe *p, const char *dev, const char *port)
{
	char *dir = br_xasprintf("/sys/class/infiniband/%s/ports/%s", dev, port);
	json_t *o = json_pack("{s:s, s:s}", "device", dev, "port", port);
	const char *gid;

	set_attr(p, o, "state", dir, "state", 0, 0);
	set_attr(p, o, "phys_state", dir, "phys_state", 0, 0);
	set_attr(p, o, "rate", dir, "rate", 0, 0);
	set_attr(p, o, "lid", dir, "lid", 0, 0);
	set_attr(p, o, "sm_lid", dir, "sm_lid", 0, 1);
	set_attr(p, o, "link_layer", dir, "link_layer", 0, 1);
	set_attr(p, o, "gid0", dir, "gids/0", 0, 1);
	json_object_set_new(o, "counters", ib_port_counters(p, dir));
	split_state(o, "state", "state_code");
	split_state(o, "phys_state", "phys_state_code");
	{
		const char *rate = json_string_value(json_object_get(o, "rate"));
		char *end = NULL;
		double g = rate ? strtod(rate, &end) : 0;

		json_object_set_new(o, "rate_gbps",
				    rate && end != rate && g > 0 ? json_real(g) : json_null());
	}
	/* The port GUID is the interface half of GID 0 (fe80::/64 + GUID). */
	gid = json_string_value(json_object_get(o, "gid0"));
	json_object_set_new(o, "port_guid", gid && strlen(gid) == 39 ? json_string(gid + 20) : json_null());
	free(dir);
	return o;
}

json_t *val_probe_infiniband(struct val_probe *p)
{
	json_t *devices = json_array(), *ports = json_array();
	char **names;
	size_t n;

	if (val_list_class(p, "/sys/class/infiniband", NULL, &names, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			char *dir = br_xasprintf("/sys/class/infiniband/%s", names[i]);
			char *pdir = br_xasprintf("%s/ports", dir);
			json_t *d = json_pack("{s:s}", "device", names[i]);
			char **pn;
			size_t np;

			set_attr(p, d, "node_guid", dir, "node_guid", 0, 0);
			set_attr(p, d, "sys_image_guid", dir, "sys_image_guid", 0, 1);
			set_attr(p, d, "fw_ver", dir, "fw_ver", 0, 1);
			set_attr(p, d, "board_id", dir, "board_id", 0, 1);
			set_attr(p, d, "hca_type", dir, "hca_type", 0, 1);
			json_object_set_new(d, "pci_bdf", ib_pci_function(p, dir));
			json_array_append_new(devices, d);
			if (val_list_dir(p, pdir, NULL, &pn, &np) == 0) {
				for (size_t j = 0; j < np; j++) {
					json_t *port = ib_port(p, names[i], pn[j]);

					json_object_set(port, "node_guid", json_object_get(d, "node_guid"));
					json_object_set(port, "pci_bdf", json_object_get(d, "pci_bdf"));
					json_array_append_new(ports, port);
				}
				val_names_free(pn, np);
			}
			free(pdir);
			free(dir);
		}
		val_names_free(names, n);
	}
	return json_pack("{s:o, s:o}", "devices", devices, "ports", ports);
}

/* "DDDD:BB:DD.F": a PCI function's name. */
static int is_bdf(const char *s, size_t n)
{
	return n == 12 && s[4] == ':' && s[7] == ':' && s[10] == '.' && strspn(s, "0123456789abcdef:.") == 12;
}

/* The PCI function a net device sits on: the last component of the
 * device's resolved path that names one (a virtio NIC's link is
 * ../../../virtio2, under /sys/devices/pci0000:00/0000:00:03.0/), or null. */
static json_t *net_pci_function(struct val_probe *p, const char *dir)
{
	char *rel = br_xasprintf("%s/device", dir), *real = val_realpath(p, rel), *end;
	json_t *bdf = json_null();

	free(rel);
	for (end = real ? real + strlen(real) : NULL; end && end > real;) {
		char *slash = end - 1;

		while (slash > real && *slash != '/')
			slash--;
		if (is_bdf(slash + 1, (size_t)(end - slash - 1))) {
			bdf = json_stringn(slash + 1, 12);
			break;
		}
		end = slash;
	}
	free(real);
	return bdf;
}

/* The network interfaces that are devices (a "device" link: a PCI
 * function, a virtio device; not lo, a bond, a bridge, a VLAN or an ifb),
 * as the OS names them: /sys/class/net/IFNAME/address is the kernel's
 * text of the hardware address (lowercase, colons; 20 bytes on an IPoIB
 * interface), operstate RFC 2863's word. What the BMC names
 * NIC.Slot.3-1-1 the OS names ens3f0np0: the export (NetBox) names the
 * port as the OS does. */
json_t *val_probe_net(struct val_probe *p)
{
	json_t *ifaces = json_array();
	char **names;
	size_t n;

	if (val_list_class(p, "/sys/class/net", NULL, &names, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			char *dir = br_xasprintf("/sys/class/net/%s", names[i]);
			char *rel = br_xasprintf("%s/device", dir), target[PATH_MAX];
			ssize_t len = val_readlink(p, rel, target, sizeof(target) - 1);
			json_t *o;

			free(rel);
			if (len <= 0) {
				free(dir);
				continue;
			}
			target[len] = '\0';
			o = json_pack("{s:s, s:s}", "ifname", names[i], "device",
				      strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
			json_object_set_new(o, "pci_bdf", net_pci_function(p, dir));
			set_attr(p, o, "address", dir, "address", 0, 1);
			set_attr(p, o, "operstate", dir, "operstate", 0, 1);
			json_array_append_new(ifaces, o);
			free(dir);
		}
		val_names_free(names, n);
	}
	return json_pack("{s:o}", "interfaces", ifaces);
}

/* /proc/modules, one line per loaded module as the kernel prints it
 * ("nvidia_peermem 16384 0 - Live 0xffffffffc1500000 (OE)"): the names,
 * which say whether GPUDirect RDMA's peer-memory client is in. */
json_t *val_probe_modules(struct val_probe *p)
{
	json_t *loaded = json_array();
	char *text = NULL;
	size_t len = 0;

	if (val_read_whole(p, "/proc/modules", VAL_PROCFILE_MAX, &text, &len)) {
		json_decref(loaded);
		return val_section_error("unreadable", "/proc/modules", "cannot read /proc/modules");
	}
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t n = strcspn(line, " \n");

		if (n && json_array_size(loaded) < VAL_DIR_ENTRIES_MAX)
			json_array_append_new(loaded, json_stringn(line, n));
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	return json_pack("{s:s, s:s, s:o}", "status", "ok", "source", "/proc/modules", "loaded", loaded);
}
