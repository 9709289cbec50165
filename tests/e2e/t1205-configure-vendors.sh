#!/bin/sh
# configure across BMC families (--vendor mixed: dell, hpe, lenovo,
# supermicro, openbmc, ami). With iDRAC's baseline (xe9680) everywhere, every
# non-Dell node fails with "unsupported on this BMC: attribute X not present"
# and nothing is written to it. With each family's own profile, every node
# converges through its family's mechanism: the BIOS settings object the Bios
# resource names (iLO's Bios/Settings/, XCC's Bios/Pending, Supermicro's and
# AMI's Bios/SD, OpenBMC's Bios/Settings), no Dell job, one reset of a type
# the System lists (the simulator refuses others), the baseline then visible
# in the Bios, PXE as the next boot; OpenBMC's host System only, never the
# GPU baseboard beside it. A re-run writes nothing.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 6 --seed 11 --vendor mixed --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
truth=rack/truth.json
assert_eq "$(jq -r '[.nodes[].vendor] | join(",")' $truth)" "dell,hpe,lenovo,supermicro,openbmc,ami" "families"
vendor_of() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .vendor' $truth; }
bmc_of() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .bmc' $truth; }
profile_of() {
	case $1 in dell) echo xe9680 ;; hpe) echo xl675d ;; lenovo) echo sr675v3 ;;
	supermicro) echo sys-821ge ;; openbmc) echo gh200 ;; ami) echo dgx-h100 ;; esac
}
system_of() { case $1 in dell) echo System.Embedded.1 ;; openbmc) echo System_0 ;; ami) echo Self ;; *) echo 1 ;; esac; }
settings_of() { case $1 in lenovo) echo Pending ;; supermicro | ami) echo SD ;; *) echo Settings ;; esac; }
get() { curl -sf -u "root:$BRINGUP_BMC_PASSWORD" "http://$1$2"; }
# Writes to a node outside its session's login and logout.
writes() { jq -r --arg n "$1" 'select(.node == $n and .method != "GET" and (.path | test("SessionService") | not)) | "\(.method) \(.path)"' "$2"; }
baseline() { awk '/^\[/ { s = $0; next } s == "[bios]" && /=/ && !/^[#;]/' "$BR_TOP/templates/profiles/$1/bios.conf"; }

# 1. iDRAC's baseline on every node: refused, by name, on the other families.
# (The simulator's rack.csv names each family's own profile: pin xe9680.)
export BRINGUP_DB=$T/a.db
awk -F, -v OFS=, 'FNR > 1 { $7 = "xe9680" } { print }' rack/rack.csv > xe.csv
bringup import --manifest xe.csv >/dev/null
bringup discover -q --timeout 5 >/dev/null
: > rack/requests.log
rc=0
bringup configure --json --poll-ms 100 --graceful-timeout 5 --job-timeout 30 > a.json 2> a.err || rc=$?
assert_eq "$rc" 1 "configure exit code with iDRAC's baseline everywhere ($(cat a.err))"
cp rack/requests.log a.log
for h in $(jq -r '.nodes[].hostname' $truth); do
	v=$(vendor_of "$h")
	result=$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .result' a.json)
	reason=$(bringup status --json "$h" | jq -r '.nodes[0].reason')
	if [ "$v" = dell ]; then
		assert_eq "$result" unchanged "dell: $h ($reason)"
		continue
	fi
	assert_eq "$result" failed "$v: $h result"
	assert_eq "$(bringup status --json "$h" | jq -r '.nodes[0].state')" failed "$v: $h state"
	case "$reason" in
	"unsupported on this BMC: "*"attribute SysProfile not present, attribute ProcCStates not present"*) ;;
	*) fail "$v: $h reason: $reason" ;;
	esac
	# BootMode is an attribute of iLO's BIOS too: not named (the GH200's has none).
	case "$v:$reason" in hpe:*BootMode*) fail "$v: BootMode named: $reason" ;; esac
	case "$v:$reason" in openbmc:*"attribute BootMode not present"*) ;; openbmc:*) fail "$v: BootMode not named: $reason" ;; esac
	assert_eq "$(writes "$h" a.log)" "" "$v: nothing written to $h"
done

# 2. Each family's own baseline: converges through the family's mechanism.
for h in $(jq -r '.nodes[].hostname' $truth); do echo "$h,$(profile_of "$(vendor_of "$h")")"; done > profiles.csv
awk -F, -v OFS=, 'NR == FNR { p[$1] = $2; next } FNR > 1 { $7 = p[$1] } { print }' profiles.csv rack/rack.csv > fam.csv
export BRINGUP_DB=$T/b.db
bringup import --manifest fam.csv >/dev/null
bringup discover -q --timeout 5 >/dev/null
: > rack/requests.log
rc=0
bringup configure --json --poll-ms 100 --graceful-timeout 5 --job-timeout 30 > b.json 2> b.err || rc=$?
assert_eq "$rc" 0 "configure exit code with each family's baseline ($(cat b.err))"
cp rack/requests.log b.log
for h in $(jq -r '.nodes[].hostname' $truth); do
	v=$(vendor_of "$h")
	[ "$v" = dell ] && continue
	sys=/redfish/v1/Systems/$(system_of "$v")
	assert_eq "$(bringup status --json "$h" | jq -r '.nodes[0].state')" configured "$v: $h state"
	assert_contains "$(jq -r --arg h "$h" '.nodes[] | select(.hostname == $h) | .reason' b.json)" \
		"applied by the reset (" "$v: $h reason"
	bios=$(get "$(bmc_of "$h")" "$sys/Bios")
	n=0
	baseline "$(profile_of "$v")" > want
	while IFS= read -r line; do
		k=$(echo "${line%%=*}" | sed 's/ *$//')
		want=$(echo "${line#*=}" | sed 's/^ *//')
		assert_eq "$(echo "$bios" | jq -r --arg k "$k" '.Attributes[$k] | tostring')" "$want" "$v: $h $k after"
		n=$((n + 1))
	done < want
	[ "$n" -ge 2 ] || fail "$v: baseline of $(profile_of "$v") has $n attributes"
	assert_eq "$(get "$(bmc_of "$h")" "$sys" | jq -r '.Boot.BootSourceOverrideTarget')" Pxe "$v: $h next boot"
	# What was written: the BIOS settings object the family names, one
	# reset, the System's boot override, nothing else (no Dell job).
	w=$(writes "$h" b.log | sed 's:/$::' | tr 'A-Z' 'a-z' | sort | tr '\n' ' ')
	want_w=$(printf '%s\n' "PATCH $sys/Bios/$(settings_of "$v")" "POST $sys/Actions/ComputerSystem.Reset" "PATCH $sys" |
		tr 'A-Z' 'a-z' | sort | tr '\n' ' ')
	assert_eq "$w" "$want_w" "$v: writes to $h"
	# The settings object was PATCHed with the ETag the BMC gave.
	assert_eq "$(jq -r --arg n "$h" 'select(.node == $n and .method == "PATCH" and (.path | test("/Bios/"))) | .if_match // ""' b.log | grep -c .)" 1 \
		"$v: If-Match on the settings PATCH of $h"
done
# OpenBMC: the GPU baseboard System was read to be told apart, never written.
ob=$(jq -r '.nodes[] | select(.vendor == "openbmc") | .hostname' $truth)
assert_eq "$(jq -r --arg n "$ob" 'select(.node == $n and (.path | test("HGX_Baseboard_0")) and .method != "GET") | .path' b.log)" "" \
	"nothing written to HGX_Baseboard_0"

# 3. A re-run: everything on its baseline, nothing written.
: > rack/requests.log
bringup configure --json --poll-ms 100 $(jq -r '.nodes[].hostname' $truth) > c.json
assert_eq "$(jq -r '[.nodes[].result] | unique | join(",")' c.json)" unchanged "re-run results"
for h in $(jq -r '.nodes[].hostname' $truth); do
	assert_eq "$(writes "$h" rack/requests.log)" "" "re-run: nothing written to $h"
done
