#!/bin/sh
# ucx-across.sh HL_UCX MULTINODE_UCP
#
# In each guest of a run-vm-pair with --rxe (node 0 and node 1), with the
# gaudi_ipc transport loaded by hl-ucx:
#  1. ucx_perftest between the hosts over rc_verbs on host memory (node 1
#     serves, node 0 measures): bandwidth and latency printed, not
#     asserted;
#  2. the UCP job: ranks 2N and 2N+1 on node N, UCX_TLS=rc,gaudi_ipc as an
#     operator would set it; rank 3 is killed in the middle (it must die
#     of SIGKILL; every other rank must pass).
set -u
HL_UCX=$1
PROG=$2
fail=0
note() { echo "ucx-across: $*"; }
bad() { note "FAIL: $*"; fail=1; }
out=$(mktemp -d)

# ---- 1. ucx_perftest across hosts, rc_verbs, host memory
port=13400
perftest() { # NAME CLIENT-ARGS...
	name=$1
	shift
	port=$((port + 1))
	if [ "$HL_NODE" = 1 ]; then
		"$HL_UCX" timeout 300 ucx_perftest -p $port >"$out/srv" 2>&1 ||
			{ bad "$name: the server failed"; cat "$out/srv"; }
		return
	fi
	# The client retries until the other host's server listens.
	i=0
	while :; do
		"$HL_UCX" timeout 300 ucx_perftest "$HL_PEER_ADDR" -p $port "$@" >"$out/cli" 2>&1
		rc=$?
		grep -q "connect() failed\|Connection refused" "$out/cli" || break
		i=$((i + 1))
		[ $i -lt 300 ] || break
		sleep 0.2
	done
	if [ $rc != 0 ] || ! grep -q "^Final:" "$out/cli"; then
		bad "$name: client status $rc"
		cat "$out/cli"
		return
	fi
	# Final: iterations, latency 50%ile/average/overall (us), bandwidth
	# average/overall (MB/s), message rate average/overall: the overall
	# figures of the whole run.
	note "$name: $(awk '/^Final:/ { printf "latency %s us (median %s), bandwidth %s MB/s, %s msg/s", $5, $3, $7, $9 }' "$out/cli")"
}
dev=${HL_RDMA_DEV}:1
# Soft-RoCE does not say in a completion whether a RoCE v2 packet came
# over IPv4 (UCX reads that from the completion's service level, as mlx5
# NICs encode it), so UCX's UD transport misreads the destination GID of
# every packet and drops it: without this, UCP's wire-up over UD never
# completes (Documentation/multi-node.md).
export UCX_UD_ETH_DGID_CHECK=n
perftest "ucx_perftest put_bw  rc_verbs 1 MiB host memory" \
	-t put_bw -D zcopy -x rc_verbs -d "$dev" -s 1048576 -n 40 -w 4
perftest "ucx_perftest put_lat rc_verbs 8 B host memory" \
	-t put_lat -x rc_verbs -d "$dev" -s 8 -n 200 -w 20
export UCX_TLS=rc UCX_NET_DEVICES=$dev
perftest "ucx_perftest ucp_put_bw UCX_TLS=rc 1 MiB host memory" \
	-t ucp_put_bw -s 1048576 -n 40 -w 4
unset UCX_TLS UCX_NET_DEVICES

# ---- 2. the UCP job: four processes, two per host
export UCX_TLS=rc,gaudi_ipc UCX_NET_DEVICES=$dev UCX_LOG_LEVEL=info
# Two more for soft-RoCE (Documentation/multi-node.md): it takes a retry
# count of 7 (UCX's default) as "for ever", so a dead peer would never
# fail an operation; and it raises "last WQE reached" for a failed QP
# each time its responder runs, where UCX expects it once and aborts on
# an assertion when it comes again.
export UCX_RC_RETRY_COUNT=6 UCX_IB_ASYNC_EVENTS=n
for l in 0 1; do
	r=$((2 * HL_NODE + l))
	"$HL_UCX" "$PROG" --rank $r --self "$HL_NODE_ADDR" --peer "$HL_PEER_ADDR" \
		>"$out/rank$r" 2>&1 &
	eval "pid$l=\$!"
done
wait "$pid0"
st0=$?
wait "$pid1"
st1=$?
for l in 0 1; do
	r=$((2 * HL_NODE + l))
	sed "s/^/[rank $r] /" "$out/rank$r"
done
r0=$((2 * HL_NODE))
[ $st0 = 0 ] || bad "rank $r0 exited $st0"
if [ "$HL_NODE" = 1 ]; then
	[ $st1 = 137 ] || bad "rank 3 exited $st1, expected to be killed (137)"
else
	[ $st1 = 0 ] || bad "rank 1 exited $st1"
fi
# UCX's own account of its choice (UCX_LOG_LEVEL=info): endpoint
# configurations whose remote memory access goes through gaudi_ipc and
# through rc_verbs on the soft-RoCE device.
grep -h "ep_cfg\[" "$out"/rank* | sed 's/.*\(ep_cfg\[\)/UCX reports: \1/' | sort -u
grep -qh "ep_cfg.*rma(gaudi_ipc/gaudi" "$out"/rank* ||
	bad "UCX did not report an endpoint with rma(gaudi_ipc/gaudi)"
grep -qh "ep_cfg.*rma(rc_verbs/$dev" "$out"/rank* ||
	bad "UCX did not report an endpoint with rma(rc_verbs/$dev)"
# On a Gaudi host as it is (run-vm --gaudi-host: no CPU mapping of device
# memory and, on Debian's kernels, no peer to peer), the transport moves
# device memory by its staged path and says why, once per process.
if [ "${HL_GAUDI_HOST:-0}" != 0 ]; then
	for l in 0 1; do
		r=$((2 * HL_NODE + l))
		n=$(grep -c "gaudi_ipc: device memory takes the staged path on this host" \
			"$out/rank$r" || true)
		[ "$n" = 1 ] || bad "rank $r: the transport said $n times that device memory is staged (once expected)"
	done
	[ $fail = 0 ] && note "device memory within each host: gaudi_ipc's staged path, said once per process"
fi
rm -rf "$out"
[ $fail = 0 ] && note "all passed"
exit $fail
