#!/bin/sh
# bench-node.sh MULTINODE_BENCH [OUT_PREFIX] [-- ARGS...]
#
# In each guest of a run-vm-pair with --rxe: node 1 serves, node 0 runs
# the benchmark, writing OUT_PREFIX.json when given.  ARGS go to both
# (--sizes must match), --runs and --smoke to node 0 only.
set -u
PROG=$1
shift
out=
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	out=$1
	shift
fi
[ "${1:-}" = -- ] && shift
if [ "$HL_NODE" = 1 ]; then
	# The target takes only the sizes.
	sizes=
	while [ $# -gt 0 ]; do
		[ "$1" = --sizes ] && sizes="--sizes $2"
		shift
	done
	# shellcheck disable=SC2086
	exec "$PROG" target --self "$HL_NODE_ADDR" $sizes
fi
exec "$PROG" initiator --self "$HL_NODE_ADDR" --peer "$HL_PEER_ADDR" \
	${out:+--json "$out.json"} "$@"
