#!/bin/sh
# bringup import --netbox: the rack read from NetBox's REST API (the
# simulator's stand-in, NetBox 4.6's shapes, MAX_PAGE_SIZE 5 so every list
# takes pages) gives the inventory rack.csv gives, node for node, and
# --wiring-out the wiring list wiring.csv holds; the client followed
# next/offset page by page, sent the token in its Authorization header
# (v1 "Token", v2 "Bearer nbt_…") and nowhere else (not the log, the output,
# the inventory); a second import changes nothing. Operator mistakes stop it
# with exit 2 before anything is written (a filter NetBox would ignore, one
# NetBox refuses, a literal token, a device with no rack: named with its
# field); a token NetBox refuses is exit 3.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 12 --seed 5 --vendor mixed --netbox-max-page 5 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
log=rack/requests.log
nb_log() { grep '"node":"netbox"' $log; }
[ -n "$NETBOX_URL" ] && [ -n "$NETBOX_TOKEN" ] || fail "no NETBOX_URL/NETBOX_TOKEN in the simulator's env"

db=$(db_for netbox)
bringup import --db "$db" --netbox "$NETBOX_URL" --netbox-query 'site=sim&role=gpu-server' \
	--wiring-out nb-wiring.csv --json > out.json 2> err || fail "import --netbox exit $?: $(cat err)"
assert_eq "$(jq .added out.json)" 12 "nodes added"
assert_eq "$(jq .netbox.devices out.json)" 12 "devices NetBox listed"
assert_eq "$(jq .netbox.wiring_rows out.json)" "$(($(wc -l < rack/wiring.csv) - 1))" "wiring rows"
assert_eq "$(jq '.netbox.warnings | length' out.json)" 0 "warnings"

# The same nodes as from rack.csv: place, BMC, credentials reference,
# profile (each vendor's own), serial.
csv=$(db_for csv)
bringup import --db "$csv" --manifest rack/rack.csv -q || fail "import of rack.csv"
cols="hostname,rack,unit,bmc,bmc_user,bmc_password_ref,profile,bmc_type,expected_serial,state"
inv_sql "$db" "SELECT $cols FROM nodes ORDER BY hostname" > nb.rows
inv_sql "$csv" "SELECT $cols FROM nodes ORDER BY hostname" > csv.rows
assert_eq "$(wc -l < nb.rows)" 12 "rows from NetBox"
diff csv.rows nb.rows > rows.diff || fail "NetBox's nodes differ from rack.csv's: $(cat rows.diff)"
[ "$(cut -d'|' -f7 nb.rows | sort -u | wc -l)" -ge 2 ] || fail "one profile for a mixed rack"
sort rack/wiring.csv > want.csv
sort nb-wiring.csv > got.csv
diff want.csv got.csv > wiring.diff || fail "wiring list differs from wiring.csv: $(cat wiring.diff)"

# Pages: 12 devices at 5 a page are offsets 0, 5, 10, each asked for by
# the link NetBox gave; the cables the same way.
assert_eq "$(nb_log | jq -r 'select(.path | startswith("/api/dcim/devices/")) | .path' | sed -n 's/.*offset=\([0-9]*\).*/\1/p' | tr '\n' ' ')" \
	"5 10 " "device pages followed"
cables=$(($(wc -l < rack/wiring.csv) - 1))
assert_eq "$(nb_log | jq -r 'select(.path | startswith("/api/dcim/cables/"))' | jq -s length)" \
	"$(((cables + 4) / 5))" "cable pages"
nb_log | jq -r .auth | sort -u > auths
assert_eq "$(cat auths)" token "the Authorization scheme of every request"
assert_eq "$(nb_log | jq -r .status | sort -u)" 200 "statuses"
for f in $log out.json err; do
	grep -q "$NETBOX_TOKEN" $f && fail "the token is in $f"
done
inv_sql "$db" --dump | grep -q "$NETBOX_TOKEN" && fail "the token is in the inventory"

# Again: nothing changes.
bringup import --db "$db" --netbox "$NETBOX_URL" --netbox-query role=gpu-server --json > again.json 2> err ||
	fail "second import exit $?: $(cat err)"
assert_eq "$(jq .unchanged again.json)" 12 "nodes unchanged on a second import"

# A v2 token goes as "Bearer nbt_KEY.SECRET".
export NB_V2="nbt_bringupsim01.$NETBOX_TOKEN"
bringup import --db "$(db_for v2)" --netbox "$NETBOX_URL" --netbox-token env:NB_V2 \
	--netbox-query role=gpu-server -q 2> err || fail "v2 token exit $?: $(cat err)"
assert_eq "$(nb_log | tail -1 | jq -r .auth)" bearer "the v2 token's scheme"

# Operator mistakes: exit 2, no inventory made.
mistake() { # WANT-IN-STDERR ARGS...
	want=$1; shift
	n=$(wc -l < $log)
	rc=0; bringup import --db "$T/mistake.db" --netbox "$NETBOX_URL" "$@" > /dev/null 2> err || rc=$?
	assert_eq "$rc" 2 "exit of import $*"
	assert_contains "$(cat err)" "$want" "import $*"
	[ -e "$T/mistake.db" ] && fail "import $* made an inventory"
	echo "$n"
}
n=$(mistake "'rack' is not a device filter" --netbox-query rack=r01)
assert_eq "$(wc -l < $log)" "$n" "requests sent for a filter bringup refuses"
mistake "Select a valid choice. nowhere is not one of the available choices" --netbox-query site=nowhere >/dev/null
mistake "literal" --netbox-token "$NETBOX_TOKEN" >/dev/null
grep -q "$NETBOX_TOKEN" err && fail "a literal token is echoed"
(unset NETBOX_TOKEN; mistake "--netbox-token" --netbox-query role=gpu-server) >/dev/null
# Switches have no rack here: each is named with the field.
mistake "netbox device 'leaf-" --netbox-query role=switch >/dev/null
assert_contains "$(cat err)" "): rack: not set" "the switches' problem"

# A token NetBox refuses: NetBox's words, exit 3, nothing written.
export NB_BAD=0000000000000000000000000000000000000000
rc=0; bringup import --db "$T/bad.db" --netbox "$NETBOX_URL" --netbox-token env:NB_BAD > /dev/null 2> err || rc=$?
assert_eq "$rc" 3 "exit with a refused token"
assert_contains "$(cat err)" "HTTP 403: Invalid v1 token" "refused token"
[ -e "$T/bad.db" ] && fail "a refused token made an inventory"
# No NetBox there: exit 3 naming the URL.
rc=0; bringup import --db "$T/bad.db" --netbox http://127.0.0.1:1/ > /dev/null 2> err || rc=$?
assert_eq "$rc" 3 "exit with NetBox unreachable"
assert_contains "$(cat err)" "NetBox GET http://127.0.0.1:1/api/dcim/devices/" "unreachable NetBox"
exit 0
