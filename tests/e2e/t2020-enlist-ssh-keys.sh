#!/bin/sh
# The validators' key in what enlist hands MAAS: without one (no
# --ssh-pubkey, no $BRINGUP_SSH_PUBKEY) enlist refuses before any node is
# touched (it used to deploy `ssh_authorized_keys: []`, which cloud-init's
# schema refuses, onto machines validate could never log in to); a private
# key given as the public one is refused too. Each user-data variant that is
# sent passes `cloud-init schema`: one key, several keys, --no-ssh-key (the
# key list left out).
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --no-hosts --nodes 3 --dir sim --seed 3 --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
unset BRINGUP_SSH_PUBKEY
bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
h1=$(jq -r '.nodes[0].hostname' sim/truth.json)
h2=$(jq -r '.nodes[1].hostname' sim/truth.json)
h3=$(jq -r '.nodes[2].hostname' sim/truth.json)

before=$(inventory_state t.db)

# No key at all: exit 2, saying what to give, nothing touched.
rc=0
bringup enlist --db t.db --skip-configure --poll-ms 50 > out 2> err || rc=$?
assert_eq "$rc" 2 "enlist with no key"
assert_contains "$(cat err)" "--ssh-pubkey" "the message names the option"
assert_contains "$(cat err)" "--no-ssh-key" "the message names the way out"
assert_eq "$(inventory_state t.db)" "$before" "inventory after the refused run"
[ ! -s sim/maas-requests.log ] || ! grep -q '"POST"' sim/maas-requests.log || fail "MAAS was written to"

# A private key where the public one belongs: exit 2, the key not sent.
ssh-keygen -q -t ed25519 -N '' -C validator@bringup -f id >/dev/null
rc=0
bringup enlist --db t.db --skip-configure --ssh-pubkey id > out 2> err || rc=$?
assert_eq "$rc" 2 "enlist with a private key as --ssh-pubkey"
assert_contains "$(cat err)" "private key" "the message says why"
assert_eq "$(inventory_state t.db)" "$before" "inventory after the private key"
! grep -q "PRIVATE" sim/maas-requests.log 2>/dev/null || fail "the private key reached MAAS"

# Both options: which one was meant is not guessed.
rc=0
bringup enlist --db t.db --skip-configure --ssh-pubkey id.pub --no-ssh-key > out 2> err || rc=$?
assert_eq "$rc" 2 "--ssh-pubkey with --no-ssh-key"

# One variant per node: one key, two keys (with a comment and a blank line
# between), none.
ssh-keygen -q -t rsa -b 2048 -N '' -C second@bringup -f id2 >/dev/null
{ cat id.pub; echo; echo "# the bench's key"; cat id2.pub; } > two.pub
bringup enlist --db t.db --skip-configure --poll-ms 50 --ssh-pubkey id.pub -q "$h1"
bringup enlist --db t.db --skip-configure --poll-ms 50 --ssh-pubkey two.pub -q "$h2"
bringup enlist --db t.db --skip-configure --poll-ms 50 --no-ssh-key -q "$h3"

user_data() {
	jq -s -j --arg h "$1" '[.[] | select(.op == "deploy" and .status == 200 and (.user_data | contains("hostname: " + $h + "\n")))][0].user_data // empty' \
		sim/maas-requests.log
}
for h in "$h1" "$h2" "$h3"; do
	user_data "$h" > "$h.yaml"
	[ -s "$h.yaml" ] || fail "$h: no user-data in the deploy request"
	cloud-init schema --config-file "$h.yaml" > "$h.schema" 2>&1 || fail "$h: cloud-init schema: $(cat "$h.schema")"
	assert_contains "$(cat "$h.schema")" "Valid" "$h: cloud-init schema verdict"
done
assert_eq "$(grep -c 'ssh-' "$h1.yaml")" 1 "$h1: one key"
assert_contains "$(cat "$h1.yaml")" "$(cut -d' ' -f2 id.pub)" "$h1: the key"
assert_eq "$(grep -c '^  - "ssh-' "$h2.yaml")" 2 "$h2: two keys"
assert_contains "$(cat "$h2.yaml")" "$(cut -d' ' -f2 id2.pub)" "$h2: the second key"
! grep -q "the bench's key" "$h2.yaml" || fail "$h2: a comment line became a key"
! grep -q "ssh_authorized_keys" "$h3.yaml" || fail "$h3: --no-ssh-key left a key list: $(cat "$h3.yaml")"
bringup status --db t.db --json > status.json
assert_eq "$(jq -r '[.nodes[].state] | unique | join(" ")' status.json)" deployed "states after the three runs"
echo "no key: exit 2, nothing touched; one key, two keys, --no-ssh-key: each passes cloud-init schema"
