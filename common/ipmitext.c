/*
 * Parsers of ipmitool 1.8's text output. ipmitool prints two shapes: "Key :
 * value" lines (mc info, fru print, lan print) and '|'-separated tables
 * (sensor list, sdr type, sel elist). Both are read line by line and
 * anything unexpected is skipped: BMC firmware pads, reorders and invents.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "ipmitext.h"

struct span {
	const char *p;
	size_t n;
};

#define FIELDS_MAX 12

static struct span trim(const char *p, size_t n)
{
	while (n && isspace((unsigned char)*p))
		p++, n--;
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	return (struct span){ p, n };
}

static int span_eq(struct span s, const char *lit)
{
	return s.n == strlen(lit) && !strncmp(s.p, lit, s.n);
}

static int span_has(struct span s, const char *needle)
{
	size_t k = strlen(needle);

	for (size_t i = 0; k <= s.n && i <= s.n - k; i++)
		if (!strncasecmp(s.p + i, needle, k))
			return 1;
	return 0;
}

/* Walk lines: returns the next line (without '\n') and advances *cursor;
 * {NULL,0} at the end. */
static struct span next_line(const char **cursor)
{
	const char *p = *cursor, *nl;

	if (!p || !*p)
		return (struct span){ NULL, 0 };
	nl = strchr(p, '\n');
	*cursor = nl ? nl + 1 : p + strlen(p);
	return (struct span){ p, nl ? (size_t)(nl - p) : strlen(p) };
}

/* Split a table line at '|' into trimmed fields; returns the count. */
static size_t split_fields(struct span line, struct span *f, size_t max)
{
	size_t n = 0, start = 0;

	for (size_t i = 0; i <= line.n && n < max; i++)
		if (i == line.n || line.p[i] == '|') {
			f[n++] = trim(line.p + start, i - start);
			start = i + 1;
		}
	return n;
}

/* FRU and SMBIOS placeholders that mean "nobody filled this in". */
static int placeholder(struct span v)
{
	static const char *const none[] = { "",
					    "Unspecified",
					    "Not Specified",
					    "Not Available",
					    "To Be Filled By O.E.M.",
					    "Default string",
					    "N/A",
					    "NA" };

	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (v.n == strlen(none[i]) && !strncasecmp(v.p, none[i], v.n))
			return 1;
	return 0;
}

static double span_num(struct span s)
{
	char tmp[64], *end;
	double v;

	if (!s.n || s.n >= sizeof(tmp))
		return NAN;
	memcpy(tmp, s.p, s.n);
	tmp[s.n] = '\0';
	errno = 0;
	v = strtod(tmp, &end);
	if (errno || end == tmp || *end)
		return NAN;
	return v;
}

char *br_ipmi_kv_get(const char *out, const char *key)
{
	const char *cur = out;
	struct span line;

	while ((line = next_line(&cur)).p) {
		const char *colon = memchr(line.p, ':', line.n);
		struct span k, v;

		if (!colon)
			continue;
		k = trim(line.p, (size_t)(colon - line.p));
		if (!span_eq(k, key))
			continue;
		v = trim(colon + 1, line.n - (size_t)(colon - line.p) - 1);
		return br_hw_strndup(v.p, v.n);
	}
	return NULL;
}

/* Set *field from the first of keys that has a real value. */
static int kv_first(const char *out, const char *const *keys, char **field)
{
	for (; *keys; keys++) {
		char *v = br_ipmi_kv_get(out, *keys);

		if (v && !placeholder(trim(v, strlen(v)))) {
			free(*field);
			*field = v;
			return 1;
		}
		free(v);
	}
	return 0;
}

/* ---- failures --------------------------------------------------------- */

enum br_ipmi_failure br_ipmi_classify_failure(const char *text)
{
	struct span all = { text ? text : "", text ? strlen(text) : 0 };

	/* RAKP 2/4 errors come back when the BMC answered and refused the user
	 * or the password (ipmitool -v prints them). */
	if (span_has(all, "RAKP") || span_has(all, "unauthorized name") ||
	    span_has(all, "Invalid user name") || span_has(all, "Authentication type"))
		return BR_IPMI_FAIL_AUTH;
	/* No answer to the pre-session Get Channel Authentication
	 * Capabilities: nothing is listening there. */
	if (span_has(all, "Get Auth Capabilities error") ||
	    span_has(all, "Error issuing Get Channel Authentication") ||
	    span_has(all, "No response from remote controller") || span_has(all, "Address lookup for") ||
	    span_has(all, "Name or service not known"))
		return BR_IPMI_FAIL_UNREACHABLE;
	if (span_has(all, "Unable to establish IPMI v2 / RMCP+ session") ||
	    span_has(all, "Unable to establish LAN session") ||
	    span_has(all, "Unable to establish IPMI v1.5"))
		return BR_IPMI_FAIL_AUTH;
	return BR_IPMI_FAIL_OTHER;
}

int br_ipmi_cipher_fallback_seen(const char *text)
{
	return text && strstr(text, "Unable to Get Channel Cipher Suites") != NULL;
}

/* ---- key : value commands -------------------------------------------- */

int br_ipmi_parse_power(const char *out, struct br_hw *hw)
{
	const char *cur = out;
	struct span line;

	while ((line = next_line(&cur)).p) {
		line = trim(line.p, line.n);
		if (span_eq(line, "Chassis Power is on") || span_eq(line, "Chassis Power is off")) {
			free(hw->power_state);
			hw->power_state = br_xstrdup(line.p[line.n - 1] == 'n' ? "On" : "Off");
			return 0;
		}
	}
	return BR_E_PROTO;
}

int br_ipmi_parse_mc_info(const char *out, struct br_hw *hw)
{
	static const char *const keys[] = { "Firmware Revision", NULL };

	return kv_first(out, keys, &hw->bmc_firmware) ? 0 : BR_E_PROTO;
}

int br_ipmi_parse_mc_guid(const char *out, struct br_hw *hw)
{
	char *guid = br_ipmi_kv_get(out, "System GUID");
	int rc = BR_E_PROTO;

	/* All-zero GUIDs are what an unset BMC answers. */
	if (guid && strlen(guid) == 36 && strspn(guid, "0-") != 36) {
		for (char *p = guid; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		free(hw->uuid);
		hw->uuid = guid;
		guid = NULL;
		rc = 0;
	}
	free(guid);
	return rc;
}

/* MACs in one FRU "Extra" value: each run of hex digits and separators
 * that is a MAC (a bare 12-digit run only where the line says MAC, so a
 * numeric serial is not taken for one). */
static void extra_macs(struct span v, int says_mac, struct br_hw *hw)
{
	size_t i = 0;

	while (i < v.n) {
		size_t start = i, seps = 0;
		char run[24], norm[18];

		while (i < v.n && (isxdigit((unsigned char)v.p[i]) || v.p[i] == ':' || v.p[i] == '-')) {
			seps += v.p[i] == ':' || v.p[i] == '-';
			i++;
		}
		if (i - start >= 12 && i - start < sizeof(run) && (seps || says_mac)) {
			memcpy(run, v.p + start, i - start);
			run[i - start] = '\0';
			if (!br_mac_normalize(run, norm) && strcmp(norm, "00:00:00:00:00:00") &&
			    !br_hw_find_nic(hw, norm)) {
				struct br_nic *nic = br_hw_add_nic(hw);

				nic->mac = br_hw_strdup(norm);
				nic->name = br_hw_strdup("FRU");
				nic->source = br_hw_strdup("ipmi-fru");
			}
		}
		if (i == start)
			i++;
	}
}

/* Host NIC MACs some vendors record in the FRU's Extra fields ("Board
 * Extra : MAC1=3CECEF123456"); IPMI has no other generic way to them. */
static void fru_macs(const char *out, struct br_hw *hw)
{
	const char *cur = out;
	struct span line;

	while ((line = next_line(&cur)).p) {
		const char *colon = memchr(line.p, ':', line.n);
		struct span k, v;
		int says_mac = 0;

		if (!colon)
			continue;
		k = trim(line.p, (size_t)(colon - line.p));
		if (k.n < 6 || strncasecmp(k.p + k.n - 5, "Extra", 5))
			continue;
		v = trim(colon + 1, line.n - (size_t)(colon - line.p) - 1);
		for (size_t i = 0; i + 3 <= v.n && !says_mac; i++)
			says_mac = !strncasecmp(v.p + i, "mac", 3);
		extra_macs(v, says_mac, hw);
	}
}

int br_ipmi_parse_fru(const char *out, struct br_hw *hw)
{
	/* The product area describes the sellable system; chassis and board
	 * areas are what is left on white-box machines. */
	static const char *const serial[] = { "Product Serial", "Chassis Serial", "Board Serial", NULL };
	static const char *const model[] = { "Product Name", "Board Product", NULL };
	static const char *const maker[] = { "Product Manufacturer", "Board Mfg", NULL };
	int found = 0;

	found += kv_first(out, serial, &hw->system_serial);
	found += kv_first(out, model, &hw->model);
	found += kv_first(out, maker, &hw->manufacturer);
	fru_macs(out, hw);
	return found ? 0 : BR_E_PROTO;
}

int br_ipmi_parse_lan(const char *out, struct br_hw *hw)
{
	char *mac = br_ipmi_kv_get(out, "MAC Address");
	char norm[18];
	int rc = BR_E_PROTO;

	if (mac && !br_mac_normalize(mac, norm) && strcmp(norm, "00:00:00:00:00:00")) {
		free(hw->bmc_mac);
		hw->bmc_mac = br_xstrdup(norm);
		rc = 0;
	}
	free(mac);
	return rc;
}

/* ---- tables ----------------------------------------------------------- */

/* ipmitool's unit words → the short units the Redfish side uses. */
static char *units_name(struct span u)
{
	static const char *const map[][2] = {
		{ "degrees C", "Cel" }, { "RPM", "RPM" },	  { "Volts", "V" },	     { "Watts", "W" },
		{ "Amps", "A" },	{ "percent", "Percent" }, { "degrees F", "[degF]" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (u.n == strlen(map[i][0]) && !strncasecmp(u.p, map[i][0], u.n))
			return br_xstrdup(map[i][1]);
	return br_hw_strndup(u.p, u.n);
}

static enum br_sensor_kind kind_of(struct span name, struct span units)
{
	if (span_eq(units, "RPM") || (span_has(name, "fan") && span_eq(units, "percent")))
		return BR_SENSOR_FAN;
	if (span_has(units, "degrees"))
		return BR_SENSOR_TEMP;
	if (span_eq(units, "Volts"))
		return BR_SENSOR_VOLTAGE;
	return BR_SENSOR_OTHER;
}

/* ipmitool's status column: ok, nc (non-critical), cr, nr (non-recoverable),
 * ns (no reading). */
static const char *health_of(struct span status)
{
	if (span_eq(status, "ok"))
		return "OK";
	if (span_eq(status, "nc"))
		return "Warning";
	if (span_eq(status, "cr") || span_eq(status, "nr"))
		return "Critical";
	return NULL;
}

static struct br_sensor *find_sensor(struct br_hw *hw, struct span name)
{
	for (size_t i = 0; i < hw->n_sensors; i++)
		if (hw->sensors[i].name && span_eq(name, hw->sensors[i].name))
			return &hw->sensors[i];
	return NULL;
}

/* name | reading | units | status | lnr | lcr | lnc | unc | ucr | unr */
int br_ipmi_parse_sensor_list(const char *out, struct br_hw *hw)
{
	const char *cur = out;
	struct span line, f[FIELDS_MAX];
	int found = 0;

	while ((line = next_line(&cur)).p && hw->n_sensors < BR_IPMI_SENSORS_MAX) {
		struct br_sensor *s;
		const char *health;

		if (split_fields(line, f, FIELDS_MAX) < 10 || !f[0].n)
			continue;
		/* Discrete sensors carry state bits, not readings; the PSU ones
		 * come back by name from `sdr type "Power Supply"`. */
		if (span_eq(f[2], "discrete"))
			continue;
		s = br_hw_add_sensor(hw);
		s->kind = kind_of(f[0], f[2]);
		s->name = br_hw_strndup(f[0].p, f[0].n);
		s->units = units_name(f[2]);
		s->reading = span_num(f[1]);
		s->lower_critical = span_num(f[5]);
		s->upper_critical = span_num(f[8]);
		health = health_of(f[3]);
		s->health = health ? br_xstrdup(health) : NULL;
		s->state = br_xstrdup(isnan(s->reading) ? "Absent" : "Enabled");
		found = 1;
	}
	return found ? 0 : BR_E_PROTO;
}

/* The IPMI generic redundancy states (event/reading type 0Bh) as
 * ipmitool prints them (its generic_event_types table), with how bad
 * each is for the supplies' redundancy: NULL healthy. */
static const char *redundancy_health(struct span states)
{
	static const struct {
		const char *text, *health;
	} table[] = {
		/* longest first: "Redundancy Degraded from ..." before "Redundancy Degraded" */
		{ "Redundancy Degraded from Fully Redundant", "Warning" },
		{ "Redundancy Degraded from Non-Redundant", "Warning" },
		{ "Non-Redundant: Sufficient from Redundant", "Critical" },
		{ "Non-Redundant: Sufficient from Insufficient", "Critical" },
		{ "Non-Redundant: Insufficient Resources", "Critical" },
		{ "Redundancy Degraded", "Warning" },
		{ "Redundancy Lost", "Critical" },
		{ "Fully Redundant", "OK" },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (span_has(states, table[i].text))
			return table[i].health;
	return NULL;
}

/* A sensor of the supplies' redundancy, not a supply: named so ("PS
 * Redundancy", "PSU Redundancy"), or reading a redundancy state. */
static int is_redundancy(struct span name, struct span states)
{
	return span_has(name, "Redundancy") || redundancy_health(states) != NULL;
}

/* name | number | status | entity | states, e.g.
 * "PS2 Status | 06h | ok | 10.1 | Presence detected, Failure detected".
 * Dell names every supply's sensor "Status", told apart by the entity
 * instance (10.1, 10.2): a name with no number gets " (entity 10.2)". A
 * redundancy sensor ("PS Redundancy | 77h | ok | 7.1 | Fully Redundant")
 * is kept as such, and an event-only one ("PSU Alert | ... | Event-Only")
 * is no supply at all. */
int br_ipmi_parse_sdr_psu(const char *out, struct br_hw *hw)
{
	const char *cur = out;
	struct span line, f[FIELDS_MAX];
	int found = 0, generic;

	while ((line = next_line(&cur)).p) {
		struct br_sensor *s;
		const char *health;

		if (split_fields(line, f, FIELDS_MAX) < 5 || !f[0].n)
			continue;
		if (span_has(f[4], "Event-Only"))
			continue;
		if (is_redundancy(f[0], f[4])) {
			if (hw->n_sensors >= BR_IPMI_SENSORS_MAX)
				break;
			s = br_hw_add_sensor(hw);
			s->kind = BR_SENSOR_PSU_REDUNDANCY;
			s->name = br_hw_strndup(f[0].p, f[0].n);
			health = span_eq(f[2], "ns") ? NULL : redundancy_health(f[4]);
			if (!health && !span_eq(f[2], "ns"))
				health = health_of(f[2]);
			s->health = health ? br_xstrdup(health) : NULL;
			s->state = span_eq(f[2], "ns") ? br_xstrdup("Absent") : br_hw_strndup(f[4].p, f[4].n);
			found = 1;
			continue;
		}
		generic = 1;
		for (size_t k = 0; k < f[0].n && generic; k++)
			generic = !isdigit((unsigned char)f[0].p[k]);
		s = generic ? NULL : find_sensor(hw, f[0]);
		if (!s) {
			if (hw->n_sensors >= BR_IPMI_SENSORS_MAX)
				break;
			s = br_hw_add_sensor(hw);
			s->name = generic ? br_xasprintf("%.*s (entity %.*s)", (int)f[0].n, f[0].p,
							 (int)f[3].n, f[3].p)
					  : br_hw_strndup(f[0].p, f[0].n);
		}
		s->kind = BR_SENSOR_PSU;
		/* The SDR status column stays "ok" on many BMCs while the state
		 * text says the supply failed, so the text decides first. */
		if (span_has(f[4], "Failure detected") || span_has(f[4], "AC lost") ||
		    span_has(f[4], "input lost") || span_has(f[4], "out-of-range"))
			health = "Critical";
		else if (span_has(f[4], "Predictive failure"))
			health = "Warning";
		else
			health = health_of(f[2]);
		free(s->health);
		s->health = health ? br_xstrdup(health) : NULL;
		free(s->state);
		if (span_eq(f[2], "ns") ||
		    (span_has(f[4], "Presence") && !span_has(f[4], "Presence detected")))
			s->state = br_xstrdup("Absent");
		else
			s->state = br_xstrdup("Enabled");
		found = 1;
	}
	return found ? 0 : BR_E_PROTO;
}

static const char *sel_severity(struct span event, struct span direction)
{
	if (span_eq(direction, "Deasserted"))
		return "OK";
	if (span_has(event, "Non-critical") || span_has(event, "Predictive") ||
	    span_has(event, "Correctable ECC"))
		return "Warning";
	if (span_has(event, "Critical") || span_has(event, "Non-recoverable") || span_has(event, "Failure") ||
	    span_has(event, "fault") || span_has(event, "Uncorrectable") || span_has(event, "lost"))
		return "Critical";
	return "OK";
}

/* "11/29/2026" + "22:18:57" → "2026-11-29T22:18:57" (BMC local time, zone
 * unknown); anything else ("Pre-Init" + seconds since BMC start) kept as
 * printed. */
static char *sel_time(struct span date, struct span time)
{
	long mon, day, year;
	char tmp[16];

	if (date.n == 10 && time.n == 8 && date.p[2] == '/' && date.p[5] == '/') {
		memcpy(tmp, date.p, 10);
		tmp[2] = tmp[5] = tmp[10] = '\0';
		if (!br_parse_long(tmp, 1, 12, &mon) && !br_parse_long(tmp + 3, 1, 31, &day) &&
		    !br_parse_long(tmp + 6, 1970, 9999, &year))
			return br_xasprintf("%04ld-%02ld-%02ldT%.8s", year, mon, day, time.p);
	}
	return br_xasprintf("%.*s %.*s", (int)date.n, date.p, (int)time.n, time.p);
}

static int sel_line(struct span line, struct span *f)
{
	return split_fields(line, f, FIELDS_MAX) >= 6 && f[0].n && f[4].n;
}

/* id | date | time | sensor | event | direction [| detail] */
int br_ipmi_parse_sel(const char *out, size_t max, struct br_hw *hw)
{
	const char *cur = out;
	struct span line, f[FIELDS_MAX];
	size_t total = 0, skip;

	while ((line = next_line(&cur)).p)
		total += (size_t)sel_line(line, f);
	/* sel elist prints oldest first; the newest entries matter. */
	skip = total > max ? total - max : 0;
	cur = out;
	while ((line = next_line(&cur)).p) {
		size_t nf = split_fields(line, f, FIELDS_MAX);
		struct br_sel_entry *e;
		struct br_buf msg;

		if (!sel_line(line, f))
			continue;
		if (skip) {
			skip--;
			continue;
		}
		e = br_hw_add_sel(hw);
		e->id = br_hw_strndup(f[0].p, f[0].n);
		e->created = sel_time(f[1], f[2]);
		e->severity = br_xstrdup(sel_severity(f[4], f[5]));
		br_buf_init(&msg, 0);
		br_buf_addf(&msg, "%.*s: %.*s, %.*s", (int)f[3].n, f[3].p, (int)f[4].n, f[4].p, (int)f[5].n,
			    f[5].p);
		for (size_t i = 6; i < nf; i++)
			if (f[i].n)
				br_buf_addf(&msg, "; %.*s", (int)f[i].n, f[i].p);
		e->message = br_buf_detach(&msg);
	}
	return total ? 0 : BR_E_PROTO;
}
