/*
 * Storage: a machine's block devices, which one is the boot disk, and the
 * layout MAAS builds on it. MAAS's set_boot_disk moves only the boot flag;
 * set_storage_layout must follow for / and /boot/efi to move too.
 */
#include "ops_private.h"

int maas_block_devices(struct maas_client *client, const char *system_id, maas_done_fn done, void *ctx)
{
	if (!maas_system_id_valid(system_id))
		return BR_E_INVAL;
	return maas_requestf(client, "GET", NULL, done, ctx, "nodes/%s/blockdevices/", system_id);
}

int maas_set_boot_disk(struct maas_client *client, const char *system_id, int64_t device_id,
		       maas_done_fn done, void *ctx)
{
	if (!maas_system_id_valid(system_id) || device_id < 0)
		return BR_E_INVAL;
	return maas_requestf(client, "POST", "", done, ctx, "nodes/%s/blockdevices/%lld/?op=set_boot_disk",
			     system_id, (long long)device_id);
}

int maas_set_storage_layout(struct maas_client *client, const char *system_id, const char *layout,
			    maas_done_fn done, void *ctx)
{
	struct br_buf form;
	int rc;

	if (!maas_system_id_valid(system_id))
		return BR_E_INVAL;
	br_buf_init(&form, 0);
	maas_form_add(&form, "storage_layout", layout);
	rc = maas_requestf(client, "POST", br_buf_str(&form), done, ctx, "machines/%s/?op=set_storage_layout",
			   system_id);
	br_buf_release(&form);
	return rc;
}
