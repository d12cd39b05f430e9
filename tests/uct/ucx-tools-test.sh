#!/bin/sh
# ucx-tools-test.sh HL_UCX
#
# In the guest: UCX's own tools with the gaudi_ipc transport loaded by
# hl-ucx (LD_PRELOAD).
#  - ucx_info -d shows its component, memory domain (with memory
#    invalidation) and transport (its error handling; get_short with
#    UCX_GAUDI_IPC_CHANNELS=y only), and
#    ucx_info -c -f its configuration with descriptions;
#  - ucx_perftest at UCT level between two processes over 127.0.0.1:
#    put_bw, put_lat and get with -x gaudi_ipc, on the channel path and on
#    the staged path (UCX_GAUDI_IPC_CHANNELS=y / n);
#  - UCP-level RMA on host memory with UCX_TLS=gaudi_ipc,tcp: UCP picks the
#    transport for its RMA lanes (tcp carries the active messages).
#    With error handling (-e), its memory invalidation lets UCP take it
#    for the tag protocol's rendezvous lanes too.
set -u
HL_UCX=$1
fail=0
note() { echo "ucx-tools-test: $*"; }
bad() { note "FAIL: $*"; fail=1; }

ip link set lo up || { note "cannot bring lo up"; exit 1; }
out=$(mktemp)

# ---- ucx_info
"$HL_UCX" ucx_info -d >"$out" 2>&1 || bad "ucx_info -d exited with $?"
for want in "Component: gaudi_ipc" "Memory domain: gaudi_ipc" "remote key: 112 bytes" \
	"Transport: gaudi_ipc" "Device: gaudi" "put_zcopy: unlimited" \
	"get_bcopy: <= 8K" "put_short: <= 256" "bandwidth:" "latency:" "overhead:" \
	"error handling: buffer (zcopy), remote access, peer failure, ep_check" \
	"memory invalidation is supported"; do
	grep -q "$want" "$out" || bad "ucx_info -d does not show '$want'"
done
# get_short completes inside the call: only an interface of channels alone
# offers it.
! grep -q "get_short" "$out" || bad "ucx_info -d shows get_short with the staged path on"
UCX_GAUDI_IPC_CHANNELS=y "$HL_UCX" ucx_info -d >"$out" 2>&1 ||
	bad "ucx_info -d with CHANNELS=y exited with $?"
grep -q "get_short: <= 256" "$out" || bad "ucx_info -d with CHANNELS=y does not show get_short"
"$HL_UCX" ucx_info -c -f >"$out" 2>&1 || bad "ucx_info -c -f exited with $?"
for var in CHANNELS BW LAT OVERHEAD MAX_INFLIGHT SYNC_COPY_MAX BCOPY_SIZE \
	SEG_SIZE ASYNC_COPIES STAGING_SIZE STAGING_SLOTS STAGING_DEPTH PEER_TIMEOUT \
	DMA_TIMEOUT SERVE_LINGER SERVE_SPIN; do
	grep -q "^UCX_GAUDI_IPC_$var=" "$out" || bad "ucx_info -c -f lacks UCX_GAUDI_IPC_$var"
done
grep -q "staged DMA path" "$out" || bad "ucx_info -c -f lacks the CHANNELS description"
note "ucx_info: component, domain, transport and configuration shown"

# ---- ucx_perftest, UCT level: server and client in two processes
port=20000
perftest() {  # NAME ENV... -- CLIENT-ARGS...
	name=$1
	shift
	envs=""
	while [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	shift
	port=$((port + 1))
	env $envs "$HL_UCX" timeout 120 ucx_perftest -p $port >"$out.srv" 2>&1 &
	srv=$!
	# The client retries until the server listens.
	i=0
	while :; do
		env $envs "$HL_UCX" timeout 120 ucx_perftest 127.0.0.1 -p $port "$@" >"$out" 2>&1
		rc=$?
		grep -q "connect() failed" "$out" || break
		i=$((i + 1))
		[ $i -lt 50 ] || break
		sleep 0.2
	done
	wait $srv
	src=$?
	if [ $rc != 0 ] || [ $src != 0 ] || ! grep -q "^Final:" "$out"; then
		bad "$name: client $rc, server $src"
		cat "$out" "$out.srv"
		return
	fi
	note "$name: $(grep '^Final:' "$out" | tr -s ' ')"
}

for chan in y n; do
	e="UCX_GAUDI_IPC_CHANNELS=$chan"
	perftest "put_bw zcopy 1 MiB, CHANNELS=$chan" $e -- \
		-t put_bw -D zcopy -x gaudi_ipc -d gaudi -s 1048576 -n 100 -w 10
	perftest "put_lat short 8 B, CHANNELS=$chan" $e -- \
		-t put_lat -D short -x gaudi_ipc -d gaudi -s 8 -n 500 -w 50
	perftest "get zcopy 64 KiB, CHANNELS=$chan" $e -- \
		-t get -D zcopy -x gaudi_ipc -d gaudi -s 65536 -n 200 -w 20
done
perftest "put_bw bcopy 4 KiB" -- \
	-t put_bw -D bcopy -x gaudi_ipc -d gaudi -s 4096 -n 500 -w 50

# ---- UCP: host-memory RMA with the transport in UCX_TLS
for t in "ucp_put_bw" "ucp_get"; do
	perftest "$t 256 KiB, UCX_TLS=gaudi_ipc,tcp" UCX_TLS=gaudi_ipc,tcp \
		UCX_LOG_LEVEL=info -- -t $t -s 262144 -n 100 -w 10
	grep -q "rma(gaudi_ipc/gaudi)" "$out" ||
		bad "$t: UCP did not choose gaudi_ipc for its RMA lanes"
done

# UCP with error handling (-e: UCP_ERR_HANDLING_MODE_PEER) takes a
# connect-to-interface transport for its rendezvous lanes only if its
# memory domain can invalidate (ucp/wireup/select.c): the tag protocol's
# large messages then go over gaudi_ipc, not tcp alone.
perftest "tag_bw 1 MiB with error handling, UCX_TLS=gaudi_ipc,tcp" UCX_TLS=gaudi_ipc,tcp \
	UCX_LOG_LEVEL=info -- -t tag_bw -s 1048576 -n 20 -w 2 -e
grep -q "tag(tcp/lo gaudi_ipc/gaudi)" "$out" ||
	bad "tag_bw -e: UCP did not choose gaudi_ipc for its rendezvous lanes: $(grep ep_cfg "$out")"

rm -f "$out" "$out.srv"
[ $fail = 0 ] && note "all passed"
exit $fail
