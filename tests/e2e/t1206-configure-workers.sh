#!/bin/sh
# configure --workers 3 (forked workers, each running its BMCs on its own
# loop and recording their nodes through its own inventory connection)
# ends every node of a rack with BIOS drift, a failing BIOS job, a boot
# order to fix and old firmware exactly as --workers 1 does: same states,
# reasons, checks and --json, and the same requests to each BMC in the same
# order. Configuring a rack changes it, so each run has its own simulated
# rack from one seed. Then a worker killed mid-run fails exactly its own
# nodes, with the reason; the other workers' nodes end configured, and the
# inventory stays intact. A SIGTERM stops every worker cleanly.
. "$(dirname "$0")/lib.sh"
cd "$T"
faults=bios_drift:4,bios_job_fail:1,boot_settings:1,fw_outdated:1
rack() { # NAME NODES SIM-OPTIONS...: a simulated rack, imported and discovered into NAME.db
	name=$1 nodes=$2
	shift 2
	bringup sim --no-hosts --nodes "$nodes" --seed 9 --dir "$name" --daemon "$@" >/dev/null
	at_exit "stop_sim $T/$name"
	(
		set -a; . "./$name/env"; set +a
		bringup import --db "$name.db" --manifest "$name/rack.csv" >/dev/null
		bringup discover --db "$name.db" --workers 1 -q
	) || fail "discover of rack $name"
	sleep 0.2
	: > "$name/requests.log"
}
configure() { # NAME OPTIONS...
	name=$1
	shift
	(set -a; . "./$name/env"; set +a; exec bringup configure --db "$name.db" --poll-ms 100 "$@")
}
rack one 12 --faults $faults --bios-job-ms 200
rack three 12 --faults $faults --bios-job-ms 200

rc=0
configure one --workers 1 -v --json > one.json 2> one.err || rc=$?
assert_eq "$rc" 1 "configure --workers 1 exit code (a failing BIOS job)"
! grep -q "worker processes" one.err || fail "--workers 1 forked"
rc=0
configure three --workers 3 -v --json > three.json 2> three.err || rc=$?
assert_eq "$rc" 1 "configure --workers 3 exit code (a failing BIOS job)"
grep -q "12 Redfish BMCs over 3 worker processes" three.err || fail "--workers 3 did not fork workers"

# The racks differ only in their BMCs' ports.
noport() { sed 's/127\.0\.0\.1:[0-9]*/BMC/g'; }
view() { # the inventory's view of each node after configure
	bringup status --db "$1.db" --json | jq -S '[.nodes[] | {hostname, state, reason}] | sort_by(.hostname)'
	sqlite3 "$1.db" "select n.hostname, c.name, c.result, c.detail from check_results c
		join nodes n on n.id = c.node_id where c.stage = 'configure' order by 1, 2"
}
view one | noport > one.view
view three | noport > three.view
diff one.view three.view || fail "the inventory after --workers 3 differs from --workers 1"
assert_eq "$(bringup status --db three.db --json | jq '[.nodes[] | select(.state == "configured")] | length')" 11 \
	"configured nodes"
grep -q "firmware:.*|fail|" three.view || fail "no failed firmware check recorded by a worker"
assert_eq "$(jq -S '.nodes | sort_by(.hostname)' three.json | noport)" \
	"$(jq -S '.nodes | sort_by(.hostname)' one.json | noport)" "configure --json"
assert_eq "$(jq '[.nodes[] | select(.resets > 0)] | length' three.json)" 6 "nodes reset (drift, job fail, boot)"

# The same requests to each BMC, in the same order (a job polled until it
# ends counts once: how often depends on timing).
requests() {
	jq -r '"\(.node) \(.method) \(.path)"' "$1/requests.log" | sort -s -k1,1 | uniq
}
requests one > one.req
requests three > three.req
[ "$(wc -l < one.req)" -gt 100 ] || fail "too few requests logged: $(wc -l < one.req)"
diff one.req three.req || fail "the requests of --workers 3 differ from --workers 1"

# ---- a node whose stored facts cannot be read -------------------------------
# Its worker judges its firmware before it touches any BMC: the node fails
# with the inventory's reason and its BMC sees no request; the others are
# configured, their firmware judged by their workers as by this process.
rack facts 4
bad=$(sqlite3 facts.db "select hostname from nodes order by hostname limit 1 offset 1")
sqlite3 facts.db "update hw_facts set facts = '{\"firmware\": {\"id\": \"x\"}}'
	where node_id = (select id from nodes where hostname = '$bad')"
rc=0
configure facts --workers 2 --json > facts.json 2> facts.err || rc=$?
assert_eq "$rc" 1 "configure exit code with a node's facts unreadable"
st=$(bringup status --db facts.db --json)
assert_contains "$(echo "$st" | jq -r --arg h "$bad" '.nodes[] | select(.hostname == $h) | "\(.state): \(.reason)"')" \
	"failed: reading its discovered facts: " "the node with unreadable facts"
assert_eq "$(jq -s --arg h "$bad" '[.[] | select(.node == $h)] | length' facts/requests.log)" 0 \
	"requests to the BMC of the node with unreadable facts"
assert_eq "$(echo "$st" | jq '[.nodes[] | select(.state == "configured")] | length')" 3 "the other nodes configured"
assert_eq "$(jq '[.nodes[] | select(.result != "failed") | .firmware | length] | min' facts.json)" \
	"$(jq '.nodes[0].firmware | length' one.json)" "--json: firmware judged for each configured node"

# ---- a worker killed mid-run -------------------------------------------------
# started NAME: configure --workers 3 on rack NAME in the background ($pid),
# once every one of its 6 systems has been reset: each worker is polling
# its jobs.
started() {
	set -a; . "./$1/env"; set +a
	bringup configure --db "$1.db" --poll-ms 100 --workers 3 --json > "$1.json" 2> "$1.err" &
	pid=$!
	i=0
	while [ "$(grep -c 'ComputerSystem.Reset' "$1/requests.log")" -lt 6 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(pgrep -c -P $pid)" -eq 3 ] || fail "$(pgrep -c -P $pid) configure workers running, want 3"
}
rack kill 6 --faults bios_drift:6 --bios-job-ms 2500
started kill
victim=$(pgrep -P $pid | sort -n | sed -n 2p)
kill -KILL "$victim"
rc=0
wait $pid || rc=$?
assert_eq "$rc" 1 "configure exit code with a worker killed"
reason="configure worker exited with status 137 (signal 9)"
st=$(bringup status --db kill.db --json)
assert_eq "$(echo "$st" | jq --arg r "$reason" '[.nodes[] | select(.state == "failed" and .reason == $r)] | length')" 2 \
	"nodes failed by the killed worker (its slice of 2)"
assert_eq "$(echo "$st" | jq '[.nodes[] | select(.state == "configured")] | length')" 4 "the other workers' nodes"
assert_eq "$(jq '.failed' kill.json)" 2 "--json failed count"
assert_eq "$(jq --arg r "$reason" '[.nodes[] | select(.reason == $r)] | length' kill.json)" 2 "--json reasons"
assert_eq "$(sqlite3 kill.db 'pragma integrity_check')" ok "inventory integrity"

# ---- SIGTERM to the stage ------------------------------------------------------
# Each worker is told, logs out of its BMCs and reports its nodes
# interrupted: nothing recorded, every node as it was, every session deleted.
rack term 6 --faults bios_drift:6 --bios-job-ms 5000
started term
kill -TERM $pid
rc=0
wait $pid || rc=$?
assert_eq "$rc" 143 "configure exit code after SIGTERM"
assert_eq "$(sqlite3 term.db "select count(*) from nodes where state = 'discovered'")" 6 "nodes left discovered"
assert_eq "$(sqlite3 term.db "select count(*) from check_results where stage = 'configure'")" 0 "checks recorded"
assert_eq "$(jq '[.nodes[] | select(.reason | test("interrupted by SIGTERM"))] | length' term.json)" 6 \
	"--json: every node interrupted"
sleep 0.3
created=$(grep -c '"session":"created"' term/requests.log)
assert_eq "$(grep -c '"session":"deleted"' term/requests.log)" "$created" "sessions deleted of $created created"
