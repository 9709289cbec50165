/* Shared by the probe's collectors: reads under the sysroot that record what
 * they could not read, and running a tool with a time limit. */
#ifndef BRINGUP_PROBE_PRIVATE_H
#define BRINGUP_PROBE_PRIVATE_H

#include "ipmitext.h"
#include "validators.h"

struct val_probe {
	const struct val_probe_opts *opts;
	char *root;	    /* no trailing slash; "" for "/" */
	int root_fd;	    /* the root, opened O_PATH; -1: paths are used whole */
	json_t *unreadable; /* [{"path","reason"}], owned */
};

/* ROOT + rel (rel starts with '/'). Caller frees. */
char *val_path(const struct val_probe *p, const char *rel);
/* openat(2), readlink(2) and realpath(3) of ROOT + rel, looked up from the
 * root's descriptor: a simulated host's tree is 5 or 6 directories deep,
 * and walking them again for each of its ~1,200 reads was a third of the
 * probe's path lookups. As the libc calls: -1 or NULL with errno set;
 * val_realpath's result is the caller's. */
int val_open_under(const struct val_probe *p, const char *rel, int flags);
ssize_t val_readlink(const struct val_probe *p, const char *rel, char *buf, size_t size);
char *val_realpath(const struct val_probe *p, const char *rel);

/* Read an attribute under the root, whitespace-trimmed. On failure returns
 * non-zero and, unless optional and simply absent, records the path and
 * the reason in p->unreadable. Caller frees *ret. */
int val_read_attr(struct val_probe *p, const char *rel, int optional, char **ret);
/* Same, as a JSON string or json null. New reference. */
json_t *val_attr_json(struct val_probe *p, const char *rel, int optional);
/* Same, parsed as a decimal or 0x integer; json null when unreadable or not
 * a number (recorded as "malformed"). */
json_t *val_attr_int(struct val_probe *p, const char *rel, int optional);
/* Read a whole file under the root with a cap; records failure like
 * val_read_attr. */
int val_read_whole(struct val_probe *p, const char *rel, size_t max, char **ret, size_t *ret_len);
/* Record one unreadable path with a reason. */
void val_note(struct val_probe *p, const char *path, const char *reason);

/* Sorted entry names of a directory under the root (no "." entries),
 * capped at VAL_DIR_ENTRIES_MAX; prefix filters when non-NULL. A missing
 * directory gives 0 entries and BR_E_NOTFOUND. Free with val_names_free. */
int val_list_dir(struct val_probe *p, const char *rel, const char *prefix, char ***ret_names, size_t *ret_n);
/* The same for a directory the kernel normally has (/sys/class/hwmon):
 * its absence is recorded in p->unreadable. */
int val_list_class(struct val_probe *p, const char *rel, const char *prefix, char ***ret_names,
		   size_t *ret_n);
void val_names_free(char **names, size_t n);

/* Run argv[0] (looked up in PATH, no shell) with stdin from /dev/null,
 * capture stdout up to max bytes, kill it after timeout_ms. 0 and the
 * output (caller frees) when it exited 0; else an error naming the tool:
 * BR_E_NOTFOUND (not installed), BR_E_TIMEOUT, BR_E_TOOBIG, BR_E_IO. */
int val_exec(const char *const *argv, int timeout_ms, size_t max, char **ret_out, size_t *ret_len,
	     struct br_err *err);

/* The sections. Each returns a new object; failures are inside it. */
json_t *val_probe_pci(struct val_probe *p);
json_t *val_probe_gpus(struct val_probe *p);
json_t *val_probe_storage(struct val_probe *p);
json_t *val_probe_cpu(struct val_probe *p);
json_t *val_probe_thermal(struct val_probe *p);
json_t *val_probe_infiniband(struct val_probe *p);
json_t *val_probe_net(struct val_probe *p);
json_t *val_probe_lldp(struct val_probe *p);
json_t *val_probe_nvlink(struct val_probe *p);
json_t *val_probe_modules(struct val_probe *p);
/* `nvidia-smi nvlink -s` text into [{"index","name","uuid","links":[{"link",
 * "active","gbs","text"}]}] (new reference). BR_E_PROTO for a link line
 * before any GPU line. */
int val_nvlink_parse(const char *text, json_t **ret_gpus, struct br_err *err);
json_t *val_probe_dmesg(struct val_probe *p);
/* {"status","source","supplies":[{"name","kind":"psu"|"redundancy","state",
 * "health"}]}: the supplies as the node's BMC lists them in its SDR. */
json_t *val_probe_psu_sdr(struct val_probe *p);

/* A section that could not be read: {"status":status, "source":source,
 * "error":msg}. New reference. */
json_t *val_section_error(const char *status, const char *source, const char *msg);

#endif
