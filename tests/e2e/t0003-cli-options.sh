#!/bin/sh
# The command line (issue 28 point A): options and operands in any order in
# every command, "--" ends the options, `run --help` and `help CMD` print help
# and touch nothing, a mistyped command or option gets the one meant, and
# every executable knows the version it was built as.
. "$(dirname "$0")/lib.sh"
cd "$T"
cat > rack.csv <<'EOF2'
hostname,rack,unit,bmc,bmc_user,bmc_password,profile,bmc_type,boot_disk_serial,notes
gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,redfish,,
gpu-b,r01,3,10.0.0.2,root,env:PW,xe9680,redfish,,
EOF2
bringup import --db inv.db --manifest rack.csv >/dev/null

# An option after a hostname is an option ("no node named '--json'" before).
out=$(bringup status gpu-b --db inv.db --json) || fail "status HOST --json: rc $?"
assert_eq "$(echo "$out" | jq -r '[.nodes[].hostname] | join(",")')" "gpu-b" "status HOST --json"
out=$(bringup history gpu-a --json --db inv.db) || fail "history HOST --json"
assert_eq "$(echo "$out" | jq -r '.hostname')" "gpu-a" "history HOST --json"
# Operands keep their order wherever the options are.
out=$(bringup status gpu-b --json gpu-a --db inv.db)
assert_eq "$(echo "$out" | jq -r '[.nodes[].hostname] | sort | join(",")')" "gpu-a,gpu-b" "two hosts around an option"
# After "--" a word is an operand even when it looks like an option.
rc=0; err=$(bringup status --db inv.db --json -- --json 2>&1 >/dev/null) || rc=$?
assert_eq "$rc" 2 "an operand after --"
assert_contains "$err" "no node named '--json'" "operand after -- taken as a hostname"

# run --help: the help, no stage run, no inventory created.
mkdir empty && cd empty
out=$(bringup run --help) || fail "run --help: rc $?"
assert_contains "$out" "usage: bringup run" "run --help"
out=$(bringup run --skip-configure -h) || fail "run -h: rc $?"
assert_contains "$out" "usage: bringup run" "run -h after an option"
[ ! -e bringup.db ] || fail "run --help created ./bringup.db"
[ -z "$(ls -A)" ] || fail "run --help left files: $(ls -A)"
out=$(bringup help run) || fail "help run: rc $?"
assert_contains "$out" "--only HOST" "help run"
out=$(bringup help status) || fail "help status: rc $?"
assert_contains "$out" "--state STATE" "help status"
assert_contains "$(bringup status --help)" "any order" "help says options go anywhere"
[ -z "$(ls -A)" ] || fail "help left files: $(ls -A)"
cd ..

# Did you mean: a command and an option, with a usage exit.
rc=0; err=$(bringup statsu 2>&1) || rc=$?
assert_eq "$rc" 2 "mistyped command"
assert_contains "$err" "did you mean 'status'?" "command suggestion"
rc=0; err=$(bringup help histroy 2>&1) || rc=$?
assert_eq "$rc" 2 "help for a mistyped command"
assert_contains "$err" "did you mean 'history'?" "help suggestion"
rc=0; err=$(bringup status --db inv.db --jsno 2>&1) || rc=$?
assert_eq "$rc" 2 "mistyped option"
assert_contains "$err" "did you mean '--json'?" "option suggestion"
rc=0; err=$(bringup import --db inv.db --manfest=rack.csv 2>&1) || rc=$?
assert_eq "$rc" 2 "mistyped option with a value"
assert_contains "$err" "did you mean '--manifest'?" "option=value suggestion"
# Nothing near: no guess.
rc=0; err=$(bringup status --db inv.db --zzzzzz 2>&1) || rc=$?
assert_eq "$rc" 2 "unknown option"
case $err in *"did you mean"*) fail "a guess for --zzzzzz: $err" ;; esac

# --version everywhere, one version, the build's (not a constant in a header).
v=$(bringup --version | sed 's/^bringup //')
[ -n "$v" ] || fail "no version"
assert_eq "$(bringup run --version)" "bringup $v" "run --version"
for exe in "$BIN"/bringup-*; do
	name=$(basename "$exe")
	assert_eq "$("$exe" --version)" "$name $v" "$name --version"
done
echo "ok"
