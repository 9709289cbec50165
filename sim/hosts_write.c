/* Writing a simulated host's tree: files, directories made on the way, and
 * symlinks, all under one node's root. The first failure is kept and every
 * later call does nothing, so a writer reads as a list of facts. */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosts_private.h"

#define HOST_NFTW_FDS 32

void sim_hw_init(struct sim_hw *w, const char *root, struct br_err *err)
{
	memset(w, 0, sizeof(*w));
	w->root = br_xstrdup(root);
	w->err = err;
}

void sim_hw_release(struct sim_hw *w)
{
	free(w->root);
	w->root = NULL;
}

/* mkdir -p of path's parent directories (path itself is a file). */
static int make_parents(struct sim_hw *w, char *path)
{
	for (char *s = path + strlen(w->root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			w->rc = br_errf(w->err, BR_E_IO, "%s: %s", path, strerror(errno));
			*s = '/';
			return w->rc;
		}
		*s = '/';
	}
	return 0;
}

void sim_hw_data(struct sim_hw *w, const char *rel, const void *data, size_t len)
{
	char *path;

	if (w->rc)
		return;
	path = br_xasprintf("%s/%s", w->root, rel);
	if (!make_parents(w, path))
		w->rc = br_write_file(path, data, len, w->err);
	free(path);
}

void sim_hw_put(struct sim_hw *w, const char *rel, const char *fmt, ...)
{
	struct br_buf b;
	va_list ap;

	if (w->rc)
		return;
	br_buf_init(&b, 0);
	va_start(ap, fmt);
	br_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	br_buf_adds(&b, "\n"); /* sysfs attributes end in a newline */
	sim_hw_data(w, rel, br_buf_str(&b), b.len);
	br_buf_release(&b);
}

void sim_hw_link(struct sim_hw *w, const char *rel, const char *target)
{
	char *path;

	if (w->rc)
		return;
	path = br_xasprintf("%s/%s", w->root, rel);
	if (!make_parents(w, path)) {
		unlink(path);
		if (symlink(target, path))
			w->rc = br_errf(w->err, BR_E_IO, "%s: %s", path, strerror(errno));
	}
	free(path);
}

void sim_hw_dir(struct sim_hw *w, const char *rel)
{
	char *path;

	if (w->rc)
		return;
	path = br_xasprintf("%s/%s/.", w->root, rel);
	make_parents(w, path);
	free(path);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int sim_hw_remove_tree(const char *path, struct br_err *err)
{
	struct stat st;

	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	if (nftw(path, remove_entry, HOST_NFTW_FDS, FTW_DEPTH | FTW_PHYS))
		return br_errf(err, BR_E_IO, "removing %s: %s", path, strerror(errno));
	return 0;
}
