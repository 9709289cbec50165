#!/bin/sh
# Nodes behind a bastion: an ssh_config whose ProxyJump names a jump host
# (a real OpenSSH sshd on loopback that allows TCP forwarding) is taken, as
# OpenSSH takes it: every session goes through `ssh -W` to the jump host,
# the node's own host key and login still checked by the runner. The
# bastion's log shows one forward per node; with the bastion down the nodes
# fail unreachable through it, never reached around it. Before, ProxyJump
# was ignored and validate connected to the nodes directly.
. "$(dirname "$0")/lib.sh"
[ -x /usr/sbin/sshd ] || fail "needs OpenSSH's sshd (scripts/deps installs openssh-server)"
cd "$T"
N=4
bringup-sim --nodes $N --seed 8 --dir sim --maas-commission-ms 100 --maas-deploy-ms 100 --daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
export BRINGUP_DB=$T/inv.db
bringup import --manifest sim/rack.csv >/dev/null
bringup discover -q
bringup enlist --skip-configure --poll-ms 50 -q
assert_eq "$(bringup status --json | jq '[.nodes[] | select(.state == "deployed")] | length')" $N "deployed"

# The bastion: its own host key, a key of ours authorised on it.
mkdir -p /run/sshd 2>/dev/null || true
ssh-keygen -q -t ed25519 -N '' -f bastion_host >/dev/null
ssh-keygen -q -t ed25519 -N '' -f bastion_user >/dev/null
cp bastion_user.pub bastion_authorized
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > bastion_config <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $T/bastion_host
AuthorizedKeysFile $T/bastion_authorized
PidFile $T/bastion.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowTcpForwarding yes
LogLevel DEBUG1
CONF
echo "[127.0.0.1]:$port $(cut -d' ' -f1-2 bastion_host.pub)" > bastion_known_hosts
cat > ssh_config <<CONF
Host bastion
	HostName 127.0.0.1
	Port $port
	User $(id -un)
	IdentityFile $T/bastion_user
	IdentitiesOnly yes
	UserKnownHostsFile $T/bastion_known_hosts
	StrictHostKeyChecking yes
Host gpu-*
	ProxyJump bastion
Include $T/sim/ssh_config
CONF

# Bastion down first (on a copy of the inventory): unreachable through it.
cp inv.db down.db
rc=0
BRINGUP_DB=$T/down.db bringup validate --ssh-config ssh_config --json > down.json 2> down.err || rc=$?
assert_eq "$rc" 1 "validate with the bastion down ($(tail -3 down.err))"
BRINGUP_DB=$T/down.db bringup status --json > down-status.json
assert_eq "$(jq '[.nodes[] | select(.failure_kind == "ssh_unreachable")] | length' down-status.json)" $N \
	"unreachable with the bastion down ($(jq -c '[.nodes[] | {state, failure_kind, reason}][0]' down-status.json))"
assert_contains "$(jq -r '.nodes[0].reason' down-status.json)" "through bastion" \
	"the reason names the jump host"

/usr/sbin/sshd -f bastion_config -E "$T/bastion.log"
at_exit "kill \$(cat $T/bastion.pid) 2>/dev/null || true"
for _ in $(seq 50); do [ -s bastion.pid ] && break; sleep 0.1; done
rc=0
bringup validate --ssh-config ssh_config --json > up.json 2> up.err || rc=$?
assert_eq "$rc" 0 "validate through the bastion ($(tail -3 up.err))"
assert_eq "$(bringup status --json | jq '[.nodes[] | select(.state == "validated")] | length')" $N "validated"
# One forward per node, to that node's own sshd port.
for h in $(jq -r '.nodes[].hostname' sim/truth.json); do
	p=$(awk -v h="$h" '$1 == "Host" { cur = $2 } cur == h && $1 == "Port" { print $2 }' sim/ssh_config)
	[ -n "$p" ] || fail "$h: no port in the simulator's ssh_config"
	assert_eq "$(grep -c "target 127.0.0.1 port $p\b" bastion.log)" 1 "$h: forwards through the bastion to port $p"
done
echo "$N nodes validated through a jump host; with it down, $N unreachable through it"
