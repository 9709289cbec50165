#!/bin/sh
# Operator mistakes in validate's SSH settings stop the stage before any
# node is reached: exit 2 saying what to fix, every node still deployed, no
# event, no ticket. Each used to fail every node, one "validate failed"
# ticket after another sending a technician to the provisioning network: a
# key that cannot be read, a public key or no key at all, a key behind a
# passphrase, a known_hosts missing or empty under the strict policy, a user
# that is no user name. What a node alone can answer (its host key, its
# authorized_keys, whether that user is the one holding the key) stays per
# node.
. "$(dirname "$0")/lib.sh"
cd "$T"

bringup-sim --no-hosts --nodes 2 --dir sim --seed 4 --maas-commission-ms 100 --maas-deploy-ms 100 \
	--daemon >/dev/null
at_exit "stop_sim $T/sim"
set -a; . ./sim/env; set +a
bringup import --db t.db --manifest sim/rack.csv >/dev/null
bringup discover --db t.db -q
bringup enlist --db t.db --skip-configure --poll-ms 50 --no-ssh-key -q
assert_eq "$(sqlite3 t.db "select count(*) from nodes where state = 'deployed'")" 2 "deployed"

ssh-keygen -q -t ed25519 -N '' -C validator@bringup -f id >/dev/null
ssh-keygen -q -t ed25519 -N 'a passphrase' -f locked >/dev/null
ssh-keygen -q -t rsa -b 2048 -m PEM -N 'a passphrase' -f locked-pem >/dev/null
echo "just some text" > notakey
echo "[127.0.0.1]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBringupTestKeyOnly" > known_hosts
printf '# no keys yet\n\n' > empty_known_hosts
unset BRINGUP_SSH_USER BRINGUP_SSH_CONFIG
export BRINGUP_SSH_KEY=$T/id BRINGUP_KNOWN_HOSTS=$T/known_hosts

before=$(inventory_state t.db)
refused() { # WANT-IN-STDERR ARGS...
	want=$1; shift
	rc=0
	bringup validate --db t.db --timeout 5 "$@" > out 2> err || rc=$?
	assert_eq "$rc" 2 "validate $*"
	assert_contains "$(cat err)" "$want" "validate $*: message"
	assert_eq "$(inventory_state t.db)" "$before" "validate $*: inventory"
}

refused "$T/nope" --ssh-key "$T/nope"
refused "is a public key" --ssh-key "$T/id.pub"
refused "is not a private key" --ssh-key "$T/notakey"
refused "passphrase" --ssh-key "$T/locked"
refused "passphrase" --ssh-key "$T/locked-pem"
refused "does not exist" --known-hosts "$T/no_known_hosts"
refused "holds no host key" --known-hosts "$T/empty_known_hosts"
refused "cannot be an account" --ssh-user "ubuntu admin"
refused "cannot be an account" --ssh-user "-oProxyCommand=x"
if [ "$(id -u)" -ne 0 ]; then
	chmod 000 id
	refused "$T/id"
	chmod 600 id
fi
# An ssh_config whose proxy command the runner cannot run (read as ssh
# reads it, through Include) stops the stage naming the keyword: connecting
# directly would go around the site's bastion. One ssh cannot read either.
printf 'Host *\n\tProxyCommand nc -X connect -x proxy.example:3128 %%h %%p\n' > proxy.conf
printf 'Include %s/proxy.conf\n' "$T" > site.conf
printf 'Host gpu-*\n\tNoSuchOption yes\n' > broken.conf
refused "ssh config sets ProxyCommand nc -X connect" --ssh-config "$T/site.conf"
refused "line 2: Bad configuration option" --ssh-config "$T/broken.conf"
# The same through the environment, as `bringup run` hands it on.
BRINGUP_SSH_KEY=$T/id.pub refused "is a public key"

# accept-new with no known_hosts yet is no mistake: the nodes are tried
# (and, with no sshd behind them, fail on their own).
rc=0
bringup validate --db t.db --timeout 5 --host-key-policy accept-new --known-hosts "$T/new_known_hosts" \
	> out 2> err || rc=$?
assert_eq "$rc" 1 "validate tried the nodes"
assert_eq "$(sqlite3 t.db "select count(*) from nodes where state = 'failed'")" 2 "failed on their own"
echo "unreadable/public/passphrase key, missing/empty known_hosts, bad user, proxy command, bad ssh_config: exit 2, nothing touched"
