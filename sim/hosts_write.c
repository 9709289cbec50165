/* Writing a simulated host's tree: files, directories made on the way, and
 * symlinks, all under one node's root. The first failure is kept and every
 * later call does nothing, so a writer reads as a list of facts. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hosts_private.h"
#include "idrac.h" /* sim_hash */

#define HOST_NFTW_FDS 32

/* A content a share has written once: where, and how many links it has. */
struct sim_hw_shared {
	uint64_t hash;
	size_t len;
	char *data; /* owned; NULL: empty slot */
	char *path; /* owned: the file to link to */
	long links;
};

/* Well under any file system's limit on links to one inode (ext4: 65,000),
 * so a 10,000-host rack starts a fresh copy now and then. */
#define SIM_HW_LINKS_MAX 10000

void sim_hw_init(struct sim_hw *w, const char *root, struct sim_hw_share *share, struct br_err *err)
{
	memset(w, 0, sizeof(*w));
	w->root = br_xstrdup(root);
	w->err = err;
	w->share = share;
}

void sim_hw_share_release(struct sim_hw_share *s)
{
	for (size_t i = 0; i < s->cap; i++) {
		free(s->slots[i].data);
		free(s->slots[i].path);
	}
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

/* The slot holding these bytes, or the empty one they would go in. */
static struct sim_hw_shared *share_slot(struct sim_hw_share *s, uint64_t h, const void *data, size_t len)
{
	size_t i = (size_t)h & (s->cap - 1);

	while (s->slots[i].data &&
	       (s->slots[i].hash != h || s->slots[i].len != len || memcmp(s->slots[i].data, data, len)))
		i = (i + 1) & (s->cap - 1);
	return &s->slots[i];
}

static void share_grow(struct sim_hw_share *s)
{
	struct sim_hw_share bigger = { NULL, s->cap ? s->cap * 2 : 1024, s->n };

	bigger.slots = br_xcalloc(bigger.cap, sizeof(*bigger.slots));
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i].data)
			*share_slot(&bigger, s->slots[i].hash, s->slots[i].data, s->slots[i].len) =
			    s->slots[i];
	free(s->slots);
	*s = bigger;
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
static void write_file(struct sim_hw *w, char *path, const void *data, size_t len)
{
	size_t off = 0;
	int fd;

	/* Never through an existing name: it may be a link shared with other
	 * hosts (a fault overwriting a default), and truncating it would
	 * change them all. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST && !unlink(path))
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT && !make_parents(w, path))
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (!w->rc)
			w->rc = br_errf(w->err, BR_E_IO, "%s: %s", path, strerror(errno));
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
}

void sim_hw_own(struct sim_hw *w, const char *rel, const void *data, size_t len)
{
	char *path;

	if (w->rc)
		return;
	path = br_xasprintf("%s/%s", w->root, rel);
	write_file(w, path, data, len);
	free(path);
}

/* Linked to an earlier file with the same bytes where the share has one;
 * written (and remembered) where it has none, or where the link fails for
 * a reason other than a missing directory. */
void sim_hw_data(struct sim_hw *w, const char *rel, const void *data, size_t len)
{
	struct sim_hw_shared *slot;
	uint64_t h;
	char *path;

	if (w->rc)
		return;
	if (!w->share) {
		sim_hw_own(w, rel, data, len);
		return;
	}
	path = br_xasprintf("%s/%s", w->root, rel);
	if (2 * (w->share->n + 1) > w->share->cap)
		share_grow(w->share);
	h = sim_hash(data, len);
	slot = share_slot(w->share, h, data, len);
	if (slot->data && slot->links < SIM_HW_LINKS_MAX &&
	    (!link(slot->path, path) || (errno == EEXIST && !unlink(path) && !link(slot->path, path)) ||
	     (errno == ENOENT && !make_parents(w, path) && !link(slot->path, path)))) {
		slot->links++;
		free(path);
		return;
	}
	if (w->rc) {
		free(path);
		return;
	}
	write_file(w, path, data, len);
	if (w->rc) {
		free(path);
		return;
	}
	if (!slot->data) {
		slot->data = br_xmalloc(len ? len : 1);
		memcpy(slot->data, data, len);
		slot->hash = h;
		slot->len = len;
		w->share->n++;
	} else {
		free(slot->path);
	}
	slot->path = path;
	slot->links = 1;
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
