#!/bin/sh
# bringup firmware spreads its updates over the manifest's power domains
# (the feed a node's supplies draw from: a BMC restarting and a BIOS
# flash draw on it): at most the catalogue's max_per_power_domain (1)
# machines of one domain update at once, while another domain's machines
# update beside them; --max-updates (4) alone would let four update
# together. From the simulators' request logs. A power_domain that is no
# name stops the import with the manifest's file, line and field, and
# status --json shows the domain (its schema holds).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/firmware.sh"
cd "$T"
fw_images "$T/images"
conf=$T/tpl/profiles/xe9680/firmware-images.conf
sed 's/^max_per_rack = 2$/max_per_power_domain = 1/' "$conf" > "$conf.new" && mv "$conf.new" "$conf"
grep -q '^max_per_power_domain = 1$' "$conf" || fail "catalogue not edited"
bringup sim --no-hosts --nodes 16 --seed 5 --faults fw_stale:8 --fw-task-ms 300 --bmc-reboot-ms 400 \
	--image-dir "$T/images" --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
export BRINGUP_DB=$T/inv.db
stale=$(jq -r '[.nodes[] | select(.faults | index("fw_stale")) | .hostname] | sort | .[]' rack/truth.json)
assert_eq "$(echo "$stale" | wc -l)" 8 "stale nodes"
# The stale nodes on two feeds, four each; the others alternate.
echo "$stale" | awk '{ print $1 "," (NR % 2 ? "pdu-a" : "pdu-b") }' > domains.csv
awk -F, -v OFS=, 'NR == FNR { d[$1] = $2; next }
	FNR == 1 { print $0, "power_domain"; next }
	{ print $0, ($1 in d) ? d[$1] : (FNR % 2 ? "pdu-a" : "pdu-b") }' domains.csv rack/rack.csv > powered.csv

# An operator's typo: exit 2, file, line and field named, nothing stored.
awk -F, -v OFS=, 'FNR == 3 { $NF = "pdu a" } { print }' powered.csv > typo.csv
rc=0; bringup import --manifest typo.csv > typo.out 2> typo.err || rc=$?
assert_eq "$rc" 2 "import of a bad power_domain"
assert_contains "$(cat typo.err)" "typo.csv:3: power_domain: 'pdu a' is not a power domain's name" "the import's error"
[ ! -s inv.db ] || assert_eq "$(inv_sql inv.db "select count(*) from nodes")" 0 "nodes stored from the typo"

bringup import --manifest powered.csv >/dev/null
bringup status --json > st.json
python3 "$BR_TOP/tests/e2e/schema-check.py" "$BR_TOP/docs/schema/status.schema.json" st.json ||
	fail "status --json against its schema"
first=$(echo "$stale" | head -n 1)
assert_eq "$(jq -r --arg h "$first" '.nodes[] | select(.hostname == $h) | .power_domain' st.json)" pdu-a \
	"the first stale node's power domain"
bringup discover -q >/dev/null || true

rc=0
bringup firmware --json --max-updates 4 --poll-ms 50 > run.json 2> run.err || rc=$?
assert_eq "$rc" 0 "firmware exit code ($(cat run.err))"
assert_eq "$(jq -r '[.nodes[] | select(.result == "updated") | .hostname] | sort | .[]' run.json)" "$stale" \
	"updated nodes"
assert_eq "$(fw_posts rack/requests.log | sort | uniq -d | wc -l)" 0 "images sent twice"
# node -> domain, for fw_overlap
jq -R -s 'split("\n") | map(select(length > 0) | split(",")) | map({(.[0]): .[1]}) | add' domains.csv > domains.json
per_domain=$(fw_overlap rack/requests.log domains.json)
[ "$per_domain" -eq 1 ] || fail "machines of one power domain updating at once: $per_domain (max_per_power_domain 1)"
most=$(fw_overlap rack/requests.log)
[ "$most" -eq 2 ] || fail "machines updating at once over both domains: $most (want 2: one per domain)"
echo "8 stale nodes on 2 power domains: at most 1 per domain, 2 at once"
