/* The simulated InfiniBand fabric (sim.h says its shape): the design as a
 * wiring list (ib-wiring.csv), and the subnets as cabled, faults included,
 * in the text ibnetdiscover prints (infiniband-diags' default output, as
 * tests/fixtures/ibnet/ captures of the real tool show it), with the tool
 * each simulated host runs to read them: a port sees only the subnet it
 * is on. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim.h"

#define NODES_PER_SU 32
#define QM9700_PORTS 64 /* NVIDIA QM9700: 32 OSFP cages, 64 NDR ports */

static int leaf_index(const struct sim_node *n, int k)
{
	return (n->index / NODES_PER_SU) * SIM_FABRIC_NICS + k;
}

/* Leaves by index that some InfiniBand node is cabled to by design. */
static int leaves_used(const struct sim_rack *rack, unsigned char *used, int max)
{
	int top = 0;

	for (size_t i = 0; i < rack->n; i++) {
		const struct sim_node *n = &rack->nodes[i];

		if (!sim_node_infiniband(n))
			continue;
		for (int k = 0; k < SIM_FABRIC_NICS; k++)
			if (n->nics[k].fitted && leaf_index(n, k) < max) {
				used[leaf_index(n, k)] = 1;
				if (leaf_index(n, k) + 1 > top)
					top = leaf_index(n, k) + 1;
			}
	}
	return top;
}

static void leaf_name(int leaf, char out[32])
{
	snprintf(out, 32, "leaf-su%02d-rail%d", leaf / SIM_FABRIC_NICS + 1, leaf % SIM_FABRIC_NICS + 1);
}

int sim_ib_write_wiring(const struct sim_rack *rack, const char *dir, struct br_err *err)
{
	int max = (int)((rack->n + NODES_PER_SU - 1) / NODES_PER_SU) * SIM_FABRIC_NICS;
	unsigned char *used = br_xcalloc((size_t)max + 1, 1);
	int top = leaves_used(rack, used, max), rc;
	char *path = br_xasprintf("%s/ib-wiring.csv", dir);
	struct br_buf b;

	br_buf_init(&b, 0);
	br_buf_adds(&b, "hostname,host_port,switch,switch_port\n");
	for (size_t i = 0; i < rack->n; i++) {
		const struct sim_node *n = &rack->nodes[i];

		for (int k = 0; sim_node_infiniband(n) && k < SIM_FABRIC_NICS; k++)
			if (n->nics[k].fitted)
				br_buf_addf(&b, "%s,mlx5_%d/1,%s,%s\n", n->hostname, k, n->nics[k].sw,
					    n->nics[k].sw_port);
	}
	for (int l = 0; l < top; l++) {
		char leaf[32];

		if (!used[l])
			continue;
		leaf_name(l, leaf);
		for (int j = 0; j < SIM_IB_SPINES; j++)
			br_buf_addf(&b, "%s,%d,spine%02d,%d\n", leaf, SIM_IB_LEAF_UPLINK + j, j + 1, l + 1);
	}
	rc = br_write_file(path, br_buf_str(&b), b.len, err);
	br_buf_release(&b);
	free(path);
	free(used);
	return rc;
}

/* ---- the subnets as cabled ------------------------------------------------------ */

/* The node GUID is the MAC as a modified EUI-64 (sysfs node_guid shows it
 * with colons; ibnetdiscover as 16 hex digits). */
static void hca_guid(const struct sim_nic *nic, char out[17])
{
	unsigned b[6] = { 0 };

	sscanf(nic->mac, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]);
	snprintf(out, 17, "%02x%02x%02xfffe%02x%02x%02x", b[0] ^ 2u, b[1], b[2], b[3], b[4], b[5]);
}

static void leaf_guid(int leaf, char out[17])
{
	snprintf(out, 17, "b8cef60300%06x", (0x100000u + (unsigned)leaf) & 0xffffffu);
}

static void spine_guid(int spine, char out[17])
{
	snprintf(out, 17, "b8cef60300%06x", (0x200000u + (unsigned)spine) & 0xffffffu);
}

/* Where fabric NIC k of n is cabled as the rack is: its leaf and port, or
 * 0 when no link trains (NIC gone, cable out, port down). */
static int attached(const struct sim_node *n, int k, int *ret_leaf, int *ret_port)
{
	const struct sim_nic *nic = &n->nics[k];
	json_t *swap = json_object_get(n->details, "cable_swap"),
	       *unplug = json_object_get(n->details, "cable_unplugged");
	const char *swap_if = br_json_str(swap, "ifname"), *unplug_if = br_json_str(unplug, "ifname");

	if (!nic->present || nic->ib_down)
		return 0;
	if ((sim_fault_has(&n->faults, SIM_F_CABLE_UNPLUGGED)) && unplug_if &&
	    !strcmp(unplug_if, nic->ifname))
		return 0;
	*ret_leaf = leaf_index(n, k);
	*ret_port = atoi(nic->sw_port);
	if ((sim_fault_has(&n->faults, SIM_F_CABLE_SWAP)) && swap_if && !strcmp(swap_if, nic->ifname) &&
	    br_json_str(swap, "switch_port")) {
		const char *sw = br_json_str(swap, "switch");
		int su = 0, rail = 0;

		*ret_port = atoi(br_json_str(swap, "switch_port"));
		if (sw && sscanf(sw, "leaf-su%d-rail%d", &su, &rail) == 2)
			*ret_leaf = (su - 1) * SIM_FABRIC_NICS + rail - 1;
	}
	return 1;
}

/* The network (0 .. fabrics-1) a leaf or spine is in as cabled. */
static int group_of(const struct sim_rack *rack, int index)
{
	return rack->ib_fabrics > 1 ? index % rack->ib_fabrics : 0;
}

struct hca_end {
	const struct sim_node *n;
	int k, leaf, port;
};

static const char *rate_of(const struct sim_nic *nic)
{
	return nic->ib_rate_gbps == 200 ? "4xHDR" : "4xNDR";
}

static void add_switch_head(struct br_buf *b, const char *guid, const char *desc, int lid)
{
	br_buf_addf(b,
		    "vendid=0x2c9\ndevid=0xd2f2\nsysimgguid=0x%s\nswitchguid=0x%s(%s)\n"
		    "Switch\t%d \"S-%s\"\t\t# \"%s\" enhanced port 0 lid %d lmc 0\n",
		    guid, guid, guid, QM9700_PORTS, guid, desc, lid);
}

/* Network g's text: its leaves and spines, then its adapters. */
static void subnet_text(const struct sim_rack *rack, int g, const unsigned char *used, int top,
			const struct hca_end *ends, size_t n_ends, struct br_buf *b)
{
	char guid[17], peer[17], name[32], desc[64];

	for (int l = 0; l < top; l++) {
		if (!used[l] || group_of(rack, l) != g)
			continue;
		leaf_guid(l, guid);
		leaf_name(l, name);
		snprintf(desc, sizeof(desc), "MF0;%s:MQM9700/U1", name);
		add_switch_head(b, guid, desc, 2 + l);
		for (size_t e = 0; e < n_ends; e++) {
			const struct sim_nic *nic = &ends[e].n->nics[ends[e].k];

			if (ends[e].leaf != l)
				continue;
			hca_guid(nic, peer);
			br_buf_addf(b, "[%d]\t\"H-%s\"[1](%s) \t\t# \"%s mlx5_%d\" lid %d %s\n", ends[e].port,
				    peer, peer, ends[e].n->hostname,
				    sim_node_rdma_index(ends[e].n, ends[e].k),
				    0x100 + ends[e].n->index * SIM_FABRIC_NICS + ends[e].k, rate_of(nic));
		}
		for (int j = 0; j < SIM_IB_SPINES; j++)
			if (group_of(rack, j) == g) {
				spine_guid(j, peer);
				br_buf_addf(
				    b, "[%d]\t\"S-%s\"[%d]\t\t# \"MF0;spine%02d:MQM9700/U1\" lid %d 4xNDR\n",
				    SIM_IB_LEAF_UPLINK + j, peer, l + 1, j + 1, 2 + top + j);
			}
		br_buf_adds(b, "\n");
	}
	for (int j = 0; j < SIM_IB_SPINES; j++) {
		if (group_of(rack, j) != g)
			continue;
		spine_guid(j, guid);
		snprintf(desc, sizeof(desc), "MF0;spine%02d:MQM9700/U1", j + 1);
		add_switch_head(b, guid, desc, 2 + top + j);
		for (int l = 0; l < top; l++)
			if (used[l] && group_of(rack, l) == g) {
				leaf_guid(l, peer);
				leaf_name(l, name);
				br_buf_addf(b, "[%d]\t\"S-%s\"[%d]\t\t# \"MF0;%s:MQM9700/U1\" lid %d 4xNDR\n",
					    l + 1, peer, SIM_IB_LEAF_UPLINK + j, name, 2 + l);
			}
		br_buf_adds(b, "\n");
	}
	for (size_t e = 0; e < n_ends; e++) {
		const struct sim_nic *nic = &ends[e].n->nics[ends[e].k];

		if (group_of(rack, ends[e].leaf) != g)
			continue;
		hca_guid(nic, guid);
		leaf_guid(ends[e].leaf, peer);
		leaf_name(ends[e].leaf, name);
		br_buf_addf(b,
			    "vendid=0x2c9\ndevid=0x1021\nsysimgguid=0x%s\ncaguid=0x%s\n"
			    "Ca\t1 \"H-%s\"\t\t# \"%s mlx5_%d\"\n"
			    "[1](%s) \t\"S-%s\"[%d]\t\t# lid %d lmc 0 \"MF0;%s:MQM9700/U1\" lid %d %s\n\n",
			    guid, guid, guid, ends[e].n->hostname, sim_node_rdma_index(ends[e].n, ends[e].k),
			    guid, peer, ends[e].port, 0x100 + ends[e].n->index * SIM_FABRIC_NICS + ends[e].k,
			    name, 2 + ends[e].leaf, rate_of(nic));
	}
}

/* What each host runs as ibnetdiscover: the subnet of the port it is given
 * (-C DEVICE -P PORT, else its first active port), from the port map the
 * simulator wrote in its tree; a port that is down or absent fails as the
 * real tool does. */
static const char script[] =
    "#!/bin/sh\n"
    "# ibnetdiscover on a simulated host (bringup sim, sim/ib_fabric.c): the subnet\n"
    "# its port is on, as infiniband-diags prints it.\n"
    "dev= port=1\n"
    "while [ $# -gt 0 ]; do\n"
    "\tcase $1 in\n"
    "\t-C) dev=$2; shift 2 ;;\n"
    "\t-P) port=$2; shift 2 ;;\n"
    "\t*) shift ;;\n"
    "\tesac\n"
    "done\n"
    "map=$HOME/.captures/ibnetdiscover.ports\n"
    "while read -r d p state guid file; do\n"
    "\t[ -z \"$dev\" ] && [ \"$state\" = active ] && dev=$d port=$p\n"
    "\t[ \"$d\" = \"$dev\" ] && [ \"$p\" = \"$port\" ] || continue\n"
    "\tif [ \"$state\" != active ]; then\n"
    "\t\techo \"ibnetdiscover: iberror: failed: discover failed\" >&2\n"
    "\t\texit 1\n"
    "\tfi\n"
    "\tprintf '#\\n# Topology file: generated on %s\\n#\\n# Initiated from node %s port %s\\n\\n' \\\n"
    "\t\t\"$(date '+%a %b %e %H:%M:%S %Y')\" \"$guid\" \"$guid\"\n"
    "\texec cat \"$file\"\n"
    "done < \"$map\"\n"
    "echo \"ibwarn: [$$] mad_rpc_open_port: can't open UMAD port (${dev:-(null)}:$port)\" >&2\n"
    "echo \"ibnetdiscover: iberror: failed: Failed to open '${dev:-(null)}' port '$port'\" >&2\n"
    "exit 1\n";

static int write_in(const char *dir, const char *name, const char *text, size_t len, mode_t mode,
		    struct br_err *err)
{
	char *path = br_xasprintf("%s/%s", dir, name);
	int rc = br_write_file(path, text, len, err);

	if (!rc && chmod(path, mode))
		rc = br_errf(err, BR_E_IO, "%s: %s", path, strerror(errno));
	free(path);
	return rc;
}

static int make_dir(const char *path, struct br_err *err)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		return br_errf(err, BR_E_IO, "%s: %s", path, strerror(errno));
	return 0;
}

int sim_ib_write_subnets(const struct sim_rack *rack, const char *dir, struct br_err *err)
{
	int max = (int)((rack->n + NODES_PER_SU - 1) / NODES_PER_SU) * SIM_FABRIC_NICS;
	unsigned char *used = br_xcalloc((size_t)max + 1, 1);
	int top = leaves_used(rack, used, max), groups = rack->ib_fabrics > 1 ? rack->ib_fabrics : 1, rc;
	struct hca_end *ends = br_xcalloc(rack->n * SIM_FABRIC_NICS + 1, sizeof(*ends));
	char *fabric = br_xasprintf("%s/fabric", dir), *bin = br_xasprintf("%s/bin", dir);
	size_t n_ends = 0;

	for (size_t i = 0; i < rack->n; i++)
		for (int k = 0; sim_node_infiniband(&rack->nodes[i]) && k < SIM_FABRIC_NICS; k++) {
			struct hca_end e = { &rack->nodes[i], k, 0, 0 };

			if (attached(e.n, k, &e.leaf, &e.port) && e.leaf < max && used[e.leaf])
				ends[n_ends++] = e;
		}
	rc = make_dir(fabric, err);
	if (!rc)
		rc = make_dir(bin, err);
	if (!rc)
		rc = write_in(bin, "ibnetdiscover", script, sizeof(script) - 1, 0755, err);
	for (int g = 0; g < groups && !rc; g++) {
		struct br_buf b;
		char name[32];

		br_buf_init(&b, 0);
		subnet_text(rack, g, used, top, ends, n_ends, &b);
		snprintf(name, sizeof(name), "subnet-%d.txt", g + 1);
		rc = write_in(fabric, name, br_buf_str(&b), b.len, 0644, err);
		br_buf_release(&b);
	}
	for (size_t i = 0; i < rack->n && !rc; i++) {
		const struct sim_node *n = &rack->nodes[i];
		char *host = br_xasprintf("%s/hosts/%s/.captures", dir, n->hostname);
		struct br_buf b;

		br_buf_init(&b, 0);
		for (int k = 0; sim_node_infiniband(n) && k < SIM_FABRIC_NICS; k++) {
			int leaf = 0, port = 0, up = attached(n, k, &leaf, &port) && leaf < max;
			char guid[17];

			if (!n->nics[k].present)
				continue;
			hca_guid(&n->nics[k], guid);
			br_buf_addf(&b, "mlx5_%d 1 %s %s %s/subnet-%d.txt\n", sim_node_rdma_index(n, k),
				    up ? "active" : "down", guid, fabric, up ? group_of(rack, leaf) + 1 : 0);
		}
		if (sim_node_infiniband(n))
			rc = make_dir(host, err);
		if (!rc && sim_node_infiniband(n))
			rc = write_in(host, "ibnetdiscover.ports", br_buf_str(&b), b.len, 0644, err);
		br_buf_release(&b);
		free(host);
	}
	free(fabric);
	free(bin);
	free(ends);
	free(used);
	return rc;
}
