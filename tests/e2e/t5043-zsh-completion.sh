#!/bin/sh
# zsh completion, as make install puts it (share/zsh/site-functions/_bringup):
# zsh parses it (zsh -n), and in an interactive zsh (a pseudo-terminal,
# tests/e2e/zsh-complete.zsh) it completes commands, a command's options
# from its --help, the values an option lists, file names for a PATH, the
# commands after help, and the hostnames of the inventory --db names,
# through the installed driver.
. "$(dirname "$0")/lib.sh"
cd "$T"
command -v zsh > /dev/null || fail "no zsh (scripts/deps installs it)"
tree=${BIN%/bin}
san=0
case $tree in *asan*) san=1 ;; esac
make -s -C "$BR_TOP" install-bin BUILD="$tree" SAN=$san PREFIX="$T/x" >out 2>&1 ||
	fail "make install: $(cat out)"
dir=$T/x/share/zsh/site-functions
[ -f "$dir/_bringup" ] || fail "_bringup not installed in share/zsh/site-functions"
zsh -n "$dir/_bringup" || fail "zsh -n: the completion does not parse"
head -1 "$dir/_bringup" | grep -qx '#compdef bringup' || fail "no #compdef line"

comp() { # LINE -> the matches, space-separated
	PATH="$T/x/bin:$PATH" timeout 30 zsh -f "$BR_TOP/tests/e2e/zsh-complete.zsh" "$dir" "$1" | tr '\n' ' ' | sed 's/ $//'
}
assert_eq "$(comp 'bringup disc')" discover "a command"
assert_eq "$(comp 'bringup help rep')" "report reprovision" "commands after help"
assert_eq "$(comp 'bringup tickets --jira-')" "--jira-api --jira-issuetype --jira-project" "options of tickets"
assert_contains "$(comp 'bringup import --netbox-')" "--netbox-query" "an option of import"
assert_eq "$(comp 'bringup tickets --format ')" "csv json md" "the values --format lists"
assert_eq "$(comp 'bringup discover --log-format ')" "journal json text" "the values --log-format lists"
mkdir sub && : > sub/rack-a.csv && : > sub/rack-b.csv
assert_eq "$(comp 'bringup import --manifest sub/rack-')" "rack-a.csv rack-b.csv" "file names for a PATH"
assert_contains "$(comp 'bringup discover -')" "--workers" "discover's options"
case " $(comp 'bringup discover -') " in *" --jira "*) fail "tickets' --jira offered for discover" ;; esac

# The inventory's hostnames, from the --db on the line.
"$T/x/bin/bringup" sim --no-hosts --nodes 2 --seed 3 --dir rack --daemon >/dev/null || fail "bringup sim"
at_exit "stop_sim $T/rack"
"$T/x/bin/bringup" import --db "$T/inv.db" --manifest rack/rack.csv > out 2>&1 || fail "import: $(cat out)"
want=$(jq -r '[.nodes[].hostname] | sort | join(" ")' rack/truth.json)
assert_eq "$(comp "bringup status --db $T/inv.db gpu-")" "$want" "the inventory's hostnames"
exit 0
