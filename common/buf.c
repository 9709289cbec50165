/* Growable, capped byte buffers and small helpers. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

void *br_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

void *br_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

void *br_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		abort();
	return q;
}

char *br_xstrdup(const char *s)
{
	char *p;

	if (!s)
		return NULL;
	p = strdup(s);
	if (!p)
		abort();
	return p;
}

char *br_xstrndup(const char *s, size_t n)
{
	char *p;

	if (!s)
		return NULL;
	p = strndup(s, n);
	if (!p)
		abort();
	return p;
}

char *br_xstrndup_capped(const char *s, size_t n, size_t max)
{
	static const char mark[] = "\xe2\x80\xa6"; /* U+2026 HORIZONTAL ELLIPSIS */
	size_t len, keep;
	char *p;

	if (!s)
		return NULL;
	len = strnlen(s, n);
	if (len <= max)
		return br_xstrndup(s, len);
	keep = max > sizeof(mark) - 1 ? max - (sizeof(mark) - 1) : 0;
	/* Back off a UTF-8 continuation byte: the cut never splits a character. */
	while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
		keep--;
	p = br_xmalloc(keep + sizeof(mark));
	memcpy(p, s, keep);
	memcpy(p + keep, mark, sizeof(mark));
	return p;
}

char *br_xstrdup_capped(const char *s, size_t max)
{
	return br_xstrndup_capped(s, SIZE_MAX, max);
}

char *br_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	return s;
}

void br_buf_init(struct br_buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

void br_buf_release(struct br_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void br_buf_reset(struct br_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

static int buf_reserve(struct br_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > SIZE_MAX - b->len - 1)
		return BR_E_TOOBIG;
	need = b->len + extra + 1;
	if (b->max && need - 1 > b->max)
		return BR_E_TOOBIG;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(b->data, cap);
	if (!p)
		return BR_E_NOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int br_buf_reserve(struct br_buf *b, size_t extra)
{
	return buf_reserve(b, extra);
}

int br_buf_add(struct br_buf *b, const void *data, size_t len)
{
	int rc = buf_reserve(b, len);

	if (rc)
		return rc;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int br_buf_adds(struct br_buf *b, const char *s)
{
	return br_buf_add(b, s, strlen(s));
}

int br_buf_vaddf(struct br_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n, rc;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return BR_E_INVAL;
	rc = buf_reserve(b, (size_t)n);
	if (rc)
		return rc;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int br_buf_addf(struct br_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = br_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return rc;
}

const char *br_buf_str(const struct br_buf *b)
{
	return b->data ? b->data : "";
}

char *br_buf_detach(struct br_buf *b)
{
	char *s = b->data ? b->data : br_xstrdup("");

	b->data = NULL;
	b->len = b->cap = 0;
	return s;
}

/* ---- utilities --------------------------------------------------------- */

int br_parse_long(const char *s, long min, long max, long *ret_value)
{
	char *end;
	long v;

	if (!s || !*s)
		return BR_E_INVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		return BR_E_INVAL;
	*ret_value = v;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int br_mac_normalize(const char *in, char out[18])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char bytes[6];
	size_t nib = 0;
	const char *p;
	char sep = 0;

	if (!in)
		return BR_E_INVAL;
	for (p = in; *p; p++) {
		int v = hexval((unsigned char)*p);

		if (v >= 0) {
			if (nib >= 12)
				return BR_E_INVAL;
			if (nib % 2 == 0)
				bytes[nib / 2] = (unsigned char)(v << 4);
			else
				bytes[nib / 2] |= (unsigned char)v;
			nib++;
			continue;
		}
		if ((*p != ':' && *p != '-') || nib % 2 || nib == 0)
			return BR_E_INVAL;
		if (sep && *p != sep)
			return BR_E_INVAL;
		sep = *p;
	}
	if (nib != 12)
		return BR_E_INVAL;
	for (size_t i = 0; i < 6; i++) {
		out[i * 3] = digits[bytes[i] >> 4];
		out[i * 3 + 1] = digits[bytes[i] & 15];
		out[i * 3 + 2] = i < 5 ? ':' : '\0';
	}
	return 0;
}

int64_t br_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t br_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void br_iso_time(char out[21])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int br_contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; hay && *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

int br_is_dir(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISDIR(sb.st_mode);
}

int br_read_file(const char *path, size_t max, char **ret_data, size_t *ret_len, struct br_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return br_errf(err, errno == ENOENT ? BR_E_NOTFOUND : BR_E_IO, "%s: %s", path,
			       strerror(errno));
	return br_read_fd(fd, path, max, ret_data, ret_len, err);
}

int br_read_fd(int fd, const char *path, size_t max, char **ret_data, size_t *ret_len, struct br_err *err)
{
	struct br_buf b;
	char chunk[8192];
	int rc = 0;

	br_buf_init(&b, max);
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = br_errf(err, BR_E_IO, "%s: %s", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (br_buf_add(&b, chunk, (size_t)n)) {
			rc = br_errf(err, BR_E_TOOBIG, "%s: larger than %zu bytes", path, max);
			break;
		}
	}
	close(fd);
	if (rc) {
		br_buf_release(&b);
		return rc;
	}
	if (ret_len)
		*ret_len = b.len;
	*ret_data = br_buf_detach(&b);
	return 0;
}

int br_write_file(const char *path, const char *data, size_t len, struct br_err *err)
{
	char *tmp = br_xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd, rc = 0;
	size_t off = 0;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = br_errf(err, BR_E_IO, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = br_errf(err, BR_E_IO, "%s: %s", tmp, strerror(errno));
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) && !rc)
		rc = br_errf(err, BR_E_IO, "%s: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, path))
		rc = br_errf(err, BR_E_IO, "%s: %s", path, strerror(errno));
	if (rc)
		unlink(tmp);
out:
	free(tmp);
	return rc;
}

int br_secret_ref_valid(const char *ref)
{
	if (!ref)
		return 0;
	if (!strncmp(ref, "env:", 4)) {
		const char *p = ref + 4;

		if (!*p || (*p >= '0' && *p <= '9'))
			return 0;
		for (; *p; p++)
			if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
			      (*p >= '0' && *p <= '9') || *p == '_'))
				return 0;
		return 1;
	}
	if (!strncmp(ref, "file:", 5))
		return ref[5] != '\0';
	return 0;
}

int br_secret_resolve(const char *ref, char **ret_secret, struct br_err *err)
{
	char *value = NULL;
	size_t len;
	int rc;

	if (!br_secret_ref_valid(ref))
		return br_errf(err, BR_E_INVAL,
			       "credential must be a reference (env:VAR or file:PATH), not a literal");
	if (!strncmp(ref, "env:", 4)) {
		const char *v = getenv(ref + 4);

		if (!v)
			return br_errf(err, BR_E_NOTFOUND,
				       "credential %s: environment variable %s is not set", ref, ref + 4);
		*ret_secret = br_xstrdup(v);
		br_redact_add(v);
		return 0;
	}
	rc = br_read_file(ref + 5, 4096, &value, &len, err);
	if (rc)
		return br_err_prefix(err, "credential %s", ref);
	while (len && (value[len - 1] == '\n' || value[len - 1] == '\r'))
		value[--len] = '\0';
	br_redact_add(value);
	*ret_secret = value;
	return 0;
}

void br_secret_free(char *secret)
{
	if (!secret)
		return;
	explicit_bzero(secret, strlen(secret));
	free(secret);
}

char *br_self_dir(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return br_xstrdup(path);
}
