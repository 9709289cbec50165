/* Writing a simulated host's tree: files, directories made on the way, and
 * symlinks, all under one node's root. The first failure is kept and every
 * later call does nothing, so a writer reads as a list of facts. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

/* The tree is written afresh into an empty directory, by this process
 * alone: plain writes, directories made only when missing (a tree has
 * ~1,500 files; a rack of 512 nodes, 800,000). */
void sim_hw_data(struct sim_hw *w, const char *rel, const void *data, size_t len)
{
	char *path;
	size_t off = 0;
	int fd;

	if (w->rc)
		return;
	path = br_xasprintf("%s/%s", w->root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT && !make_parents(w, path))
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (!w->rc)
			w->rc = br_errf(w->err, BR_E_IO, "%s: %s", path, strerror(errno));
		free(path);
		return;
	}
	while (off < len) {
		ssize_t n = write(fd, (const char *)data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			w->rc = br_errf(w->err, BR_E_IO, "%s: %s", path, strerror(errno));
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) && !w->rc)
		w->rc = br_errf(w->err, BR_E_IO, "%s: %s", path, strerror(errno));
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
	if (symlink(target, path) && (errno != ENOENT || make_parents(w, path) || symlink(target, path)) &&
	    !w->rc)
		w->rc = br_errf(w->err, BR_E_IO, "%s: %s", path, strerror(errno));
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
