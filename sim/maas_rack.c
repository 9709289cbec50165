/* The simulated rack's nodes as physical machines the MAAS emulator knows. */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "sim/maas.h"
#include "sim/sim.h"

static void disk_from(struct sim_maas_disk *d, const struct sim_drive *v, int kernel_index)
{
	snprintf(d->name, sizeof(d->name), "nvme%dn1", kernel_index);
	snprintf(d->serial, sizeof(d->serial), "%s", v->serial);
	snprintf(d->model, sizeof(d->model), "%s", v->model);
	d->size = v->capacity_bytes;
	/* udev's by-id name: model with spaces as underscores, then serial. */
	snprintf(d->id_path, sizeof(d->id_path), "/dev/disk/by-id/nvme-%s_%s", v->model, v->serial);
	for (char *p = d->id_path; *p; p++)
		if (*p == ' ')
			*p = '_';
}

static void host_from(struct sim_maas_host *h, const struct sim_node *n, const char *password)
{
	const struct sim_drive *order[1 + SIM_DATA_DRIVES];
	struct sim_drive boot;
	size_t n_order = 0;

	memset(h, 0, sizeof(*h));
	snprintf(h->hostname, sizeof(h->hostname), "%s", n->hostname);
	for (int k = 0; k < SIM_NICS && h->n_macs < SIM_MAAS_MACS_MAX; k++)
		if (n->nics[k].present)
			snprintf(h->macs[h->n_macs++], sizeof(h->macs[0]), "%s", n->nics[k].mac);
	/* MAAS records the disks the OS reports: a BOSS RAID1 volume as one
	 * disk with the volume's serial (sim_node_os_boot_disk), its M.2
	 * drives not at all. */
	sim_node_os_boot_disk(n, &boot);
	order[n_order++] = &boot;
	for (int d = 0; d < SIM_DATA_DRIVES; d++)
		if (n->drives[d].present)
			order[n_order++] = &n->drives[d];
	/* The field failure: the kernel probed a data drive first, so MAAS's
	 * lowest-id disk is not the BOSS card. */
	if ((sim_fault_has(&n->faults, SIM_F_NVME_ORDER)) && n_order > 1) {
		const struct sim_drive *first = order[0];

		order[0] = order[1];
		order[1] = first;
	}
	for (size_t i = 0; i < n_order && i < SIM_MAAS_DISKS_MAX; i++)
		disk_from(&h->disks[h->n_disks++], order[i], (int)i);
	h->commission_fail = (sim_fault_has(&n->faults, SIM_F_COMMISSION_FAIL)) != 0;
	h->commission_hang = (sim_fault_has(&n->faults, SIM_F_COMMISSION_HANG)) != 0;
	h->echo_request = (sim_fault_has(&n->faults, SIM_F_MAAS_ECHO)) != 0;
	h->test_fail_once = (sim_fault_has(&n->faults, SIM_F_MAAS_TEST_FAIL)) != 0;
	h->deleted_at_tag = (sim_fault_has(&n->faults, SIM_F_MAAS_DELETED_AT_TAG)) != 0;
	h->update_fail = (sim_fault_has(&n->faults, SIM_F_MAAS_UPDATE_FAIL)) != 0;
	snprintf(h->ip, sizeof(h->ip), "127.100.%d.%d", n->index / 250, n->index % 250 + 1);
	/* The iDRAC MAAS powers it through: the rack's account (cmd-bringup-sim.c
	 * start_bmcs) and the System id the iDRAC serves. */
	snprintf(h->bmc_address, sizeof(h->bmc_address), "%s", n->bmc);
	snprintf(h->bmc_user, sizeof(h->bmc_user), "root");
	snprintf(h->bmc_password, sizeof(h->bmc_password), "%s", password);
	snprintf(h->redfish_system, sizeof(h->redfish_system), "System.Embedded.1");
}

void sim_maas_hosts_from_rack(const struct sim_rack *rack, struct sim_maas_host **ret_hosts, size_t *ret_n)
{
	struct sim_maas_host *hosts = br_xcalloc(rack->n + 1, sizeof(*hosts));

	for (size_t i = 0; i < rack->n; i++)
		host_from(&hosts[i], &rack->nodes[i], rack->password);
	*ret_hosts = hosts;
	*ret_n = rack->n;
}

void sim_maas_make_key(char out[SIM_MAAS_KEY_LEN])
{
	static const char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
	unsigned char raw[SIM_MAAS_KEY_LEN];

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		for (size_t i = 0; i < sizeof(raw); i++)
			raw[i] = (unsigned char)(br_now_ms() >> (i % 8) ^ i * 131);
	for (size_t i = 0; i < SIM_MAAS_KEY_LEN - 1; i++)
		out[i] = alphabet[raw[i] % (sizeof(alphabet) - 1)];
	out[18] = ':';
	out[37] = ':';
	out[SIM_MAAS_KEY_LEN - 1] = '\0';
}
