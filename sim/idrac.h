/*
 * idrac — one simulated Dell iDRAC9 answering Redfish for its node: the
 * resource tree as iDRAC 7.x shapes it, sessions, errors with iDRAC's
 * MessageIds, ETags, paging and $expand, and the BMC-visible faults.
 * Private to sim/: idrac.c routes and authenticates, idrac_system.c,
 * idrac_chassis.c, idrac_manager.c, idrac_memory.c and idrac_session.c
 * render resources, idrac_service.c the service-level ones ($metadata,
 * schemas, registries, roles, tasks), idrac_bios_registry.c is Dell's BIOS
 * attribute registry (generated), idrac_cache.c keeps rendered GET answers
 * for the next identical GET, idrac_accounts.c the AccountService whose
 * accounts the logins are checked against. Held to DMTF's Redfish-Service-Validator
 * (0 failures) and to redfishtool and ilorest (t1009).
 *
 * Ownership: render functions return a new JSON reference (NULL: no such
 * resource); everything else is borrowed.
 */
#ifndef BRINGUP_SIM_IDRAC_H
#define BRINGUP_SIM_IDRAC_H

#include "http.h"
#include "sim.h"

#define SIM_R_ROOT "/redfish/v1"
#define SIM_R_SYS "/redfish/v1/Systems/System.Embedded.1"
#define SIM_R_SYS2 "/redfish/v1/Systems/System.Embedded.2" /* two_hosts */
#define SIM_R_CHASSIS "/redfish/v1/Chassis/System.Embedded.1"
#define SIM_R_MGR "/redfish/v1/Managers/iDRAC.Embedded.1"
#define SIM_ENCLOSURE "Enclosure.Internal.0-1"
#define SIM_R_ENCLOSURE "/redfish/v1/Chassis/" SIM_ENCLOSURE
#define SIM_R_SESSIONS "/redfish/v1/SessionService/Sessions"
#define SIM_R_FW "/redfish/v1/UpdateService/FirmwareInventory"
#define SIM_SESSION_IDLE_MS (1800 * 1000) /* iDRAC's default session timeout */
#define SIM_HUGE_MEMBERS 100000
#define SIM_HUGE_BODY_BYTES (50u * 1024 * 1024)
#define SIM_FLOOD_BODY_BYTES (8u * 1024 * 1024 - 4096) /* members_flood: under a client's 8 MiB body cap */
#define SIM_HUGE_SERIAL_BYTES (1024u * 1024)
#define SIM_MSG "IDRAC.2.9." /* iDRAC 7.x message registry prefix */
#define SIM_BASE "Base.1.12."
#define SIM_BASE_REGISTRY "Base.1.12.0"
#define SIM_BIOS_REGISTRY "BiosAttributeRegistry.v1_0_0" /* the Id iDRAC9 gives it */
#define SIM_ETAG_LEN 20					 /* '"', 16 hex digits, '"', NUL */
/* Rendered GET answers kept per node (idrac_cache.c); past either cap the
 * rest is rendered every time. Discover's reads of a node take ~60 answers
 * and ~120 KB. */
#define SIM_CACHE_ENTRIES_MAX 256
#define SIM_CACHE_BYTES_MAX (512u * 1024)

/* One attribute of the iDRAC9 BIOS attribute registry (idrac_bios_registry.c,
 * generated from Dell's public definitions). */
enum sim_bios_type { SIM_BIOS_ENUM, SIM_BIOS_STRING, SIM_BIOS_INT };
struct sim_bios_attr {
	const char *name, *display_name, *group;
	enum sim_bios_type type;
	int read_only;
	const char *values; /* SIM_BIOS_ENUM: the allowed values, '|'-separated */
};
extern const struct sim_bios_attr sim_bios_registry[];
extern const size_t sim_bios_registry_len;

/* Shared by every BMC of the rack; borrowed by the handler. */
struct sim_bmc_config {
	const char *user;
	const char *password;
	int flaky_stall_ms;
	int bios_job_ms;       /* how long a BIOS config job runs after the reset */
	int bios_job_polls;    /* ... and how many reads of it at least */
	int connection_view;   /* iDRAC attribute SwitchConnectionView.1.Enable starts Enabled (else Disabled)
				*/
	int fw_task_ms;	       /* how long a firmware update's task runs */
	int bmc_reboot_ms;     /* how long the iDRAC is away after its own update */
	const char *image_dir; /* where a SimpleUpdate's ImageURI file names are read; NULL: none */
};

/* One BMC: the handler context handed to sim_loop_listen. */
struct sim_bmc {
	struct sim_node *node;
	const struct sim_bmc_config *cfg;
};

/* The request being answered. */
struct sim_ctx {
	struct sim_node *node;
	const struct sim_bmc_config *cfg;
	const struct sim_request *req;
	struct sim_response *resp;
	const char *args[3];	 /* the '*' segments of the matched route */
	json_t *body;		 /* parsed request body of PATCH/POST, or NULL */
	int account;		 /* the authenticated account's slot, -1 before or without one */
	int etag_in_body;	 /* the resource carries @odata.etag, as iDRAC's do */
	int uncacheable;	 /* the answer is not the resource as it stands: a test-only fault
				    altered it, or it inlines a resource that changes by itself */
	char etag[SIM_ETAG_LEN]; /* of sim_reply's answer: hashed before @odata.etag goes in,
				    so the body alone cannot give it back */
};

void sim_idrac_handle(void *bmc, const struct sim_request *req, struct sim_response *resp);

/* ---- building resources (idrac.c) ------------------------------------------ */

/* {"@odata.context", "@odata.id", "@odata.type", "Id", "Name"} */
json_t *sim_res(const char *type, const char *id, const char *name, const char *path_fmt, ...)
    BR_PRINTF(4, 5);
json_t *sim_link(const char *path_fmt, ...) BR_PRINTF(1, 2);
json_t *sim_coll(const char *type, const char *name, const char *path);
void sim_coll_add(json_t *coll, const char *path_fmt, ...) BR_PRINTF(2, 3);
json_t *sim_status(const char *health);
/* One @Message.ExtendedInfo entry. */
json_t *sim_msg(const char *id, const char *severity, const char *message, const char *resolution);
/* Answer with a document (taken). */
void sim_reply(struct sim_ctx *c, int status, json_t *doc);
/* Answer with rendered text (taken) and its ETag, with iDRAC's headers. */
void sim_reply_text(struct sim_response *r, int status, char *text, size_t len, const char *etag);
/* Answer with an error whose ExtendedInfo holds msg and, if not NULL, msg2 (both taken). */
void sim_reply_error(struct sim_ctx *c, int status, json_t *msg, json_t *msg2);
void sim_reply_not_found(struct sim_ctx *c);
/* iDRAC writes MACs in upper case; clients must normalise. */
void sim_mac_upper(const char *mac, char out[18]);
/* Product name of NIC k, as iDRAC names the adapter. */
const char *sim_nic_product(int k);
/* FNV-1a of data: ETags, the answer cache's keys, the hosts' shared files. */
uint64_t sim_hash(const char *data, size_t len);
/* The ETag a resource has now ("\"hex\""). */
void sim_etag_of(const char *data, size_t len, char out[SIM_ETAG_LEN]);

/* ---- the answer cache (idrac_cache.c) ---------------------------------------
 * GET answers by URI as sent (the query changes them), valid while the
 * node's state generation stays what it was when they were rendered. */

/* Answer c from the cache; 1 when it held a current answer to c->req->uri. */
int sim_cache_answer(struct sim_ctx *c);
/* Keep the answer just rendered into c->resp if it is a clean 200: not
 * uncacheable, no fault note, no synthetic body. Full caches keep nothing. */
void sim_cache_keep(struct sim_ctx *c);

/* ---- renderers, by file ---------------------------------------------------- */

json_t *sim_r_root(struct sim_ctx *c);
json_t *sim_r_odata(struct sim_ctx *c);
json_t *sim_r_systems(struct sim_ctx *c);
json_t *sim_r_system(struct sim_ctx *c);
/* two_hosts: the second host's System, its interfaces (NULL otherwise). */
json_t *sim_r_system2(struct sim_ctx *c);
json_t *sim_r_system2_bios(struct sim_ctx *c);
json_t *sim_r_system2_eth_coll(struct sim_ctx *c);
json_t *sim_r_system2_eth(struct sim_ctx *c);
void sim_second_host_mac(const struct sim_node *n, char out[18]);
json_t *sim_r_eth_coll(struct sim_ctx *c);
json_t *sim_r_eth(struct sim_ctx *c);
json_t *sim_r_procs(struct sim_ctx *c);
json_t *sim_r_proc(struct sim_ctx *c);
json_t *sim_r_storages(struct sim_ctx *c);
json_t *sim_r_storage(struct sim_ctx *c);
json_t *sim_r_drive(struct sim_ctx *c);
json_t *sim_r_volumes(struct sim_ctx *c);
/* idrac_netports.c: Connection View (DellSwitchConnections) and its refresh */
json_t *sim_r_switch_connections(struct sim_ctx *c);
json_t *sim_r_switch_connection_service(struct sim_ctx *c);
void sim_w_switch_connection_refresh(struct sim_ctx *c);
json_t *sim_r_idrac_attributes(struct sim_ctx *c);
/* DMTF Port with Ethernet.LLDPReceive, for the families that document it (HPE) */
json_t *sim_r_ports(struct sim_ctx *c);
json_t *sim_r_port(struct sim_ctx *c);
int sim_ports_lldp(const struct sim_node *n);
void sim_w_idrac_attributes(struct sim_ctx *c);
json_t *sim_r_volume(struct sim_ctx *c);
json_t *sim_r_bios(struct sim_ctx *c);
json_t *sim_r_bios_settings(struct sim_ctx *c);
json_t *sim_r_bios_registry(struct sim_ctx *c);
json_t *sim_r_secure_boot(struct sim_ctx *c);
void sim_w_bios_settings(struct sim_ctx *c);
void sim_w_system(struct sim_ctx *c);
/* The System's settings object: only on boot_settings nodes (404 elsewhere). */
json_t *sim_r_system_settings(struct sim_ctx *c);
void sim_w_system_settings(struct sim_ctx *c);
/* 1 when the node's System takes boot changes through its settings object. */
int sim_boot_via_settings(const struct sim_node *n);
void sim_w_reset(struct sim_ctx *c);
/* Non-Dell families (vendor_bios.c): 1 when the family answered the BIOS
 * PATCH / refused the ResetType itself; a booting reset applies pending
 * settings. No-ops (0) for Dell. */
int sim_vbios_w_settings(struct sim_ctx *c);
int sim_vbios_reset_refused(struct sim_ctx *c);
void sim_vbios_boot(struct sim_node *n);
/* The Id of the node's BIOS attribute registry (SIM_BIOS_REGISTRY on Dell). */
const char *sim_vbios_registry_id(const struct sim_node *n);

json_t *sim_r_chassis_coll(struct sim_ctx *c);
json_t *sim_r_chassis(struct sim_ctx *c);
void sim_w_chassis(struct sim_ctx *c);
json_t *sim_r_pcie_coll(struct sim_ctx *c);
json_t *sim_r_pcie(struct sim_ctx *c);
json_t *sim_r_pcie_funcs(struct sim_ctx *c);
/* Append links to device_id's PCIe functions to out (the System lists them as iDRAC9 does). */
void sim_pcie_function_links(const struct sim_node *n, const char *device_id, json_t *out);
json_t *sim_r_pcie_func(struct sim_ctx *c);
json_t *sim_r_adapters(struct sim_ctx *c);
json_t *sim_r_adapter(struct sim_ctx *c);
json_t *sim_r_ndf_coll(struct sim_ctx *c);
json_t *sim_r_ndf(struct sim_ctx *c);
json_t *sim_r_thermal(struct sim_ctx *c);
json_t *sim_r_power(struct sim_ctx *c);

json_t *sim_r_managers(struct sim_ctx *c);
json_t *sim_r_manager(struct sim_ctx *c);
json_t *sim_r_mgr_eth_coll(struct sim_ctx *c);
json_t *sim_r_mgr_eth(struct sim_ctx *c);
json_t *sim_r_log_services(struct sim_ctx *c);
json_t *sim_r_sel(struct sim_ctx *c);
json_t *sim_r_sel_entries(struct sim_ctx *c);
json_t *sim_r_sel_entry(struct sim_ctx *c);
json_t *sim_r_update_service(struct sim_ctx *c);
/* idrac_update.c */
#define SIM_R_UPDATE_MULTIPART "/redfish/v1/UpdateService/MultipartUpload"
#define SIM_R_UPDATE_SIMPLE "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate"
void sim_w_update_multipart(struct sim_ctx *c);
void sim_w_update_simple(struct sim_ctx *c);
/* iLO's HttpPushUri (/cgi-bin/uploadFile on an HPE node, mapped here), and
 * the UpdateService's Oem.Hpe that tells how its last update went. */
#define SIM_R_UPDATE_ILO_PUSH "/redfish/v1/UpdateService/Oem/Hpe/UploadFile"
#define SIM_ILO_PUSH_PATH "/cgi-bin/uploadFile"
void sim_w_update_ilo_push(struct sim_ctx *c);
json_t *sim_fw_ilo_state(const struct sim_node *n);
/* The version the node's component runs now (iDRAC, BIOS, NICs), NULL when
 * it has none that an update can change. */
const char *sim_fw_version(const struct sim_node *n, const char *fqdd);
/* End update tasks whose time has come (versions change, the iDRAC restarts). */
void sim_fw_tasks_advance(struct sim_node *n, const struct sim_bmc_config *cfg);
void sim_fw_task_ids(const struct sim_node *n, json_t *coll, const char *prefix);
json_t *sim_fw_task_render(struct sim_ctx *c, const char *jid);
json_t *sim_fw_job_render(struct sim_ctx *c, const char *jid);
json_t *sim_r_fw_coll(struct sim_ctx *c);
json_t *sim_r_fw(struct sim_ctx *c);
/* AccountService (idrac_accounts.c): the policy, the Accounts collection,
 * account creation (POST) and changes (PATCH of Password, Enabled, RoleId). */
json_t *sim_r_accounts_service(struct sim_ctx *c);
json_t *sim_r_accounts(struct sim_ctx *c);
json_t *sim_r_account(struct sim_ctx *c);
void sim_w_account_create(struct sim_ctx *c);
void sim_w_account(struct sim_ctx *c);
/* The enabled account with these credentials: its slot, else -1. */
int sim_account_login(struct sim_ctx *c, const char *user, const char *password);
/* The same for node's BMC outside a request (the MAAS emulator's power
 * check, from its own threads): 1 when it takes the login. */
int sim_account_takes(struct sim_node *node, const struct sim_bmc_config *cfg, const char *user,
		      const char *password);
/* An account that must change its password asks for anything else but
 * reading itself, PATCHing itself or logging out: answer 403
 * PasswordChangeRequired and return 1. */
int sim_account_change_pending(struct sim_ctx *c);
/* The login's ExtendedInfo for an account that must change its password
 * (new reference), or NULL. */
json_t *sim_account_login_info(struct sim_ctx *c, int account);
/* A Dell job as its DellJob resource and its Task show it. */
struct sim_job {
	const char *state; /* DellJob JobState: Scheduled, Running, Completed, Failed */
	const char *message, *message_id;
	int percent;
};
/* The job named "JID_…", into *ret: 1 when it exists. */
int sim_job_find(const struct sim_node *n, const char *jid, struct sim_job *ret);
/* Add prefix/JID_… for every job to a collection. */
void sim_job_ids(const struct sim_node *n, json_t *coll, const char *prefix);
json_t *sim_r_jobs(struct sim_ctx *c);
json_t *sim_r_job(struct sim_ctx *c);
void sim_w_jobs(struct sim_ctx *c);

/* idrac_service.c */
void sim_reply_metadata(struct sim_ctx *c);
json_t *sim_r_json_schemas(struct sim_ctx *c);
json_t *sim_r_json_schema(struct sim_ctx *c);
json_t *sim_r_registries(struct sim_ctx *c);
json_t *sim_r_registry(struct sim_ctx *c);
json_t *sim_r_roles(struct sim_ctx *c);
json_t *sim_r_role(struct sim_ctx *c);
json_t *sim_r_task_service(struct sim_ctx *c);
json_t *sim_r_tasks(struct sim_ctx *c);
json_t *sim_r_task(struct sim_ctx *c);
json_t *sim_r_network_protocol(struct sim_ctx *c);
json_t *sim_r_virtual_media_coll(struct sim_ctx *c);
json_t *sim_r_virtual_media(struct sim_ctx *c);
void sim_w_manager_reset(struct sim_ctx *c);
json_t *sim_r_enclosure(struct sim_ctx *c);

/* idrac_memory.c */
json_t *sim_r_memory_coll(struct sim_ctx *c);
json_t *sim_r_memory(struct sim_ctx *c);
json_t *sim_r_simple_storage_coll(struct sim_ctx *c);
json_t *sim_r_simple_storage(struct sim_ctx *c);

json_t *sim_r_session_service(struct sim_ctx *c);
json_t *sim_r_sessions(struct sim_ctx *c);
json_t *sim_r_session(struct sim_ctx *c);
void sim_w_session_create(struct sim_ctx *c);
void sim_w_session_delete(struct sim_ctx *c);
/* Authenticate by X-Auth-Token or Basic: 0 (resp->auth set), else BR_E_AUTH. */
int sim_session_check(struct sim_ctx *c);
/* The live session whose token is token, or NULL (token NULL too). */
struct sim_session *sim_session_of(struct sim_bmc_state *st, const char *token);

#endif
