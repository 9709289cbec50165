#!/bin/sh
# bringup enlist on a simulated 16-node rack with nvme_order and
# commission_fail faults: every healthy node ends `deployed` with its OS on
# the disk truth.json names (read back from the MAAS emulator, not from what
# enlist printed), including the nvme_order nodes; the commission_fail node
# ends `failed` with MAAS's message; a second run creates nothing and deploys
# nothing again; no secret reaches a log.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --no-hosts --nodes 16 --dir sim --seed 7 --faults nvme_order:2,commission_fail:1 \
	--maas-commission-ms 300 --maas-deploy-ms 300 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
grep -q '^MAAS_URL=http://127.0.0.1:[0-9]*/MAAS/$' sim/env || fail "DIR/env has no MAAS_URL"
grep -q '^MAAS_API_KEY=[^:]*:[^:]*:[^:]*$' sim/env || fail "DIR/env has no MAAS_API_KEY"

# Read the emulator's API as any MAAS client would.
maas_get() { maas_req GET "$1"; }

echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBringupTestKeyOnly validator@bringup" > id.pub
bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
rc=0
bringup enlist --db t.db --skip-configure --poll-ms 100 --ssh-pubkey id.pub --ntp-server 10.9.8.7,ntp2.example.net \
	--json > run1.json 2> run1.err || rc=$?
assert_eq "$rc" 1 "first run exit (one node fails commissioning)"
assert_eq "$(jq .deployed run1.json)" 15 "deployed in run 1"
assert_eq "$(jq .failed run1.json)" 1 "failed in run 1"

# Waiting is driven by MAAS's events: a machine is read when its events say
# it moved, not on every poll (read on every poll, each machine would be
# read at least 7 times here).
reads=$(jq -s '[.[] | select(.method == "GET" and .path == "machines/") | .count] | add' sim/maas-requests.log)
echo "machine documents read while waiting: $reads"
[ "$reads" -le 96 ] || fail "read $reads machine documents for 16 machines: polling is not event-driven"

# Inventory: state, reason, system_id and address per node.
bringup status --db t.db --json > status.json
bad=$(jq -r --slurpfile t sim/truth.json '
	($t[0].nodes | map({(.hostname): .faults}) | add) as $f
	| .nodes[] | select(($f[.hostname] | index("commission_fail")) == null)
	| select(.state != "deployed" or .maas_system_id == null or (.ip // "") == "") | .hostname' status.json)
assert_eq "$bad" "" "healthy nodes not deployed with system_id and ip"
failed_host=$(jq -r '.nodes[] | select(.faults | index("commission_fail")) | .hostname' sim/truth.json)
assert_eq "$(jq -r --arg h "$failed_host" '.nodes[] | select(.hostname == $h) | .state' status.json)" failed \
	"commission_fail node state"
assert_contains "$(jq -r --arg h "$failed_host" '.nodes[] | select(.hostname == $h) | .reason' status.json)" \
	"20-maas-03-machine-resources exited 1" "commission_fail reason keeps MAAS's message"

# MAAS's own view: the disk holding / is the truth's boot disk, for every
# deployed machine; on nvme_order nodes that disk is not the first one.
maas_get machines/ > machines.json
wrong=$(jq -r --slurpfile t sim/truth.json '
	($t[0].nodes | map({(.hostname): .boot_disk_serial}) | add) as $want
	| .[] | select(.status_name == "Deployed")
	| [.hostname, ([.blockdevice_set[] | select(any(.partitions[]; .filesystem.mount_point == "/")) | .serial][0]),
	   .boot_disk.serial] as $got
	| select($got[1] != $want[.hostname] or $got[2] != $want[.hostname]) | $got | join(" ")' machines.json)
assert_eq "$wrong" "" "machines whose OS is not on the truth boot disk"
assert_eq "$(jq '[.[] | select(.status_name == "Deployed")] | length' machines.json)" 15 "deployed in MAAS"
for h in $(jq -r '.nodes[] | select(.faults | index("nvme_order")) | .hostname' sim/truth.json); do
	first=$(jq -r --arg h "$h" '.[] | select(.hostname == $h) | .blockdevice_set[] | select(.name == "nvme0n1") | .serial' machines.json)
	want=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .boot_disk_serial' sim/truth.json)
	[ "$first" != "$want" ] || fail "$h: nvme_order did not move the boot disk off nvme0n1"
	assert_eq "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .state' status.json)" deployed "$h state"
done

# What the client sent: the rendered user-data with the key and NTP server,
# power parameters without the password in any log.
ud=$(jq -r 'select(.op == "deploy") | .user_data' sim/maas-requests.log | head -n 40)
assert_contains "$ud" "#cloud-config" "user-data"
assert_contains "$ud" "validator@bringup" "user-data carries the SSH key"
assert_contains "$ud" '"10.9.8.7"' "user-data carries the NTP server"
assert_contains "$ud" '"ntp2.example.net"' "user-data carries the second NTP server"
# cloud-init's own schema check of exactly what MAAS was handed.
jq -s -j '[.[] | select(.op == "deploy" and .status == 200)][0].user_data' sim/maas-requests.log > user-data.yaml
cloud-init schema --config-file user-data.yaml > schema.out 2>&1 || fail "cloud-init schema: $(cat schema.out)"
assert_contains "$(cat schema.out)" "Valid" "cloud-init schema verdict"
assert_eq "$(jq -r 'select(.op == null and .method == "POST" and .path == "machines/") | .power_type' sim/maas-requests.log | sort -u)" \
	redfish "power type"
! grep -q "$BRINGUP_BMC_PASSWORD" sim/maas-requests.log run1.err run1.json || fail "BMC password in a log"
! grep -q "${MAAS_API_KEY##*:}" sim/maas-requests.log run1.err run1.json || fail "MAAS key secret in a log"

# Second run: nothing created, nothing deployed again; the failed node is
# retried and fails again.
rc=0
bringup enlist --db t.db --skip-configure --poll-ms 100 --ssh-pubkey id.pub --json > run2.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "second run exit"
assert_eq "$(jq .deployed run2.json) $(jq .failed run2.json)" "0 1" "second run touches only the failed node"
creates=$(jq -r 'select(.op == null and .method == "POST" and .path == "machines/" and .status == 200) | .macs[]' \
	sim/maas-requests.log | sort | uniq -c | awk '$1 != 1' | wc -l)
assert_eq "$creates" 0 "MACs created more than once"
all_macs=$(jq -r '.nodes[].macs[]' sim/truth.json | sort -u | wc -l)
created=$(jq -r 'select(.op == null and .method == "POST" and .path == "machines/" and .status == 200) | .macs[]' \
	sim/maas-requests.log | sort -u | wc -l)
assert_eq "$created" "$all_macs" "every MAC registered exactly once"
assert_eq "$(jq -r 'select(.op == "deploy" and .status == 200) | .system_id' sim/maas-requests.log | sort | uniq -d)" "" \
	"a machine deployed twice"
assert_eq "$(maas_get machines/ | jq length)" 16 "machines in MAAS after two runs"
echo "16 nodes: 15 deployed on the truth boot disk (2 nvme_order), 1 commission_fail kept MAAS's reason"
