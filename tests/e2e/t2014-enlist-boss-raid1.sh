#!/bin/sh
# The boot disk as the OS sees it (issue 12 point 6): a node booting from
# its BOSS card's RAID1 volume. Redfish lists the two M.2 drives and the
# Volume over them; the OS, and so MAAS, sees one disk with the volume's
# serial. Discovery stores the volume, the profile's rule picks it by its
# identity (never an M.2 drive), and enlist pins the MAAS block device that
# carries that identity. A node whose volume MAAS knows by another serial
# fails with a reason naming both sides. A plain node beside them still
# goes on its BOSS drive by serial.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --nodes 3 --dir sim --no-hosts --faults boss_raid1,boss_unmatched \
	--maas-commission-ms 200 --maas-deploy-ms 200 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
with() { jq -r --arg f "$1" '.nodes[] | select(.faults | index($f)) | .hostname' sim/truth.json; }
truth() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" sim/truth.json; }
boss=$(with boss_raid1)
bad=$(with boss_unmatched)
plain=$(jq -r '.nodes[] | select(.faults | length == 0) | .hostname' sim/truth.json)
[ -n "$boss" ] && [ -n "$bad" ] && [ -n "$plain" ] || fail "fault placement: '$boss' '$bad' '$plain'"

bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
vol() { sqlite3 t.db "select v.$2 from volumes v join nodes n on n.id = v.node_id where n.hostname = '$1'"; }
assert_eq "$(vol "$boss" "volume_id || ' ' || raid_type || ' ' || durable_name_format || ' ' || durable_name")" \
	"$(truth "$boss" '.boot_volume | "\(.id) RAID1 NAA \(.durable_name)"')" "discovered volume"
assert_eq "$(vol "$boss" "member_drives ->> '\$[1]'")" "Disk.Direct.1-1:BOSS.SL.14-1" "volume's members"
assert_eq "$(sqlite3 t.db "select count(*) from volumes v join nodes n on n.id = v.node_id where n.hostname = '$plain'")" 0 \
	"no volume on the plain node"

rc=0
timeout 60 bringup enlist --no-ssh-key --db t.db --skip-configure --poll-ms 50 --json > run.json 2>err.log || rc=$?
assert_eq "$rc" 1 "exit (one node failed)"
state() { sqlite3 t.db "select $2 from nodes where hostname = '$1'"; }
os_serial=$(truth "$boss" .boot_volume.os_serial)
assert_eq "$(state "$boss" state)" deployed "BOSS node state"
assert_eq "$(state "$boss" installed_disk_serial)" "$os_serial" "BOSS node: OS on the volume as the OS names it"
for m2 in $(truth "$boss" '.boot_volume.drives[]'); do
	grep -q "$m2" sim/maas-requests.log && fail "an M.2 member serial ($m2) reached MAAS"
done
pinned=$(jq -r --arg s "$os_serial" 'select(.op == "set_boot_disk") | .boot_disk_serial | select(. == $s)' \
	sim/maas-requests.log | head -1)
assert_eq "$pinned" "$os_serial" "set_boot_disk on the volume's block device"
assert_eq "$(jq -r --arg h "$boss" '.nodes[] | select(.hostname == $h) | .boot_disk_serial' run.json)" \
	"$(truth "$boss" .boot_volume.durable_name)" "the rule chose the volume by its identity"

assert_eq "$(state "$bad" state)" failed "unmatched node state"
reason=$(state "$bad" reason)
assert_contains "$reason" "the boot disk cannot be matched" "unmatched reason"
assert_contains "$reason" "$(truth "$bad" .boot_volume.durable_name)" "reason names the BMC's identity"
assert_contains "$reason" "the BMC's volume Disk.Virtual.0:BOSS.SL.14-1" "reason names the BMC's volume"
assert_contains "$reason" "nvme0n1 (serial $(truth "$bad" .boot_volume.os_serial), model Dell BOSS-N1)" \
	"reason names what MAAS shows"
# typed where it was seen: the boot disk, not the BMC, and the ticket says so
assert_eq "$(bringup status --db t.db --json | jq -r --arg h "$bad" '.nodes[] | select(.hostname == $h) | .failure_kind')" \
	boot_disk_unmatched "unmatched node's failure kind"
assert_eq "$(bringup tickets --db t.db --json | jq -r --arg h "$bad" '[.tickets[] | select(.hostname == $h) | .fault] | join(",")')" \
	boot_disk_unmatched "unmatched node's ticket"

assert_eq "$(state "$plain" state)" deployed "plain node state"
assert_eq "$(state "$plain" installed_disk_serial)" "$(truth "$plain" .boot_disk_serial)" "plain node on its BOSS drive"
