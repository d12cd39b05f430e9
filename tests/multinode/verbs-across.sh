#!/bin/sh
# verbs-across.sh MULTINODE_VERBS [MULTINODE_BENCH]
#
# In each guest of a run-vm-pair with --rxe: node 0 is host A (the
# initiator), node 1 host B (the target).  Soft-RoCE has no dma-buf memory
# regions, so both hosts must register their device memory through the
# CPU-mapping path (Documentation/rdma.md).  Then, if given, the benchmark
# once at small sizes: that it runs and each path delivers the bytes
# (figures: tests/multinode/bench/run-bench.sh).
set -u
PROG=$1
BENCH=${2:-}
case $HL_NODE in
0) "$PROG" initiator --self "$HL_NODE_ADDR" --peer "$HL_PEER_ADDR" --expect-path cpu-mapping ;;
1) "$PROG" target --self "$HL_NODE_ADDR" ;;
*) echo "verbs-across.sh: HL_NODE is '$HL_NODE' (run it under run-vm-pair)" >&2; exit 2 ;;
esac
rc=$?
[ $rc = 0 ] && [ -n "$BENCH" ] || exit $rc
"$(dirname "$0")/bench/bench-node.sh" "$BENCH" -- --sizes 64k,1m --runs 1 --smoke
