#!/bin/sh
# bringup-sim at rack scale: 512 BMCs with 1 s of latency each answer four
# concurrent requests at once; latency suspends, it never serialises.
# test: alone (2048 requests must overlap within 1 s: a CPU burst)
. "$(dirname "$0")/lib.sh"

R=$T/rack
bringup-sim --no-hosts --nodes 512 --seed 1 --dir "$R" --daemon --latency-ms 1000 >/dev/null
at_exit "stop_sim $R"
. "$R/env"
assert_eq "$(jq '.nodes | map(.bmc) | unique | length' "$R/truth.json")" 512 "512 distinct BMC ports"

# A client that is not ours: plain asyncio sockets, 4 connections per BMC.
cat >"$T/client.py" <<'PY'
import asyncio, base64, json, sys, time
async def get(host, port, auth):
    r, w = await asyncio.open_connection(host, port)
    w.write(("GET /redfish/v1/Systems/System.Embedded.1 HTTP/1.1\r\nHost: %s:%d\r\n"
             "Authorization: Basic %s\r\nConnection: close\r\n\r\n" % (host, port, auth)).encode())
    await w.drain()
    data = await r.read()
    w.close()
    return int(data.split(b" ", 2)[1])
async def main():
    auth = base64.b64encode(("root:" + sys.argv[2]).encode()).decode()
    bmcs = [n["bmc"].split(":") for n in json.load(open(sys.argv[1]))["nodes"]]
    t0 = time.time()
    codes = await asyncio.gather(*[get(h, int(p), auth) for h, p in bmcs for _ in range(4)])
    print(json.dumps({"wall_s": time.time() - t0, "ok": codes.count(200), "n": len(codes)}))
asyncio.run(main())
PY
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)"
/usr/bin/python3 "$T/client.py" "$R/truth.json" "$BRINGUP_BMC_PASSWORD" >"$T/result.json"
assert_eq "$(jq -r '"\(.ok)/\(.n)"' "$T/result.json")" 2048/2048 "all answered 200"
# Serially this would take 2048 s; 4 per BMC in parallel ~1 s.
jq -e '.wall_s < 10' "$T/result.json" >/dev/null || fail "2048 requests took $(jq .wall_s "$T/result.json") s"

sleep 0.5
L=$R/requests.log
assert_eq "$(wc -l <"$L")" 2048 "log lines"
assert_eq "$(jq -s 'map(.inflight) | max' "$L")" 4 "in flight per BMC counted"
assert_eq "$(jq -s '[.[] | select(.end_ms - .start_ms < 1000)] | length' "$L")" 0 "every answer waited the latency"
# Most requests were in flight at the same moment.
jq -s '(map(.start_ms) | max) as $s | [.[] | select(.start_ms <= $s and .end_ms >= $s)] | length' "$L" >"$T/overlap"
[ "$(cat "$T/overlap")" -ge 1500 ] || fail "only $(cat "$T/overlap") of 2048 requests overlapped"

pid=$(cat "$R/sim.pid")
kill "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
grep -q Sanitizer "$R/sim.log" && fail "sanitizer report: $(cat "$R/sim.log")"
exit 0
