#!/bin/sh
# verbs-across.sh EXPECT_PATH MULTINODE_VERBS [MULTINODE_BENCH]
#
# In each guest of a run-vm-pair with --rxe: node 0 is host A (the
# initiator), node 1 host B (the target).  Both hosts must register their
# device memory by EXPECT_PATH (Documentation/rdma.md): soft-RoCE has no
# dma-buf memory regions, so on a Gaudi host (run-vm --gaudi-host, no CPU
# mapping, no peer to peer) that is "staged", over RAM-backed emulated
# devices "cpu-mapping".  Then, if given, the benchmark once at small
# sizes: that it runs and the device path delivers the bytes (figures:
# tests/multinode/bench/run-bench.sh).
set -u
EXPECT=$1
PROG=$2
BENCH=${3:-}
case $HL_NODE in
0) "$PROG" initiator --self "$HL_NODE_ADDR" --peer "$HL_PEER_ADDR" --expect-path "$EXPECT" ;;
1) "$PROG" target --self "$HL_NODE_ADDR" ;;
*) echo "verbs-across.sh: HL_NODE is '$HL_NODE' (run it under run-vm-pair)" >&2; exit 2 ;;
esac
rc=$?
[ $rc = 0 ] && [ -n "$BENCH" ] || exit $rc
"$(dirname "$0")/bench/bench-node.sh" "$BENCH" -- --sizes 64k,2m --runs 1 --smoke
