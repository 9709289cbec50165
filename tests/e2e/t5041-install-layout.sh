#!/bin/sh
# make install's layout, and the installed tree at work: bin/ holds only
# bringup, libexec/bringup/ every stage, the probe and the simulator (the
# driver finds them there, a stage finds the templates from there); bash
# completion completes commands, a command's options and the inventory's
# hostnames; the systemd units (run's service and timer, the controller's
# service) pass systemd-analyze verify
# (their ExecStart and man pages there); the installed import finds the
# templates. (t5042 runs a rack from the Debian package.)
. "$(dirname "$0")/lib.sh"
cd "$T"
tree=${BIN%/bin}
san=0
case $tree in *asan*) san=1 ;; esac
make -s -C "$BR_TOP" install-bin install-man BUILD="$tree" SAN=$san PREFIX="$T/x" >out 2>&1 ||
	fail "make install: $(cat out)"
assert_eq "$(ls "$T/x/bin")" bringup "bin/"
for b in "$BIN"/*; do
	n=$(basename "$b")
	[ "$n" = bringup ] && continue
	[ -x "$T/x/libexec/bringup/$n" ] || fail "$n not in libexec/bringup"
done
[ -d "$T/x/share/bringup/templates/profiles/xe9680" ] || fail "templates not installed"
inst=$T/x/bin/bringup

# Completion, through the installed driver.
comp() { # WORDS... -> the completions of the last word
	PATH="$T/x/bin:$PATH" bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _bringup; echo "${COMPREPLY[*]}"' \
		_ "$T/x/share/bash-completion/completions/bringup" "$@"
}
assert_eq "$(comp bringup disc)" discover "a command"
assert_eq "$(comp bringup contr)" controller "a command named in 10 letters or more"
assert_eq "$(comp bringup cred)" credentials "a command named in 11 letters"
assert_contains "$(comp bringup controller --inter)" "--interval" "an option of controller"
assert_contains "$(comp bringup import --netbox-)" "--netbox-query" "an option of import"
assert_contains "$(comp bringup tickets --ji)" "--jira-project" "an option of tickets"

# systemd's own check of the units (ExecStart executable, man pages found).
if command -v systemd-analyze >/dev/null; then
	MANPATH="$T/x/share/man" systemd-analyze verify "$T/x/lib/systemd/system/bringup-run.service" \
		"$T/x/lib/systemd/system/bringup-run.timer" "$T/x/lib/systemd/system/bringup-controller.service" \
		> verify.out 2>&1 || fail "systemd-analyze verify: $(cat verify.out)"
	grep -q "^ExecStart=$T/x/bin/bringup run" "$T/x/lib/systemd/system/bringup-run.service" || fail "ExecStart"
	grep -q "^ExecStart=$T/x/bin/bringup controller$" "$T/x/lib/systemd/system/bringup-controller.service" ||
		fail "the controller's ExecStart"
fi
# The controller's user (sysusers.d) and the example bringup.conf, which
# holds only settings bringup knows.
grep -q '^u bringup ' "$T/x/lib/sysusers.d/bringup.conf" || fail "no sysusers.d line for the bringup user"
grep -q '^User=bringup$' "$T/x/lib/systemd/system/bringup-controller.service" || fail "the controller's User="
ex=$T/x/share/doc/bringup/examples/bringup.conf
"$inst" --config "$ex" config show --json > conf.json 2> conf.err || fail "the example bringup.conf: $(cat conf.err)"
assert_eq "$(jq -r '.settings[] | select(.setting == "controller.interval") | .value' conf.json)" 60 \
	"controller.interval from the example"

# The installed simulator and import.
"$inst" sim --no-hosts --nodes 2 --seed 3 --dir rack --daemon >/dev/null || fail "installed bringup sim"
at_exit "stop_sim $T/rack"
env -i PATH=/usr/bin:/bin HOME="$T" "$inst" import --db "$T/inv.db" --manifest rack/rack.csv > out 2> err ||
	fail "installed import: $(cat err)"
grep -q "no templates directory" err && fail "the installed import found no templates"
assert_contains "$(comp bringup status --db "$T/inv.db" gpu-r01)" "gpu-r01-u03" "a hostname of the inventory --db names"
exit 0
