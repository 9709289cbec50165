/* ssh_config(5), the part that says where and as whom a node is reached,
 * so operators can use the file they already keep (bastions aside). */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ssh.h"

#define SSH_CONFIG_MAX_BYTES (4u << 20)

enum key { K_HOSTNAME, K_PORT, K_USER, K_IDENTITY, K_KNOWN_HOSTS, K_COUNT };

static const char *const key_names[K_COUNT] = {
	[K_HOSTNAME] = "HostName",
	[K_PORT] = "Port",
	[K_USER] = "User",
	[K_IDENTITY] = "IdentityFile",
	[K_KNOWN_HOSTS] = "UserKnownHostsFile",
};

struct block {
	struct br_strlist patterns; /* empty: before any Host line (applies to all) */
	char *values[K_COUNT];
};

struct val_ssh_config {
	struct block *blocks;
	size_t n;
};

void val_ssh_host_release(struct val_ssh_host *h)
{
	free(h->hostname);
	free(h->user);
	free(h->identity_file);
	free(h->known_hosts);
	memset(h, 0, sizeof(*h));
}

void val_ssh_config_free(struct val_ssh_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n; i++) {
		br_strlist_release(&cfg->blocks[i].patterns);
		for (int k = 0; k < K_COUNT; k++)
			free(cfg->blocks[i].values[k]);
	}
	free(cfg->blocks);
	free(cfg);
}

static struct block *new_block(struct val_ssh_config *cfg)
{
	cfg->blocks = br_xrealloc(cfg->blocks, (cfg->n + 1) * sizeof(*cfg->blocks));
	memset(&cfg->blocks[cfg->n], 0, sizeof(cfg->blocks[0]));
	return &cfg->blocks[cfg->n++];
}

/* Split "Keyword value" or "Keyword=value" (value may be double-quoted). */
static int split_line(char *line, char **ret_key, char **ret_value)
{
	char *k = line + strspn(line, " \t"), *v;
	size_t n;

	if (!*k || *k == '#')
		return 0;
	n = strcspn(k, " \t=");
	v = k + n;
	if (*v)
		*v++ = '\0';
	v += strspn(v, " \t");
	if (*v == '=')
		v += 1 + strspn(v + 1, " \t");
	n = strlen(v);
	while (n && isspace((unsigned char)v[n - 1]))
		v[--n] = '\0';
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		v[n - 1] = '\0';
		v++;
	}
	*ret_key = k;
	*ret_value = v;
	return 1;
}

int val_ssh_config_load(const char *path, struct val_ssh_config **ret, struct br_err *err)
{
	struct val_ssh_config *cfg = br_xcalloc(1, sizeof(*cfg));
	struct block *cur = new_block(cfg);
	char *data = NULL, *line, *next;
	size_t len;
	unsigned lineno = 1;
	int rc = br_read_file(path, SSH_CONFIG_MAX_BYTES, &data, &len, err);

	if (rc) {
		val_ssh_config_free(cfg);
		return br_err_prefix(err, "ssh config");
	}
	for (line = data; line && *line && !rc; line = next, lineno++) {
		char *key, *value;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!split_line(line, &key, &value))
			continue;
		if (!*value) {
			rc = br_errf(err, BR_E_INVAL, "%s:%u: %s: a value is required", path, lineno, key);
		} else if (!strcasecmp(key, "Host")) {
			cur = new_block(cfg);
			for (char *p = strtok_r(value, " \t", &value); p; p = strtok_r(NULL, " \t", &value))
				br_strlist_add(&cur->patterns, p);
		} else if (!strcasecmp(key, "Match")) {
			rc = br_errf(err, BR_E_INVAL, "%s:%u: Match: not supported here; use Host blocks",
				     path, lineno);
		} else {
			for (int k = 0; k < K_COUNT; k++) {
				long port;

				if (strcasecmp(key, key_names[k]))
					continue;
				if (k == K_PORT && br_parse_long(value, 1, 65535, &port)) {
					rc =
					    br_errf(err, BR_E_INVAL, "%s:%u: Port: '%s' is not a port number",
						    path, lineno, value);
					break;
				}
				if (!cur->values[k]) /* the first value wins, as in ssh */
					cur->values[k] = br_xstrdup(value);
			}
		}
	}
	free(data);
	if (rc) {
		val_ssh_config_free(cfg);
		return rc;
	}
	*ret = cfg;
	return 0;
}

static char *lower(const char *s)
{
	char *l = br_xstrdup(s);

	for (char *p = l; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return l;
}

/* A Host line matches when one pattern matches and no negated one does;
 * host names compare without case, as ssh does. */
static int block_matches(const struct block *b, const char *host)
{
	char *h;
	int hit = 0, refused = 0;

	if (!b->patterns.n)
		return 1;
	h = lower(host);
	for (size_t i = 0; i < b->patterns.n && !refused; i++) {
		const char *p = b->patterns.items[i];
		int neg = *p == '!';
		char *pat = lower(neg ? p + 1 : p);

		if (fnmatch(pat, h, 0) == 0) {
			refused = neg;
			hit = !neg;
		}
		free(pat);
	}
	free(h);
	return hit && !refused;
}

void val_ssh_config_lookup(const struct val_ssh_config *cfg, const char *host, struct val_ssh_host *ret)
{
	const char *found[K_COUNT] = { 0 };

	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; cfg && i < cfg->n; i++) {
		if (!block_matches(&cfg->blocks[i], host))
			continue;
		for (int k = 0; k < K_COUNT; k++)
			if (!found[k] && cfg->blocks[i].values[k])
				found[k] = cfg->blocks[i].values[k];
	}
	ret->hostname = found[K_HOSTNAME] ? br_xstrdup(found[K_HOSTNAME]) : NULL;
	if (found[K_PORT]) {
		long port = 0;

		/* checked when the file was read */
		if (!br_parse_long(found[K_PORT], 1, 65535, &port))
			ret->port = (int)port;
	}
	ret->user = found[K_USER] ? br_xstrdup(found[K_USER]) : NULL;
	ret->identity_file = found[K_IDENTITY] ? br_xstrdup(found[K_IDENTITY]) : NULL;
	ret->known_hosts = found[K_KNOWN_HOSTS] ? br_xstrdup(found[K_KNOWN_HOSTS]) : NULL;
}
