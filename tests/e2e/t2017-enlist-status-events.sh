#!/bin/sh
# enlist waits on MAAS's "Node changed status" events: a machine is read
# when its newest status change is one enlist acts on (Ready, Deployed),
# never for a move it only waits through (Commissioning -> Testing,
# Ready -> Allocated -> Deploying). The emulator writes that event on every
# status change as MAAS does (sim/maas_machines.c sim_maas_status_changed),
# seen here through the events API. Against a server that writes none
# (--maas-no-status-events) enlist reads a machine on any news, as before,
# and still deploys every one.
. "$(dirname "$0")/lib.sh"
cd "$T"

N=6
rack() { # DIR [sim options]: N machines enlisted against the emulator in DIR
	d=$1
	shift
	# Testing is the last third of commissioning: 1000 ms in, long after
	# enlist's first look (which reads every waiting machine once).
	bringup-sim --no-hosts --nodes $N --dir "$d" --seed 3 --maas-latency-ms 20 --maas-commission-ms 1500 \
		--maas-deploy-ms 600 --daemon "$@" >/dev/null
	at_exit "stop_sim $T/$d"
	(
		set -a
		. "./$d/env"
		set +a
		bringup import --db "$d.db" --manifest "$d/rack.csv" >/dev/null
		bringup discover --db "$d.db" -q
		bringup enlist --no-ssh-key --db "$d.db" --skip-configure --poll-ms 50 -q
	)
	assert_eq "$(sqlite3 "$d.db" "select count(*) from nodes where state = 'deployed'")" $N "$d: deployed"
}
reads() { # DIR STATUS: how many machine documents list reads gave in STATUS
	jq -s --arg st "$2" '[.[] | select(.method == "GET" and .path == "machines/") | .statuses[]?
		| select(. == $st)] | length' "$1/maas-requests.log"
}
auth() {
	ck=${MAAS_API_KEY%%:*}; rest=${MAAS_API_KEY#*:}; tk=${rest%%:*}; ts=${rest#*:}
	echo "Authorization: OAuth oauth_version=\"1.0\", oauth_signature_method=\"PLAINTEXT\", \
oauth_consumer_key=\"$ck\", oauth_token=\"$tk\", oauth_signature=\"%26$ts\", \
oauth_nonce=\"$(date +%s%N)\", oauth_timestamp=\"$(date +%s)\""
}
events() { # DIR LEVEL: the emulator's events at LEVEL and above
	(set -a; . "./$1/env"; set +a
	 curl -sf -H "$(auth)" "${MAAS_URL}api/2.0/events/?op=query&level=$2&limit=1000")
}

rack ev
for st in Testing Deploying; do
	assert_eq "$(reads ev $st)" 0 "machines read in $st (a move enlist does not act on)"
done
assert_eq "$(reads ev Ready)" $N "machines read once Ready"
assert_eq "$(reads ev Deployed)" $N "machines read once Deployed"
# At most the first look, Ready and Deployed.
most=$(jq -s '[.[] | select(.method == "GET" and .path == "machines/") | .system_ids[]?]
	| group_by(.) | map(length) | max' ev/maas-requests.log)
[ "$most" -le 3 ] || fail "a machine was read $most times while waiting"

# The events as MAAS's API gives them: type is the type's description,
# level DEBUG (not shown at INFO), no user, every change of one machine.
events ev DEBUG > ev.json
id=$(jq -r 'select(.method == "POST" and .path == "machines/") | .system_id' ev/maas-requests.log | head -n 1)
got=$(jq -r --arg id "$id" '[.events[] | select(.node == $id and .type == "Node changed status") | .description]
	| reverse | join("; ")' ev.json)
assert_eq "$got" "From 'New' to 'Commissioning'; From 'Commissioning' to 'Testing'; From 'Testing' to 'Ready'; \
From 'Ready' to 'Allocated' (to admin); From 'Allocated' to 'Deploying'; From 'Deploying' to 'Deployed'" \
	"status changes of $id"
assert_eq "$(jq -r --arg id "$id" '[.events[] | select(.node == $id and .type == "Node changed status")
	| [.level, .username, (.hostname | length > 0), (.id | type), (.created | test("^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2}\\. [0-9]{4} [0-9:]{8}$"))]
	| map(tostring) | join(" ")] | unique | join(";")' ev.json)" "DEBUG unknown true number true" "fields of a status change"
assert_eq "$(events ev INFO | jq '[.events[] | select(.type == "Node changed status")] | length')" 0 \
	"status changes shown at INFO"

# A server without them: read on any news, as before; all deployed.
rack plain --maas-no-status-events
assert_eq "$(events plain DEBUG | jq '[.events[] | select(.type == "Node changed status")] | length')" 0 \
	"status changes written with --maas-no-status-events"
n=$(reads plain Testing)
[ "$n" -ge 1 ] || fail "without status changes, no machine was read on its Testing news"
