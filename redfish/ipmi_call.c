/*
 * ipmi_call — what every ipmitool call of the IPMI fallback shares (ipmi.c
 * reads and configures BMCs, ipmi_user.c changes their accounts): which
 * ipmitool runs, its command line, and the environment that carries the
 * session password (IPMI_PASSWORD with -E: argv is world-readable through
 * ps and /proc).
 *
 * BR_IPMITOOL in the environment names another ipmitool (tests use a fake).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipmi_private.h"
#include "redfish.h"

extern char **environ;

/* An executable path for name: as given when it has a '/', else from $PATH. */
static char *find_tool(const char *name)
{
	const char *path = getenv("PATH"), *p;

	if (strchr(name, '/'))
		return access(name, X_OK) ? NULL : br_xstrdup(name);
	for (p = path ? path : "/usr/bin:/bin"; p && *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char *full = br_xasprintf("%.*s/%s", (int)n, n ? p : ".", name);

		if (!access(full, X_OK))
			return full;
		free(full);
		p = colon ? colon + 1 : NULL;
	}
	return NULL;
}

int ipmi_tool_find(char **ret_path, struct br_err *err)
{
	const char *tool = getenv("BR_IPMITOOL");
	const char *name = tool && *tool ? tool : "ipmitool";
	char *path = find_tool(name);

	if (!path)
		return br_errf(err, BR_E_NOTFOUND, "%s not found (install ipmitool, or set BR_IPMITOOL)",
			       name);
	*ret_path = path;
	return 0;
}

char *ipmi_where(const struct rf_ipmi_target *t)
{
	int port = t->port > 0 ? t->port : 623;

	return strchr(t->host, ':') ? br_xasprintf("[%s]:%d", t->host, port)
				    : br_xasprintf("%s:%d", t->host, port);
}

char **ipmi_envp(const char *password, char **ret_pw_env)
{
	size_t n = 0, k = 0;
	char **envp;

	while (environ && environ[n])
		n++;
	envp = br_xcalloc(n + 2, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "IPMI_PASSWORD=", 14))
			envp[k++] = environ[i];
	*ret_pw_env = NULL;
	if (password) {
		*ret_pw_env = br_xasprintf("IPMI_PASSWORD=%s", password);
		envp[k++] = *ret_pw_env;
	}
	return envp;
}

char **ipmi_argv(const char *tool, const struct rf_ipmi_target *t, int cipher3, const char *option,
		 const char *const *args, size_t n_args)
{
	struct br_strlist a = { 0 };
	char port[16];

	snprintf(port, sizeof(port), "%d", t->port > 0 ? t->port : 623);
	br_strlist_add(&a, tool);
	br_strlist_add(&a, "-I");
	br_strlist_add(&a, "lanplus");
	br_strlist_add(&a, "-H");
	br_strlist_add(&a, t->host);
	br_strlist_add(&a, "-p");
	br_strlist_add(&a, port);
	if (t->user && *t->user) {
		br_strlist_add(&a, "-U");
		br_strlist_add(&a, t->user);
	}
	if (t->password)
		br_strlist_add(&a, "-E");
	if (cipher3) {
		br_strlist_add(&a, "-C");
		br_strlist_add(&a, "3");
	}
	if (option)
		br_strlist_add(&a, option);
	for (size_t i = 0; i < n_args && args[i]; i++)
		br_strlist_add(&a, args[i]);
	a.items = br_xrealloc(a.items, (a.n + 1) * sizeof(char *));
	a.items[a.n] = NULL;
	return a.items;
}

void ipmi_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

char *ipmi_last_line(const char *text)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	return br_xstrndup(start, (size_t)(end - start));
}
