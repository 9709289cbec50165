/*
 * cabling — the wiring list (what the design says is cabled to what) and the
 * judgement of LLDP neighbours against it. Pure: no inventory, no I/O except
 * reading the wiring file.
 *
 * A wiring list comes in one of three forms, told apart by the header:
 *   the simulator's   hostname,host_port,switch,switch_port[,role]
 *   NetBox import     side_a_device,side_a_type,side_a_name,side_b_device,side_b_type,side_b_name[,…]
 *   NetBox export     Device A,Termination A,Device B,Termination B[,…]
 * Links are undirected: either end may be the host.
 *
 * Ownership: val_wiring owns every string it holds (val_wiring_release);
 * judging borrows the wiring and the observations and returns findings the
 * caller releases with val_cabling_result_release.
 */
#ifndef BRINGUP_VALIDATORS_CABLING_H
#define BRINGUP_VALIDATORS_CABLING_H

#include "common.h"
#include "rules.h"

#define VAL_WIRING_MAX_BYTES (64u << 20) /* a wiring file; 10,000 nodes x 10 links fit with room */
#define VAL_WIRING_MAX_LINKS 1000000

/* One cable by design: end a (dev_a, port_a) to end b. */
struct val_link {
	char *dev_a, *port_a, *dev_b, *port_b;
	unsigned line; /* where it is in the wiring file */
	/* what the cable is for (the bringup form's optional role column,
	 * lowercase; NULL: none): VAL_ROLE_PROVISIONING names the switch the
	 * host PXE boots from */
	char *role;
};

#define VAL_ROLE_PROVISIONING "provisioning"
#define VAL_ROLE_MAX 64

/* A link's end by its matching key (device's first label and port, both
 * lowercase), sorted, for lookups that do not grow with the rack. */
struct val_wiring_end {
	char *key;
	size_t link;
	int side; /* 0: a, 1: b */
};

struct val_wiring {
	struct val_link *links;
	size_t n, cap;
	struct val_wiring_end *ends; /* 2n, sorted by key */
	char *path;
	const char *form; /* "bringup", "netbox-import" or "netbox-export" */
	size_t skipped;	  /* rows not between two interfaces, or not (yet) connected */
};

/* Load path into *ret. On any problem nothing is returned: each one is added
 * to problems as "PATH:LINE: field: message" and BR_E_INVAL returned. */
int val_wiring_load(const char *path, struct val_wiring *ret, struct br_strlist *problems,
		    struct br_err *err);
void val_wiring_release(struct val_wiring *w);
/* Build w->ends (val_wiring_load does; for a wiring built by hand). */
void val_wiring_index(struct val_wiring *w);

/* Each designed cable of host: its local port, the far end and the line
 * it is on, in the index's order. */
typedef void (*val_wiring_end_fn)(void *ctx, const char *local_port, const char *dev, const char *port,
				  unsigned line);
void val_wiring_host_ends(const struct val_wiring *w, const char *host, val_wiring_end_fn fn, void *ctx);
/* The far end of the designed cable at (dev, port): its device (NULL if no
 * cable there), its port in *ret_far_port. Borrowed from w. */
const char *val_wiring_far_end(const struct val_wiring *w, const char *dev, const char *port,
			       const char **ret_far_port);

/* The host's cable of this role (VAL_ROLE_PROVISIONING): its far end's
 * device (NULL if the host has none), its host port, switch port and line
 * (borrowed from w). *ret_count is how many such cables the host has (the
 * first, in the index's order, is returned). */
const char *val_wiring_host_role(const struct val_wiring *w, const char *host, const char *role,
				 const char **ret_host_port, const char **ret_far_port, unsigned *ret_line,
				 size_t *ret_count);
/* Do two device names stand for one device (case, and only the first DNS
 * label, as the wiring list's names are matched)? */
int val_same_device(const char *a, const char *b);

/* The number of connected components of the graph the links make (a
 * fabric that should be one network and is really eight says 8). */
size_t val_wiring_components(const struct val_wiring *w);

/* An LLDP neighbour as the host saw it on one of its ports. */
struct val_lldp_neighbor {
	const char *local_port;
	const char *system_name;
	const char *port_id;
	const char *port_descr; /* a switch's interface name, when its port id is a MAC */
};

/* One host's LLDP view; lldp_seen is 0 when the host could not report its
 * neighbours at all (no lldpd), which makes its cabling unknown, not bad. */
struct val_cabling_host {
	const char *hostname;
	int lldp_seen;
	const struct val_lldp_neighbor *neighbors;
	size_t n;
};

enum val_cable_kind {
	VAL_CABLE_OK,
	VAL_CABLE_MISSING,     /* nothing seen on the port: unplugged, or link down */
	VAL_CABLE_WRONG,       /* plugged into another switch port than designed */
	VAL_CABLE_SWAPPED,     /* exchanged with another host port: both see each other's */
	VAL_CABLE_UNEXPECTED,  /* a neighbour on a port the wiring list does not cable */
	VAL_CABLE_UNREACHABLE, /* fabric: a designed device discovery never reached */
	VAL_CABLE_SLOW,	       /* fabric: a link trained below the expected rate */
	VAL_CABLE_SPLIT,       /* fabric: one of the separate fabrics discovery saw */
};

struct val_cable_finding {
	enum val_cable_kind kind;
	char *local_port;
	char *expected;	  /* "leaf01 swp3", or NULL for UNEXPECTED */
	char *seen;	  /* "leaf02 swp14", or NULL for MISSING */
	char *other_host; /* WRONG/SWAPPED: whose designed port we landed on */
	char *other_port;
	unsigned line; /* the wiring line of the expected link (0: none) */
};

struct val_cabling_result {
	enum val_result result;
	struct val_cable_finding *findings; /* problems only */
	size_t n;
	size_t links_expected, links_ok;
	char *detail; /* evidence a technician can act on, one sentence per problem */
};

/* Judge one host against the wiring list. others (the rack's views, may
 * include self, may be NULL) tell a swap from a wrong port. */
void val_cabling_judge(const struct val_wiring *w, const struct val_cabling_host *self,
		       const struct val_cabling_host *others, size_t nothers, struct val_cabling_result *ret);
void val_cabling_result_release(struct val_cabling_result *r);
/* The PCIe device ("0000:3c:00") a network interface name places itself
 * on, by systemd's predictable naming of PCI geography (en|ib|wl|ww, then
 * P<domain>, p<bus>s<slot>, f<function>, n<port> or d<dev_port>;
 * systemd.net-naming-scheme(7)): "enp60s0np0" is on 0000:3c:00,
 * "enP2p1s0f1" on 0002:01:00. 0 and out (16 bytes) set; -1 for a name of
 * another form (eth0, ens1f0: a hotplug slot index, not a bus). */
int val_ifname_pci_device(const char *ifname, char out[16]);
/* "ok", "missing", "wrong port", "swapped", "unexpected", "unreachable",
 * "slow", "split". */
const char *val_cable_kind_name(enum val_cable_kind k);

/* ---- cabling_bmc.c: cabling as the BMC saw it, before the first PXE boot --
 *
 * A BMC names a host port its own way (Dell's FQDD "NIC.Embedded.1-1-1",
 * a Port's adapter/Id) and the switch by its chassis id where LLDP's
 * system name is not passed on (Dell's Connection View). The switches
 * file names each switch's chassis id; each BMC port is given the wiring
 * list's name of the host port it is: the one the list names so, else
 * the one designed to the switch port it sees, else, when exactly one
 * designed port and one BMC port are left over, each other. The view is
 * then judged by val_cabling_judge, the rules LLDP in band is judged by. */

#define VAL_SWITCHES_MAX_BYTES (8u << 20)
#define VAL_SWITCHES_MAX 100000

/* switches.csv: "switch,chassis_id" (a header row; the chassis id a MAC in
 * any of its usual forms, or another LLDP chassis id as sent). */
struct val_switch {
	char *name;
	char *chassis_id; /* MACs in lowercase colon form */
	unsigned line;
};
struct val_switches {
	struct val_switch *items; /* sorted by chassis_id */
	size_t n;
	char *path;
};
/* Problems as for the wiring list ("PATH:LINE: field: message"). */
int val_switches_load(const char *path, struct val_switches *ret, struct br_strlist *problems,
		      struct br_err *err);
void val_switches_release(struct val_switches *s);
/* The switch with this chassis id (any MAC form); NULL if none. */
const char *val_switch_by_chassis(const struct val_switches *s, const char *chassis_id);

/* One node's host ports as the BMC showed them (borrowed). source NULL:
 * the BMC offers no neighbour view. */
struct val_bmc_view {
	const char *hostname;
	const char *source;
	const struct br_neighbor *ports;
	size_t n;
};

/* A BMC view in the in-band shape, ports under the wiring list's names.
 * host borrows from this record; release with val_bmc_cabling_release. */
struct val_bmc_cabling {
	struct val_cabling_host host;
	struct val_lldp_neighbor *nbs;
	struct br_strlist owned;    /* the strings nbs point at */
	struct br_strlist port_map; /* "eno8303=NIC.Embedded.1-1-1" per mapped port */
	struct br_strlist wired;    /* the wiring list's name of each: "eno8303" */
	char *unknown;		    /* why the view cannot be judged; NULL: it can */
	const char *source;
};
/* sw may be NULL (then only LLDP system names match). */
void val_bmc_cabling_build(const struct val_wiring *w, const struct val_switches *sw,
			   const struct val_bmc_view *v, struct val_bmc_cabling *ret);
void val_bmc_cabling_release(struct val_bmc_cabling *c);
/* Judge self among the rack's views (all may include self): unknown with
 * the reason where the BMC shows nothing to judge, else val_cabling_judge,
 * the detail saying it is the BMC's view and which BMC port each finding's
 * host port is. */
void val_bmc_cabling_judge(const struct val_wiring *w, const struct val_bmc_cabling *self,
			   const struct val_bmc_cabling *all, size_t n, struct val_cabling_result *ret);
/* The BMC's name of the host port the wiring list calls local_port; NULL
 * when it could not be told. */
const char *val_bmc_cabling_port(const struct val_bmc_cabling *c, const char *local_port);
/* The other way: the wiring list's name of the BMC's port; NULL if none. */
const char *val_bmc_cabling_port_wired(const struct val_bmc_cabling *c, const char *bmc_port);

/* One LLDP neighbour as the OS saw it (bringup-probe's lldp section;
 * strings borrowed). */
struct val_os_neighbor {
	const char *local_port, *chassis_id, *system_name, *port_id, *port_descr;
};

/* After deploy, the BMC's view against the OS's LLDP, port by port: each
 * BMC port's switch end must be the one an OS interface sees, and each OS
 * neighbour one a BMC port shows; the pairs say which OS interface each
 * BMC port is. A BMC port whose end no OS interface sees is a stale view
 * (or a cable moved since discovery); an OS interface whose end the BMC
 * shows on no port, the other way round; a BMC port the wiring list names
 * W (c, may be NULL: built by val_bmc_cabling_build) that the OS calls X
 * is a NIC the OS names differently. BR_E_NOTFOUND (no check) when the BMC
 * shows no neighbour or the OS none: nothing to compare. *ret_detail is
 * the caller's. */
int val_bmc_views_compare(const struct val_bmc_view *v, const struct val_bmc_cabling *c,
			  const struct val_switches *sw, const struct val_os_neighbor *os, size_t n_os,
			  enum val_result *ret_result, char **ret_detail);

/* ---- fabric.c: an InfiniBand fabric as ibnetdiscover saw it --------------- */

#define VAL_IBNET_MAX_BYTES (64u << 20)
#define VAL_IBNET_MAX_LINKS 1000000

/* A node is named as the wiring list names it: a switch's NodeDescription
 * "MF0;leaf01:MQM9700/U1" is leaf01; a host adapter's "gpu01 mlx5_0" is
 * device gpu01, port mlx5_0/N; a one-word description (a node-name-map's)
 * is the device; factory text ("MT4129 ConnectX7   Mellanox Technologies")
 * names no device, which is then its GUID, "0x0008f10403960558", port N.
 * Switch ports are their numbers. */
struct val_ibnet_link {
	char *dev_a, *port_a, *dev_b, *port_b;
	int switch_a, switch_b; /* the end is a switch (else an adapter or router) */
	char *rate;		/* "4xNDR", as ibnetdiscover prints it */
	unsigned line;
};

struct val_ibnet {
	struct val_ibnet_link *links; /* each cable once */
	size_t n, cap;
	char *path;
};

/* Parse ibnetdiscover's default output, or iblinkinfo's (iblinkinfo.c;
 * told apart by the first line), text of len bytes named name in problems
 * (a file, or "HOST: ibnetdiscover -C mlx5_0 -P 1"). Problems as for the
 * wiring list. val_ibnet_load reads it from path. */
int val_ibnet_parse(const char *text, size_t len, const char *name, struct val_ibnet *ret,
		    struct br_strlist *problems, struct br_err *err);
int val_ibnet_load(const char *path, struct val_ibnet *ret, struct br_strlist *problems, struct br_err *err);
void val_ibnet_release(struct val_ibnet *net);
/* Add to into the cables of from it does not have (the views of one host's
 * several ports: each port sees only the subnet it is on, so a fabric
 * built as separate networks shows whole only in all of them together).
 * from is emptied. */
void val_ibnet_merge(struct val_ibnet *into, struct val_ibnet *from);

/* Hosts and joining cables named in one separate fabric's finding, then
 * "and N more". */
#define VAL_FABRIC_LIST_MAX 64

struct val_fabric_finding {
	enum val_cable_kind kind;
	char *text;
	struct br_strlist devices; /* the devices it is about, as named in the text */
	int whole_fabric;	   /* about every device: the design itself is split */
	/* VAL_CABLE_SPLIT: which of the separate fabrics (1..), told whole
	 * once, on its owner's check (one ticket per separate fabric); the
	 * other hosts on it are given brief. */
	size_t part;
	char *owner, *brief;
};

struct val_fabric_result {
	enum val_result result;
	size_t design_links, seen_links, matched;
	/* Separate fabrics: connected components of the switch graph (adapters
	 * do not forward, so two rails that meet only in hosts are two), of the
	 * wiring list and of what discovery saw. */
	size_t design_components, seen_components;
	size_t unreachable; /* designed devices discovery never saw */
	struct val_fabric_finding *findings;
	size_t n;
	char *detail;
};

/* Compare the fabric with the design. expected_rate ("4xNDR") may be NULL.
 * Each separate fabric discovery saw is a VAL_CABLE_SPLIT finding naming
 * its switches, its hosts and the designed cables, not seen, that would
 * join it to the others; its owner is the first of its hosts (by name)
 * that owns no other. */
void val_fabric_judge(const struct val_wiring *w, const struct val_ibnet *net, const char *expected_rate,
		      struct val_fabric_result *ret);
/* Choose each separate fabric's owner among hosts (n names, in the order
 * preferred: the nodes being validated), as val_fabric_judge does among
 * all: the first on it that owns no other, else the first on it; none
 * when no host of it is among them. */
void val_fabric_owners(struct val_fabric_result *r, const char *const *hosts, size_t n);
/* As val_fabric_owners, an owner told before kept: kept[k] keeps the
 * separate fabric numbered kept_part[k] where it is still on it (its
 * ticket is filed; a second owner would file another), the others chosen
 * among hosts. */
void val_fabric_owners_keep(struct val_fabric_result *r, const char *const *hosts, size_t n,
			    const char *const *kept, const size_t *kept_part, size_t n_kept);
void val_fabric_result_release(struct val_fabric_result *r);

/* The part a node's fabric check blames (val_fabric_node_check): the
 * owner of a separate fabric blames it, "ib-fabric:N", and files its one
 * ticket; a node whose findings are all separate fabrics others own blames
 * VAL_FABRIC_TOLD_ELSEWHERE, and files none (tickets skip that part). */
#define VAL_FABRIC_TOLD_ELSEWHERE "ib-fabric"

/* The fabric as one node sees it: the findings of r about the node's own
 * cables and adapters, those about the whole fabric (a split design), and
 * the separate fabrics its ports are on, as one check "fabric": fail with
 * them, else pass naming the node's designed cables. BR_E_NOTFOUND (no
 * check) when w cables nothing of hostname. *ret_detail and
 * *ret_component (the part blamed, NULL for none; ret_component may be
 * NULL) are the caller's. */
int val_fabric_node_check(const struct val_wiring *w, const struct val_fabric_result *r, const char *hostname,
			  enum val_result *ret_result, char **ret_detail, char **ret_component);

#endif
