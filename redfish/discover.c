/*
 * discover — the discovery driver and rf_discover_all: one rf_bmc per
 * target, run by drive.c, started in order as the overall
 * in-flight cap can serve them. A BMC's life:
 * service root -> login -> walk (walk.c) -> (nothing left pending) ->
 * report to the caller -> logout -> done. A failure anywhere cancels the
 * BMC's other requests and jumps to "report"; the other BMCs never notice.
 */
#include <string.h>

#include "rf_private.h"

struct discover_run {
	rf_done_fn done;
	void *ctx;
};

static void report(struct rf_bmc *bmc)
{
	struct discover_run *run = bmc->http->run;

	/* A node that failed keeps what names the machine (tickets and
	 * status need it), never a partial set of host MACs. */
	if (bmc->failed)
		br_hw_keep_identity(&bmc->hw);

	run->done(bmc->target, bmc->failed ? bmc->err.code : 0, &bmc->hw, bmc->failed ? &bmc->err : NULL,
		  run->ctx);
	br_hw_release(&bmc->hw);
}

static const char *role_words(const char *role)
{
	if (!strcmp(role, BR_NIC_ROLE_BMC_USB))
		return "the BMC's USB link";
	if (!strcmp(role, BR_NIC_ROLE_DISABLED))
		return "disabled";
	if (!strcmp(role, BR_NIC_ROLE_OTHER_SYSTEM))
		return "another System's";
	return role;
}

/* What the BMC did show where host MACs live, for a node without one. */
static void no_host_mac(struct rf_bmc *bmc)
{
	static const struct {
		int kind;
		const char *name;
	} views[] = { { RF_K_ETH, "EthernetInterfaces" },
		      { RF_K_NDF, "NetworkDeviceFunctions" },
		      { RF_K_NET_ADAPTER, "NetworkAdapters" },
		      { RF_K_BOOT_OPTION, "BootOptions" },
		      { RF_K_HPE_ADAPTER, "HPE BaseNetworkAdapters" } };
	struct br_buf b;

	br_buf_init(&b, 0);
	br_buf_adds(&b, "no host NIC MAC: the BMC showed");
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		br_buf_addf(&b, "%s %d %s", i ? "," : "", bmc->shown[views[i].kind], views[i].name);
	br_buf_adds(&b, ", none with a host MAC");
	for (size_t i = 0; i < bmc->hw.n_nics; i++) {
		const struct br_nic *n = &bmc->hw.nics[i];

		if (!strcmp(n->role, BR_NIC_ROLE_BMC))
			continue; /* the BMC's own port: no host MAC was expected there */
		br_buf_addf(&b, "; %s %s is %s", n->name ? n->name : "?", n->mac, role_words(n->role));
	}
	/* the views that might have held one but could not be read */
	for (size_t i = 0; i < bmc->hw.n_unreadable; i++)
		br_buf_addf(&b, "; unreadable: %s", bmc->hw.unreadable[i].reason);
	rf_bmc_failf(bmc, RF_E_NO_HOST_MAC, "%s", br_buf_str(&b));
	br_buf_release(&b);
}

static void on_idle(struct rf_bmc *bmc)
{
	rf_pcie_hints_merge(bmc);
	rf_macs_settle(&bmc->hw);
	if (!bmc->failed && bmc->host_failed)
		rf_bmc_fail(bmc, &bmc->host_error);
	/* enlist cannot register a machine without its PXE MAC */
	if (!bmc->failed && !br_hw_host_nics(&bmc->hw))
		no_host_mac(bmc);
	rf_bmc_wind_down(bmc, report);
}

static const struct rf_driver discover_driver = {
	.ready = rf_walk_start,
	.idle = on_idle,
	.abort = report,
	.windowed = 1,
};

int rf_discover_all(const struct rf_target *targets, size_t n, const struct rf_options *opts, rf_done_fn done,
		    void *ctx, struct br_err *err)
{
	struct discover_run run = { .done = done, .ctx = ctx };
	return rf_drive_all(&discover_driver, targets, n, sizeof(*targets), &run, opts, err);
}
