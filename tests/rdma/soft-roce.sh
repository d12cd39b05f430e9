#!/bin/sh
# soft-roce.sh COMMAND [ARG...]
#
# Brings up soft-RoCE (rdma_rxe) on a dummy network device, runs COMMAND
# with HL_RDMA_DEV naming the verbs device, and takes the device down
# again.  For the VM tests: the guest must have loaded dummy, rdma_rxe and
# a crc32 implementation (rxe computes its ICRC with the kernel's crc32
# and cannot load a module itself in the harness's guest).
# Exits with COMMAND's status, or 1 if soft-RoCE did not come up.
set -u
case ${1:-} in
-h | --help | "")
	sed -n '2,9s/^# \{0,1\}//p' "$0"
	exit 0
	;;
esac

NETDEV=${HL_RDMA_NETDEV:-hlrdma0}
RDEV=${HL_RDMA_DEV:-rxe_hl0}

fail() {
	echo "soft-roce.sh: $*" >&2
	exit 1
}

ip link add "$NETDEV" type dummy || fail "cannot create dummy device $NETDEV (modprobe dummy)"
# A 4096-byte RoCE MTU needs an IP MTU above 4096 + headers.
ip link set "$NETDEV" mtu 9000 up || fail "cannot bring $NETDEV up"
# An IPv4 address gives the device a RoCE v2 GID the test connects over.
ip addr add 10.77.0.1/24 dev "$NETDEV" || fail "cannot address $NETDEV"
rdma link add "$RDEV" type rxe netdev "$NETDEV" ||
	fail "rdma link add failed (modprobe rdma_rxe crc32_generic; see dmesg)"
rdma link show "$RDEV/1"
ibv_devinfo -d "$RDEV" | grep -E 'hca_id|transport|state|active_mtu' || true

export HL_RDMA_DEV="$RDEV"
"$@"
rc=$?

# A device that cannot be deleted still has users: fail the run.
if ! rdma link delete "$RDEV"; then
	echo "soft-roce.sh: rdma link delete $RDEV failed" >&2
	[ "$rc" -ne 0 ] || rc=1
fi
ip link del "$NETDEV"
exit "$rc"
