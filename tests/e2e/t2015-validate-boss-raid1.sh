#!/bin/sh
# The boot disk verified as the OS sees it (issue 12 point 6): one node
# booting from its BOSS card's RAID1 volume, through discover, enlist and
# validate on its simulated host. The host shows one NVMe disk for the
# volume, with the volume's serial, and / on it; the boot_disk check
# passes on that serial, which is neither M.2 drive's.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --nodes 1 --dir sim --faults boss_raid1 --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/t.db
host=$(jq -r '.nodes[0].hostname' sim/truth.json)
os_serial=$(jq -r '.nodes[0].boot_volume.os_serial' sim/truth.json)
[ -n "$os_serial" ] && [ "$os_serial" != null ] || fail "truth has no boot volume"

# What the OS of the node shows: the volume, not its members.
root=sim/hosts/$host
assert_eq "$(tr -d ' ' < "$root/sys/class/nvme/nvme0/serial")" "$os_serial" "the OS's serial of the volume"
assert_eq "$(tr -d ' ' < "$root/sys/class/nvme/nvme0/model")" "DellBOSS-N1" "the OS's model of the volume"
for m2 in $(jq -r '.nodes[0].boot_volume.drives[]' sim/truth.json); do
	grep -rqs "$m2" "$root/sys" && fail "M.2 member $m2 visible to the OS"
done

bringup import --manifest sim/rack.csv >/dev/null
bringup discover -q
bringup enlist --skip-configure --poll-ms 50 -q
assert_eq "$(sqlite3 t.db "select state || ' ' || installed_disk_serial from nodes")" "deployed $os_serial" "enlisted"
rc=0
bringup validate --json > v.json 2> v.err || rc=$?
check() { jq -r --arg n "$1" ".nodes[0].checks[] | select(.name == \$n) | $2" v.json; }
assert_eq "$(check boot_disk .result)" pass "boot_disk: $(check boot_disk .detail) $(cat v.err)"
assert_contains "$(check boot_disk .detail)" "serial $os_serial" "boot_disk evidence"
