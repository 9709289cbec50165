#!/bin/sh
# status --follow (issue 25): every transition of the site as it is
# recorded by any process (another machine's stage is another process on
# another connection), one line each, JSON lines held to
# docs/schema/event.schema.json; --zone and named hosts narrow it; SIGTERM
# ends it with exit 0. On SQLite the follower reads again every poll; on
# PostgreSQL it sleeps until the events trigger's NOTIFY (schema step 17)
# wakes it. Both backends are run here.
. "$(dirname "$0")/lib.sh"
cd "$T"
bringup sim --no-hosts --nodes 4 --seed 13 --dir rack --daemon >/dev/null
at_exit "stop_sim $T/rack"
set -a; . rack/env; set +a
awk -F, -v OFS=, 'NR == 1 { print $0, "zone"; next } { print $0, (NR <= 3 ? "hall-a" : "hall-b") }' \
	rack/rack.csv > zoned.csv
b_hosts=$(awk -F, 'NR > 3 { print $1 }' zoned.csv | sort | paste -sd' ' -)
h1=$(awk -F, 'NR == 2 { print $1 }' zoned.csv)

# FILE N: wait (20 s at most) until FILE has N lines.
wait_lines() {
	i=0
	while [ "$(wc -l < "$1")" -lt "$2" ]; do
		i=$((i + 1))
		[ "$i" -le 200 ] || fail "$1: $(wc -l < "$1") lines, want $2: $(cat "$1")"
		sleep 0.1
	done
}
# PID: stop a follower with SIGTERM; it must end with exit 0.
stop_follower() {
	kill -TERM "$1"
	rc=0
	wait "$1" || rc=$?
	assert_eq "$rc" 0 "a follower stopped by SIGTERM"
}

follow_on() {
	db=$1
	tag=$2
	bringup import --db "$db" --manifest zoned.csv >/dev/null
	bringup status --db "$db" --follow --json -v > "all-$tag" 2> "all-$tag.err" &
	all=$!
	bringup status --db "$db" --follow --json -v --zone hall-b > "b-$tag" 2> "b-$tag.err" &
	bz=$!
	bringup status --db "$db" --follow --json -v --zone hall-c,hall-b > "bc-$tag" 2> "bc-$tag.err" &
	bc=$!
	bringup status --db "$db" --follow -v "$h1" > "h1-$tag" 2> "h1-$tag.err" &
	one=$!
	for f in "all-$tag.err" "b-$tag.err" "bc-$tag.err" "h1-$tag.err"; do
		i=0
		until grep -q "following the events after" "$f" 2>/dev/null; do
			i=$((i + 1))
			[ "$i" -le 200 ] || fail "$tag: the follower never started: $(cat "$f")"
			sleep 0.1
		done
	done
	# Another process records the transitions.
	bringup discover --db "$db" >/dev/null
	wait_lines "all-$tag" 4
	wait_lines "b-$tag" 2
	wait_lines "bc-$tag" 2
	wait_lines "h1-$tag" 1
	sleep 1 # anything more would have come by now
	stop_follower "$all"
	stop_follower "$bz"
	stop_follower "$bc"
	stop_follower "$one"
	assert_eq "$(wc -l < "all-$tag")" 4 "$tag: one line per transition"
	assert_eq "$(jq -r 'select(.from == "new" and .to == "discovered") | .hostname' "all-$tag" | sort | paste -sd' ' -)" \
		"$(awk -F, 'NR > 1 { print $1 }' zoned.csv | sort | paste -sd' ' -)" "$tag: every node's new -> discovered"
	assert_eq "$(jq -r '.hostname' "b-$tag" | sort | paste -sd' ' -)" "$b_hosts" "$tag: --zone hall-b's only"
	assert_eq "$(jq -r '.hostname' "bc-$tag" | sort | paste -sd' ' -)" "$b_hosts" "$tag: --zone hall-c,hall-b's only"
	assert_eq "$(wc -l < "h1-$tag")" 1 "$tag: the named host's only"
	assert_contains "$(cat "h1-$tag")" "$h1  new -> discovered  discovered over Redfish" "$tag: the text line"
	# Ids increase, and each line is the documented object.
	assert_eq "$(jq -s '[.[].id] == ([.[].id] | sort) and ([.[].id] | unique | length) == 4' "all-$tag")" true \
		"$tag: ids increasing"
	while read -r line; do
		printf '%s\n' "$line" | /usr/bin/python3 "$BR_TOP/tests/e2e/schema-check.py" \
			"$BR_TOP/docs/schema/event.schema.json" || fail "$tag: a line off its schema: $line"
	done < "all-$tag"
}

follow_on "$T/inv.db" sqlite

# Options for the listing are refused with it, before anything is read.
rc=0
bringup status --db "$T/inv.db" --follow --state new 2>err || rc=$?
assert_eq "$rc" 2 "--follow with --state"
assert_contains "$(cat err)" "--follow streams transitions" "the message says why"

pg_start
follow_on "postgresql:///postgres?host=$PG_DIR&user=postgres" pg
