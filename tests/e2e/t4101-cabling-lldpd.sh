#!/bin/sh
# Cabling from real LLDP: three hosts and a switch in network namespaces,
# veth pairs cabled as the wiring list says except that lab-h1's and
# lab-h2's cables are exchanged and lab-h3's second port is unplugged; real
# lldpd runs in each namespace, bringup-probe reads each host's real
# `lldpctl -f xml`, and validate finds exactly the swap and the missing
# link.
. "$(dirname "$0")/lib.sh"
need_root
cd "$T"
command -v lldpd >/dev/null || fail "lldpd is not installed (scripts/deps)"
p=brt$$
sw=${p}sw
cleanup() {
	for ns in $sw ${p}h1 ${p}h2 ${p}h3; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill "$pid" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null
	done
	return 0
}
at_exit cleanup
for ns in $sw ${p}h1 ${p}h2 ${p}h3; do ip netns add "$ns"; done
# cable NS IFACE SWITCHPORT: a veth pair from the host's IFACE to the switch port
cable() {
	ip link add "${p}a" type veth peer name "${p}b"
	ip link set "${p}a" netns "$1"; ip -n "$1" link set "${p}a" name "$2"; ip -n "$1" link set "$2" up
	ip link set "${p}b" netns "$sw"; ip -n "$sw" link set "${p}b" name "$3"; ip -n "$sw" link set "$3" up
}
cable ${p}h1 eth0 swp2   # by design swp1: exchanged with lab-h2
cable ${p}h2 eth0 swp1   # by design swp2
cable ${p}h3 eth0 swp3
# eth1 is designed to swp4: its cable ends nowhere (the far end stays in
# the host's namespace, where nothing answers LLDP).
ip link add "${p}a" type veth peer name "${p}b"
ip link set "${p}a" netns ${p}h3; ip -n ${p}h3 link set "${p}a" name eth1; ip -n ${p}h3 link set eth1 up
ip link set "${p}b" netns ${p}h3
cat > wiring.csv <<W
hostname,host_port,switch,switch_port
lab-h1,eth0,sw01,swp1
lab-h2,eth0,sw01,swp2
lab-h3,eth0,sw01,swp3
lab-h3,eth1,sw01,swp4
W

mkdir -p ctl facts
# lldpd hands its control socket to its unprivileged half (user _lldpd),
# which must reach it: mktemp's 0700 would refuse it.
chmod 755 "$T" ctl
ip netns exec $sw lldpd -u "$T/ctl/sw" -I swp1,swp2,swp3
# lldpd answers on its socket a moment after it starts.
for i in $(seq 1 50); do ip netns exec $sw lldpcli -u "$T/ctl/sw" show configuration >/dev/null 2>&1 && break; sleep 0.1; done
ip netns exec $sw lldpcli -u "$T/ctl/sw" configure system hostname sw01 >/dev/null
ip netns exec $sw lldpcli -u "$T/ctl/sw" configure lldp portidsubtype ifname >/dev/null
ip netns exec $sw lldpcli -u "$T/ctl/sw" configure lldp tx-interval 1 >/dev/null
for h in 1 2 3; do ip netns exec ${p}h$h lldpd -u "$T/ctl/h$h" -I eth0,eth1; done
ip netns exec $sw lldpcli -u "$T/ctl/sw" update >/dev/null
# Neighbours show within seconds of the switch's update.
for i in $(seq 1 60); do
	ok=1
	for h in 1 2 3; do
		ip netns exec ${p}h$h lldpctl -u "$T/ctl/h$h" -f xml > h$h.xml 2>/dev/null
		grep -q 'sw01' h$h.xml && grep -q 'swp' h$h.xml || ok=0
	done
	[ $ok = 1 ] && break
	sleep 0.5
done
[ $ok = 1 ] || fail "no LLDP neighbours after 30 s: $(cat h1.xml)"

for h in 1 2 3; do bringup-probe --lldp-xml h$h.xml > facts/lab-h$h.json; done
assert_eq "$(jq -r '.lldp.neighbors[] | .local_port + ">" + .system_name + ":" + .port_id' facts/lab-h1.json)" \
	"eth0>sw01:swp2" "lab-h1's real neighbour"

printf 'hostname,rack,unit,bmc,bmc_user,bmc_password,profile\n' > rack.csv
for h in 1 2 3; do printf 'lab-h%s,r01,%s,127.0.0.1:%s,root,env:NO_SUCH_PASSWORD,xe9680\n' $h $h $h >> rack.csv; done
export BRINGUP_DB=$T/inv.db
bringup import --manifest rack.csv >/dev/null
bringup validate --force --facts facts --wiring wiring.csv --json lab-h1 lab-h2 lab-h3 > v.json || true
cabling() { jq -r --arg h "$1" ".nodes[] | select(.hostname == \$h) | .checks[] | select(.name == \"cabling\") | $2" v.json; }

assert_eq "$(cabling lab-h1 .result)" fail "lab-h1 cabling"
assert_eq "$(cabling lab-h1 .detail)" \
	"eth0: sees sw01 swp2, expected sw01 swp1: swapped with lab-h2 eth0: swap the cables on sw01 swp1 and sw01 swp2" \
	"lab-h1: exactly the swap"
assert_eq "$(cabling lab-h2 .detail)" \
	"eth0: sees sw01 swp1, expected sw01 swp2: swapped with lab-h1 eth0: swap the cables on sw01 swp2 and sw01 swp1" \
	"lab-h2: exactly the swap"
assert_eq "$(cabling lab-h3 .result)" fail "lab-h3 cabling"
assert_eq "$(cabling lab-h3 .detail)" \
	"eth1: no LLDP neighbour, expected sw01 swp4 (wiring line 5): check the cable is plugged in at both ends" \
	"lab-h3: exactly the missing link"

# Re-validating lab-h2 alone still tells the swap from lab-h1's stored facts.
bringup validate --force --facts facts --wiring wiring.csv --json lab-h2 > v2.json || true
assert_contains "$(jq -r '.nodes[0].checks[] | select(.name == "cabling") | .detail' v2.json)" "swapped with lab-h1 eth0" \
	"swap told from stored facts"
echo "real lldpd: the swap and the missing link found, nothing else"
