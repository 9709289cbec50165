/* NVMe controllers, every block device, and the device holding "/" with
 * its controller's serial. Enumeration order means nothing (Linux numbers
 * NVMe drives in probe order, which is how an OS lands on the wrong disk):
 * only serials identify a drive. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe_private.h"

#define VAL_SLAVE_DEPTH_MAX 4 /* dm on md on partition is as deep as it gets */

static json_t *nvme_controller(struct val_probe *p, const char *name)
{
	static const char *const attrs[] = { "serial",	"model",     "firmware_rev",
					     "address", "transport", "state" };
	json_t *c = json_pack("{s:s}", "name", name);

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		char *rel = br_xasprintf("/sys/class/nvme/%s/%s", name, attrs[i]);

		/* transport and state are newer than the others. */
		json_object_set_new(c, attrs[i], val_attr_json(p, rel, i >= 4));
		free(rel);
	}
	return c;
}

/* The last path component a symlink under the root points at, or NULL. */
static char *link_target_name(struct val_probe *p, const char *rel)
{
	char target[PATH_MAX];
	ssize_t n = val_readlink(p, rel, target, sizeof(target) - 1);
	char *base;

	if (n <= 0)
		return NULL;
	target[n] = '\0';
	base = strrchr(target, '/');
	return br_xstrdup(base ? base + 1 : target);
}

/* A block device's disk: a partition's parent directory in sysfs, or the
 * device itself. */
static char *disk_of(struct val_probe *p, const char *name)
{
	char *rel = br_xasprintf("/sys/class/block/%s/partition", name);
	char *part = NULL, *disk = NULL;

	if (val_read_attr(p, rel, 1, &part) == 0) {
		char *dir = br_xasprintf("/sys/class/block/%s/..", name);
		char *real = val_realpath(p, dir);
		const char *base = real ? strrchr(real, '/') : NULL;

		disk = base ? br_xstrdup(base + 1) : NULL;
		free(real);
		free(dir);
	} else {
		disk = br_xstrdup(name);
	}
	free(part);
	free(rel);
	return disk;
}

static json_t *block_device(struct val_probe *p, const char *name)
{
	char *rel;
	json_t *b = json_pack("{s:s}", "name", name), *parts = json_array();
	char **names;
	size_t n;
	char *prefix;

#define ATTR(key, path_fmt, fn, optional)                                                                    \
	rel = br_xasprintf(path_fmt, name);                                                                  \
	json_object_set_new(b, key, fn(p, rel, optional));                                                   \
	free(rel)
	ATTR("dev", "/sys/block/%s/dev", val_attr_json, 0);
	ATTR("size_sectors", "/sys/block/%s/size", val_attr_int, 0);
	ATTR("removable", "/sys/block/%s/removable", val_attr_int, 1);
	ATTR("rotational", "/sys/block/%s/queue/rotational", val_attr_int, 1);
	ATTR("model", "/sys/block/%s/device/model", val_attr_json, 1);
	ATTR("serial", "/sys/block/%s/device/serial", val_attr_json, 1);
	ATTR("wwid", "/sys/block/%s/wwid", val_attr_json, 1);
#undef ATTR
	/* device -> the controller (nvme0), or with native NVMe multipath the
	 * subsystem (nvme-subsys0), whose serial is the controllers' serial. */
	rel = br_xasprintf("/sys/block/%s/device", name);
	{
		char *target = link_target_name(p, rel);

		json_object_set_new(b, "controller",
				    target && strncmp(target, "nvme", 4) == 0 ? json_string(target)
									      : json_null());
		free(target);
	}
	free(rel);
	rel = br_xasprintf("/sys/block/%s", name);
	prefix = br_xstrdup(name);
	if (val_list_dir(p, rel, prefix, &names, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			json_array_append_new(parts, json_string(names[i]));
		val_names_free(names, n);
	}
	free(prefix);
	free(rel);
	json_object_set_new(b, "partitions", parts);
	return b;
}

/* Next space-separated field of a line being cut in place; NULL at the end. */
static char *next_field(char **cursor)
{
	char *s = *cursor, *start;

	while (*s == ' ')
		s++;
	if (!*s)
		return NULL;
	start = s;
	while (*s && *s != ' ')
		s++;
	if (*s)
		*s++ = '\0';
	*cursor = s;
	return start;
}

/* "/" in mountinfo: the last line whose mount point is "/" (a later mount
 * over / hides the earlier one). Fields: id parent MAJ:MIN root mountpoint
 * options [optional...] - fstype source superoptions. */
static int root_mount(const char *info, char **ret_dev, char **ret_fstype, char **ret_source)
{
	const char *line = info;
	int found = 0;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t ll = nl ? (size_t)(nl - line) : strlen(line);
		char *copy = br_xstrndup(line, ll), *cursor = copy, *tok;
		char *f[5] = { 0 };
		size_t nf = 0;

		while (nf < 5 && (tok = next_field(&cursor)) != NULL)
			f[nf++] = tok;
		if (nf == 5 && strcmp(f[4], "/") == 0) {
			while ((tok = next_field(&cursor)) != NULL && strcmp(tok, "-") != 0)
				;
			free(*ret_dev);
			free(*ret_fstype);
			free(*ret_source);
			*ret_dev = br_xstrdup(f[2]);
			tok = tok ? next_field(&cursor) : NULL;
			*ret_fstype = tok ? br_xstrdup(tok) : NULL;
			tok = tok ? next_field(&cursor) : NULL;
			*ret_source = tok ? br_xstrdup(tok) : NULL;
			found = 1;
		}
		free(copy);
		line = nl ? nl + 1 : NULL;
	}
	return found ? 0 : -1;
}

/* Disks under a block device: itself (or its partition's disk), or for
 * device-mapper and md, the disks under its slaves. */
static void disks_under(struct val_probe *p, const char *name, json_t *disks, int depth)
{
	char *rel = br_xasprintf("/sys/class/block/%s/slaves", name);
	char **names;
	size_t n;

	if (depth < VAL_SLAVE_DEPTH_MAX && val_list_dir(p, rel, NULL, &names, &n) == 0 && n > 0) {
		for (size_t i = 0; i < n; i++)
			disks_under(p, names[i], disks, depth + 1);
		val_names_free(names, n);
	} else {
		char *disk = disk_of(p, name);

		if (disk)
			json_array_append_new(disks, json_string(disk));
		free(disk);
	}
	free(rel);
}

static json_t *root_device(struct val_probe *p, json_t *blocks)
{
	char *info = NULL, *dev = NULL, *fstype = NULL, *source = NULL, *rel, *name;
	json_t *root, *disks;
	size_t len;

	if (val_read_whole(p, "/proc/self/mountinfo", VAL_PROCFILE_MAX, &info, &len))
		return val_section_error("unreadable", "/proc/self/mountinfo", "cannot read mountinfo");
	if (root_mount(info, &dev, &fstype, &source)) {
		free(info);
		return val_section_error("malformed", "/proc/self/mountinfo",
					 "no mount point '/' in mountinfo");
	}
	free(info);
	root = json_pack("{s:s, s:s, s:o, s:o}", "status", "ok", "dev", dev, "fstype",
			 br_json_string_or_null(fstype), "mount_source", br_json_string_or_null(source));
	rel = br_xasprintf("/sys/dev/block/%s", dev);
	name = link_target_name(p, rel);
	json_object_set_new(root, "device", br_json_string_or_null(name));
	disks = json_array();
	if (name) {
		disks_under(p, name, disks, 0);
	} else {
		char *path = val_path(p, rel);

		val_note(p, path, "absent: no block device for the root file system's MAJ:MIN");
		free(path);
	}
	json_object_set_new(root, "disks", disks);
	/* The boot disk is judged by its controller's serial. */
	{
		json_t *disk = json_array_size(disks) == 1 ? json_array_get(disks, 0) : NULL;
		json_t *ctrl = json_null(), *serial = json_null();
		size_t i;
		json_t *b;

		json_array_foreach(blocks, i, b)
		{
			if (disk && json_equal(json_object_get(b, "name"), disk)) {
				json_decref(ctrl);
				json_decref(serial);
				ctrl = json_incref(json_object_get(b, "controller"));
				serial = json_incref(json_object_get(b, "serial"));
			}
		}
		json_object_set_new(root, "disk", disk ? json_incref(disk) : json_null());
		json_object_set_new(root, "controller", ctrl ? ctrl : json_null());
		json_object_set_new(root, "controller_serial", serial ? serial : json_null());
	}
	free(name);
	free(rel);
	free(dev);
	free(fstype);
	free(source);
	return root;
}

json_t *val_probe_storage(struct val_probe *p)
{
	json_t *ctrls = json_array(), *blocks = json_array(), *section;
	char **names;
	size_t n;

	if (val_list_class(p, "/sys/class/nvme", "nvme", &names, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			json_array_append_new(ctrls, nvme_controller(p, names[i]));
		val_names_free(names, n);
	}
	if (val_list_class(p, "/sys/block", NULL, &names, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			json_array_append_new(blocks, block_device(p, names[i]));
		val_names_free(names, n);
	}
	section = json_pack("{s:o, s:o}", "nvme_controllers", ctrls, "block_devices", blocks);
	json_object_set_new(section, "root", root_device(p, blocks));
	return section;
}
