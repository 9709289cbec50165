/* bringup-probe's frame: reads under the sysroot, the list of what could
 * not be read, and the document that holds every section. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "probe_private.h"

char *val_path(const struct val_probe *p, const char *rel)
{
	return br_xasprintf("%s%s", p->root, rel);
}

int val_open_under(const struct val_probe *p, const char *rel, int flags)
{
	char *path;
	int fd, saved;

	if (p->root_fd >= 0)
		return openat(p->root_fd, rel[0] == '/' ? rel + 1 : rel, flags | O_CLOEXEC);
	path = val_path(p, rel);
	fd = open(path, flags | O_CLOEXEC);
	saved = errno;
	free(path);
	errno = saved;
	return fd;
}

ssize_t val_readlink(const struct val_probe *p, const char *rel, char *buf, size_t size)
{
	char *path;
	ssize_t n;
	int saved;

	if (p->root_fd >= 0)
		return readlinkat(p->root_fd, rel[0] == '/' ? rel + 1 : rel, buf, size);
	path = val_path(p, rel);
	n = readlink(path, buf, size);
	saved = errno;
	free(path);
	errno = saved;
	return n;
}

/* realpath(3) asks readlink(2) about every component of the path, each
 * call walking it from / again (~15 calls per PCI device under a simulated
 * host's tree). The kernel names an open file's resolved path itself:
 * /proc/self/fd/N; realpath is the fallback without /proc. */
char *val_realpath(const struct val_probe *p, const char *rel)
{
	char fdpath[64], target[PATH_MAX], *path, *real;
	int fd = val_open_under(p, rel, O_PATH);
	ssize_t n = -1;

	if (fd >= 0) {
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		n = readlink(fdpath, target, sizeof(target) - 1);
		close(fd);
		/* " (deleted)" and unreachable paths ("/..." outside the root,
		 * or no leading slash) are left to realpath */
		if (n > 0 && (size_t)n < sizeof(target) - 1 && target[0] == '/') {
			target[n] = '\0';
			return br_xstrdup(target);
		}
	} else if (errno == ENOENT || errno == ENOTDIR) {
		return NULL;
	}
	path = val_path(p, rel);
	real = realpath(path, NULL);
	free(path);
	return real;
}

/* Paths are reported as the node names them ("/sys/block"), so an entry
 * reads the same whether the probe ran on the node or over a copied tree. */
void val_note(struct val_probe *p, const char *path, const char *reason)
{
	size_t rl = strlen(p->root);

	if (rl && strncmp(path, p->root, rl) == 0 && path[rl] == '/')
		path += rl;
	json_array_append_new(p->unreadable, json_pack("{s:s, s:s}", "path", path, "reason", reason));
}

static const char *reason_of(int code)
{
	switch (code) {
	case BR_E_NOTFOUND:
		return "absent";
	case BR_E_TOOBIG:
		return "too big";
	default:
		return "unreadable";
	}
}

/* "absent: No such file or directory": br_read_file's message names the
 * path, which the entry already holds. */
static void note_failure(struct val_probe *p, const char *path, int code, const struct br_err *err)
{
	size_t pl = strlen(path);
	const char *detail = err->msg;
	char *why;

	if (strncmp(detail, path, pl) == 0 && strncmp(detail + pl, ": ", 2) == 0)
		detail += pl + 2;
	why = br_xasprintf("%s: %s", reason_of(code), detail);
	val_note(p, path, why);
	free(why);
}

/* br_read_file of ROOT + rel, opened from the root's descriptor (no walk
 * of ROOT per file); the whole path is still built, for the messages a
 * failed read gives. */
static int read_under(struct val_probe *p, const char *rel, size_t max, char **ret, size_t *ret_len,
		      char **ret_path, struct br_err *err)
{
	int fd = val_open_under(p, rel, O_RDONLY), rc;
	char *path;

	if (fd < 0) {
		int code = errno == ENOENT ? BR_E_NOTFOUND : BR_E_IO, saved = errno;

		path = val_path(p, rel);
		rc = br_errf(err, code, "%s: %s", path, strerror(saved));
		*ret_path = path;
		return rc;
	}
	/* a read that fails is named by its path, as br_read_file names it */
	path = val_path(p, rel);
	rc = br_read_fd(fd, path, max, ret, ret_len, err);
	if (rc)
		*ret_path = path;
	else
		free(path);
	return rc;
}

int val_read_whole(struct val_probe *p, const char *rel, size_t max, char **ret, size_t *ret_len)
{
	struct br_err err = { 0 };
	char *path = NULL;
	int rc = read_under(p, rel, max, ret, ret_len, &path, &err);

	if (rc)
		note_failure(p, path, rc, &err);
	free(path);
	return rc;
}

int val_read_attr(struct val_probe *p, const char *rel, int optional, char **ret)
{
	struct br_err err = { 0 };
	char *path = NULL;
	char *data = NULL;
	size_t len = 0;
	int rc = read_under(p, rel, VAL_ATTR_MAX, &data, &len, &path, &err);

	if (rc) {
		if (!(optional && rc == BR_E_NOTFOUND))
			note_failure(p, path, rc, &err);
		free(path);
		return rc;
	}
	while (len && (data[len - 1] == '\n' || data[len - 1] == ' ' || data[len - 1] == '\t'))
		data[--len] = '\0';
	*ret = data;
	return 0;
}

json_t *val_attr_json(struct val_probe *p, const char *rel, int optional)
{
	char *s = NULL;
	json_t *v;

	if (val_read_attr(p, rel, optional, &s))
		return json_null();
	v = json_string(s);
	free(s);
	/* A sysfs attribute that is not UTF-8 is kept out rather than guessed. */
	if (!v) {
		char *path = val_path(p, rel);

		val_note(p, path, "malformed: not UTF-8");
		free(path);
		return json_null();
	}
	return v;
}

json_t *val_attr_int(struct val_probe *p, const char *rel, int optional)
{
	char *s = NULL, *end = NULL;
	long long v;

	if (val_read_attr(p, rel, optional, &s))
		return json_null();
	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end) {
		char *path = val_path(p, rel);
		char *why = br_xasprintf("malformed: not an integer: '%.40s'", s);

		val_note(p, path, why);
		free(why);
		free(path);
		free(s);
		return json_null();
	}
	free(s);
	return json_integer(v);
}

/* Fixed-width names (PCI addresses, hex) sort as text; others ("cpu2",
 * "cpu10", "hwmon10") by their numbers. */
static int name_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	return strlen(x) == strlen(y) ? strcmp(x, y) : strverscmp(x, y);
}

int val_list_dir(struct val_probe *p, const char *rel, const char *prefix, char ***ret_names, size_t *ret_n)
{
	int fd = val_open_under(p, rel, O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char *path = NULL;
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;

	*ret_names = NULL;
	*ret_n = 0;
	if (!d) {
		int saved = errno, code = saved == ENOENT ? BR_E_NOTFOUND : BR_E_IO;

		if (fd >= 0)
			close(fd);
		if (code != BR_E_NOTFOUND) {
			path = val_path(p, rel);
			val_note(p, path, strerror(saved));
			free(path);
		}
		return code;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (prefix && strncmp(e->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if (n == VAL_DIR_ENTRIES_MAX) {
			path = val_path(p, rel);
			val_note(p, path, "too big: more entries than VAL_DIR_ENTRIES_MAX; rest not read");
			break;
		}
		names = br_xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = br_xstrdup(e->d_name);
	}
	closedir(d);
	free(path);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	*ret_names = names;
	*ret_n = n;
	return 0;
}

int val_list_class(struct val_probe *p, const char *rel, const char *prefix, char ***ret_names, size_t *ret_n)
{
	int rc = val_list_dir(p, rel, prefix, ret_names, ret_n);

	if (rc == BR_E_NOTFOUND) {
		char *path = val_path(p, rel);

		val_note(p, path, "absent");
		free(path);
	}
	return rc;
}

void val_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

json_t *val_section_error(const char *status, const char *source, const char *msg)
{
	return json_pack("{s:s, s:o, s:o}", "status", status, "source", br_json_string_or_null(source),
			 "error", br_json_string_or_null(msg));
}

/* The probe's own clock, so the controller can measure skew: the document is
 * stamped the moment it is assembled, the controller notes when it arrived.
 * The RTC beside it: a system clock NTP has fixed can still come back wrong
 * from a bad hardware clock at the next boot (absent in most VMs: null). */
static json_t *clock_section(struct val_probe *p)
{
	struct timespec ts;
	struct tm tm;
	char iso[32];
	json_t *clock;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	clock = json_pack("{s:I, s:s}", "utc_ms", (json_int_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, "utc",
			  iso);
	json_object_set_new(clock, "rtc_since_epoch_s",
			    val_attr_int(p, "/sys/class/rtc/rtc0/since_epoch", 1));
	return clock;
}

static json_t *host_section(struct val_probe *p)
{
	struct utsname u;
	json_t *host = json_object();

	json_object_set_new(host, "hostname", val_attr_json(p, "/proc/sys/kernel/hostname", 0));
	json_object_set_new(host, "kernel", val_attr_json(p, "/proc/sys/kernel/osrelease", 0));
	json_object_set_new(host, "product_name", val_attr_json(p, "/sys/class/dmi/id/product_name", 1));
	json_object_set_new(host, "board_vendor", val_attr_json(p, "/sys/class/dmi/id/board_vendor", 1));
	/* Who answered, compared with the node it was asked as (validate):
	 * the system serial (root only, as the probe runs) and machine-id. */
	json_object_set_new(host, "product_serial", val_attr_json(p, "/sys/class/dmi/id/product_serial", 1));
	json_object_set_new(host, "machine_id", val_attr_json(p, "/etc/machine-id", 1));
	/* The probe's own machine, which is the node only without --root. */
	if (!p->root[0] && uname(&u) == 0)
		json_object_set_new(host, "machine", json_string(u.machine));
	return host;
}

int val_probe_run(const struct val_probe_opts *opts, json_t **ret_doc, struct br_err *err)
{
	struct val_probe p = { 0 };
	const char *given = opts->root && opts->root[0] ? opts->root : "/";
	char *root = realpath(given, NULL);
	size_t rl;
	json_t *doc;

	if (!root)
		return br_errf(err, BR_E_INVAL, "--root '%s': %s", given, strerror(errno));
	rl = strlen(root);
	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	p.opts = opts;
	p.root = br_xstrndup(root, rl);
	p.root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	p.unreadable = json_array();

	doc = json_pack("{s:i, s:s, s:o, s:o}", "probe_version", VAL_PROBE_VERSION, "root", root, "clock",
			clock_section(&p), "host", host_section(&p));
	json_object_set_new(doc, "pcie", val_probe_pci(&p));
	json_object_set_new(doc, "gpus", val_probe_gpus(&p));
	json_object_set_new(doc, "nvlink", val_probe_nvlink(&p));
	json_object_set_new(doc, "modules", val_probe_modules(&p));
	json_object_set_new(doc, "storage", val_probe_storage(&p));
	json_object_set_new(doc, "cpu", val_probe_cpu(&p));
	json_object_set_new(doc, "thermal", val_probe_thermal(&p));
	json_object_set_new(doc, "infiniband", val_probe_infiniband(&p));
	json_object_set_new(doc, "net", val_probe_net(&p));
	json_object_set_new(doc, "lldp", val_probe_lldp(&p));
	json_object_set_new(doc, "dmesg", val_probe_dmesg(&p));
	json_object_set_new(doc, "psu_sdr", val_probe_psu_sdr(&p));
	json_object_set_new(doc, "unreadable", p.unreadable);
	if (p.root_fd >= 0)
		close(p.root_fd);
	free(p.root);
	free(root);
	*ret_doc = doc;
	return 0;
}
