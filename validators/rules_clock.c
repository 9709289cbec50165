/* clock: the node's clock against the controller's, and its RTC against its
 * clock (clock_skew: a skewed clock failed apt's HTTPS on fresh nodes). */
#include <stdlib.h>

#include "rules_node_private.h"

/* since_epoch counts whole seconds. */
#define RTC_RESOLUTION_MS 1000
/* The RTC against the node's own clock, unless the profile says
 * ([clock] rtc_max_skew). Not the NTP allowance: the kernel writes the
 * system time back to the RTC only every 11 minutes (chrony's rtcsync), and
 * an RTC crystal drifts a second or two a day between, so a few seconds
 * off is a healthy board. What this catches is a dead battery (a date in
 * 2000), an RTC kept in local time (hours) or one never set (minutes). */
#define RTC_SKEW_DEFAULT_MS 30000

static const char *ahead_behind(int64_t d)
{
	return d >= 0 ? "ahead of" : "behind";
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

void val_rule_clock(struct val_node_ctx *c)
{
	int64_t max = c->p->hw.clock_skew_max_ms, node_ms, skew, rtc_s;
	struct val_evidence e;
	char *why = NULL;
	json_t *clock = val_probe_section(c, "clock", &why);

	if (max < 0)
		goto out;
	val_ev_init(&e);
	node_ms = br_json_int(clock, "utc_ms", -1);
	if (!clock || node_ms < 0) {
		val_ev_add(&e, VAL_UNKNOWN, "%s",
			   why ? why : "the probe did not report its clock (clock.utc_ms)");
		val_ev_emit(c, "clock", &e);
		goto out;
	}
	if (c->f->controller_ms <= 0) {
		val_ev_add(&e, VAL_UNKNOWN, "the controller's clock when the probe ran was not recorded");
	} else {
		int64_t slack = c->f->controller_uncertainty_ms > 0 ? c->f->controller_uncertainty_ms : 0;

		/* The probe read its clock somewhere inside the SSH exec: only
		 * a skew beyond the allowance plus that window is evidence. */
		skew = node_ms - c->f->controller_ms;
		if (abs64(skew) > max + slack)
			val_ev_add(&e, VAL_FAIL,
				   "the node's clock is %.1f s %s the controller's (at most %.1f s allowed, "
				   "measured within %.1f s): NTP has not set it; check the NTP server MAAS "
				   "hands out "
				   "and chrony on the node",
				   (double)abs64(skew) / 1000, ahead_behind(skew), (double)max / 1000,
				   (double)slack / 1000);
		else
			val_ev_add(
			    &e, VAL_PASS,
			    "the node's clock is %lld ms %s the controller's (at most %lld ms, measured "
			    "within %lld ms)",
			    (long long)abs64(skew), ahead_behind(skew), (long long)max, (long long)slack);
	}
	rtc_s = br_json_int(clock, "rtc_since_epoch_s", -1);
	if (rtc_s < 0) {
		val_ev_add(&e, VAL_PASS, "RTC not read (no /sys/class/rtc/rtc0)");
	} else {
		int64_t rtc_max =
		    c->p->hw.rtc_skew_max_ms >= 0 ? c->p->hw.rtc_skew_max_ms : RTC_SKEW_DEFAULT_MS;

		skew = rtc_s * 1000 - node_ms;
		if (abs64(skew) > rtc_max + RTC_RESOLUTION_MS)
			val_ev_add(
			    &e, VAL_FAIL,
			    "the RTC (rtc0) is %lld s %s the system clock: the node will boot with a wrong "
			    "clock; set it (hwclock --systohc) and check the board's battery",
			    (long long)(abs64(skew) / 1000), ahead_behind(skew));
		else
			val_ev_add(&e, VAL_PASS, "RTC (rtc0) within %.0f s of the system clock",
				   (double)(rtc_max + RTC_RESOLUTION_MS) / 1000);
	}
	val_ev_emit(c, "clock", &e);
out:
	free(why);
}
