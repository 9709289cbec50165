#!/bin/sh
# bringup-sim's non-Dell personalities against Redfish clients others wrote,
# as t1009 does for the Dell one: Debian's redfishtool (DMTF's) and ilorest
# (HPE's) work against each family as against a real BMC of it. One
# --vendor mixed rack holds one node of every family (round-robin: dell,
# hpe, lenovo, supermicro, openbmc, ami); each non-Dell node is driven in
# its own background job, few client calls each (every call is a Python
# start-up):
#  - redfishtool: a session login reading the system serial, the chassis
#    list, the manager, a BIOS attribute and the family's settings object
#    (@Redfish.Settings, DSP0266 "Settings resource"), a BIOS change PATCHed
#    there (pending until the next reset, as the family models it), and a
#    system reset that reaches the BMC (the simulator's requests.log), after
#    which the change is applied.
#  - ilorest: login (which crawls the whole tree), one typed get and
#    logout, in one call. ilorest learns the iLO generation from the
#    service root's Oem.Hpe.Manager at login, and on iLO reads BIOS
#    attributes from the settings object, where iLO keeps every one; the
#    other families have no such section and it treats them as generic
#    Redfish, as on their hardware.
. "$(dirname "$0")/lib.sh"
command -v redfishtool >/dev/null || fail "redfishtool is not installed (scripts/deps)"
command -v ilorest >/dev/null || fail "ilorest is not installed (scripts/deps)"

# ilorest speaks only HTTPS.
R=$T/rack
bringup-sim --no-hosts --nodes 6 --vendor mixed --https --dir "$R" --daemon >/dev/null
at_exit "stop_sim $R"
. "$R/env"
LOG=$R/requests.log
assert_eq "$(jq -r '[.nodes[].vendor] | join(",")' "$R/truth.json")" "dell,hpe,lenovo,supermicro,openbmc,ami" \
	"one node of each family"
curl_get() { curl -sf -m 10 --cacert "$R/ca.pem" -u "root:$BRINGUP_BMC_PASSWORD" "$@"; }
# Requests from one BMC's log: METHOD, a path regex, status.
n_req() { jq -s --arg b "$1" --arg m "$2" --arg p "$3" --argjson s "$4" \
	'[.[] | select(.bmc == $b and .method == $m and (.path | test($p)) and .status == $s)] | length' "$LOG"; }

# family NODE SYSTEM CHASSIS MANAGER CANDIDATES: CANDIDATES are BIOS
# changes "Attribute=JSON value", the first the family's BIOS has is made
# (attribute names as the family's registry has them, before and after it
# grew to the real registry's size).
family() {
	i=$1 sys=$2 ch=$3 mgr=$4 cands=$5
	v=$(jq -r ".nodes[$i].vendor" "$R/truth.json")
	B=$(jq -r ".nodes[$i].bmc" "$R/truth.json")
	serial=$(jq -r ".nodes[$i].system_serial" "$R/truth.json")
	S=/redfish/v1/Systems/$sys
	rft() { redfishtool -r "$B" -S Always -A Basic -u root -p "$BRINGUP_BMC_PASSWORD" "$@"; }

	# -- redfishtool ------------------------------------------------------
	got=$(rft -A Session Systems -I "$sys" -P SerialNumber | jq -r '.SerialNumber | sub(" +$"; "")')
	assert_eq "$got" "$serial" "$v: redfishtool: system serial"
	[ "$(n_req "$B" POST '^/redfish/v1/SessionService/Sessions/?$' 201)" -ge 1 ] ||
		fail "$v: redfishtool did not log in with a session"
	assert_eq "$(rft Chassis list | jq --arg c "$ch" '[.Members[].Id] | index($c) != null')" true \
		"$v: redfishtool: chassis $ch listed"
	assert_eq "$(rft Managers -1 -P Id | jq -r .Id)" "$mgr" "$v: redfishtool: manager"
	rft raw GET "$S/Bios" >"$T/$v.bios" || fail "$v: redfishtool: GET Bios"
	settings=$(jq -r '."@Redfish.Settings".SettingsObject."@odata.id"' "$T/$v.bios")
	case "$settings" in "$S/Bios/"?*) ;; *) fail "$v: settings object '$settings'" ;; esac
	attr= val=
	for c in $cands; do
		if [ "$(jq --arg a "${c%%=*}" '.Attributes | has($a)' "$T/$v.bios")" = true ]; then
			attr=${c%%=*} val=${c#*=}
			break
		fi
	done
	[ -n "$attr" ] || fail "$v: none of $cands among the BIOS attributes"
	[ "$(jq --arg a "$attr" --argjson x "$val" '.Attributes[$a] == $x' "$T/$v.bios")" = false ] ||
		fail "$v: $attr is already $val"
	rft raw PATCH "$settings" -d "{\"Attributes\": {\"$attr\": $val}}" >/dev/null ||
		fail "$v: redfishtool: PATCH $settings refused"
	assert_eq "$(curl_get "https://$B$settings" | jq --arg a "$attr" --argjson x "$val" '.Attributes[$a] == $x')" \
		true "$v: $attr=$val pending in $settings"
	assert_eq "$(curl_get "https://$B$S/Bios" | jq --arg a "$attr" --argjson x "$val" '.Attributes[$a] == $x')" \
		false "$v: $attr=$val not applied before the reset"
	rft Systems -I "$sys" reset ForceRestart >/dev/null || fail "$v: redfishtool: system reset refused"
	assert_eq "$(n_req "$B" POST "^$S/Actions/ComputerSystem.Reset/?\$" 204)" 1 "$v: the reset reached the BMC"
	assert_eq "$(curl_get "https://$B$S/Bios" | jq --arg a "$attr" --argjson x "$val" '.Attributes[$a] == $x')" \
		true "$v: $attr=$val applied by the reset"

	# -- ilorest: login, the crawl, one typed get and logout in one call
	# (its cache in a scratch home of the family's): on HPE a BIOS attribute,
	# which ilorest reads from iLO's settings object; elsewhere the system
	# serial (OpenBMC lists the GPU baseboard's System beside the host's).
	H=$T/home-$v
	mkdir -p "$H"
	if [ "$v" = hpe ]; then
		sel=Bios. prop=$attr want=$val
	else
		sel=ComputerSystem. prop=SerialNumber want="\"$serial\""
	fi
	(cd "$H" && HOME=$H timeout 60 ilorest --nologo get --selector "$sel" --json "$prop" \
		--url "https://$B" -u root -p "$BRINGUP_BMC_PASSWORD" --logout) >"$T/$v.ilo" 2>&1 ||
		fail "$v: ilorest: $(cat "$T/$v.ilo")"
	[ "$(n_req "$B" POST '^/redfish/v1/SessionService/Sessions/?$' 201)" -ge 2 ] ||
		fail "$v: ilorest did not log in with a session"
	assert_eq "$(sed 's/^[.]*//' "$T/$v.ilo" | sed -n '/^[[{]/,/^[]}]/p' |
		jq --arg p "$prop" --argjson x "$want" \
			'[.. | objects | .[$p]? // empty | if type == "string" then sub(" +$"; "") else . end] | index($x) != null')" \
		true "$v: ilorest: $prop"
}

pids=
for f in "1 1 1 1 WorkloadProfile=\"LowLatency\"" \
	"2 1 1 1 OperatingModes_ChooseOperatingMode=\"MaximumPerformance\"" \
	"3 1 1 1 Hyper_Threading_002B=\"Disable\" SR_IOVSupport_0047=\"Disabled\"" \
	"4 System_0 Chassis_0 bmc PerformanceMode=\"MaxPerformance\" EGM=true" \
	"5 Self Self Self PMS007=\"Performance\" SriovSupport=\"Disabled\""; do
	set -- $f
	n=$1 s=$2 c=$3 m=$4
	shift 4
	(family "$n" "$s" "$c" "$m" "$*") >"$T/job$n.out" 2>&1 &
	pids="$pids $!:$n"
done
for p in $pids; do
	wait "${p%:*}" || fail "$(cat "$T/job${p#*:}.out")"
done
