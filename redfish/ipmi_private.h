/*
 * ipmi_private — the pieces of the IPMI fallback (redfish/ipmi.c) that the
 * unit tests reach: the parsers of what only the fallback runs (boot device,
 * power control, accounts) and one ipmitool call's pieces. The parsers of
 * the discovery commands' output are common/ipmitext.h's (the probe reads
 * the node's own BMC with them too).
 */
#ifndef BRINGUP_IPMI_PRIVATE_H
#define BRINGUP_IPMI_PRIVATE_H

#include "common.h"
#include "ipmitext.h"
#include "redfish.h"

/* Caps on what one ipmitool call may hand us. */
#define IPMI_STDOUT_MAX (1024u * 1024) /* a BMC with a huge SEL stops here */
#define IPMI_STDERR_MAX (64u * 1024)
#define IPMI_DEFAULT_TIMEOUT_S 30
#define IPMI_DEFAULT_PARALLEL 16

/* `chassis bootdev pxe ...` said "Set Boot Device to pxe". */
int ipmi_parse_bootdev_set(const char *out, struct br_hw *hw);
/* `chassis bootparam get 5` says "Boot Device Selector : Force PXE"; sets
 * hw->boot_override_target "Pxe" and boot_override_enabled "Continuous" or
 * "Once" as the flags say. */
int ipmi_parse_bootdev_pxe(const char *out, struct br_hw *hw);
/* `chassis power cycle|on` said "Chassis Power Control: Cycle|Up/On". */
int ipmi_parse_power_control(const char *out, struct br_hw *hw);

/* ---- accounts (ipmi_user.c) ---- */
#define IPMI_USER_ID_MAX 63 /* Get User Access: user IDs are 6 bits */
/* A password for Set User Password's 16-byte form (RF_IPMI_PASSWORD_MAX).
 * ipmi_sim 1.0.13 took a 20-byte one (ipmitool's "20" form) and then no
 * RMCP+ session could be made with it: the BMC was locked out. */
#define IPMI_PASSWORD_MAX RF_IPMI_PASSWORD_MAX
/* `-c user list`: the user ID of name (0), BR_E_NOTFOUND when the list
 * has no such user, BR_E_PROTO when out lists no user at all. */
int ipmi_parse_user_id(const char *out, const char *name, int *ret_id);
/* `user set password` said "Set User Password command successful". */
int ipmi_parse_set_password(const char *out, struct br_hw *hw);
/* The `exec` line that sets user_id's password (a secret: free it with
 * br_secret_free), or NULL with err for a password ipmitool cannot be
 * given (too long, blanks, quotes, not printable ASCII). */
char *ipmi_user_password_script(int user_id, const char *password, struct br_err *err);

/* ---- one ipmitool call (ipmi_call.c) ---- */
struct rf_ipmi_target;
/* The ipmitool to run (BR_IPMITOOL, else ipmitool on $PATH); caller frees. */
int ipmi_tool_find(char **ret_path, struct br_err *err);
/* "host:port" ("[v6]:port"), as reasons name the BMC. Caller frees. */
char *ipmi_where(const struct rf_ipmi_target *t);
/* This process's environment without IPMI_PASSWORD, plus
 * IPMI_PASSWORD=password when there is one (*ret_pw_env, a secret the
 * caller frees with br_secret_free; the strings of environ are borrowed).
 * Caller frees the array. */
char **ipmi_envp(const char *password, char **ret_pw_env);
/* ipmitool -I lanplus -H host -p port [-U user] [-E] [-C 3] [option]
 * args... (at most n_args, NULL ends them early). Free with ipmi_argv_free. */
char **ipmi_argv(const char *tool, const struct rf_ipmi_target *t, int cipher3, const char *option,
		 const char *const *args, size_t n_args);
void ipmi_argv_free(char **argv);
/* The last non-empty line of ipmitool's complaint, for a reason. Caller frees. */
char *ipmi_last_line(const char *text);

#endif
