/*
 * PCIe link width and speed where PCIeDevice and PCIeFunction lack them:
 *  - HPE iLO: Oem.Hpe.Links.PCIDevices (HpeServerPciDevice, one per PCI
 *    device, with its negotiated link and DeviceLocation, the slot label
 *    the standard PCIeDevice carries too);
 *  - Supermicro and other BMCs: the Chassis' PCIeSlots (DMTF PCIeSlots:
 *    Slots[].Lanes and PCIeType, Links.PCIeDevice naming the device).
 * The walk reads them in any order relative to the PCIe devices, so they
 * are kept as hints and merged when the walk ends (rf_pcie_hints_merge):
 * a standard value always wins, a hint only fills what is unknown, and a
 * hint that matches no PCIe device adds none (the standard collection says
 * which devices there are; iLO's list holds every chipset function too).
 */
#include <stdlib.h>
#include <string.h>

#include "rf_private.h"

/* "x16", "16" or 16; -1 when none. */
static int width_of(json_t *v)
{
	const char *s = json_string_value(v);
	long n;

	if (json_is_integer(v))
		return json_integer_value(v) > 0 && json_integer_value(v) <= 64 ? (int)json_integer_value(v)
										: -1;
	if (!s)
		return -1;
	if (*s == 'x' || *s == 'X')
		s++;
	return br_parse_long(s, 1, 64, &n) ? -1 : (int)n;
}

/* "Gen5", "PCIeGen5", "PCIe5", "32GT/s", "32.0 GT/s" as "Gen5"; NULL when
 * none. Caller frees. */
static char *gen_of(const char *s)
{
	static const struct {
		const char *gts;
		int gen;
	} rates[] = { { "2.5", 1 }, { "5", 2 }, { "8", 3 }, { "16", 4 }, { "32", 5 }, { "64", 6 } };
	long gen;

	if (!s)
		return NULL;
	if (!strncmp(s, "PCIe", 4))
		s += 4;
	if (!strncmp(s, "Gen", 3))
		s += 3;
	if (strstr(s, "GT")) {
		for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
			size_t n = strlen(rates[i].gts);

			if (!strncmp(s, rates[i].gts, n) && (s[n] == 'G' || s[n] == ' ' || s[n] == '.'))
				return br_xasprintf("Gen%d", rates[i].gen);
		}
		return NULL;
	}
	return br_parse_long(s, 1, 9, &gen) ? NULL : br_xasprintf("Gen%ld", gen);
}

static void add_hint(struct rf_bmc *bmc, const char *device_id, const char *slot, int lanes, char *gen_take,
		     const char *source)
{
	if (lanes < 0 && !gen_take)
		return;
	if (!bmc->pcie_hints)
		bmc->pcie_hints = json_array();
	json_array_append_new(bmc->pcie_hints,
			      json_pack("{s:s?, s:s?, s:i, s:s?, s:s}", "device", device_id, "slot", slot,
					"lanes", lanes, "type", gen_take, "source", source));
	free(gen_take);
}

void rf_pcie_hint_hpe(struct rf_bmc *bmc, json_t *doc)
{
	static const char *const widths[] = { "LinkWidth", "CurrentLinkWidth" };
	static const char *const speeds[] = { "LinkSpeed", "CurrentLinkSpeed" };
	int lanes = -1;
	char *gen = NULL;

	for (size_t i = 0; i < 2 && lanes < 0; i++)
		lanes = width_of(json_object_get(doc, widths[i]));
	for (size_t i = 0; i < 2 && !gen; i++)
		gen = gen_of(br_json_str(doc, speeds[i]));
	add_hint(bmc, NULL, br_json_str(doc, "DeviceLocation"), lanes, gen, "HpePciDevice");
}

void rf_pcie_hint_slots(struct rf_bmc *bmc, json_t *doc)
{
	json_t *slots = json_object_get(doc, "Slots"), *slot, *dev;
	size_t i, k;

	json_array_foreach(slots, i, slot)
	{
		json_t *devices = br_json_path(slot, "Links/PCIeDevice");

		json_array_foreach(devices, k, dev)
		{
			const char *link = br_json_str(dev, "@odata.id");
			char *id;
			size_t len;

			if (!link)
				continue;
			/* the device's Id is its link's last segment */
			len = strlen(link);
			while (len > 1 && link[len - 1] == '/')
				len--;
			id = br_xstrndup(link, len);
			add_hint(bmc, strrchr(id, '/') ? strrchr(id, '/') + 1 : id, NULL,
				 width_of(json_object_get(slot, "Lanes")),
				 gen_of(br_json_str(slot, "PCIeType")), "PCIeSlots");
			free(id);
		}
	}
}

static struct br_pcie *hinted(struct br_hw *hw, json_t *hint)
{
	const char *device = br_json_str(hint, "device"), *slot = br_json_str(hint, "slot");

	for (size_t i = 0; i < hw->n_pcie; i++) {
		struct br_pcie *p = &hw->pcie[i];

		if ((device && p->id && !strcmp(p->id, device)) ||
		    (slot && p->slot && !strcmp(p->slot, slot)))
			return p;
	}
	return NULL;
}

void rf_pcie_hints_merge(struct rf_bmc *bmc)
{
	json_t *hint;
	size_t i;

	json_array_foreach(bmc->pcie_hints, i, hint)
	{
		struct br_pcie *p = hinted(&bmc->hw, hint);
		int lanes = (int)br_json_int(hint, "lanes", -1);

		if (!p)
			continue;
		if (p->lanes_in_use < 0 && lanes > 0)
			p->lanes_in_use = lanes;
		if (!p->pcie_type && br_json_str(hint, "type"))
			p->pcie_type = br_hw_strdup(br_json_str(hint, "type"));
	}
	json_decref(bmc->pcie_hints);
	bmc->pcie_hints = NULL;
}
