/* boot_disk: "/" is on the NVMe whose serial MAAS was told to install on.
 * Disks enumerate in any order (nvme_order), so only the serial counts.
 * For a hardware RAID1 boot volume (a BOSS card) that serial is the one
 * the OS reports for the volume, compared as an identity
 * (val_disk_identity_eq: case and naa./0x prefixes aside). */
#include <stdlib.h>
#include <string.h>

#include "rules_node_private.h"

/* The serial of the disk holding "/": its controller's (the probe follows
 * the namespace's device link), else the block device's own attribute. */
static const char *root_serial(json_t *storage, json_t *root)
{
	const char *serial = br_json_str(root, "controller_serial"), *disk = br_json_str(root, "disk");
	json_t *devs = json_object_get(storage, "block_devices"), *d;
	size_t i;

	if (serial && *serial)
		return serial;
	json_array_foreach(devs, i,
			   d) if (disk && br_json_str(d, "name") &&
				  !strcmp(br_json_str(d, "name"), disk)) return br_json_str(d, "serial");
	return NULL;
}

/* Where the deployed serial shows up instead, for the evidence. */
static const char *disk_with_serial(json_t *storage, const char *serial)
{
	json_t *devs = json_object_get(storage, "block_devices"), *d;
	size_t i;

	json_array_foreach(devs, i, d) if (val_disk_identity_eq(serial, br_json_str(d, "serial"),
								NULL)) return br_json_str(d, "name");
	return NULL;
}

void val_rule_boot_disk(struct val_node_ctx *c)
{
	const char *want = c->f->deployed_disk_serial, *serial, *other;
	char *why = NULL;
	json_t *storage = val_probe_section(c, "storage", &why), *root;
	const char *status, *dev, *disk, *ctl;
	struct val_evidence e;

	if (!want || !*want) {
		val_node_check(c, "boot_disk", VAL_UNKNOWN,
			       "no deployed disk serial recorded for this node (enlist pins it by serial)");
		goto out;
	}
	if (!storage) {
		val_node_check(c, "boot_disk", VAL_UNKNOWN, "%s", why);
		goto out;
	}
	root = json_object_get(storage, "root");
	status = br_json_str(root, "status");
	if (!status || strcmp(status, "ok")) {
		val_node_check(c, "boot_disk", VAL_UNKNOWN,
			       "the probe could not find the device holding /: %s%s%s",
			       status ? status : "no storage.root", br_json_str(root, "error") ? ": " : "",
			       br_json_str(root, "error") ? br_json_str(root, "error") : "");
		goto out;
	}
	dev = br_json_str(root, "device");
	disk = br_json_str(root, "disk");
	ctl = br_json_str(root, "controller");
	serial = root_serial(storage, root);
	if (!serial || !*serial) {
		val_node_check(
		    c, "boot_disk", VAL_UNKNOWN,
		    "/ is on %s (disk %s), whose serial the probe could not read; expected serial %s",
		    dev ? dev : "?", disk ? disk : "?", want);
		goto out;
	}
	if (val_disk_identity_eq(want, serial, NULL)) {
		val_node_check(c, "boot_disk", VAL_PASS,
			       "/ is on %s (disk %s, controller %s, serial %s), the disk MAAS deployed to",
			       dev ? dev : "?", disk ? disk : "?", ctl ? ctl : "?", serial);
		goto out;
	}
	other = disk_with_serial(storage, want);
	val_ev_init(&e);
	val_ev_add(&e, VAL_FAIL,
		   "/ is on %s (disk %s, controller %s, serial %s), but the node was deployed to serial %s "
		   "(%s%s): the OS is on the wrong disk; redeploy with the boot disk pinned by serial",
		   dev ? dev : "?", disk ? disk : "?", ctl ? ctl : "?", serial, want,
		   other ? "seen as " : "not seen", other ? other : " by the OS");
	/* The disk it was deployed to is gone from the OS: that drive is the
	 * fault, as nvme_count says of it too (one ticket for the drive). */
	if (!other) {
		char *part = br_xasprintf("drive:%s", want);

		val_ev_blame(&e, part);
		free(part);
	}
	val_ev_emit(c, "boot_disk", &e);
out:
	free(why);
}
