#!/bin/sh
# The Debian package as make deb builds it (scripts/deb: dpkg-buildpackage
# from debian/ in a clean copy of the tree, -j2, about a minute; lintian is
# make deb's, not this test's: it takes a quarter of a minute): made by
# dpkg-buildpackage (a .changes and a .buildinfo beside it), its files
# (bringup alone in /usr/bin, the rest in /usr/libexec/bringup, man pages
# compressed, completion, units, copyright, all root's), Depends from
# shlibs and misc (the sysusers postinst needs systemd-sysusers) and the
# tools bringup runs, that apt can satisfy here, and the package installed
# with dpkg into a scratch root (its own admindir, so the host's libraries
# stand in for the dependencies): there the postinst makes the system user
# and enables no unit; with a configuration file and no environment but
# PATH and HOME, bringup sim serves a 2-node rack and bringup run takes it
# to golden; --version is the package's; man reads the installed page;
# dpkg --purge removes every file.
. "$(dirname "$0")/lib.sh"
cd "$T"
tree=${BIN%/bin}
deb=$(cd "$BR_TOP" && BRINGUP_DEB_LINTIAN=0 scripts/deb "$tree" 2> "$T/err") || fail "scripts/deb: $(cat err)"
[ -f "$deb" ] || fail "no package at '$deb'"
version=$(dpkg-deb -f "$deb" Version)
for f in "${deb%/*}/bringup_${version}_$(dpkg --print-architecture)".changes \
	"${deb%/*}/bringup_${version}_$(dpkg --print-architecture)".buildinfo; do
	[ -f "$f" ] || fail "dpkg-buildpackage made no ${f##*/}"
done
dpkg-deb -c "$deb" > listing
awk '{print $6}' listing | sed 's|^\./|/|' > files
owners=$(awk '{print $2}' listing | sort -u | paste -sd ' ' -)
assert_eq "$owners" root/root "owners of the package's files"
assert_eq "$(grep '^/usr/bin/.' files)" /usr/bin/bringup "/usr/bin"
for n in discover validate probe sim tickets import; do
	grep -qx "/usr/libexec/bringup/bringup-$n" files || fail "bringup-$n not in /usr/libexec/bringup"
done
for f in /usr/share/man/man1/bringup.1.gz /usr/share/man/man5/bringup.conf.5.gz \
	/usr/share/bash-completion/completions/bringup /usr/share/zsh/vendor-completions/_bringup \
	/lib/systemd/system/bringup-run.service \
	/lib/systemd/system/bringup-run.timer /lib/systemd/system/bringup-controller.service \
	/usr/lib/sysusers.d/bringup.conf /usr/share/doc/bringup/examples/bringup.conf \
	/usr/libexec/bringup/bringup-controller /usr/share/man/man1/bringup-controller.1.gz \
	/usr/share/doc/bringup/copyright \
	/usr/share/bringup/templates/profiles/xe9680/hardware.conf; do
	grep -qx "$f" files || fail "$f not in the package"
done
depends=$(dpkg-deb -f "$deb" Depends)
for d in libcurl4 libssh2-1 libpq5 "systemd | systemd-standalone-sysusers" openssh-client; do
	assert_contains "$depends" "$d" "Depends"
done
assert_eq "$(dpkg-deb -f "$deb" Recommends)" ipmitool "Recommends"
if command -v apt-get >/dev/null; then
	apt-get -s install "$deb" > apt.out 2>&1 || fail "apt-get -s install: $(tail -3 apt.out)"
	grep -q "^Inst bringup " apt.out || fail "apt would not install it: $(tail -3 apt.out)"
fi

root=$T/root admin=$T/admin
mkdir -p "$root/etc" "$admin/info" "$admin/updates" "$admin/triggers"
: > "$admin/status"
: > "$admin/available"
dpkg --instdir="$root" --admindir="$admin" --force-depends --force-not-root --force-script-chrootless \
	-i "$deb" > dpkg.out 2>&1 || fail "dpkg -i: $(tail -3 dpkg.out)"
# The controller's system user, made by the postinst (sysusers.d).
grep -q '^bringup:.*:/var/lib/bringup:' "$root/etc/passwd" ||
	fail "no system user bringup after the install: $(tail -3 dpkg.out)"
[ -z "$(find "$root/etc" -path '*/systemd/system/*' -name 'bringup*')" ] ||
	fail "the install enabled a unit: $(find "$root/etc" -name 'bringup*')"
bin=$root/usr/bin/bringup
clean() { env -i PATH=/usr/bin:/bin HOME="$T" BRINGUP_SYSTEM_CONFIG=/dev/null "$bin" "$@"; }
assert_eq "$(clean --version)" "bringup $version" "the package's bringup --version"
clean sim --nodes 2 --seed 3 --maas-commission-ms 200 --maas-deploy-ms 300 --dir rack --daemon >/dev/null ||
	fail "the package's bringup sim"
at_exit "stop_sim $T/rack"
( set -a; . rack/env
printf '%s\n' "$BRINGUP_BMC_PASSWORD" > bmc.pw
printf '%s\n' "$MAAS_API_KEY" > maas.key
cat > bringup.conf <<CONF
[inventory]
db = $T/inv.db
[maas]
url = $MAAS_URL
api_key = file:$T/maas.key
[bmc]
scheme = $BRINGUP_BMC_SCHEME
[ssh]
key = $BRINGUP_SSH_KEY
pubkey = $BRINGUP_SSH_PUBKEY
known_hosts = $BRINGUP_KNOWN_HOSTS
config = $BRINGUP_SSH_CONFIG
user = $BRINGUP_SSH_USER
[validate]
wiring = $BRINGUP_WIRING
CONF
)
sed "s|env:BRINGUP_BMC_PASSWORD|file:$T/bmc.pw|" rack/rack.csv > rack.csv
clean --config "$T/bringup.conf" import --manifest rack.csv > out 2> err || fail "import: $(cat err)"
clean --config "$T/bringup.conf" run > out 2> err || fail "run exit $?: $(tail -5 err)"
assert_eq "$(clean --config "$T/bringup.conf" status --json | jq -r '[.nodes[].state] | unique | join(",")')" golden \
	"states after the package's run"
page=$(MANPATH="$root/usr/share/man" man -P cat bringup 2>&1) || fail "man bringup: $page"
assert_contains "$page" "take racks of new GPU servers" "the installed bringup(1)"

dpkg --instdir="$root" --admindir="$admin" --force-not-root --force-script-chrootless --purge bringup > dpkg.out 2>&1 ||
	fail "dpkg --purge: $(tail -3 dpkg.out)"
# Only the system user stays (Debian removes no user a package made).
left=$(find "$root" -type f ! -path "$root/etc/*")
[ -z "$left" ] || fail "files left after dpkg --purge: $(echo "$left" | head -3)"
exit 0
