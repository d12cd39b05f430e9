#!/bin/sh
# verbs-across.sh MULTINODE_VERBS
#
# In each guest of a run-vm-pair with --rxe: node 0 is host A (the
# initiator), node 1 host B (the target).  Soft-RoCE has no dma-buf memory
# regions, so both hosts must register their device memory through the
# CPU-mapping path (Documentation/rdma.md).
set -u
PROG=$1
case $HL_NODE in
0) exec "$PROG" initiator --self "$HL_NODE_ADDR" --peer "$HL_PEER_ADDR" --expect-path cpu-mapping ;;
1) exec "$PROG" target --self "$HL_NODE_ADDR" ;;
*) echo "verbs-across.sh: HL_NODE is '$HL_NODE' (run it under run-vm-pair)" >&2; exit 2 ;;
esac
