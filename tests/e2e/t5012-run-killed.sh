#!/bin/sh
# bringup run killed with SIGKILL (the driver and the stage it runs, as a
# power cut or the OOM killer would) at random moments, KILLS times, then
# run once to the end: the inventory converges to what an uninterrupted run
# on an identical rack gives (every node's state, the tickets), with no
# machine registered twice in MAAS, no (node, fault) ticket twice, no
# Redfish session left open on any BMC nor recorded, and SQLite's
# integrity_check ok (on SQLite). A moment is an event, not a time: the
# run is killed once the simulators have logged its K-th request (BMC and
# MAAS together), K drawn over the requests an uninterrupted run made, so a
# loaded machine slows the run and its kill alike. The seed is printed:
# BR_KILL_SEED=N repeats a run's kill points; KILLS=N sets how many (make
# bench runs more).
# In the suite the rack has no simulated hosts (--no-hosts): validate finds
# every node's address refusing connections, a failure as deterministic as
# the rest, so a run takes seconds; HOSTS=1 gives every node its sshd.
. "$(dirname "$0")/lib.sh"
cd "$T"
NODES=${NODES:-8}
hosts_opt=--no-hosts
[ "${HOSTS:-0}" = 1 ] && hosts_opt=--hosts
ssh-keygen -q -t ed25519 -N '' -f "$T/key"
# Each run tries every failing node again, and each try is an attempt: at
# the profiles' max_attempts (3) the killed rack's KILLS runs would retire
# what one run leaves failed. The comparison is of one run's outcome, so
# retirement is kept out of reach here (t5020 tests it).
cp -R "$BR_TOP/templates" tpl
for conf in tpl/profiles/*/hardware.conf; do
	sed -i '/^\[lifecycle\]/,$ { /^max_attempts/d }' "$conf"
	grep -q '^\[lifecycle\]' "$conf" || printf '\n[lifecycle]\n' >> "$conf"
	sed -i 's/^\[lifecycle\]$/&\nmax_attempts = 100/' "$conf"
done
export BRINGUP_TEMPLATES=$T/tpl
: > "$T/known_hosts"
# Under the sanitizers (build/asan) every run is slower: 5 kills there,
# for the memory checks; the plain suite shows the convergence.
case "$BIN" in */asan/*) KILLS=${KILLS:-5} ;; *) KILLS=${KILLS:-20} ;; esac
seed=${BR_KILL_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "kill seed $seed (BR_KILL_SEED=$seed repeats it)"
faults=psu_failed,pcie_degraded,commission_fail,nvme_order,bmc_auth
# Two identical racks (same simulator seed): one for the reference run,
# one for the killed runs.
for r in ref kill; do
	bringup sim --nodes "$NODES" $hosts_opt --seed 11 --dir $r --faults "$faults" --maas-commission-ms 100 --maas-deploy-ms 100 \
		--daemon >/dev/null &
done
wait
at_exit "stop_sim $T/ref; stop_sim $T/kill"
[ -f ref/env ] && [ -f kill/env ] || fail "a simulator did not start"
maas_machines() { # DIR: the machines MAAS holds, as hostname lines
	(
		set -a; . "$1/env"; set +a
		ck=${MAAS_API_KEY%%:*}; rest=${MAAS_API_KEY#*:}; tk=${rest%%:*}; ts=${rest#*:}
		curl -sf -H "Authorization: OAuth oauth_version=\"1.0\", oauth_signature_method=\"PLAINTEXT\", \
oauth_consumer_key=\"$ck\", oauth_token=\"$tk\", oauth_signature=\"%26$ts\", \
oauth_nonce=\"$(date +%s%N)\", oauth_timestamp=\"$(date +%s)\"" "${MAAS_URL}api/2.0/machines/" |
			jq -r '.[].hostname' | sort
	)
}
# The result compared: each node's state, and each ticket's node, fault and status.
result() { # DB
	inv_sql "$1" "select 'node', hostname, state from nodes order by hostname"
	inv_sql "$1" "select 'ticket', n.hostname, t.fault, t.status from tickets t join nodes n on n.id = t.node_id
		order by n.hostname, t.fault"
}
# DIR, command...: exec it with that rack's environment; call it in a
# subshell, "(in_rack ...)" or "in_rack ... &".
in_rack() {
	d=$1; shift
	set -a; . "$T/$d/env"; set +a
	export BRINGUP_DB="$(db_for "$d")" BRINGUP_SSH_KEY=${BRINGUP_SSH_KEY:-$T/key} BRINGUP_BMC_TIMEOUT=3 BRINGUP_BMC_RETRIES=2
	export BRINGUP_KNOWN_HOSTS=${BRINGUP_KNOWN_HOSTS:-$T/known_hosts} BRINGUP_SSH_PUBKEY=${BRINGUP_SSH_KEY:-$T/key}.pub
	exec "$@"
}
# DIR: the requests its simulators have logged, BMCs' and MAAS's.
requests() { cat "$1/requests.log" "$1/maas-requests.log" 2>/dev/null | wc -l; }
# PID: still running (a child exited but not yet waited for is not).
running() { s=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$s" ] && [ "${s#Z}" = "$s" ]; }

(in_rack ref bringup import --manifest ref/rack.csv >/dev/null)
before=$(requests ref)
(in_rack ref bringup run -q >/dev/null 2>&1) || true
span=$(($(requests ref) - before))
echo "uninterrupted run: $span requests"

(in_rack kill bringup import --manifest kill/rack.csv >/dev/null)
# awk's srand/rand: the same seed draws the same fractions anywhere. Each
# run is killed at its K-th request, K that fraction of the requests a whole
# run would still make: the uninterrupted run's at first, less what the
# killed runs made since, and what a run that ended unkilled made (a rerun
# over a rack mostly done makes few; drawn over the first run's span, most
# kills would come after the run had ended).
awk -v seed="$seed" -v n="$KILLS" 'BEGIN { srand(seed); for (i = 0; i < n; i++) printf "%.6f\n", rand() }' \
	> fractions
killed=0 i=0 budget=$span points=""
while read -r fraction; do
	i=$((i + 1))
	point=$(awk -v f="$fraction" -v b="$budget" 'BEGIN { printf "%d", 1 + int(f * b) }')
	points="$points $point"
	base=$(requests kill)
	# Its own process group: the background subshell execs setsid, which
	# (the subshell leading no group) execs bringup run in place, so $! is
	# the group's id and the kill takes the stage it runs too.
	in_rack kill setsid bringup run -q >/dev/null 2>&1 &
	pid=$!
	while [ $(($(requests kill) - base)) -lt "$point" ] && running "$pid"; do sleep 0.02; done
	if [ "$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ')" = "$pid" ] && kill -KILL "-$pid" 2>/dev/null; then
		killed=$((killed + 1))
		wait "$pid" 2>/dev/null || true
		made=$(($(requests kill) - base))
		budget=$((budget > made + 20 ? budget - made : 20))
	else
		wait "$pid" 2>/dev/null || true
		made=$(($(requests kill) - base))
		budget=$((made > 1 ? made : 1))
	fi
done < fractions
echo "kills at requests$points: $killed of $KILLS runs were still running"
(in_rack kill bringup run -q >/dev/null 2>&1) || true

[ "$BR_TEST_DB" = pg ] || assert_eq "$(inv_sql "$(db_for kill)" 'pragma integrity_check')" ok "integrity_check"
result "$(db_for ref)" > ref.txt
result "$(db_for kill)" > kill.txt
cmp -s ref.txt kill.txt || fail "killed runs did not converge (seed $seed): $(diff ref.txt kill.txt | head -10)"
maas_machines kill > machines.txt
assert_eq "$(wc -l < machines.txt)" "$(maas_machines ref | wc -l)" "machines in MAAS"
assert_eq "$(uniq -d machines.txt)" "" "a machine registered twice"
assert_eq "$(inv_sql "$(db_for kill)" 'select count(*) from (select node_id, fault from tickets group by 1, 2 having count(*) > 1) as twice')" 0 \
	"a (node, fault) ticket twice"
# Every BMC's session table as empty as it began (the kills' sessions
# deleted by the runs after them), none left recorded. A BMC refusing the
# credentials (bmc_auth) lists none to anyone.
open=0
for bmc in $(tail -n +2 kill/rack.csv | cut -d, -f4); do
	n=$( (set -a; . "$T/kill/env"; curl -s -u "root:$BRINGUP_BMC_PASSWORD" "http://$bmc/redfish/v1/SessionService/Sessions") |
		jq '.Members // [] | length')
	open=$((open + n))
done
recorded=$(inv_sql "$(db_for kill)" 'select count(*) from bmc_sessions')
echo "after the reruns: $open Redfish sessions open on the BMCs, $recorded recorded"
assert_eq "$open" 0 "Redfish sessions left open on the BMCs"
assert_eq "$recorded" 0 "Redfish sessions left recorded"
# Runs after the work is done are short, so later kills often find none
# running; a quarter of them must have struck a live run.
[ "$killed" -ge $((KILLS / 4)) ] || fail "only $killed of $KILLS runs were still running when killed"
echo "killed runs: $KILLS kills (seed $seed), then one run: the same result as an uninterrupted one"
