/*
 * ipmitext — parsers of ipmitool 1.8's text output, for the IPMI fallback
 * (redfish/ipmi.c, over the LAN) and the probe (validators/probe_tools.c,
 * the node's own BMC in-band through /dev/ipmi0). Parsers take one
 * command's whole stdout (borrowed, NUL-terminated) and add what they
 * recognise to a br_hw the caller owns; lines they do not understand are
 * skipped, never fatal. Also the classifier of ipmitool's complaints.
 */
#ifndef BRINGUP_IPMITEXT_H
#define BRINGUP_IPMITEXT_H

#include "hw.h"

#define BR_IPMI_SENSORS_MAX 1024
#define BR_IPMI_SEL_MAX 1024 /* newest entries kept */

/* What a failed ipmitool call says about the BMC. */
enum br_ipmi_failure {
	BR_IPMI_FAIL_OTHER,	  /* the command itself failed (unsupported, no data) */
	BR_IPMI_FAIL_AUTH,	  /* the session was refused: user or password */
	BR_IPMI_FAIL_UNREACHABLE, /* nobody answered the session setup */
};

/* Classify the stderr (and stdout) text of a failed call. */
enum br_ipmi_failure br_ipmi_classify_failure(const char *text);
/* True when ipmitool could not list cipher suites and fell back to suite 3,
 * so later calls can ask for 3 directly instead of waiting again. */
int br_ipmi_cipher_fallback_seen(const char *text);

/* `chassis power status` → hw->power_state "On" / "Off". */
int br_ipmi_parse_power(const char *out, struct br_hw *hw);
/* `mc info` → hw->bmc_firmware. */
int br_ipmi_parse_mc_info(const char *out, struct br_hw *hw);
/* `mc guid` → hw->uuid (lowercase). */
int br_ipmi_parse_mc_guid(const char *out, struct br_hw *hw);
/* `fru print 0` → system_serial, model, manufacturer. */
int br_ipmi_parse_fru(const char *out, struct br_hw *hw);
/* `lan print 1` → hw->bmc_mac. */
int br_ipmi_parse_lan(const char *out, struct br_hw *hw);
/* `sensor list` → analog sensors (fans, temperatures, voltages, power). */
int br_ipmi_parse_sensor_list(const char *out, struct br_hw *hw);
/* `sdr type "Power Supply"` → PSU status sensors, merged by name. */
int br_ipmi_parse_sdr_psu(const char *out, struct br_hw *hw);
/* `sel elist` → hw->sel, at most max entries (the newest). */
int br_ipmi_parse_sel(const char *out, size_t max, struct br_hw *hw);

/* A copy of the value of the first "Key : value" line whose key is key
 * (surrounding blanks trimmed), or NULL. Caller frees. */
char *br_ipmi_kv_get(const char *out, const char *key);

#endif
