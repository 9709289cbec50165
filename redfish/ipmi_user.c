/*
 * ipmi_user — reading ipmitool's answers to the account commands that
 * credentials rotation runs over IPMI (redfish/ipmi.c runs them), and the
 * one command that carries a secret. Captured from ipmitool 1.8.19 against
 * ipmi_sim (tests/fixtures/ipmi/user-*.out, README there):
 *
 *   -c user list            1,,true,false,false,Unknown (0x00)
 *                           2,admin,true,false,true,ADMINISTRATOR
 *   exec /dev/stdin <<< "user set password 2 NEW"
 *                           Set User Password command successful (user 2)
 *
 * The new password goes to ipmitool on stdin, as a line of its `exec`
 * command file: `user set password ID PASSWORD` in argv would show it to
 * every user of the machine (ps, /proc/PID/cmdline), and without the
 * password ipmitool asks for it on the controlling terminal.
 */
#include <stdlib.h>
#include <string.h>

#include "ipmi_private.h"

int ipmi_parse_user_id(const char *out, const char *name, int *ret_id)
{
	size_t name_len = strlen(name);
	int users = 0;

	for (const char *line = out; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *comma = strchr(line, ',');
		const char *end = strchr(line, '\n');
		char *stop;
		long id;

		if (!comma || (end && comma > end) || comma == line)
			continue;
		id = strtol(line, &stop, 10);
		if (stop != comma || id < 1 || id > IPMI_USER_ID_MAX)
			continue;
		users++;
		if (name_len && !strncmp(comma + 1, name, name_len) && comma[1 + name_len] == ',') {
			*ret_id = (int)id;
			return 0;
		}
	}
	return users ? BR_E_NOTFOUND : BR_E_PROTO;
}

int ipmi_parse_set_password(const char *out, struct br_hw *hw)
{
	(void)hw;
	return strstr(out, "Set User Password command successful") ? 0 : BR_E_PROTO;
}

char *ipmi_user_password_script(int user_id, const char *password, struct br_err *err)
{
	size_t len = password ? strlen(password) : 0;

	if (user_id < 1 || user_id > IPMI_USER_ID_MAX) {
		br_errf(err, BR_E_INVAL, "no IPMI user ID to set the password of");
		return NULL;
	}
	if (len < 1 || len > IPMI_PASSWORD_MAX) {
		br_errf(err, BR_E_INVAL, "the new password is %zu characters; an IPMI password is 1-%d", len,
			IPMI_PASSWORD_MAX);
		return NULL;
	}
	/* exec splits its lines at blanks and reads quotes and '#' */
	for (const char *p = password; *p; p++)
		if (*p <= ' ' || *p > '~' || strchr("\"'\\#", *p)) {
			br_errf(err, BR_E_INVAL,
				"the new password has a blank, a quote, a backslash, a '#' or a character "
				"outside printable ASCII: ipmitool cannot be given it");
			return NULL;
		}
	return br_xasprintf("user set password %d %s\n", user_id, password);
}
