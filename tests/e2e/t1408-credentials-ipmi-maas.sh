#!/bin/sh
# bringup credentials rotate on IPMI-only BMCs (real ipmi_sim through real
# ipmitool) whose machines MAAS has enlisted with IPMI power: afterwards
# MAAS's power parameters (GET ?op=power_parameters, admin only) hold each
# BMC's new password with the IPMI power type, its address (MAAS's ipmi
# driver takes a host, no port: src/provisioningserver/drivers/power/ipmi.py)
# and driver LAN_2_0, sent as the PUT form MAAS's MachineForm reads
# (power_parameters_power_pass, ...). A machine whose update MAAS refuses
# (test fault maas_update_fail: HTTP 500) fails alone, kind maas_power: its
# BMC on the new password, recorded, and MAAS keeping the factory one, as
# the ticket says. No password is in --json, the log, the inventory or
# MAAS's request log.
. "$(dirname "$0")/lib.sh"
. "$BR_TOP/tests/fixtures/ipmi/sim.sh"
cd "$T"
start_ipmi_sim bmc1 "$T/ipmi1"
port_a=$IPMI_SIM_PORT
start_ipmi_sim bmc2 "$T/ipmi2"
port_b=$IPMI_SIM_PORT
# The simulator for its MAAS: its one host (maas_update_fail) is the
# machine behind ipmi-b (by its MACs).
bringup sim --no-hosts --nodes 1 --seed 3 --faults maas_update_fail --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export IPMI_PW=secret BRINGUP_DB=$T/inv.db
{
	head -1 rack/rack.csv
	echo "ipmi-a,r09,1,127.0.0.1:$port_a,admin,env:IPMI_PW,xe9680,ipmi,,,"
	echo "ipmi-b,r09,3,127.0.0.1:$port_b,admin,env:IPMI_PW,xe9680,ipmi,,,"
} > rack.csv
bringup import --manifest rack.csv >/dev/null
login() { IPMI_PASSWORD=$2 ipmitool -I lanplus -H 127.0.0.1 -p "$1" -U admin -E -C 3 chassis power status >/dev/null 2>&1; }

# Enlisted with IPMI power by MAAS (as enlist makes machines: MAAS's
# create form), the factory password in MAAS; the inventory knows each
# machine's system_id.
maas_post() { m=$1 p=$2; shift 2; curl -sf -X "$m" -H "$(maas_auth)" "${MAAS_URL}api/2.0/$p" "$@"; }
enlisted() { # HOST MAC
	maas_post POST "machines/" -d hostname="$1" -d architecture=amd64/generic -d mac_addresses="$2" \
		-d power_type=ipmi -d power_parameters_power_address=127.0.0.1 -d power_parameters_power_user=admin \
		-d power_parameters_power_pass=secret -d power_parameters_power_driver=LAN_2_0 | jq -r .system_id
}
sid_a=$(enlisted ipmi-a 02:00:00:00:0a:01)
sid_b=$(enlisted ipmi-b "$(jq -r '.nodes[0].macs[0]' rack/truth.json)")
[ -n "$sid_a" ] && [ "$sid_a" != null ] && [ -n "$sid_b" ] && [ "$sid_b" != null ] ||
	fail "MAAS did not take the machines: '$sid_a' '$sid_b'"
inv_sql inv.db "update nodes set maas_system_id = '$sid_a' where hostname = 'ipmi-a';
	update nodes set maas_system_id = '$sid_b' where hostname = 'ipmi-b'" >/dev/null
params() { maas_post GET "machines/$1/?op=power_parameters"; }
assert_eq "$(params "$sid_a" | jq -r .power_pass)" secret "ipmi-a: MAAS holds the factory password"

rc=0
bringup credentials rotate -v --timeout 30 --store "file:$T/store" --json > out.json 2> log || rc=$?
assert_eq "$rc" 1 "rotate exit (MAAS refuses ipmi-b's update): $(tail -n 3 log)"
res() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" out.json; }
new_a=$(cat store/ipmi-a)
new_b=$(cat store/ipmi-b)
assert_eq "$(res ipmi-a '[.result, .maas_power] | join(",")')" rotated,updated "ipmi-a"
assert_eq "$(params "$sid_a" | jq -c '[.power_address, .power_user, .power_driver]')" '["127.0.0.1","admin","LAN_2_0"]' \
	"ipmi-a: MAAS's IPMI address, user and driver"
assert_eq "$(params "$sid_a" | jq -r .power_pass)" "$new_a" "ipmi-a: MAAS holds the new password"
assert_eq "$(jq -r --arg s "$sid_a" 'select(.method == "PUT" and (.path | contains($s))) | .power_type' rack/maas-requests.log)" \
	ipmi "ipmi-a: the update keeps the IPMI power type"
login "$port_a" "$new_a" || fail "ipmi-a: the new password does not open a session"
! login "$port_a" secret || fail "ipmi-a: the factory password still opens a session"

assert_eq "$(res ipmi-b '[.result, .maas_power, .failure_kind] | join(",")')" failed,failed,maas_power "ipmi-b"
assert_contains "$(res ipmi-b .reason)" "MAAS refused the new power parameters of machine $sid_b" "ipmi-b: reason"
assert_contains "$(res ipmi-b .reason)" "HTTP 500" "ipmi-b: reason quotes MAAS"
assert_eq "$(params "$sid_b" | jq -r .power_pass)" secret "ipmi-b: MAAS keeps the factory password"
assert_eq "$(inv_sql inv.db "select bmc_password_ref from nodes where hostname = 'ipmi-b'")" "file:$T/store/ipmi-b" \
	"ipmi-b: the new password recorded all the same"
login "$port_b" "$new_b" || fail "ipmi-b: the BMC is not on the new password"
assert_eq "$(node_field inv.db ipmi-b state),$(node_field inv.db ipmi-b failure_kind)" failed,maas_power "ipmi-b in the inventory"
bringup tickets --format json > tickets.json
assert_contains "$(jq -r '.tickets[] | select(.hostname == "ipmi-b") | .action' tickets.json)" "MAAS holds an old BMC password for ipmi-b" \
	"ipmi-b's ticket"

inv_sql inv.db --dump > dump.sql
for p in "$new_a" "$new_b"; do
	for where in out.json log dump.sql rack/maas-requests.log; do
		! grep -qF -- "$p" "$where" || fail "a password ($p) is in $where"
	done
done
