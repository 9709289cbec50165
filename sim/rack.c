/*
 * The node model: every identifier of a simulated XE9680 (serials, service
 * tags, MACs, PCIe buses, cabling) derived from the seed, unique across the
 * rack by construction (an affine map of the node index modulo the field's
 * range) rather than by retrying.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "sim.h"

#define NODES_PER_SU 32 /* nodes per scalable unit: one rail leaf per fabric NIC */

static const int gpu_bus[SIM_GPUS] = { 0x19, 0x3b, 0x4c, 0x5d, 0x9b, 0xbb, 0xcb, 0xdb };
static const int fabric_bus[SIM_FABRIC_NICS] = { 0x1a, 0x3c, 0x4d, 0x5e, 0x9c, 0xbc, 0xcc, 0xdc };
#define LOM_BUS 0x04

uint64_t sim_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t sim_rng_below(uint64_t *state, uint64_t n)
{
	return n ? sim_rng_next(state) % n : 0;
}

uint64_t sim_rng_seed(uint64_t seed, uint64_t stream)
{
	uint64_t s = seed ^ (stream * 0xd1342543de82ef95ULL);

	sim_rng_next(&s);
	return s;
}

/* A value in [0, modulus) unique for each id < modulus: multiplier is
 * coprime with every modulus used here (powers of 10 and 36). */
static uint64_t unique(uint64_t salt, uint64_t id, uint64_t modulus)
{
	return (1000003ULL * id + salt) % modulus;
}

static void base36(char *out, size_t width, uint64_t v)
{
	static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

	out[width] = '\0';
	while (width--) {
		out[width] = digits[v % 36];
		v /= 36;
	}
}

static void mac(char out[18], uint32_t oui, uint32_t low)
{
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", (oui >> 16) & 0xff, (oui >> 8) & 0xff, oui & 0xff,
		 (low >> 16) & 0xff, (low >> 8) & 0xff, low & 0xff);
}

json_t *sim_bios_baseline(const struct sim_node *node)
{
	json_t *attrs = json_pack(
	    "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s,"
	    " s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i}",
	    "BootMode", "Uefi", "SysProfile", "PerfOptimized", "ProcCStates", "Disabled", "ProcC1E",
	    "Disabled", "ProcTurboMode", "Enabled", "LogicalProc", "Enabled", "ProcVirtualization", "Enabled",
	    "ProcX2Apic", "Enabled", "SriovGlobalEnable", "Enabled", "MemOpMode", "OptimizerMode",
	    "NodeInterleave", "Disabled", "SubNumaCluster", "Disabled", "MmioAbove4Gb", "Enabled",
	    "PxeDev1EnDis", "Enabled", "PxeDev1Interface", "NIC.Embedded.1-1-1", "PxeDev1Protocol", "IPv4",
	    "HttpDev1EnDis", "Disabled", "SecureBoot", "Disabled", "TpmSecurity", "On", "AcPwrRcvry", "Last",
	    "SerialComm", "OnConRedirAuto", "ErrPrompt", "Disabled", "SystemModelName", "PowerEdge XE9680",
	    "SystemManufacturer", "Dell Inc.", "SystemServiceTag", node->service_tag, "SystemBiosVersion",
	    SIM_FW_BIOS, "PxeDev1VlanId", 0);

	sim_bios_registry_defaults(attrs);
	return attrs;
}

void sim_boot_order_baseline(struct sim_node *node)
{
	static const char *const order[SIM_BOOT_ENTRIES] = { "NIC.PxeDevice.1-1",
							     "Disk.Direct.0-0:BOSS.SL.14-1",
							     "NIC.PxeDevice.2-1" };

	for (int i = 0; i < SIM_BOOT_ENTRIES; i++)
		snprintf(node->st.boot_order[i], sizeof(node->st.boot_order[i]), "%s", order[i]);
}

static void make_nics(struct sim_node *n, uint32_t salt)
{
	int su = n->index / NODES_PER_SU + 1, pos = n->index % NODES_PER_SU + 1;

	for (int k = 0; k < SIM_FABRIC_NICS; k++) {
		struct sim_nic *nic = &n->nics[k];

		snprintf(nic->fqdd, sizeof(nic->fqdd), "NIC.Slot.%d-1-1", 31 + k);
		snprintf(nic->ifname, sizeof(nic->ifname), "enp%ds0np0", fabric_bus[k]);
		mac(nic->mac, 0xa088c2, (salt + (uint32_t)n->index * 16 + (uint32_t)k) & 0xffffff);
		snprintf(nic->serial, sizeof(nic->serial), "MT2342X%05llu",
			 (unsigned long long)unique(salt, (uint64_t)n->index * 16 + k, 100000));
		snprintf(nic->firmware, sizeof(nic->firmware), "%s", SIM_FW_NIC);
		snprintf(nic->sw, sizeof(nic->sw), "leaf-su%02d-rail%d", su, k + 1);
		snprintf(nic->sw_port, sizeof(nic->sw_port), "swp%d", pos);
		nic->bus = fabric_bus[k];
		nic->present = 1;
	}
	for (int k = 0; k < SIM_ETH_NICS; k++) {
		struct sim_nic *nic = &n->nics[SIM_FABRIC_NICS + k];

		snprintf(nic->fqdd, sizeof(nic->fqdd), "NIC.Embedded.%d-1-1", k + 1);
		snprintf(nic->ifname, sizeof(nic->ifname), "eno%d", 8303 + 100 * k);
		mac(nic->mac, 0xc84bd6, (salt + (uint32_t)n->index * 16 + 8 + (uint32_t)k) & 0xffffff);
		snprintf(nic->serial, sizeof(nic->serial), "%s", "");
		snprintf(nic->firmware, sizeof(nic->firmware), "22.31.6");
		snprintf(nic->sw, sizeof(nic->sw), "tor-%s-%c", n->rack, 'a' + k);
		snprintf(nic->sw_port, sizeof(nic->sw_port), "swp%d", n->index % SIM_NODES_PER_RACK + 1);
		nic->bus = LOM_BUS;
		nic->present = 1;
	}
	mac(n->bmc_mac, 0xc84bd6, (salt + (uint32_t)n->index * 16 + 15) & 0xffffff);
}

static void make_storage(struct sim_node *n, uint64_t salt)
{
	struct sim_drive *b = &n->boot_drive;

	snprintf(b->id, sizeof(b->id), "Disk.Direct.0-0:BOSS.SL.14-1");
	snprintf(b->serial, sizeof(b->serial), "23173A%06llu",
		 (unsigned long long)unique(salt, n->index, 1000000));
	snprintf(b->model, sizeof(b->model), "Dell BOSS-N1 960GB");
	snprintf(b->firmware, sizeof(b->firmware), "E2MU200");
	b->capacity_bytes = 960197124096ULL;
	b->present = b->fitted = 1;
	n->boot_mirror = *b;
	snprintf(n->boot_mirror.id, sizeof(n->boot_mirror.id), "Disk.Direct.1-1:BOSS.SL.14-1");
	snprintf(n->boot_mirror.serial, sizeof(n->boot_mirror.serial), "23173B%06llu",
		 (unsigned long long)unique(salt + 3, n->index, 1000000));
	/* Behind a BOSS RAID1 the M.2 drives are plain Dell M.2 SSDs: no
	 * "BOSS" in their model; the controller and the volume carry it
	 * (idrac_storage.c shows boot_drive with this model then too). */
	snprintf(n->boot_mirror.model, sizeof(n->boot_mirror.model), "%s", SIM_BOSS_M2_MODEL);
	snprintf(n->boss_volume_id, sizeof(n->boss_volume_id), "Disk.Virtual.0:BOSS.SL.14-1");
	/* NAA type 5 (IEEE Registered): "5", Dell's OUI F4EE08, 36 bits of
	 * the controller's choosing; 16 hex digits. */
	snprintf(n->boss_durable_name, sizeof(n->boss_durable_name), "5F4EE08%09llX",
		 (unsigned long long)unique(salt + 5, n->index, 0x1000000000ULL));
	for (int d = 0; d < SIM_DATA_DRIVES; d++) {
		struct sim_drive *v = &n->drives[d];

		snprintf(v->id, sizeof(v->id), "Disk.Bay.%d:Enclosure.Internal.0-1", d);
		snprintf(v->serial, sizeof(v->serial), "S6CRNA0W%06llu",
			 (unsigned long long)unique(salt + 7, (uint64_t)n->index * 16 + d, 1000000));
		snprintf(v->model, sizeof(v->model), "Dell Ent NVMe PM1733a RI 3.84TB");
		snprintf(v->firmware, sizeof(v->firmware), "2.1.8");
		v->capacity_bytes = 3840755982336ULL;
		v->present = 1;
	}
}

static void make_node(struct sim_node *n, int index, uint64_t seed)
{
	uint64_t rng = sim_rng_seed(seed, 0);
	uint64_t salt = sim_rng_next(&rng);
	const unsigned char *t;

	n->index = index;
	snprintf(n->rack, sizeof(n->rack), "r%02d", index / SIM_NODES_PER_RACK + 1);
	n->unit = 3 + 7 * (index % SIM_NODES_PER_RACK);
	snprintf(n->hostname, sizeof(n->hostname), "gpu-%s-u%02d", n->rack, n->unit);
	base36(n->service_tag, 7, unique(salt, (uint64_t)index, 78364164096ULL /* 36^7 */));
	snprintf(n->system_serial, sizeof(n->system_serial), "CNIVC00%07llu",
		 (unsigned long long)unique(salt >> 8, (uint64_t)index, 10000000));
	t = (const unsigned char *)n->service_tag;
	/* Dell UUIDs spell "DELL" and then the service tag. */
	snprintf(n->uuid, sizeof(n->uuid), "4c4c4544-00%02x-%02x10-80%02x-%02x%02x%02x%02xc04f", t[0], t[1],
		 t[2], t[3], t[4], t[5], t[6]);
	make_nics(n, (uint32_t)salt);
	for (int g = 0; g < SIM_GPUS; g++) {
		snprintf(n->gpus[g].serial, sizeof(n->gpus[g].serial), "165452%07llu",
			 (unsigned long long)unique(salt + 3, (uint64_t)index * 8 + g, 10000000));
		n->gpus[g].bus = gpu_bus[g];
		n->gpus[g].lanes = 16;
		n->gpus[g].present = 1;
	}
	make_storage(n, salt);
	for (int p = 0; p < SIM_PSUS; p++)
		snprintf(n->psus[p].serial, sizeof(n->psus[p].serial), "CNLOD00%07llu",
			 (unsigned long long)unique(salt + 5, (uint64_t)index * 8 + p, 10000000));
	n->bogus_sensor = -1;
	n->details = json_object();
	n->st.bios = sim_bios_baseline(n);
	n->st.bios_pending = json_object();
	n->st.powered = 1;
	sim_boot_order_baseline(n);
	snprintf(n->st.boot_target, sizeof(n->st.boot_target), "None");
	snprintf(n->st.boot_enabled, sizeof(n->st.boot_enabled), "Disabled");
	n->st.rng = sim_rng_seed(seed, 1000 + (uint64_t)index);
	n->port = 0;
}

int sim_node_boss_raid1(const struct sim_node *n)
{
	return sim_fault_has(&n->faults, SIM_F_BOSS_RAID1) || sim_fault_has(&n->faults, SIM_F_BOSS_UNMATCHED);
}

/* What the OS sees of a BOSS-N1 RAID1 volume: one NVMe controller, model
 * "Dell BOSS-N1" (Dell KB 000177584: BOSS devices carry "DELLBOSS VD" or,
 * on newer cards, "Dell BOSS-N1" in their model), whose serial is an
 * identifier the controller generates for the volume, not either M.2
 * drive's serial. The simulator makes it the volume's NAA durable name in
 * lower case, as the OS prints hex; under boss_unmatched it is another
 * one, as after the volume was re-created. */
void sim_node_os_boot_disk(const struct sim_node *n, struct sim_drive *ret_disk)
{
	struct sim_drive *d = ret_disk;
	size_t len;

	*d = n->boot_drive;
	if (!sim_node_boss_raid1(n))
		return;
	snprintf(d->id, sizeof(d->id), "%s", n->boss_volume_id);
	snprintf(d->model, sizeof(d->model), "Dell BOSS-N1");
	snprintf(d->serial, sizeof(d->serial), "%s", n->boss_durable_name);
	len = strlen(d->serial);
	for (size_t i = 0; i < len; i++)
		if (d->serial[i] >= 'A' && d->serial[i] <= 'F')
			d->serial[i] = (char)(d->serial[i] - 'A' + 'a');
	if ((sim_fault_has(&n->faults, SIM_F_BOSS_UNMATCHED)) && len >= 4) {
		unsigned long tail = strtoul(d->serial + len - 4, NULL, 16);

		snprintf(d->serial + len - 4, 5, "%04lx", tail ^ 0x5a5aUL);
	}
}

void sim_node_set_port(struct sim_node *node, int port)
{
	node->port = port;
	snprintf(node->bmc, sizeof(node->bmc), "127.0.0.1:%d", port);
}

void sim_random_bytes(unsigned char *out, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = getrandom(out + got, len - got, 0);

		if (n > 0)
			got += (size_t)n;
	}
}

static void random_password(char *out, size_t len)
{
	static const char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
	unsigned char raw[64];

	sim_random_bytes(raw, sizeof(raw));
	for (size_t i = 0; i + 1 < len && i < sizeof(raw); i++)
		out[i] = alphabet[raw[i] % (sizeof(alphabet) - 1)];
	out[len - 1] = '\0';
}

int sim_rack_generate(struct sim_rack *rack, const struct sim_config *cfg, struct br_err *err)
{
	if (cfg->nodes < 1 || cfg->nodes > SIM_NODES_MAX)
		return br_errf(err, BR_E_INVAL, "--nodes %d: must be 1..%d", cfg->nodes, SIM_NODES_MAX);
	memset(rack, 0, sizeof(*rack));
	rack->seed = cfg->seed;
	rack->n = (size_t)cfg->nodes;
	rack->nodes = br_xcalloc(rack->n, sizeof(*rack->nodes));
	for (size_t i = 0; i < rack->n; i++)
		make_node(&rack->nodes[i], (int)i, cfg->seed);
	sim_vendor_assign(rack, cfg->vendor);
	random_password(rack->password, sizeof(rack->password));
	return sim_faults_assign(rack, cfg, err);
}

void sim_rack_release(struct sim_rack *rack)
{
	for (size_t i = 0; i < rack->n; i++) {
		json_decref(rack->nodes[i].details);
		json_decref(rack->nodes[i].st.bios);
		json_decref(rack->nodes[i].st.bios_pending);
		sim_answer_cache_free(rack->nodes[i].st.answers);
		sim_fw_list_free(rack->nodes[i].st.firmware);
	}
	free(rack->nodes);
	memset(rack, 0, sizeof(*rack));
}

void sim_temp_sensor(int i, char *name, size_t len, int *ret_celsius)
{
	static const char *const fixed[] = { "System Board Inlet Temp", "System Board Exhaust Temp",
					     "CPU1 Temp", "CPU2 Temp" };
	static const int celsius[] = { 23, 41, 48, 51 };

	if (i < 4) {
		snprintf(name, len, "%s", fixed[i]);
		*ret_celsius = celsius[i];
	} else {
		snprintf(name, len, "GPU%d Temp", i - 3);
		*ret_celsius = 34 + (i % 3);
	}
}
