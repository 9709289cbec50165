#!/bin/sh
# Issue 23's rules on simulated BMCs of several families: a BMC whose log
# services answer 404 (logs_missing) is discovered on what it showed, the
# 404 listed among its unreadable facts, its SEL empty; a BMC whose
# BootOptions offer PXE over its own USB link (usb_boot_option) has that
# MAC kept as the BMC's (bmc_usb), never a host MAC for MAAS. The
# discovery of the other nodes is as it was.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 6 --seed 7 --vendor lenovo --faults logs_missing:2,usb_boot_option:2 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack/rack.csv >/dev/null
bringup discover --json --timeout 5 > disc.json 2>err || fail "discover: $(cat err)"
bringup status --json > st.json
truth=rack/truth.json
facts() { sqlite3 inv.db "select facts from hw_facts f join nodes n on n.id = f.node_id where n.hostname = '$1'"; }

for h in $(jq -r '.nodes[] | .hostname' $truth); do
	assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .state' st.json)" discovered "$h discovered"
	assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .macs | join(",")' st.json)" \
		"$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .macs | sort | join(",")' $truth)" "$h: host MACs"
	assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .system_serial' st.json)" \
		"$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .system_serial' $truth)" "$h: serial"
done

n=0
for h in $(jq -r '.nodes[] | select(.faults | index("logs_missing")) | .hostname' $truth); do
	n=$((n + 1))
	facts "$h" > f.json
	assert_eq "$(jq -r '[.unreadable[] | "\(.status) \(.url | sub("^https?://[^/]*"; ""))"] | join(",")' f.json)" \
		"404 /redfish/v1/Managers/1/LogServices" "$h: the 404 listed"
	assert_eq "$(jq '.sel | length' f.json)" 0 "$h: no SEL"
done
assert_eq "$n" 2 "logs_missing nodes"
# A 404 on an expanded collection is the resource missing: $expand stays on.
h=$(jq -r '.nodes[] | select(.faults | index("logs_missing")) | .bmc' $truth | head -1)
assert_eq "$(jq -r --arg b "$h" 'select(.bmc==$b and (.path | test("/LogServices"))) | .path' rack/requests.log | sort -u | wc -l)" 1 \
	"logs_missing: the LogServices asked for once (not again without \$expand)"

n=0
for h in $(jq -r '.nodes[] | select(.faults | index("usb_boot_option")) | .hostname' $truth); do
	n=$((n + 1))
	usb=$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .mac_roles | to_entries[] | select(.value=="bmc_usb") | .key' $truth)
	[ -n "$usb" ] || fail "$h: no USB link in the truth"
	assert_eq "$(jq -r --arg h "$h" --arg m "$usb" '.nodes[] | select(.hostname==$h) | [.nics[] | select(.mac==$m) | .role] | join(",")' st.json)" \
		bmc_usb "$h: the USB link's MAC is the BMC's"
	assert_eq "$(sqlite3 inv.db "select count(*) from nics where mac = '$usb'")" 0 "$h: the USB link's MAC is no host NIC"
	# the BootOption was read: the request log shows it
	[ "$(jq -r --arg b "$(jq -r --arg h "$h" '.nodes[] | select(.hostname==$h) | .bmc' $truth)" 'select(.bmc==$b and (.path | test("/BootOptions/"))) | .path' rack/requests.log | wc -l)" -gt 0 ] ||
		fail "$h: no BootOption read"
done
assert_eq "$n" 2 "usb_boot_option nodes"
