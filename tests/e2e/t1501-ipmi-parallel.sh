#!/bin/sh
# The IPMI fallback reads several BMCs at once through the discover stage:
# two ipmi_sim BMCs and one dead port. The live ones are discovered with
# their FRU serial, the dead one fails with a reason naming it, and the run
# takes about one BMC's time, not the sum.
# test: alone (its run time is the assertion)
. "$(dirname "$0")/lib.sh"
. "$BR_TOP/tests/fixtures/ipmi/sim.sh"
command -v jq >/dev/null || fail "jq is needed"
cd "$T"
# ipmi_sim as it is, silent to Get Channel Cipher Suites: its ~10 s per BMC
# shows the reads overlap, and that the fallback to suite 3 is remembered.
IPMI_SIM_CIPHER_RELAY=0
start_ipmi_sim bmc-a "$T/a"; port_a=$IPMI_SIM_PORT
start_ipmi_sim bmc-b "$T/b"; port_b=$IPMI_SIM_PORT
dead=$(free_udp_port)
cat >rack.csv <<EOS
hostname,rack,unit,bmc,bmc_user,bmc_password,profile,bmc_type,boot_disk_serial,notes
ipmi-a,r01,1,127.0.0.1:$port_a,admin,env:PW,xe9680,ipmi,,
ipmi-b,r01,3,127.0.0.1:$port_b,admin,env:PW,xe9680,ipmi,,
ipmi-dead,r01,5,127.0.0.1:$dead,admin,env:PW,xe9680,ipmi,,
EOS
export PW=secret
# Record every ipmitool command line, then run the real one.
cat > ipmitool <<EOF
#!/bin/sh
echo "\$*" >> $T/argv.log
exec ipmitool "\$@"
EOF
chmod +x ipmitool
export BR_IPMITOOL=$T/ipmitool
bringup import --db inv.db --manifest rack.csv >/dev/null
# ipmi_sim does not answer Get Channel Cipher Suites: ipmitool's first call
# to each BMC waits ~10 s before it falls back, so the timeout leaves room.
start=$(date +%s)
rc=0
bringup discover --db inv.db --timeout 20 --ipmi-parallel 3 --json >out.json 2>err || rc=$?
took=$(( $(date +%s) - start ))
assert_eq "$rc" 1 "exit code with one node failed"
bringup status --db inv.db --json >st.json
st() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | $2" st.json; }
assert_eq "$(st ipmi-a .state)" discovered "ipmi-a state"
assert_eq "$(st ipmi-b .state)" discovered "ipmi-b state"
assert_eq "$(st ipmi-a .system_serial)" SN-IPMI-0001 "ipmi-a serial"
assert_eq "$(st ipmi-b .system_serial)" SN-IPMI-0001 "ipmi-b serial"
assert_eq "$(st ipmi-dead .state)" failed "dead BMC state"
assert_contains "$(st ipmi-dead .reason)" "127.0.0.1:$dead" "reason names the dead BMC"
# Serial: 10 + 10 + 20 s at least. Parallel: the dead one's 20 s timeout
# (15 s left an ASan-built discover too little past ipmi_sim's 10 s wait).
[ "$took" -lt 35 ] || fail "discover took ${took}s: BMCs were not read in parallel"
! grep -q secret err out.json || fail "password in output"
# The ~10 s wait is paid once per BMC: every later call asks for suite 3.
for p in $port_a $port_b; do
	grep -q -- "-p $p " argv.log || fail "no ipmitool call to port $p"
	assert_eq "$(grep -- "-p $p " argv.log | sed 1d | grep -c -v -- ' -C 3 ')" 0 \
		"calls to port $p after the first without -C 3: $(cat argv.log)"
done
echo "t1501 ok (${took}s)"
