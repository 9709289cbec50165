#!/bin/sh
# Machines already Allocated in MAAS: MAAS changes storage on Ready ones
# only (409 "...not Ready."). The one whose boot disk is already the wanted
# one deploys as it is; the nvme_order one (MAAS's boot disk is a data
# drive) is released, waited to Ready, pinned, then deployed.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --nodes 2 --dir sim --faults nvme_order:1 --maas-commission-ms 200 --maas-deploy-ms 200 \
	--daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
maas_post() { curl -sf -X POST --data "$2" -H "$(maas_auth)" "${MAAS_URL}api/2.0/$1"; }
maas_get() { maas_req GET "$1"; }

# Register, commission and allocate both as another MAAS user would.
for i in 0 1; do
	h=$(jq -r ".nodes[$i].hostname" sim/truth.json)
	bmc=$(awk -F, -v h="$h" '$1 == h { print $4 }' sim/rack.csv)
	form="hostname=$h&power_type=redfish&power_parameters_power_address=$bmc"
	form="$form&power_parameters_power_user=root&power_parameters_power_pass=$BRINGUP_BMC_PASSWORD"
	for mac in $(jq -r ".nodes[$i].macs[]" sim/truth.json); do form="$form&mac_addresses=$mac"; done
	id=$(maas_post machines/ "$form" | jq -r .system_id)
	[ -n "$id" ] && [ "$id" != null ] || fail "could not register $h"
	echo "$id" >> ids
done
sleep 1
for id in $(cat ids); do
	assert_eq "$(maas_get "machines/$id/" | jq -r .status_name)" Ready "$id commissioned"
	assert_eq "$(maas_post machines/?op=allocate "system_id=$id" | jq -r .status_name)" Allocated "$id allocated"
done

bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
rc=0
timeout 60 bringup enlist --db t.db --skip-configure --poll-ms 50 --json > run.json 2>run.err || rc=$?
assert_eq "$rc" 0 "exit"
assert_eq "$(jq .deployed run.json)" 2 "deployed"
swapped=$(jq -r '.nodes[] | select(.faults | index("nvme_order")) | .hostname' sim/truth.json)
plain=$(jq -r '.nodes[] | select((.faults | index("nvme_order")) == null) | .hostname' sim/truth.json)
sid=$(sqlite3 t.db "select maas_system_id from nodes where hostname = '$swapped'")
pid=$(sqlite3 t.db "select maas_system_id from nodes where hostname = '$plain'")
assert_eq "$(jq -r --arg id "$sid" 'select(.system_id == $id and .op == "release") | .status' sim/maas-requests.log)" \
	200 "the nvme_order machine released once"
assert_eq "$(jq -r --arg id "$pid" 'select(.system_id == $id and (.op == "release" or .op == "set_boot_disk")) | .op' \
	sim/maas-requests.log)" "" "the right-disk machine deployed as it was"
assert_eq "$(jq -r 'select(.status == 409) | .op' sim/maas-requests.log)" "" "storage changes refused"
want=$(jq -r --arg h "$swapped" '.nodes[] | select(.hostname == $h) | .boot_disk_serial' sim/truth.json)
assert_eq "$(maas_get "machines/$sid/" | jq -r .boot_disk.serial)" "$want" "pinned boot disk after release"
