#!/bin/sh
# Operator mistakes stop enlist before any node is touched: exit 2 saying
# what to fix, no state changed, no event, no ticket, nothing sent to MAAS.
# A MAAS_URL without /MAAS/ (every call a 404, read as MAAS unreachable), an
# --api-key-ref naming an unset variable, a key that is not
# consumer:token:secret, a BMC password reference (MAAS's power driver
# needs it) that does not resolve: each node used to fail on its own.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --no-hosts --nodes 3 --dir sim --seed 9 --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBringupTestKeyOnly validator@bringup" > id.pub

before=$(inventory_state t.db)
enlist() { # WANT-IN-STDERR ARGS...: exit 2, the message, nothing changed
	want=$1; shift
	rc=0
	bringup enlist --db t.db --skip-configure --ssh-pubkey id.pub --poll-ms 50 "$@" > out 2> err || rc=$?
	assert_eq "$rc" 2 "enlist $*"
	assert_contains "$(cat err)" "$want" "enlist $*: message"
	assert_eq "$(inventory_state t.db)" "$before" "enlist $*: inventory"
	! grep -q '"method"' sim/maas-requests.log 2>/dev/null || fail "enlist $*: MAAS was asked: $(cat sim/maas-requests.log)"
}

root=${MAAS_URL%/MAAS/}
enlist "does not end in /MAAS/" --maas-url "$root/"
enlist "does not end in /MAAS/" --maas-url "$root"
enlist "does not end in /MAAS/" --maas-url "$root/api/2.0/"
enlist "environment variable NO_SUCH_KEY is not set" --api-key-ref env:NO_SUCH_KEY
NOT_A_KEY=just-a-secret enlist "consumer_key:token_key:token_secret" --api-key-ref env:NOT_A_KEY
(unset BRINGUP_BMC_PASSWORD; enlist "env:BRINGUP_BMC_PASSWORD (3 nodes)")

# /MAAS without the slash is the same root: accepted, and the run works.
bringup enlist --db t.db --skip-configure --ssh-pubkey id.pub --poll-ms 50 --maas-url "$root/MAAS" -q
assert_eq "$(sqlite3 t.db "select count(*) from nodes where state = 'deployed'")" 3 "deployed with .../MAAS"
echo "bad MAAS URL, key reference, key, BMC password reference: exit 2, nothing touched"
