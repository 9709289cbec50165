/* A simulated XE9680's PCI tree as the kernel shows it in sysfs: each GPU
 * and its rail NIC behind their own PCIe switch (root port, switch upstream
 * port, one downstream port each), the two LOM functions and the NVMe
 * drives on root ports. Every device has the attributes the kernel prints
 * and a 256-byte config space whose Express capability (LnkCap, LnkSta,
 * LnkCap2) says the same as the attributes and as the BMC: a GPU trained
 * x4 (pcie_degraded) is x4 in both, with its downstream port x4 too; a
 * missing device leaves its downstream port with the link down. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hosts_private.h"

#define PCI_CONFIG_BYTES 256
#define PCI_EXP_CAP 0x40
#define SPEED_GEN5 5
#define SPEED_GEN4 4
#define SPEED_GEN2 2

enum port_type { PT_ENDPOINT = 0, PT_ROOT_PORT = 4, PT_UPSTREAM = 5, PT_DOWNSTREAM = 6 };

struct pci_desc {
	unsigned vendor, device, class_code, sub_vendor, sub_device;
	enum port_type type;
	int secondary_bus; /* bridges: the bus behind them */
	int width_cap, width_now, speed_cap, speed_now;
	int slot; /* physical slot number on a downstream/root port, else 0 */
	int numa_node;
};

static void le16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v & 0xff);
	p[1] = (uint8_t)((v >> 8) & 0xff);
}

static void le32(uint8_t *p, uint32_t v)
{
	le16(p, v & 0xffff);
	le16(p + 2, v >> 16);
}

/* Type 0 or 1 header with a capability list holding one Express capability
 * (version 2) at 0x40, laid out as the PCIe base specification says. */
static void config_space(const struct pci_desc *d, uint8_t cfg[PCI_CONFIG_BYTES])
{
	int bridge = d->type != PT_ENDPOINT;
	uint8_t *ex = cfg + PCI_EXP_CAP;
	unsigned flags = 2u | ((unsigned)d->type << 4) | (d->slot ? 0x100u : 0);

	memset(cfg, 0, PCI_CONFIG_BYTES);
	le16(cfg + 0x00, d->vendor);
	le16(cfg + 0x02, d->device);
	le16(cfg + 0x04, 0x0406); /* memory space, bus master, INTx off */
	le16(cfg + 0x06, 0x0010); /* capability list present */
	cfg[0x08] = 0x01;	  /* revision */
	cfg[0x09] = (uint8_t)(d->class_code & 0xff);
	cfg[0x0a] = (uint8_t)((d->class_code >> 8) & 0xff);
	cfg[0x0b] = (uint8_t)((d->class_code >> 16) & 0xff);
	cfg[0x0e] = bridge ? 0x01 : 0x00;
	if (bridge) {
		cfg[0x19] = (uint8_t)d->secondary_bus;
		cfg[0x1a] = (uint8_t)d->secondary_bus;
	} else {
		le16(cfg + 0x2c, d->sub_vendor);
		le16(cfg + 0x2e, d->sub_device);
	}
	cfg[0x34] = PCI_EXP_CAP;
	ex[0] = 0x10; /* PCI Express */
	ex[1] = 0x00; /* last capability */
	le16(ex + 0x02, flags);
	le32(ex + 0x04, 0x2); /* DevCap: 512-byte max payload */
	le32(ex + 0x0c, (uint32_t)d->speed_cap | ((uint32_t)d->width_cap << 4) | (1u << 24));
	le16(ex + 0x12, (unsigned)d->speed_now | ((unsigned)d->width_now << 4));
	if (d->slot)
		le32(ex + 0x14, (uint32_t)d->slot << 19);
	/* LnkCap2: every speed up to the capable one. */
	le32(ex + 0x2c, ((1u << d->speed_cap) - 1) << 1);
}

static const char *speed_text(int code)
{
	static const char *const text[] = { "Unknown",	     "2.5 GT/s PCIe",  "5.0 GT/s PCIe",
					    "8.0 GT/s PCIe", "16.0 GT/s PCIe", "32.0 GT/s PCIe" };

	return code > 0 && code <= SPEED_GEN5 ? text[code] : text[0];
}

/* dir is "sys/devices/pci0000:RR/.../BDF"; the device's base name is its BDF. */
static void pci_device(struct sim_hw *w, const char *dir, const struct pci_desc *d)
{
	const char *bdf = strrchr(dir, '/') + 1;
	uint8_t cfg[PCI_CONFIG_BYTES];
	char *rel, *target;

#define ATTR(name, ...)                                                                                      \
	rel = br_xasprintf("%s/" name, dir);                                                                 \
	sim_hw_put(w, rel, __VA_ARGS__);                                                                     \
	free(rel)
	ATTR("vendor", "0x%04x", d->vendor);
	ATTR("device", "0x%04x", d->device);
	ATTR("class", "0x%06x", d->class_code);
	ATTR("subsystem_vendor", "0x%04x", d->type == PT_ENDPOINT ? d->sub_vendor : d->vendor);
	ATTR("subsystem_device", "0x%04x", d->type == PT_ENDPOINT ? d->sub_device : 0);
	ATTR("revision", "0x01");
	ATTR("numa_node", "%d", d->numa_node);
	ATTR("current_link_speed", "%s", d->width_now ? speed_text(d->speed_now) : "Unknown");
	ATTR("current_link_width", "%d", d->width_now);
	ATTR("max_link_speed", "%s", speed_text(d->speed_cap));
	ATTR("max_link_width", "%d", d->width_cap);
#undef ATTR
	config_space(d, cfg);
	rel = br_xasprintf("%s/config", dir);
	sim_hw_data(w, rel, cfg, sizeof(cfg));
	free(rel);
	rel = br_xasprintf("sys/bus/pci/devices/%s", bdf);
	target = br_xasprintf("../../../%s", dir + 4); /* dir without "sys/" */
	sim_hw_link(w, rel, target);
	free(target);
	free(rel);
}

static void slot_file(struct sim_hw *w, int slot, const char *bdf)
{
	char *rel = br_xasprintf("sys/bus/pci/slots/%d/address", slot);

	/* The slot file names the device without its function. */
	sim_hw_put(w, rel, "%.10s", bdf);
	free(rel);
}

static int gpu_root_bus(const struct sim_node *n, int g)
{
	return n->gpus[g].bus - 3;
}

void sim_host_gpu_bdf(const struct sim_node *n, int g, char bdf[16], char port[16])
{
	int root = gpu_root_bus(n, g);

	snprintf(bdf, 16, "0000:%02x:00.0", (unsigned)n->gpus[g].bus & 0xffu);
	snprintf(port, 16, "0000:%02x:00.0", (unsigned)(root + 2) & 0xffu);
}

void sim_host_nic_bdf(const struct sim_node *n, int k, char bdf[16], char port[16])
{
	if (k < SIM_FABRIC_NICS) {
		snprintf(bdf, 16, "0000:%02x:00.0", (unsigned)n->nics[k].bus & 0xffu);
		snprintf(port, 16, "0000:%02x:01.0", (unsigned)(gpu_root_bus(n, k) + 2) & 0xffu);
	} else {
		/* The LOM is one device with a function per port. */
		snprintf(bdf, 16, "0000:%02x:00.%u", (unsigned)n->nics[SIM_FABRIC_NICS].bus & 0xffu,
			 (unsigned)(k - SIM_FABRIC_NICS) & 7u);
		snprintf(port, 16, "0000:00:1c.0");
	}
}

/* GPU g and fabric NIC g share a switch: rails pair a GPU with its NIC.
 * A part the family's machine does not fit has no port on it. */
static void gpu_switch(struct sim_hw *w, const struct sim_node *n, int g)
{
	const struct sim_gpu *gpu = &n->gpus[g];
	const struct sim_nic *nic = &n->nics[g];
	int root = gpu_root_bus(n, g), numa = gpu->bus < 0x80 ? 0 : 1;
	int lanes = gpu->present ? gpu->lanes : 0, gen = sim_node_shape(n)->pcie_gen;
	char *rp, *up, *down, *dev;
	struct pci_desc d;

	rp = br_xasprintf("sys/devices/pci0000:%02x/0000:%02x:01.0", root, root);
	d = (struct pci_desc){ 0x8086, 0x352a, 0x060400, 0,   0, PT_ROOT_PORT, root + 1,
			       16,     16,     gen,	 gen, 0, numa };
	pci_device(w, rp, &d);
	up = br_xasprintf("%s/0000:%02x:00.0", rp, root + 1);
	d = (struct pci_desc){ 0x1000, 0xc030, 0x060400, 0,   0, PT_UPSTREAM, root + 2,
			       16,     16,     gen,	 gen, 0, numa };
	pci_device(w, up, &d);

	down = br_xasprintf("%s/0000:%02x:00.0", up, root + 2);
	if (gpu->fitted) {
		d = (struct pci_desc){ 0x1000, 0xc030, 0x060400, 0,   0,     PT_DOWNSTREAM, gpu->bus,
				       16,     lanes,  gen,	 gen, g + 1, numa };
		pci_device(w, down, &d);
	}
	if (gpu->present) {
		char bdf[16], port[16];

		sim_host_gpu_bdf(n, g, bdf, port);
		dev = br_xasprintf("%s/%s", down, bdf);
		d = (struct pci_desc){ 0x10de, 0x2335, 0x030200, 0x10de, 0x18bf, PT_ENDPOINT, 0,
				       16,     lanes,  gen,	 gen,	 0,	 numa };
		pci_device(w, dev, &d);
		slot_file(w, g + 1, bdf);
		free(dev);
	}
	free(down);

	down = br_xasprintf("%s/0000:%02x:01.0", up, root + 2);
	if (nic->fitted) {
		d = (struct pci_desc){
			0x1000, 0xc030, 0x060400, 0,   0, PT_DOWNSTREAM, nic->bus, 16, nic->present ? 16 : 0,
			gen,	gen,	31 + g,	  numa
		};
		pci_device(w, down, &d);
	}
	if (nic->present) {
		char bdf[16], port[16];

		sim_host_nic_bdf(n, g, bdf, port);
		dev = br_xasprintf("%s/%s", down, bdf);
		d = (struct pci_desc){ 0x15b3, 0x1021, 0x020000, 0x15b3, 0x0023, PT_ENDPOINT, 0,
				       16,     16,     gen,	 gen,	 0,	 numa };
		pci_device(w, dev, &d);
		slot_file(w, 31 + g, bdf);
		free(dev);
	}
	free(down);
	free(up);
	free(rp);
}

static void lom(struct sim_hw *w, const struct sim_node *n)
{
	const char *rp = "sys/devices/pci0000:00/0000:00:1c.0";
	struct pci_desc d = {
		0x8086, 0x1bbc,	    0x060400,	0, 0, PT_ROOT_PORT, n->nics[SIM_FABRIC_NICS].bus, 1,
		1,	SPEED_GEN2, SPEED_GEN2, 0, 0
	};

	pci_device(w, rp, &d);
	for (int k = SIM_FABRIC_NICS; k < SIM_NICS; k++) {
		char bdf[16], port[16], *dir;

		if (!n->nics[k].present)
			continue;
		sim_host_nic_bdf(n, k, bdf, port);
		dir = br_xasprintf("%s/%s", rp, bdf);
		d = (struct pci_desc){ 0x14e4, 0x165f,	   0x020000,   0x1028, 0x0a1f, PT_ENDPOINT, 0, 1,
				       1,      SPEED_GEN2, SPEED_GEN2, 0,      0 };
		pci_device(w, dir, &d);
		free(dir);
	}
}

char *sim_host_drive_dir(int d)
{
	if (d < 0)
		return br_xstrdup("sys/devices/pci0000:00/0000:00:1d.0/0000:03:00.0");
	return br_xasprintf("sys/devices/pci0000:e0/0000:e0:%02x.0/0000:%02x:00.0", d + 1, 0xe1 + d);
}

static void drives(struct sim_hw *w, const struct sim_node *n)
{
	for (int d = -1; d < sim_node_shape(n)->data_drives; d++) {
		int present = d < 0 ? n->boot_drive.present : n->drives[d].present;
		char *dir = sim_host_drive_dir(d), *rp = br_xstrdup(dir);
		struct pci_desc desc = { 0x8086,
					 0x352b,
					 0x060400,
					 0,
					 0,
					 PT_ROOT_PORT,
					 d < 0 ? 3 : 0xe1 + d,
					 4,
					 present ? 4 : 0,
					 SPEED_GEN4,
					 SPEED_GEN4,
					 0,
					 d < 0 ? 0 : 1 };

		*strrchr(rp, '/') = '\0';
		pci_device(w, rp, &desc);
		if (present) {
			desc = d < 0 ? (struct pci_desc){ 0x1b4b,      0x2241, 0x010802, 0x1028, 0x2151,
							  PT_ENDPOINT, 0,      4,	 4,	 SPEED_GEN4,
							  SPEED_GEN4,  0,      0 }
				     : (struct pci_desc){ 0x144d,      0xa824, 0x010802, 0x1028, 0x2233,
							  PT_ENDPOINT, 0,      4,	 4,	 SPEED_GEN4,
							  SPEED_GEN4,  0,      1 };
			pci_device(w, dir, &desc);
		}
		free(rp);
		free(dir);
	}
}

void sim_host_pci(struct sim_hw *w, const struct sim_node *n)
{
	for (int g = 0; g < SIM_GPUS; g++)
		if (n->gpus[g].fitted || n->nics[g].fitted)
			gpu_switch(w, n, g);
	lom(w, n);
	drives(w, n);
}
