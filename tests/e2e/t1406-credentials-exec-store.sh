#!/bin/sh
# bringup credentials rotate --store exec:PROGRAM: the site's helper gets
# each new password on its standard input (`PROGRAM store HOST`; argv
# holds only the verb and the host, as its own log of argv and a sample of
# every process's argv show) and prints the reference to record; the BMC
# takes the password only after that reference reads it back. A helper
# that fails, or prints a reference that does not give the password back,
# fails that node alone with its factory password still working. A run
# stopped after the BMC took the password but before the record is
# finished by the next (`PROGRAM lookup HOST` finds the stored one; the
# helper is not asked to store again). A helper that is not an executable
# absolute path is refused (exit 2) before any node is touched.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup-sim --no-hosts --nodes 4 --dir sim --seed 11 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/t.db
bringup import --manifest sim/rack.csv >/dev/null
factory=$BRINGUP_BMC_PASSWORD
hosts=$(jq -r '.nodes[].hostname' sim/truth.json)
broken=$(echo "$hosts" | sed -n 3p)
liar=$(echo "$hosts" | sed -n 4p)
mkdir -m 700 vault
# The helper: keeps HOST's password in vault/HOST (0600), logs its argv.
cat > helper <<EOF
#!/bin/sh
echo "\$*" >> $T/helper-argv.log
case "\$1" in
store)
	[ "\$2" = "$broken" ] && { echo "vault sealed" >&2; exit 3; }
	umask 077
	IFS= read -r pw
	printf '%s\n' "\$pw" > "$T/vault/\$2"
	if [ "\$2" = "$liar" ]; then echo "file:$T/vault/elsewhere"; else echo "file:$T/vault/\$2"; fi ;;
lookup)
	[ -f "$T/vault/\$2" ] && [ "\$2" != "$liar" ] && echo "file:$T/vault/\$2"
	exit 0 ;;
*) exit 64 ;;
esac
EOF
chmod 755 helper
echo "not the password" > vault/elsewhere
bmc_of() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .bmc' sim/truth.json; }
answer() { curl -s -o /dev/null -w '%{http_code}' -u "root:$2" "http://$(bmc_of "$1")/redfish/v1/Systems"; }

# Operator mistakes: exit 2, nothing touched, the helper never run.
before=$(inventory_state t.db)
for store in "exec:helper" "exec:$T/no-such-helper" "exec:$T/vault"; do
	rc=0
	bringup credentials rotate --store "$store" > /dev/null 2> err || rc=$?
	assert_eq "$rc" 2 "--store $store: exit ($(cat err))"
	assert_contains "$(cat err)" "the helper must be an executable absolute path" "--store $store: why"
done
assert_eq "$(inventory_state t.db)" "$before" "inventory after the refused runs"
[ ! -e helper-argv.log ] || fail "a refused run ran the helper"

rc=0
bringup credentials rotate -v --store "exec:$T/helper" --json > out.json 2> log &
pid=$!
while kill -0 "$pid" 2>/dev/null; do ps -eo args >> argv.log; done
wait "$pid" || rc=$?
assert_eq "$rc" 1 "rotate exit (two nodes fail): $(tail -n 3 log)"
assert_eq "$(jq -c '[.rotated, .already, .failed]' out.json)" "[2,0,2]" "rotated, already, failed"
reason() { jq -r --arg h "$1" '.nodes[] | select(.hostname == $h) | .reason' out.json; }
assert_contains "$(reason "$broken")" "store helper $T/helper store $broken: exit 3" "$broken: reason"
assert_contains "$(reason "$liar")" "does not give the password back" "$liar: reason"
assert_contains "$(cat log)" "vault sealed" "the helper's stderr is passed on"
for h in $hosts; do
	ref=$(inv_sql t.db "select bmc_password_ref from nodes where hostname = '$h'")
	if [ "$h" = "$broken" ] || [ "$h" = "$liar" ]; then
		assert_eq "$ref" "env:BRINGUP_BMC_PASSWORD" "$h: reference kept"
		assert_eq "$(answer "$h" "$factory")" 200 "$h: factory password still works"
		continue
	fi
	assert_eq "$ref" "file:$T/vault/$h" "$h: the helper's reference recorded"
	assert_eq "$(stat -c %a "vault/$h")" 600 "$h: the helper's file"
	assert_eq "$(answer "$h" "$(cat "vault/$h")")" 200 "$h: the new password"
	assert_eq "$(answer "$h" "$factory")" 401 "$h: the factory password"
done
# argv: verbs and host names only, in the helper's own log and every process's
assert_eq "$(awk '{print $1}' helper-argv.log | sort | uniq -c | awk '{print $1 $2}' | paste -sd ' ' -)" \
	"4lookup 4store" "the helper's calls"
inv_sql t.db --dump > dump.sql
for f in vault/*; do
	[ "$f" = vault/elsewhere ] && continue
	for where in out.json log dump.sql sim/requests.log argv.log helper-argv.log; do
		! grep -qF "$(cat "$f")" "$where" || fail "the new password of $(basename "$f") is in $where"
	done
done

# A run stopped after the BMC took the password, before the record: the
# inventory still references the factory password.
first=$(echo "$hosts" | sed -n 1p)
kept=$(cat "vault/$first")
inv_sql t.db "update nodes set bmc_password_ref = 'env:BRINGUP_BMC_PASSWORD' where hostname = '$first'"
: > helper-argv.log
rc=0
bringup credentials rotate --store "exec:$T/helper" --json "$first" > again.json 2>/dev/null || rc=$?
assert_eq "$rc" 0 "rerun exit"
assert_eq "$(jq -c '[.rotated, .already, .failed]' again.json)" "[1,0,0]" "rerun finishes the stopped node"
assert_eq "$(cat helper-argv.log)" "lookup $first" "the rerun only looks the password up"
assert_eq "$(cat "vault/$first")" "$kept" "the stored password is the one the BMC has"
assert_eq "$(inv_sql t.db "select bmc_password_ref from nodes where hostname = '$first'")" "file:$T/vault/$first" \
	"$first: recorded again"
# and once recorded, a run finds it so
bringup credentials rotate --store "exec:$T/helper" --json "$first" > third.json 2>/dev/null
assert_eq "$(jq -c '[.rotated, .already, .failed]' third.json)" "[0,1,0]" "third run"
echo ok
