#!/usr/bin/env bash
# Run the habanalabs_ipc benchmark in the VM on each supported kernel and
# collect a table and JSON per kernel.
#
# usage: tests/ipc/bench/run-bench.sh [BUILD_DIR [OUT_DIR]] [-- ipc_bench args]
#   BUILD_DIR  a configured and built tree (ipc_bench, kmod/<kver>); default build
#   OUT_DIR    where bench-<series>.{txt,json} go; default BUILD_DIR/bench
# The QEMU CPU model is fixed (HL_BENCH_CPU, default qemu64, QEMU's own
# default under TCG) and recorded with the results.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=$(realpath "${1:-$TOP/build}")
OUT=$(realpath -m "${2:-$BUILD/bench}")
shift $(( $# > 2 ? 2 : $# )) || true
[ "${1:-}" = -- ] && shift
CPU=${HL_BENCH_CPU:-qemu64}
mkdir -p "$OUT"
cd "$BUILD"
"$TOP/tools/vm/kernels.sh" | while read -r series kver; do
	echo "== kernel $series ($kver), QEMU CPU model $CPU"
	"$TOP/tools/vm/run-vm" --kernel "$kver" --kmod-dir "$BUILD/kmod/$kver" \
		--cpu "$CPU" --timeout 1200 --rw "$OUT" \
		--insmod habanalabs_ipc --insmod hl_ipc_ceiling \
		-- "$BUILD/tests/ipc/bench/ipc_bench" --json "$OUT/bench-$series.json" "$@" \
		</dev/null | tee "$OUT/bench-$series.txt"
	echo "kernel $kver qemu-cpu $CPU vcpus 2" >>"$OUT/bench-$series.txt"
done
if command -v gnuplot >/dev/null; then
	"$TOP/tests/ipc/bench/plot-bench.sh" "$OUT/bench.svg" "$OUT"/bench-*.json
fi
