#!/usr/bin/env bash
# Run the UCT bridge benchmarks in the VM on each supported kernel.
#
# usage: tests/uct/bench/run-bench.sh [BUILD_DIR [OUT_DIR]]
#   BUILD_DIR  a configured and built tree, Release (no sanitizers): uct_bench,
#              the plugin, hl-ucx, kmod/<kver>; default build-release
#   OUT_DIR    where the results go; default BUILD_DIR/uct-bench
# Writes per kernel: bench-<series>.{txt,json} (uct_bench: the transport
# against the raw channel copy and the demo's staged path) and
# perftest-<series>.{txt,json} (ucx_perftest put_bw, gaudi_ipc against cma).
# The QEMU CPU model is fixed (HL_BENCH_CPU, default qemu64) and recorded.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=$(realpath "${1:-$TOP/build-release}")
OUT=$(realpath -m "${2:-$BUILD/uct-bench}")
CPU=${HL_BENCH_CPU:-qemu64}
mkdir -p "$OUT"
cd "$BUILD"
if ldd uct-bridge/libuct_gaudi_ipc.so | grep -q libasan; then
	echo "run-bench.sh: $BUILD is a sanitizer build; use a Release build" >&2
	exit 2
fi
"$TOP/tools/vm/kernels.sh" | while read -r series kver; do
	echo "== kernel $series ($kver), QEMU CPU model $CPU"
	"$TOP/tools/vm/run-vm" --kernel "$kver" --kmod-dir "$BUILD/kmod/$kver" \
		--cpu "$CPU" --timeout 1800 --rw "$OUT" \
		--insmod "habanalabs_sim num_devices=2" --insmod habanalabs_ipc \
		-- "$BUILD/tests/uct/uct_bench" --json "$OUT/bench-$series.json" \
		</dev/null | tee "$OUT/bench-$series.txt"
	echo "kernel $kver qemu-cpu $CPU vcpus 2" >>"$OUT/bench-$series.txt"
	"$TOP/tools/vm/run-vm" --kernel "$kver" --kmod-dir "$BUILD/kmod/$kver" \
		--cpu "$CPU" --timeout 1800 --rw "$OUT" \
		--insmod "habanalabs_sim num_devices=2" --insmod habanalabs_ipc \
		-- "$TOP/tests/uct/bench/perftest-compare.sh" "$BUILD/uct-bridge/hl-ucx" \
		"$OUT/perftest-$series.json" </dev/null | tee "$OUT/perftest-$series.txt"
	echo "kernel $kver qemu-cpu $CPU vcpus 2" >>"$OUT/perftest-$series.txt"
done
if command -v gnuplot >/dev/null; then
	"$TOP/tests/uct/bench/plot-bench.sh" "$OUT/bench.svg" "$OUT"/bench-*.json \
		"$OUT"/perftest-*.json
fi
