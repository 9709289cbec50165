#!/bin/sh
# Every non-Dell personality serves its family's BIOS attributes as a real
# BMC of it does (sim/vendor_bios_registry.c, from public captures): as
# many as the capture, each with one entry of the same type in the
# attribute registry the Bios names (found through /redfish/v1/Registries),
# every value one the registry allows; each family's profile baseline
# names only attributes of that registry, with allowed values; the BMC
# refuses a name or value its registry does not have.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 6 --seed 5 --vendor mixed --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
A="root:$BRINGUP_BMC_PASSWORD"
get() { curl -sf -m 10 -u "$A" "http://$1$2"; }
# The documented size of each family's set (the capture's, less its own
# devices: sim/vendor_bios_registry.c says which).
size_of() { case $1 in hpe) echo 277 ;; lenovo) echo 231 ;; supermicro) echo 379 ;; openbmc) echo 203 ;; ami) echo 199 ;; esac; }
system_of() { case $1 in openbmc) echo System_0 ;; ami) echo Self ;; *) echo 1 ;; esac; }
profile_of() { case $1 in hpe) echo xl675d ;; lenovo) echo sr675v3 ;; supermicro) echo sys-821ge ;; openbmc) echo gh200 ;; ami) echo dgx-h100 ;; esac; }
baseline() { awk '/^\[/ { s = $0; next } s == "[bios]" && /=/ && !/^[#;]/' "$BR_TOP/templates/profiles/$1/bios.conf"; }

for v in hpe lenovo supermicro openbmc ami; do
	b=$(jq -r --arg v "$v" '.nodes[] | select(.vendor == $v) | .bmc' rack/truth.json)
	sys=/redfish/v1/Systems/$(system_of "$v")
	get "$b" "$sys/Bios" > bios.json || fail "$v: GET Bios"
	assert_eq "$(jq '.Attributes | length' bios.json)" "$(size_of "$v")" "$v: BIOS attributes"
	# The registry the Bios names, as a client finds it.
	id=$(jq -r .AttributeRegistry bios.json)
	uri=$(get "$b" "/redfish/v1/Registries/$id" | jq -r '.Location[0].Uri') || fail "$v: registry file $id"
	get "$b" "$uri" > reg.json || fail "$v: GET $uri"
	assert_eq "$(jq -r .Id reg.json)" "$id" "$v: registry Id"
	# Supermicro's Bios holds an enumeration's display name.
	key=ValueName
	[ "$v" = supermicro ] && key=ValueDisplayName
	bad=$(jq -r --arg key "$key" --slurpfile bios bios.json '
		def jtype: {"Enumeration": "string", "String": "string", "Integer": "number",
			"Boolean": "boolean", "Password": "null"}[.];
		(.RegistryEntries.Attributes | map({key: .AttributeName, value: .}) | from_entries) as $reg
		| ($reg | length) as $n
		| if $n != ($bios[0].Attributes | length) then "\($n) registry entries" else empty end,
		  ($bios[0].Attributes | to_entries[]
		   | .key as $k | .value as $val | $reg[$k] as $e
		   | if $e == null then "\($k): no registry entry"
		     elif ($val | type) != ($e.Type | jtype) then "\($k): \($val | type) for \($e.Type)"
		     elif $e.Type == "Enumeration" and ([$e.Value[][$key]] | index($val)) == null
		     then "\($k): \($val) not allowed"
		     else empty end)' reg.json | head -5)
	assert_eq "$bad" "" "$v: Bios against its registry"
	# The family's profile baseline: registry names, allowed values.
	baseline "$(profile_of "$v")" | jq -Rn '[inputs | capture("^(?<k>[^ =]+) *= *(?<w>.*)$")]' > want.json
	[ "$(jq length want.json)" -ge 2 ] || fail "$v: baseline of $(profile_of "$v") has under 2 attributes"
	bad=$(jq -r --arg key "$key" --slurpfile want want.json '
		(.RegistryEntries.Attributes | map({key: .AttributeName, value: .}) | from_entries) as $reg
		| $want[0][] | .k as $k | .w as $w | $reg[$k] as $e
		| if $e == null then "\($k): not in the registry"
		  elif $e.Type == "Enumeration" and ([$e.Value[][$key]] | index($w)) == null then "\($k) = \($w): not allowed"
		  elif $e.Type == "Boolean" and ($w != "true" and $w != "false") then "\($k) = \($w): not a boolean"
		  elif $e.Type == "Integer" and ($w | test("^-?[0-9]+$") | not) then "\($k) = \($w): not an integer"
		  elif $e.ReadOnly then "\($k): read-only"
		  else empty end' reg.json)
	assert_eq "$bad" "" "$v: baseline of $(profile_of "$v") against $id"
	# A name or value the registry lacks is refused, nothing pending.
	settings=$(jq -r '."@Redfish.Settings".SettingsObject."@odata.id"' bios.json)
	attr=$(jq -r '[.RegistryEntries.Attributes[] | select(.Type == "Enumeration" and .ReadOnly == false)][0].AttributeName' reg.json)
	# The settings object's Id is its path's last segment (Lenovo's
	# "Pending", Supermicro's and AMI's "SD": their captures).
	case $v in lenovo) want=Pending ;; supermicro | ami) want=SD ;; *) want=Settings ;; esac
	assert_eq "$(get "$b" "$settings" | jq -r .Id)/${settings%/}" "$want/${sys}/Bios/$want" "$v: settings object"
	for body in '{"Attributes": {"NoSuchAttribute": 1}}' "{\"Attributes\": {\"$attr\": \"NoSuchValue\"}}"; do
		code=$(curl -s -o err.json -w '%{http_code}' -u "$A" -X PATCH -H 'Content-Type: application/json' \
			-d "$body" "http://$b$settings")
		assert_eq "$code" 400 "$v: PATCH $body"
		assert_eq "$(jq -r '[.error."@Message.ExtendedInfo"[].MessageId | select(startswith("Base.") | not)] | join(",")' err.json)" "" "$v: PATCH error ids"
	done
	# Errors in the DMTF Base registry's words, never iDRAC's IDRAC.2.x ids.
	curl -s -o err.json -u "$A" "http://$b$sys/NoSuchThing"
	assert_eq "$(jq -r '[.error."@Message.ExtendedInfo"[].MessageId] | map(split(".")[0]) | unique | join(",")' err.json)" Base "$v: 404 error ids"
	curl -s -o err.json -u "root:wrong" "http://$b$sys"
	assert_eq "$(jq -r '[.error."@Message.ExtendedInfo"[].MessageId] | map(split(".")[0]) | unique | join(",")' err.json)" Base "$v: 401 error ids"
	# (iLO's settings object holds every attribute, pending ones on top: pending
	# is what differs from the Bios.)
	assert_eq "$(get "$b" "$settings" | jq --slurpfile bios bios.json \
		'[.Attributes | to_entries[] | select($bios[0].Attributes[.key] != .value)] | length')" 0 "$v: nothing pending"
done
