#!/bin/sh
# bringup credentials rotate on IPMI-only BMCs (bmc_type ipmi), real
# ipmi_sim peers through real ipmitool, beside a Redfish BMC in the same
# run: the new password (16 characters, Set User Password's form) is stored
# before ipmitool runs, set with `user set password` read from stdin (exec
# /dev/stdin: never in argv, checked in ps while the run goes), proven by a
# login, and only then referenced; afterwards only the new password opens
# an IPMI session. A BMC refusing its factory password fails alone, its
# reference kept. A rotation killed right after the BMC took the new
# password leaves the BMC reachable by the store's file, and the next run
# records it. A second run finds the BMCs rotated already.
. "$(dirname "$0")/lib.sh"
. "$BR_TOP/tests/fixtures/ipmi/sim.sh"
cd "$T"
# ipmi-a's BMC waits a second before it refuses to list its cipher
# suites, so each of its ipmitool calls can be seen in ps.
IPMI_SIM_CIPHER_DELAY=1
start_ipmi_sim bmc1 "$T/ipmi1"
port_a=$IPMI_SIM_PORT
IPMI_SIM_CIPHER_DELAY=0
start_ipmi_sim bmc2 "$T/ipmi2"
port_b=$IPMI_SIM_PORT
start_ipmi_sim bmc3 "$T/ipmi3"
port_c=$IPMI_SIM_PORT
bringup sim --no-hosts --nodes 1 --seed 3 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export IPMI_PW=secret WRONG_PW=not-the-password BRINGUP_DB=$T/inv.db
{
	head -2 rack/rack.csv
	echo "ipmi-a,r09,1,127.0.0.1:$port_a,admin,env:IPMI_PW,xe9680,ipmi,,,"
	echo "ipmi-b,r09,3,127.0.0.1:$port_b,admin,env:WRONG_PW,xe9680,ipmi,,,"
} >rack.csv
bringup import --manifest rack.csv >/dev/null
redfish=$(jq -r '.nodes[0].hostname' rack/truth.json)
# can PASSWORD open a session on PORT as admin: 0 yes, 1 no
login() { IPMI_PASSWORD=$2 ipmitool -I lanplus -H 127.0.0.1 -p "$1" -U admin -E -C 3 chassis power status >/dev/null 2>&1; }

# Every ipmitool call the stage makes, its arguments logged; ps is read
# while the run goes.
cat >ipmitool-logged <<EOF
#!/bin/sh
echo "\$*" >>"$T/calls.log"
exec ipmitool "\$@"
EOF
chmod +x ipmitool-logged
(while :; do ps -eo args >>ps.log; sleep 0.05; done) &
psloop=$!
at_exit "kill $psloop 2>/dev/null"
rc=0
BR_IPMITOOL=$T/ipmitool-logged bringup credentials rotate -v --timeout 30 --store "file:$T/store" --json \
	>out.json 2>log || rc=$?
kill $psloop
assert_eq "$rc" 1 "rotate exit code (one BMC refuses its factory password): $(tail -n 3 log)"
res() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" out.json; }
assert_eq "$(res ipmi-a .result)" rotated "ipmi-a"
assert_eq "$(res "$redfish" .result)" rotated "the Redfish BMC beside"
assert_eq "$(res ipmi-b .result)" failed "ipmi-b"
assert_contains "$(res ipmi-b .reason)" "neither the referenced password (env:WRONG_PW) nor the new one" "ipmi-b reason"
assert_contains "$(res ipmi-b .reason)" "IPMI authentication failed" "ipmi-b reason names IPMI's refusal"

new=$(cat store/ipmi-a)
assert_eq "${#new}" 16 "ipmi-a: new password length"
assert_eq "$(stat -c %a store/ipmi-a)" 600 "ipmi-a: store file mode"
assert_eq "$(inv_sql inv.db "select bmc_password_ref from nodes where hostname = 'ipmi-a'")" "file:$T/store/ipmi-a" \
	"ipmi-a: the inventory's reference"
assert_eq "$(inv_sql inv.db "select bmc_password_ref from nodes where hostname = 'ipmi-b'")" "env:WRONG_PW" \
	"ipmi-b: reference kept"
login "$port_a" "$new" || fail "ipmi-a: the new password does not open a session"
! login "$port_a" secret || fail "ipmi-a: the factory password still opens a session"
login "$port_b" secret || fail "ipmi-b: its own password was changed"

# What ipmitool was asked, in order, on ipmi-a: find the account, set its
# password from stdin, then a login with the new one.
grep -- "-p $port_a " calls.log | sed 's/.* -C 3 //; s/.* -E //' >calls-a.txt
assert_eq "$(tr '\n' ';' <calls-a.txt)" "-v -c user list;exec /dev/stdin;-v -c user list;" "ipmi-a: ipmitool calls"
grep -q "ipmitool.* -p $port_a " ps.log || fail "ps never saw ipmi-a's ipmitool running"
for where in out.json log calls.log ps.log; do
	! grep -qF "$new" "$where" || fail "ipmi-a's new password is in $where"
	! grep -qF "$(cat store/ipmi-b)" "$where" || fail "ipmi-b's new password is in $where"
done
inv_sql inv.db --dump >dump.sql
! grep -qF "$new" dump.sql || fail "ipmi-a's new password is in the inventory"
! grep -- ' -P ' calls.log || fail "ipmitool was given -P"

# Again: ipmi-a is checked with its stored password and left alone.
rc=0
bringup credentials rotate --timeout 30 --store "file:$T/store" --json >again.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "second rotate exit code"
assert_eq "$(jq -r '.nodes[] | select(.hostname == "ipmi-a") | .result' again.json)" already "ipmi-a second run"
login "$port_a" "$new" || fail "ipmi-a: the stored password after the second run"

# Killed between the phases: the BMC has taken the new password, nothing
# is recorded yet. The store's file is what reaches it, and the next run
# finds it there (the factory password refused) and records it.
cat >ipmitool-killer <<'EOF'
#!/bin/sh
ipmitool "$@"
rc=$?
case "$*" in *"exec /dev/stdin"*) kill -9 $PPID ;; esac
exit $rc
EOF
chmod +x ipmitool-killer
echo "ipmi-c,r09,5,127.0.0.1:$port_c,admin,env:IPMI_PW,xe9680,ipmi,,," | cat rack.csv - >rack-c.csv
bringup import --manifest rack-c.csv >/dev/null
rc=0
BR_IPMITOOL=$T/ipmitool-killer bringup credentials rotate --timeout 30 --store "file:$T/store" ipmi-c \
	>/dev/null 2>&1 || rc=$?
assert_eq "$rc" 137 "the run killed at the password change"
assert_eq "$(inv_sql inv.db "select bmc_password_ref from nodes where hostname = 'ipmi-c'")" "env:IPMI_PW" \
	"ipmi-c: nothing recorded by the killed run"
! login "$port_c" secret || fail "ipmi-c: the factory password still works after the set"
login "$port_c" "$(cat store/ipmi-c)" || fail "ipmi-c: the store's password does not reach the BMC"
rc=0
bringup credentials rotate --timeout 30 --store "file:$T/store" --json ipmi-c >resumed.json 2>err || rc=$?
assert_eq "$rc" 0 "resumed rotation: $(cat err)"
assert_eq "$(jq -r '.nodes[0].result' resumed.json)" rotated "ipmi-c resumed"
assert_eq "$(inv_sql inv.db "select bmc_password_ref from nodes where hostname = 'ipmi-c'")" "file:$T/store/ipmi-c" \
	"ipmi-c: recorded by the next run"

# --site-user is not made over IPMI: that node fails saying so, alone.
rc=0
bringup credentials rotate --timeout 30 --store "file:$T/store" --site-user siteadmin --json ipmi-a \
	>site.json 2>/dev/null || rc=$?
assert_eq "$rc" 1 "--site-user on an IPMI BMC"
assert_contains "$(jq -r '.nodes[0].reason' site.json)" "rotate it without --site-user" "--site-user reason"
login "$port_a" "$new" || fail "ipmi-a: touched by the refused --site-user run"
echo ok
