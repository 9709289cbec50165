#!/bin/sh
# bringup-bmc --ipmi against a real ipmi_sim (OpenIPMI) through real ipmitool:
# FRU serial and model, sensors, SEL, BMC MAC, power; a wrong password exits
# 3 naming authentication and never shows the password; a dead port exits 3
# within --timeout.
. "$(dirname "$0")/lib.sh"
. "$BR_TOP/tests/fixtures/ipmi/sim.sh"

command -v jq >/dev/null || fail "jq is needed"
start_ipmi_sim bmc1 "$T/bmc1"
port=$IPMI_SIM_PORT

export BMC_PW=secret
"$BIN/bringup-bmc" --ipmi "127.0.0.1:$port" --user admin --password-ref env:BMC_PW \
	--timeout 30 --json >"$T/hw.json" 2>"$T/err" || { cat "$T/err"; fail "bringup-bmc exited $?"; }
j() { jq -r "$1" "$T/hw.json"; }
assert_eq "$(j .source)" ipmi "source"
assert_eq "$(j .system_serial)" SN-IPMI-0001 "serial from the FRU product area"
assert_eq "$(j .model)" "PowerEdge XE9680" "model from the FRU"
assert_eq "$(j .manufacturer)" "Dell Inc." "manufacturer from the FRU"
assert_eq "$(j .power_state)" Off "power state"
assert_eq "$(j .bmc_firmware)" 9.08 "firmware from mc info"
assert_eq "$(j .bmc_mac)" 52:54:00:ab:cd:ef "BMC MAC from lan print"
assert_eq "$(j '.nics | length')" 0 "the BMC port is not a host NIC"
assert_eq "$(j '[.sensors[] | select(.kind == "fan")] | length')" 2 "fans"
assert_eq "$(j '[.sensors[] | select(.kind == "temperature")] | length')" 2 "temperatures"
assert_eq "$(j '.sensors[] | select(.name == "Fan1A") | .reading')" 7200 "Fan1A RPM"
assert_eq "$(j '.sensors[] | select(.name == "Fan1A") | .units')" RPM "Fan1A units"
assert_eq "$(j '.sensors[] | select(.name == "Fan1A") | .lower_critical')" 600 "Fan1A threshold"
assert_eq "$(j '.sensors[] | select(.name == "Inlet Temp") | .reading')" 24 "inlet temperature"
assert_eq "$(j '.sensors[] | select(.name == "CPU1 Temp") | .upper_critical')" 95 "CPU threshold"
assert_eq "$(j '.sensors[] | select(.name == "PS2 Status") | .health')" Critical "failed PSU"
assert_eq "$(j '.sensors[] | select(.name == "PS1 Status") | .health')" OK "good PSU"
assert_eq "$(j '.sel | length')" 3 "SEL entries"
assert_eq "$(j '[.sel[] | select(.severity == "Critical")] | length')" 2 "critical SEL entries"

# Human output names the same facts.
"$BIN/bringup-bmc" --ipmi "127.0.0.1:$port" --user admin --password-ref env:BMC_PW >"$T/human"
assert_contains "$(cat "$T/human")" "SN-IPMI-0001" "human output"

# Wrong password: exit 3, "authentication", and the password nowhere. This
# BMC takes 3 s to refuse to list its cipher suites, so ipmitool's command
# line can be seen while it waits.
IPMI_SIM_CIPHER_DELAY=3
start_ipmi_sim bmc2 "$T/bmc2"
slow=$IPMI_SIM_PORT
export BAD_PW=Wr0ng-Passw0rd-4711
"$BIN/bringup-bmc" --ipmi "127.0.0.1:$slow" --user admin --password-ref env:BAD_PW \
	--timeout 30 -vv >"$T/out" 2>"$T/err" &
pid=$!
i=0
until ps -eo args >"$T/ps" && grep -q "ipmitool.* -p $slow " "$T/ps"; do
	i=$((i + 1))
	[ $i -lt 100 ] && kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
rc=0; wait $pid || rc=$?
assert_eq "$rc" 3 "exit code on a wrong password"
assert_contains "$(cat "$T/err")" "authentication" "reason"
grep -q "ipmitool.* -p $slow " "$T/ps" || fail "ipmitool was not running during the ps check"
for f in "$T/out" "$T/err" "$T/ps"; do
	! grep -q "Wr0ng-Passw0rd-4711" "$f" || fail "password leaked into $(basename "$f")"
done
# Only ipmitool's own command lines: other processes on a CI host may use -P.
if grep '^ipmitool\|/ipmitool ' "$T/ps" | grep -q -- ' -P '; then
	fail "ipmitool was given -P"
fi

# A port nobody answers: exit 3 within the timeout, reason names the BMC.
dead=$(free_udp_port)
start=$(date +%s)
rc=0
"$BIN/bringup-bmc" --ipmi "127.0.0.1:$dead" --user admin --password-ref env:BMC_PW \
	--timeout 3 >"$T/out" 2>"$T/err" || rc=$?
took=$(( $(date +%s) - start ))
assert_eq "$rc" 3 "exit code for an unreachable BMC"
assert_contains "$(cat "$T/err")" "127.0.0.1:$dead" "reason names the BMC"
[ "$took" -le 6 ] || fail "unreachable BMC took ${took}s with --timeout 3"

# Bad usage: a literal password and a missing option.
rc=0; "$BIN/bringup-bmc" --ipmi 127.0.0.1 --user admin --password-ref secret 2>/dev/null || rc=$?
assert_eq "$rc" 2 "literal password refused"
rc=0; "$BIN/bringup-bmc" --user admin --password-ref env:BMC_PW 2>/dev/null || rc=$?
assert_eq "$rc" 2 "missing --ipmi"
"$BIN/bringup-bmc" --help | grep -q -- "--password-ref" || fail "--help"
echo "t1500 ok"
