#!/bin/sh
# Connection View as iDRACs keep it, read with the fewest requests:
# - enabled and current: one GET of DellSwitchConnections per BMC, nothing
#   else about neighbours;
# - stale: refreshed once (ServerPortConnectionRefresh), read again, judged;
# - stale for good (the refresh changes nothing; a fabric cable unplugged
#   since): cabling_bmc unknown, judged in band; after deploy cabling_views
#   names the BMC port the OS does not see the same;
# - disabled (SwitchConnectionView.1.Enable): with the profile's [boot]
#   connection_view = enable, PATCHed Enabled, refreshed and read; with the
#   shipped profile (leave), left alone and unknown, saying it is disabled.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --nodes 4 --seed 3 --dir rack --connection-view --faults connview_stale,connview_stuck \
	--maas-commission-ms 100 --maas-deploy-ms 100 --bios-job-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/rack"
(
	set -a; . rack/env; set +a
	export BRINGUP_DB=$T/inv.db BRINGUP_SSH_PUBKEY=$BRINGUP_SSH_KEY.pub
	bringup import --manifest rack/rack.csv >/dev/null
	rc=0; bringup run -q > run.out 2> run.err || rc=$?
	assert_eq "$rc" 1 "run exit (the stuck node quarantined in band): $(tail -3 run.err)"
	bringup status --json > status.json
)
st() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" "${S:-status.json}"; }
check() { st "$1" ".checks[] | select(.name == \"$2\") | .$3"; }
req() { # LOG HOST METHOD PATH-SUFFIX: how many such requests the BMC had
	jq -r --arg h "$2" --arg m "$3" --arg p "$4" 'select(.node == $h and .method == $m and (.path | endswith($p))) | .path' "$1" | grep -c . || true
}
stale=$(jq -r '.nodes[] | select(.faults == ["connview_stale"]) | .hostname' rack/truth.json)
stuck=$(jq -r '.nodes[] | select(.faults | index("connview_stuck")) | .hostname' rack/truth.json)
log=rack/requests.log
for h in $(jq -r '.nodes[] | select(.faults == []) | .hostname' rack/truth.json); do
	assert_eq "$(req $log "$h" GET /DellSwitchConnections)" 1 "$h: one read of its Connection View"
	assert_eq "$(req $log "$h" POST .ServerPortConnectionRefresh)" 0 "$h: no refresh"
	assert_eq "$(req $log "$h" GET /DellAttributes/iDRAC.Embedded.1)" 0 "$h: no attribute read"
	assert_eq "$(st "$h" .state)" golden "$h golden"
	assert_eq "$(check "$h" cabling_views result)" pass "$h: the BMC's view and the OS's agree"
	assert_contains "$(check "$h" cabling_views detail)" "NIC.Embedded.1-1-1 is eno8303" "$h: the pairs named"
done
assert_eq "$(req $log "$stale" POST .ServerPortConnectionRefresh)" 1 "$stale: refreshed once"
assert_eq "$(req $log "$stale" GET /DellSwitchConnections)" 2 "$stale: read before and after"
assert_eq "$(check "$stale" cabling_bmc result)" pass "$stale: judged on the refreshed view"
assert_eq "$(st "$stale" .state)" golden "$stale golden"
assert_eq "$(req $log "$stuck" POST .ServerPortConnectionRefresh)" 1 "$stuck: refreshed once, not more"
assert_eq "$(check "$stuck" cabling_bmc result)" unknown "$stuck: a stale view is not judged"
assert_contains "$(check "$stuck" cabling_bmc detail)" "stale on 10 ports, after a refresh" "$stuck: why"
assert_eq "$(check "$stuck" cabling result)" fail "$stuck: the unplugged cable found in band"
nic=$(jq -r --arg h "$stuck" '.nodes[] | select(.hostname == $h) | .fault_details.connview_stuck.nic' rack/truth.json)
assert_eq "$(check "$stuck" cabling_views result)" fail "$stuck: the views disagree"
assert_contains "$(check "$stuck" cabling_views detail)" "the BMC's $nic sees" "$stuck: the BMC port named"
assert_contains "$(check "$stuck" cabling_views detail)" "which no OS interface sees: the BMC's DellSwitchConnections is stale" \
	"$stuck: the stale view named"
assert_eq "$(st "$stuck" .state)" quarantined "$stuck quarantined"
stop_sim "$T/rack"

# Disabled: enabled where the profile allows it, else left alone.
bringup sim --nodes 2 --no-hosts --seed 5 --dir rack2 --daemon >/dev/null
at_exit "stop_sim $T/rack2"
set -a; . rack2/env; set +a
export BRINGUP_DB=$T/inv2.db
cp -r "$BR_TOP/templates" tpl
export BRINGUP_TEMPLATES=$T/tpl
cp -r tpl/profiles/xe9680 tpl/profiles/enable
sed -i 's/^mode = persistent$/mode = persistent\nconnection_view = enable/' tpl/profiles/enable/bios.conf
set -- $(jq -r '.nodes[].hostname' rack2/truth.json)
a=$1 b=$2
awk -F, -v a="$a" 'BEGIN { OFS = "," } $1 == a { $7 = "enable" } { print }' rack2/rack.csv > rack.csv
bringup import --manifest rack.csv >/dev/null
bringup discover -q
S=status2.json
bringup status --json > $S
log=rack2/requests.log
assert_eq "$(req $log "$a" PATCH /DellAttributes/iDRAC.Embedded.1)" 1 "$a: Connection View enabled"
assert_eq "$(req $log "$a" POST .ServerPortConnectionRefresh)" 1 "$a: then refreshed"
assert_eq "$(check "$a" cabling_bmc result)" pass "$a: judged once enabled"
assert_eq "$(st "$a" .neighbors.source)" DellSwitchConnections "$a: its view"
assert_eq "$(req $log "$b" GET /DellAttributes/iDRAC.Embedded.1)" 1 "$b: the attribute read once"
assert_eq "$(req $log "$b" PATCH /DellAttributes/iDRAC.Embedded.1)" 0 "$b: the shipped profile leaves it"
assert_eq "$(check "$b" cabling_bmc result)" unknown "$b: unknown"
assert_contains "$(check "$b" cabling_bmc detail)" "disabled: iDRAC attribute SwitchConnectionView.1.Enable" "$b: says it is off"
assert_eq "$(curl -sf -u "root:$BRINGUP_BMC_PASSWORD" "http://$(jq -r --arg h "$b" '.nodes[] | select(.hostname == $h) | .bmc' rack2/truth.json)/redfish/v1/Managers/iDRAC.Embedded.1/Oem/Dell/DellAttributes/iDRAC.Embedded.1" |
	jq -r '.Attributes."SwitchConnectionView.1.Enable"')" Disabled "$b: still disabled on the BMC"
echo "ok: Connection View read once, refreshed once when stale, enabled only where the profile says"
