#!/bin/sh
# perftest-compare.sh HL_UCX [JSON]
#
# In the guest: ucx_perftest put_bw (UCT level, zero copy, host memory)
# between two processes over 127.0.0.1, with the gaudi_ipc transport and
# with UCX's own cma transport (process_vm_writev), taking turns for each
# size, ROUNDS times (default 3); prints the best bandwidth of each and
# their ratio (a shared host makes single runs noisy), and writes JSON.
set -u
HL_UCX=$1
JSON=${2:-}
ROUNDS=${ROUNDS:-3}
ip link set lo up
out=$(mktemp)
port=21000
bw() {  # TL DEV SIZE ITERS -> MB/s (overall average) on stdout
	port=$((port + 1))
	"$HL_UCX" timeout 300 ucx_perftest -p $port >/dev/null 2>&1 &
	srv=$!
	i=0
	while :; do
		"$HL_UCX" timeout 300 ucx_perftest 127.0.0.1 -p $port -t put_bw -D zcopy \
			-x "$1" -d "$2" -s "$3" -n "$4" -w $(( $4 / 10 + 1 )) >"$out" 2>&1
		grep -q "connect() failed" "$out" || break
		i=$((i + 1))
		[ $i -lt 50 ] || break
		sleep 0.2
	done
	wait $srv
	awk '/^Final:/ { print $7 }' "$out"
}
printf '%10s %14s %14s %8s\n' size "gaudi_ipc MB/s" "cma MB/s" ratio
[ -n "$JSON" ] && printf '{\n  "put_bw": [\n' >"$JSON"
first=1
for s in 64 1024 4096 16384 65536 262144 1048576 4194304 16777216 67108864; do
	if [ $s -le 65536 ]; then n=10000; elif [ $s -le 1048576 ]; then n=1000; else n=50; fi
	g=0
	c=0
	for r in $(seq "$ROUNDS"); do
		x=$(bw gaudi_ipc gaudi $s $n)
		g=$(awk -v a="$g" -v b="${x:-0}" 'BEGIN { print (b > a) ? b : a }')
		x=$(bw cma memory $s $n)
		c=$(awk -v a="$c" -v b="${x:-0}" 'BEGIN { print (b > a) ? b : a }')
	done
	r=$(awk -v g="$g" -v c="$c" 'BEGIN { if (c > 0) printf "%.3f", g / c; else print "nan" }')
	printf '%10s %14s %14s %8s\n' $s "$g" "$c" "$r"
	if [ -n "$JSON" ]; then
		[ $first = 1 ] || printf ',\n' >>"$JSON"
		first=0
		printf '    {"size": %s, "gaudi_ipc_mbs": %s, "cma_mbs": %s, "ratio": %s}' \
			$s "${g:-0}" "${c:-0}" "$r" >>"$JSON"
	fi
done
[ -n "$JSON" ] && printf '\n  ]\n}\n' >>"$JSON"
rm -f "$out"
