#!/bin/sh
# discover's request count with $expand (issue 23): an iDRAC9, whose service
# root says ExpandQuery NoLinks/Levels with MaxLevels 1 as a real one does,
# is read in at most 30 requests: its collections expanded, and the host
# System, each Storage and the host Chassis read with $expand themselves
# (their Bios, PCIe devices and functions, drives, Thermal and Power
# inline), the firmware inventory at the URI DSP0266 (v1.6.0 on) gives it
# without the UpdateService first, with every fact the link-by-link walk
# had. A BMC with no inventory there (fw_inventory_missing: 404) is read
# through its UpdateService as before and is discovered. The AMI personality
# advertises no ExpandQuery: it is never sent one, and refuses one with
# 501 (DSP0266 clause 7.3); a $levels past MaxLevels is 400.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 2 --seed 5 --dir dell --daemon >/dev/null
at_exit "stop_sim $T/dell"
bringup sim --no-hosts --nodes 1 --seed 5 --vendor ami --dir ami --daemon >/dev/null
at_exit "stop_sim $T/ami"
bringup sim --no-hosts --nodes 1 --seed 5 --faults fw_inventory_missing:1 --dir nofw --daemon >/dev/null
at_exit "stop_sim $T/nofw"

run_discover() {
	(set -a; . "$1/env"; set +a
	 bringup import --db "$1.db" --manifest "$1/rack.csv" >/dev/null
	 bringup discover --db "$1.db" --json --timeout 5 > "$1.json" 2>"$1.err") || fail "discover $1: $(cat "$1.err")"
	bringup status --db "$1.db" --json > "$1-st.json"
}
run_discover dell
run_discover ami
run_discover nofw

# Every node: discovered, with the truth's host MACs, serial and drives.
for r in dell ami nofw; do
	for h in $(jq -r '.nodes[].hostname' $r/truth.json); do
		tq() { jq -r --arg h "$h" ".nodes[] | select(.hostname==\$h) | $1" $r/truth.json; }
		sq() { jq -r --arg h "$h" ".nodes[] | select(.hostname==\$h) | $1" $r-st.json; }
		assert_eq "$(sq .state)" discovered "$r: $h state ($(sq .reason))"
		assert_eq "$(sq '.macs | join(",")')" "$(tq '.macs | sort | join(",")')" "$r: host MACs of $h"
		assert_eq "$(sq .system_serial)" "$(tq .system_serial)" "$r: serial of $h"
		assert_eq "$(inv_sql $r.db "select group_concat(serial, ',') from (select d.serial from drives d join nodes n on n.id=d.node_id where n.hostname='$h' order by 1)")" \
			"$(tq '.drive_serials | sort | join(",")')" "$r: drives of $h"
	done
done
# What came inline is there: the XE9680's 17 PCIe devices with their
# class (from the functions the System carried), thermal and PSU readings.
h=$(jq -r '.nodes[0].hostname' dell/truth.json)
assert_eq "$(inv_sql dell.db "select count(*) from pcie_devices p join nodes n on n.id=p.node_id where n.hostname='$h' and p.device_class is not null")" 17 \
	"dell: PCIe devices with their function's class"
inv_sql dell.db "select facts from hw_facts f join nodes n on n.id=f.node_id where n.hostname='$h'" > facts.json
[ "$(jq '[.sensors[]?] | length' facts.json)" -gt 0 ] || fail "dell: no sensors read (Thermal and Power inline)"
[ "$(jq '[.sensors[]? | select(.kind == "psu")] | length' facts.json)" -gt 0 ] || fail "dell: no PSUs read (Power inline)"
[ "$(jq '[.sensors[]? | select(.kind == "fan")] | length' facts.json)" -gt 0 ] || fail "dell: no fans read (Thermal inline)"

# The count, per BMC, from the simulator's request log.
per_bmc() { jq -s -r 'group_by(.bmc) | map(length) | max' "$1/requests.log"; }
n=$(per_bmc dell)
# Of the 30, the Processors collection: ProcessorSummary has no clock, and
# cpu_max_mhz is stored and shown (the sim's iDRACs start with Connection
# View disabled, so each also reads the attribute that says so).
[ "$n" -le 30 ] || fail "dell: $n requests for one iDRAC9 (at most 30)"
[ "$n" -ge 20 ] || fail "dell: $n requests: fewer than the walk needs, something was not read"
# (the log's path carries the query)
assert_eq "$(jq -s -r 'map(select(.path == "/redfish/v1/Systems/System.Embedded.1?$expand=.($levels=1)")) | length' dell/requests.log)" 2 \
	"dell: the host System read with \$expand, once per BMC"
# No drive, PCIe function collection, Bios or processor read one by one.
assert_eq "$(jq -s -r 'map(select(.path | test("/Drives/|/PCIeFunctions|/Bios$|/Thermal$|/Power$|/Processors/|/Processors$"))) | length' dell/requests.log)" 0 \
	"dell: resources read one by one that came inline"
# The processors: one expanded GET per BMC, their clock stored.
assert_eq "$(jq -s -r 'map(select(.path == "/redfish/v1/Systems/System.Embedded.1/Processors?$expand=.($levels=1)")) | length' dell/requests.log)" 2 \
	"dell: the Processors collection read expanded, once per BMC"
assert_eq "$(inv_sql dell.db "select group_concat(cpu_max_mhz || ' ' || cpu_model, ',') from nodes")" \
	"4000 Intel(R) Xeon(R) Platinum 8480+,4000 Intel(R) Xeon(R) Platinum 8480+" "dell: the CPUs' clock and model"

# The firmware inventory: read at its URI, expanded, no UpdateService GET,
# and every member the BMC lists is stored.
assert_eq "$(jq -s -r 'map(select(.path == "/redfish/v1/UpdateService")) | length' dell/requests.log)" 0 \
	"dell: the UpdateService read (its inventory's URI is DSP0266's)"
assert_eq "$(jq -s -r 'map(select(.path == "/redfish/v1/UpdateService/FirmwareInventory?$expand=.($levels=1)" and .status == 200)) | length' dell/requests.log)" 2 \
	"dell: the firmware inventory read at its URI, once per BMC"
. dell/env
bmc=$(jq -r '.nodes[0].bmc' dell/truth.json)
fw=$(curl -s -g -u "root:$BRINGUP_BMC_PASSWORD" "http://$bmc/redfish/v1/UpdateService/FirmwareInventory" | jq -r '."Members@odata.count"')
[ "$fw" -gt 50 ] || fail "dell: the sim lists $fw firmware components (want a second page)"
assert_eq "$(jq '.firmware | length' facts.json)" "$fw" "dell: firmware components stored"
# No inventory there: the 404 is not unreadable, the UpdateService is read
# after it, and the node is discovered with no firmware.
assert_eq "$(jq -s -r 'map(select(.path | startswith("/redfish/v1/UpdateService")) | "\(.path) \(.status)") | join(",")' nofw/requests.log)" \
	"/redfish/v1/UpdateService/FirmwareInventory?\$expand=.(\$levels=1) 404,/redfish/v1/UpdateService 200" "nofw: the inventory's reads"
inv_sql nofw.db "select facts from hw_facts" > nofw-facts.json
assert_eq "$(jq -c '[(.firmware | length), .unreadable]' nofw-facts.json)" "[0,[]]" "nofw: firmware and unreadable"
assert_eq "$(jq -s -r 'group_by(.bmc) | map(length) | max' nofw/requests.log)" "$n" \
	"nofw: requests (one 404 and the UpdateService, where dell reads a second page)"

# AMI: no ExpandQuery in its root, so none sent; asked anyway, 501.
assert_eq "$(jq -s -r 'map(select(.path | test("expand"))) | length' ami/requests.log)" 0 "ami: \$expand sent"
. ami/env
bmc=$(jq -r '.nodes[0].bmc' ami/truth.json)
code=$(curl -s -o body -w '%{http_code}' -g -u "root:$BRINGUP_BMC_PASSWORD" "http://$bmc/redfish/v1/Systems?\$expand=.(\$levels=1)")
assert_eq "$code" 501 "ami: \$expand answered"
assert_contains "$(cat body)" "QueryNotSupported" "ami: the 501's message"
# Dell: $levels past MaxLevels (1) is 400 QueryParameterOutOfRange.
. dell/env
bmc=$(jq -r '.nodes[0].bmc' dell/truth.json)
code=$(curl -s -o body -w '%{http_code}' -g -u "root:$BRINGUP_BMC_PASSWORD" "http://$bmc/redfish/v1/Systems/System.Embedded.1?\$expand=.(\$levels=2)")
assert_eq "$code" 400 "dell: \$levels=2 answered"
assert_contains "$(cat body)" "QueryParameterOutOfRange" "dell: the 400's message"
code=$(curl -s -o body -w '%{http_code}' -g -u "root:$BRINGUP_BMC_PASSWORD" "http://$bmc/redfish/v1/Systems/System.Embedded.1?\$expand=.")
assert_eq "$code" 200 "dell: \$expand=. answered"
assert_eq "$(jq -r '.Bios.Id' body)" Bios "dell: the System's Bios inline"
assert_eq "$(jq -r '.Links.Chassis[0] | keys | join(",")' body)" "@odata.id" "dell: a link under Links expanded by '.'"
echo "t1150: dell $n requests per BMC, ami $(per_bmc ami)"
