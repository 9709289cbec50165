#!/bin/sh
# make install puts the man pages where man finds them: after
# make install-man PREFIX=DIR, MANPATH=DIR/share/man man shows each
# executable's page (bringup-validate's NAME line among them) and the
# file formats in section 5.
. "$(dirname "$0")/lib.sh"
cd "$T"
make -s -C "$BR_TOP" install-man PREFIX="$T/x" >out 2>&1 || fail "make install-man: $(cat out)"
export MANPATH="$T/x/share/man"
page=$(man -P cat bringup-validate 2>&1) || fail "man bringup-validate: $page"
assert_contains "$page" "bringup-validate - probe deployed nodes over SSH and judge them" "the page's NAME"
assert_contains "$page" "--host-key-policy" "the page's options"
for b in "$BIN"/*; do
	n=$(basename "$b")
	man -w "$n" >/dev/null 2>&1 || fail "no installed page for $n"
done
for f in rack.csv hardware.conf actions.conf; do
	assert_eq "$(man -w 5 "$f")" "$T/x/share/man/man5/$f.5" "$f(5) installed"
done
