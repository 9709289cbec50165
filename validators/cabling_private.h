/* Shared between cabling.c and fabric.c: how a device name is matched. */
#ifndef BRINGUP_VALIDATORS_CABLING_PRIVATE_H
#define BRINGUP_VALIDATORS_CABLING_PRIVATE_H

#include "cabling.h"

/* Append dev's matching key: lowercase, its first DNS label only (an IP
 * address stays whole). */
void val_add_device_key(struct br_buf *b, const char *dev);

/* Where host_key's ends ("host\n", as the index keys them) start in w->ends. */
size_t val_wiring_host_first(const struct val_wiring *w, const char *host_key);

#endif
