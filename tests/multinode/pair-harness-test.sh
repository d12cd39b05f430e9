#!/bin/sh
# pair-harness-test.sh TOOLS_VM KVER KMOD_DIR
#
# Self-test of the two-guest harness (tools/vm/run-vm-pair, run-vm --link),
# on the host, booting guests:
#  1. a pair with soft-RoCE: both guests report their link (ip link,
#     rdma link, ibv_devinfo), see each other's address, and the pair's
#     status and its summary are the nodes' own: node 0 exits 3, node 1
#     passes but loads a module that warns, so its own kernel-log check
#     fails it (126) while node 0's log is clean;
#  2. one guest whose other end never boots: a clear error, status 125;
#  3. a kernel without the soft-RoCE module (a module name that does not
#     exist stands in for it): a clear error, status 125, before any wait.
set -u
VM=$1
KVER=$2
KMOD=$3
fail=0
out=$(mktemp)
trap 'rm -f "$out"; [ -z "${lk:-}" ] || rm -rf "$lk"' EXIT

bad() {
	echo "FAIL: $*"
	fail=1
}
expect() { # STATUS REGEX...: the last run's status and output lines
	want=$1
	shift
	[ "$got" = "$want" ] || bad "exited $got, expected $want"
	for re in "$@"; do
		grep -Eq -- "$re" "$out" || bad "no output line matches '$re'"
	done
}

echo "== 1. a pair with soft-RoCE; node 0 fails, node 1's kernel warns"
"$VM/run-vm-pair" --quiet --kernel "$KVER" --kmod-dir "$KMOD" --rxe --timeout 300 -- \
	sh -c 'echo "node $HL_NODE: $HL_NODE_ADDR -> $HL_PEER_ADDR, $HL_NETDEV, $HL_RDMA_DEV"
	       ip -br addr show "$HL_NETDEV"
	       if [ "$HL_NODE" = 1 ]; then insmod "$HL_KMOD_DIR/hlvm_warn.ko"; exit 0; fi
	       exit 3' >"$out" 2>&1
got=$?
cat "$out"
expect 3 \
	'^\[node0\] node 0: 169\.254\.77\.1 -> 169\.254\.77\.2, hllink, rxe_link$' \
	'^\[node1\] node 1: 169\.254\.77\.2 -> 169\.254\.77\.1, hllink, rxe_link$' \
	'^\[node0\] link: node 0 169\.254\.77\.1/16 on hllink reaches node 1' \
	'^\[node1\] link: node 1 169\.254\.77\.2/16 on hllink reaches node 0' \
	'^\[node0\] link: +link rxe_link/1 state ACTIVE' \
	'^\[node1\] link: +link rxe_link/1 state ACTIVE' \
	'^\[node0\] link: +state:.*PORT_ACTIVE' \
	'^\[node1\] link: +active_mtu:.*4096' \
	'^\[node1\] run-vm: the guest kernel log on .* shows a problem' \
	'^run-vm-pair: node 0 exited 3, node 1 exited 126$'
if grep -q '^\[node0\] run-vm: the guest kernel log' "$out"; then
	bad "node 0's kernel log was blamed for node 1's warning"
fi

echo "== 2. one end of the link only"
lk=$(mktemp -d /tmp/hlvm-link.XXXXXX)
"$VM/run-vm" --quiet --kernel "$KVER" --link "$lk:0" --link-timeout 5 --timeout 200 -- \
	echo must-not-run >"$out" 2>&1
got=$?
cat "$out"
expect 125 'the link never came up: node 1 \(169\.254\.77\.2\) did not answer on hllink within 5 s'
grep -q must-not-run "$out" && bad "the command ran without a link"

echo "== 3. no soft-RoCE module"
"$VM/run-vm" --quiet --kernel "$KVER" --link "$lk:0" --rxe --env HLVM_RXE_MODULE=rdma_rxe_absent \
	--timeout 200 -- echo must-not-run >"$out" 2>&1
got=$?
cat "$out"
expect 125 'has no rdma_rxe_absent module: soft-RoCE \(CONFIG_RDMA_RXE\) is needed'
grep -q must-not-run "$out" && bad "the command ran without soft-RoCE"

[ $fail = 0 ] && echo "pair-harness-test: all passed"
exit $fail
