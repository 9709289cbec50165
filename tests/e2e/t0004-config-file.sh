#!/bin/sh
# bringup.conf (issue 28 point D): the system file, then the user's
# ($XDG_CONFIG_HOME), then --config, a later file's setting over an earlier
# one's; the environment over every file and the command line over the
# environment; `bringup config show` says what is set and from where, a
# secret only as its reference; a wrong file is exit 2 naming file, line and
# setting, with nothing done; profiles are looked for in the site directory
# before the shipped ones.
. "$(dirname "$0")/lib.sh"
cd "$T"
unset BRINGUP_DB MAAS_URL MAAS_API_KEY MAAS_API_KEY_REF BRINGUP_SITE_PROFILES BRINGUP_CONFIG || true
export BRINGUP_SYSTEM_CONFIG=$T/etc/bringup.conf XDG_CONFIG_HOME=$T/xdg
mkdir -p etc xdg/bringup site
cat > rack.csv <<'EOF2'
hostname,rack,unit,bmc,bmc_user,bmc_password,profile,bmc_type,boot_disk_serial,notes
gpu-a,r01,1,10.0.0.1,root,env:PW,xe9680,redfish,,
EOF2
for db in sys user env cli; do
	sed "s/gpu-a/gpu-$db/" rack.csv > "$db.csv"
	bringup import --db "$db.db" --manifest "$db.csv" >/dev/null
done
cat > etc/bringup.conf <<EOF2
# the system's
[inventory]
db = $T/sys.db
[maas]
url = http://system.example/MAAS/
EOF2
cat > xdg/bringup/bringup.conf <<EOF2
[inventory]
db = $T/user.db
EOF2
cat > site.conf <<'EOF2'
[maas]
url = http://site.example/MAAS/
api_key = file:/etc/bringup/maas.key
EOF2
host() { bringup "$@" status --json | jq -r '.nodes[0].hostname'; }
# The user's file over the system's; the environment over both; the command line over all.
assert_eq "$(host)" "gpu-user" "user file over system file"
assert_eq "$(BRINGUP_DB=$T/env.db host)" "gpu-env" "environment over the files"
assert_eq "$(BRINGUP_DB=$T/env.db bringup status --db "$T/cli.db" --json | jq -r '.nodes[0].hostname')" "gpu-cli" "command line over the environment"
mv xdg/bringup/bringup.conf xdg/bringup/off
assert_eq "$(host)" "gpu-sys" "the system file alone"
mv xdg/bringup/off xdg/bringup/bringup.conf

# config show: each setting, its variable, value and origin (FILE:LINE).
bringup --config site.conf config show --json > show.json
get() { jq -r --arg s "$1" ".settings[] | select(.setting == \$s) | .$2 // \"null\"" show.json; }
assert_eq "$(get inventory.db value)" "$T/user.db" "inventory.db"
assert_eq "$(get inventory.db from)" "$T/xdg/bringup/bringup.conf:2" "inventory.db's origin"
assert_eq "$(get maas.url value)" "http://site.example/MAAS/" "--config over the system file"
assert_eq "$(get maas.url from)" "site.conf:2" "maas.url's origin"
assert_eq "$(get maas.api_key value)" "file:/etc/bringup/maas.key" "a secret as its reference"
assert_eq "$(get maas.api_key variable)" "MAAS_API_KEY_REF" "the reference's variable"
assert_eq "$(get ssh.key from)" "null" "unset"
assert_eq "$(jq -r '.files | join(" ")' show.json)" "$T/etc/bringup.conf $T/xdg/bringup/bringup.conf site.conf" "files in order"
MAAS_URL=http://env.example/ bringup --config site.conf config show --json > show.json
assert_eq "$(get maas.url from)" "environment" "environment over --config"
# A key in the environment is never shown.
out=$(MAAS_API_KEY=k3y:t0ken:s3cr3tvalue bringup --config site.conf config show)
case $out in *s3cr3tvalue*) fail "config show printed MAAS_API_KEY" ;; esac
assert_contains "$out" "order: command line > environment > files" "the order, said"

# A wrong file: every problem as FILE:LINE: setting: message, exit 2, nothing done.
cat > bad.conf <<'EOF2'
[maas]
urll = http://x/
api_key = k3y:t0ken:s3cr3t
[validate]
parallel = many
[nonsense]
EOF2
rc=0; err=$(bringup --config bad.conf status --db new.db 2>&1) || rc=$?
assert_eq "$rc" 2 "a wrong config file"
assert_contains "$err" "bad.conf:2: maas.urll: unknown setting; did you mean 'url'?" "unknown key"
assert_contains "$err" "bad.conf:3: maas.api_key: a secret is given as a reference" "literal secret"
assert_contains "$err" "bad.conf:5: validate.parallel: 'many' is not a count" "not a count"
assert_contains "$err" "bad.conf:6: unknown section [nonsense]" "unknown section"
case $err in *s3cr3t*) fail "the literal secret was echoed: $err" ;; esac
[ ! -e new.db ] || fail "a command ran on a wrong config file"
rc=0; bringup --config nothere.conf status 2>/dev/null || rc=$?
assert_eq "$rc" 2 "--config naming no file"
# A stage run directly reads the same files ($BRINGUP_CONFIG).
rc=0; BRINGUP_CONFIG=$T/bad.conf bringup-status 2>/dev/null || rc=$?
assert_eq "$rc" 2 "bringup-status reads \$BRINGUP_CONFIG"

# Site profiles first: a profile only the site directory has is one import knows.
cp -r "$BR_TOP/templates/profiles/xe9680" site/custom
printf '[templates]\nsite_profiles = %s/site\n' "$T" > prof.conf
sed 's/xe9680/custom/' rack.csv > custom.csv
rc=0; err=$(bringup import --db c.db --manifest custom.csv 2>&1) || rc=$?
assert_eq "$rc" 2 "a site profile without the site directory"
assert_contains "$err" "unknown hardware profile 'custom'" "unknown without the site directory"
bringup --config prof.conf import --db c.db --manifest custom.csv >/dev/null || fail "import with a site profile"
assert_eq "$(bringup status --db c.db --json | jq -r '.nodes[0].profile')" "custom" "site profile imported"
echo "ok"
