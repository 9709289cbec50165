#!/bin/sh
# Fabric mode against real InfiniBand tooling: ibsim serves a simulated
# fabric and the real ibnetdiscover (infiniband-diags) walks it through
# ibsim's umad shim. Cabled as designed, the fabric passes; cabled as
# tests/fixtures/ibnet/ibsim.net (two hosts exchanged, an uplink missing,
# so a leaf and its hosts are an island), exactly those faults are told.
. "$(dirname "$0")/lib.sh"
cd "$T"
command -v ibsim >/dev/null && command -v ibnetdiscover >/dev/null ||
	fail "ibsim or ibnetdiscover missing (scripts/deps: ibsim-utils infiniband-diags)"
design=$BR_TOP/tests/fixtures/ibnet/wiring.csv

# discover NETFILE OUT [TOOL]: serve the fabric, walk it with ibnetdiscover
# (or TOOL: iblinkinfo), stop.
discover() {
	ibsim -s "$1" </dev/null >ibsim.log 2>&1 &
	pid=$!
	ok=0
	for i in $(seq 1 50); do
		if timeout 20 ibsim-run "${3:-ibnetdiscover}" >"$2" 2>ibnd.err && grep -q '^Switch' "$2"; then ok=1; break; fi
		sleep 0.2
	done
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
	[ $ok = 1 ] || fail "${3:-ibnetdiscover} over ibsim: $(cat ibnd.err ibsim.log)"
}

# As designed: every cable of the wiring list, one network.
cat > good.net <<'N'
Switch	36 "MF0;spine01:MQM9700/U1"
[1]	"MF0;leaf01:MQM9700/U1"[31]
[2]	"MF0;leaf02:MQM9700/U1"[31]

Switch	36 "MF0;leaf01:MQM9700/U1"
[1]	"gpu01 mlx5_0"[1]
[2]	"gpu02 mlx5_0"[1]
[31]	"MF0;spine01:MQM9700/U1"[1]

Switch	36 "MF0;leaf02:MQM9700/U1"
[1]	"gpu03 mlx5_0"[1]
[2]	"gpu04 mlx5_0"[1]
[31]	"MF0;spine01:MQM9700/U1"[2]

Hca	1 "gpu01 mlx5_0"
[1]	"MF0;leaf01:MQM9700/U1"[1]

Hca	1 "gpu02 mlx5_0"
[1]	"MF0;leaf01:MQM9700/U1"[2]

Hca	1 "gpu03 mlx5_0"
[1]	"MF0;leaf02:MQM9700/U1"[1]

Hca	1 "gpu04 mlx5_0"
[1]	"MF0;leaf02:MQM9700/U1"[2]
N
discover good.net good.txt
rc=0; bringup validate --fabric good.txt --wiring "$design" --json > good.json || rc=$?
assert_eq "$rc" 0 "a fabric as designed: exit"
assert_eq "$(jq -r '.result + " " + (.matched|tostring) + "/" + (.design_links|tostring)' good.json)" "pass 6/6" "as designed"

discover "$BR_TOP/tests/fixtures/ibnet/ibsim.net" bad.txt
rc=0; bringup validate --fabric bad.txt --wiring "$design" --json > bad.json || rc=$?
assert_eq "$rc" 1 "a miswired fabric: exit"
assert_eq "$(jq -r '[.findings[].kind] | sort | join(",")' bad.json)" "missing,swapped,unreachable" "exactly the faults"
assert_contains "$(jq -r '.findings[] | select(.kind == "swapped") | .detail' bad.json)" \
	"gpu01 mlx5_0/1 and gpu02 mlx5_0/1 are exchanged" "the swap"
assert_contains "$(jq -r '.findings[] | select(.kind == "missing") | .detail' bad.json)" "leaf02 31 - spine01 2" \
	"the missing uplink"
assert_eq "$(jq -r .unreachable bad.json)" 3 "the island: leaf02, gpu03, gpu04"

# iblinkinfo's output of the same fabrics is judged the same.
command -v iblinkinfo >/dev/null || fail "iblinkinfo missing (scripts/deps: infiniband-diags)"
discover good.net good-ibl.txt iblinkinfo
grep -q '==( 4X' good-ibl.txt || fail "not iblinkinfo's output: $(head -3 good-ibl.txt)"
rc=0; bringup validate --fabric good-ibl.txt --wiring "$design" --json > good-ibl.json || rc=$?
assert_eq "$rc" 0 "iblinkinfo, as designed: exit"
assert_eq "$(jq -r '.result + " " + (.matched|tostring) + "/" + (.design_links|tostring)' good-ibl.json)" "pass 6/6" \
	"iblinkinfo, as designed"
discover "$BR_TOP/tests/fixtures/ibnet/ibsim.net" bad-ibl.txt iblinkinfo
rc=0; bringup validate --fabric bad-ibl.txt --wiring "$design" --json > bad-ibl.json || rc=$?
assert_eq "$rc" 1 "iblinkinfo, miswired: exit"
assert_eq "$(jq -c '[.findings[] | {kind, detail}]' bad-ibl.json)" "$(jq -c '[.findings[] | {kind, detail}]' bad.json)" \
	"iblinkinfo, miswired: the same findings as ibnetdiscover's"
assert_eq "$(jq -r .unreachable bad-ibl.json)" 3 "iblinkinfo: the island"
rc=0; bringup validate --fabric good-ibl.txt --wiring "$design" --fabric-rate 4xNDR --json > slow-ibl.json || rc=$?
assert_eq "$rc" 1 "iblinkinfo, a 4xNDR plan: exit"
assert_contains "$(jq -r '.detail' slow-ibl.json)" "trained at 4xSDR, expected 4xNDR" "iblinkinfo: lane speed read as the rate"

# rdma-core's own example of the output: adapters with the factory
# NodeDescription are their GUIDs, so a design by GUID matches cable for
# cable; the two links the capture shows at 1xSDR are slow.
F=$BR_TOP/tests/fixtures/ibnet
rc=0; bringup validate --fabric "$F/rdma-core-topology-example.txt" --wiring "$F/rdma-core-wiring.csv" \
	--fabric-rate 4xSDR --json > factory.json || rc=$?
assert_eq "$rc" 1 "factory names, two slow links: exit"
assert_eq "$(jq -r '(.matched|tostring) + "/" + (.design_links|tostring) + " " + ([.findings[].kind] | join(","))' factory.json)" \
	"7/7 slow,slow" "factory names: every cable matched by GUID"
rc=0; bringup validate --fabric "$F/rdma-core-topology-example.txt" --wiring "$F/rdma-core-wiring.csv" --json \
	> factory-any.json || rc=$?
assert_eq "$rc" 0 "factory names, no rate asked: exit"

# Two rails that meet only in hosts are two fabrics, whatever the hosts' cables.
rc=0; bringup validate --fabric good.txt --wiring "$F/two-rails-wiring.csv" --json > rails.json || rc=$?
assert_eq "$rc" 1 "two rails: exit"
assert_eq "$(jq -r '.design_components' rails.json)" 2 "two rails: two fabrics"
assert_contains "$(jq -r '.detail' rails.json)" "{leaf01}; {leaf02}" "two rails: the switches of each"

# Not ibnetdiscover's output: FILE:LINE and exit 2.
echo "hello" > junk.txt
rc=0; bringup validate --fabric junk.txt --wiring "$design" 2> err || rc=$?
assert_eq "$rc" 2 "junk: exit"
assert_contains "$(cat err)" "junk.txt:1: not ibnetdiscover output" "junk: message"
echo "fabric mode: as designed passes; the swap, the missing uplink and the island found from real ibnetdiscover and iblinkinfo"
