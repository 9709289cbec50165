/* Shared between cabling.c and fabric.c: how a device name is matched. */
#ifndef BRINGUP_VALIDATORS_CABLING_PRIVATE_H
#define BRINGUP_VALIDATORS_CABLING_PRIVATE_H

#include "cabling.h"

/* Append dev's matching key: lowercase, its first DNS label only (an IP
 * address stays whole). */
void val_add_device_key(struct br_buf *b, const char *dev);

/* Where host_key's ends ("host\n", as the index keys them) start in w->ends. */
size_t val_wiring_host_first(const struct val_wiring *w, const char *host_key);

/* ---- fabric.c's parse of a topology (ibnetdiscover's, iblinkinfo's) ---- */

/* A node as ibnetdiscover names it: id "S-<guid>" (switch), "H-<guid>"
 * (adapter), "R-<guid>" (router). */
struct ib_node {
	char *id;   /* "S-0002c90300a1b2c3" */
	char *desc; /* NodeDescription */
	int is_ca;
};

struct ib_half { /* a port line: one end's view of a cable */
	size_t node;
	long port, remote_port;
	char *remote_id, *remote_desc, *rate;
	unsigned line;
};

struct ib_parse {
	struct ib_node *nodes;
	size_t nnodes;
	struct ib_half *halves;
	size_t nhalves;
	const char *path;
	struct br_strlist *problems;
};

/* The cables of a parse, each once, named as val_ibnet_link says. */
void val_ibparse_links(const struct ib_parse *ps, struct val_ibnet *net);
void val_ibparse_release(struct ib_parse *ps);

/* iblinkinfo.c: iblinkinfo's default output into ps (nodes and port
 * halves as ibnetdiscover's would give); problems as val_ibnet_parse. 0 or
 * -1. data is modified (split into lines). */
int val_iblinkinfo_parse(struct ib_parse *ps, char *data);
/* Does text start (after comments and blank lines) as iblinkinfo's output? */
int val_iblinkinfo_is(const char *text);

#endif
