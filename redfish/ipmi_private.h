/*
 * ipmi_private — the pieces of the IPMI fallback (redfish/ipmi.c) that the
 * unit tests reach: parsers of ipmitool's text output and the classifier of
 * its error messages. Parsers take one command's whole stdout (borrowed,
 * NUL-terminated) and add what they recognise to a br_hw the caller owns;
 * lines they do not understand are skipped, never fatal.
 */
#ifndef BRINGUP_IPMI_PRIVATE_H
#define BRINGUP_IPMI_PRIVATE_H

#include "common.h"

/* Caps on what one ipmitool call may hand us. */
#define IPMI_STDOUT_MAX (1024u * 1024) /* a BMC with a huge SEL stops here */
#define IPMI_STDERR_MAX (64u * 1024)
#define IPMI_SENSORS_MAX 1024
#define IPMI_SEL_MAX 1024 /* newest entries kept */
#define IPMI_DEFAULT_TIMEOUT_S 30
#define IPMI_DEFAULT_PARALLEL 16

/* What a failed ipmitool call says about the BMC. */
enum ipmi_failure {
	IPMI_FAIL_OTHER,       /* the command itself failed (unsupported, no data) */
	IPMI_FAIL_AUTH,	       /* the session was refused: user or password */
	IPMI_FAIL_UNREACHABLE, /* nobody answered the session setup */
};

/* Classify the stderr (and stdout) text of a failed call. */
enum ipmi_failure ipmi_classify_failure(const char *text);
/* True when ipmitool could not list cipher suites and fell back to suite 3,
 * so later calls can ask for 3 directly instead of waiting again. */
int ipmi_cipher_fallback_seen(const char *text);

/* `chassis power status` → hw->power_state "On" / "Off". */
int ipmi_parse_power(const char *out, struct br_hw *hw);
/* `mc info` → hw->bmc_firmware. */
int ipmi_parse_mc_info(const char *out, struct br_hw *hw);
/* `mc guid` → hw->uuid (lowercase). */
int ipmi_parse_mc_guid(const char *out, struct br_hw *hw);
/* `fru print 0` → system_serial, model, manufacturer. */
int ipmi_parse_fru(const char *out, struct br_hw *hw);
/* `lan print 1` → hw->bmc_mac. */
int ipmi_parse_lan(const char *out, struct br_hw *hw);
/* `sensor list` → analog sensors (fans, temperatures, voltages, power). */
int ipmi_parse_sensor_list(const char *out, struct br_hw *hw);
/* `sdr type "Power Supply"` → PSU status sensors, merged by name. */
int ipmi_parse_sdr_psu(const char *out, struct br_hw *hw);
/* `sel elist` → hw->sel, at most max entries (the newest). */
int ipmi_parse_sel(const char *out, size_t max, struct br_hw *hw);

/* `chassis bootdev pxe ...` said "Set Boot Device to pxe". */
int ipmi_parse_bootdev_set(const char *out, struct br_hw *hw);
/* `chassis bootparam get 5` says "Boot Device Selector : Force PXE"; sets
 * hw->boot_override_target "Pxe" and boot_override_enabled "Continuous" or
 * "Once" as the flags say. */
int ipmi_parse_bootdev_pxe(const char *out, struct br_hw *hw);
/* `chassis power cycle|on` said "Chassis Power Control: Cycle|Up/On". */
int ipmi_parse_power_control(const char *out, struct br_hw *hw);

/* A copy of the value of the first "Key : value" line whose key is key
 * (surrounding blanks trimmed), or NULL. Caller frees. */
char *ipmi_kv_get(const char *out, const char *key);

#endif
