/*
 * manifest — the rack manifest (rack.csv) an engineer writes: one row per
 * server with its place, its BMC, a reference to the BMC password and its
 * hardware profile. Parsed with libcsv; validated as a whole, so a bad file
 * yields every problem at once as "FILE:LINE: field: message".
 *
 * Ownership: struct stg_manifest owns its rows (stg_manifest_release).
 */
#ifndef STAGES_MANIFEST_H
#define STAGES_MANIFEST_H

#include "common.h"

#define STG_MANIFEST_MAX_BYTES (16u * 1024 * 1024)
#define STG_MANIFEST_MAX_ROWS 100000
#define STG_MANIFEST_SERIAL_MAX 64  /* longer than any system serial or service tag */
#define STG_MANIFEST_SYSTEM_MAX 256 /* a System's @odata.id */
#define STG_MANIFEST_ZONE_MAX 64    /* a zone's name: a hall, a row, a management network */

struct stg_manifest_row {
	int line;
	char *hostname, *rack, *bmc, *bmc_user, *bmc_password, *profile, *bmc_type, *boot_disk_serial, *notes;
	char *serial;	    /* the expected system serial or service tag; NULL or "" when absent */
	char *system;	    /* which Redfish System is this host (Id or @odata.id); NULL or "" when absent */
	char *zone;	    /* the management network or hall its BMC is in; NULL or "" when absent */
	char *power_domain; /* the power feed its supplies draw from; NULL or "" when absent */
	/* What names the row in messages when it came from no file ("netbox
	 * device 'gpu-r01-u03' (id 7)"); NULL: FILE:LINE. */
	char *origin;
	int unit;
};

struct stg_manifest {
	char *path;
	struct stg_manifest_row *rows;
	size_t n;
};

/* Parse and validate path. Profiles are checked against
 * templates_dir/profiles/NAME/ when templates_dir is not NULL. On a bad
 * manifest returns BR_E_INVAL with every problem in ret_problems (which the
 * caller releases either way); *ret is filled only on success. */
int stg_manifest_load(const char *path, const char *templates_dir, struct stg_manifest *ret,
		      struct br_strlist *ret_problems, struct br_err *err);
void stg_manifest_release(struct stg_manifest *m);

/* Whether zone is a zone's name as the manifest's zone column and --zone
 * take it: 1 to STG_MANIFEST_ZONE_MAX letters, digits, '.', '_', '-'. */
int stg_zone_valid(const char *zone);
/* A --zone value: one zone or several, comma-separated ("hall-a,hall-b": a
 * controller that also stands by for a neighbour hall), each a zone's
 * name, at most STG_ZONES_MAX of them. */
#define STG_ZONES_MAX 16
int stg_zones_valid(const char *zones);
/* Whether a node is among zones: br_zones_have (common.h). */
/* zones split into its names (caller frees the array and each name), at
 * most STG_ZONES_MAX; 0 names for NULL. */
size_t stg_zones_split(const char *zones, char ***ret);

/* The names a source other than rack.csv gives the manifest's columns
 * (NetBox: unit is "position"), for messages. */
struct stg_manifest_labels {
	const struct {
		const char *column, *label;
	} * map;
	size_t n;
};

/* The checks stg_manifest_load makes of a file's rows (every field, the
 * duplicates), for rows built from another source: each problem names the
 * row by its origin and the field by its label. BR_E_INVAL with every
 * problem in ret_problems (the caller releases it either way). */
int stg_manifest_check(struct stg_manifest *m, const char *templates_dir,
		       const struct stg_manifest_labels *labels, struct br_strlist *ret_problems,
		       struct br_err *err);

/* Split "host[:port]" / "[v6]:port"; port 0 when absent. Caller frees host. */
int stg_bmc_address_parse(const char *bmc, char **ret_host, int *ret_port);

#endif
