#!/usr/bin/env bash
# Run the two-host benchmark (multinode_bench) on each supported kernel:
# two guests joined by soft-RoCE, a table and JSON per kernel.
#
# usage: tests/multinode/bench/run-bench.sh [BUILD_DIR [OUT_DIR]] [-- multinode_bench args]
#   BUILD_DIR  a configured and built tree (multinode_bench, kmod/<kver>);
#              default build (use a Release build for figures)
#   OUT_DIR    where bench-<series>.{txt,json} go; default BUILD_DIR/multinode-bench
# The QEMU CPU model is fixed (HL_BENCH_CPU, default qemu64, QEMU's own
# default under TCG) and recorded with the results.  HL_BENCH_KERNELS
# (e.g. "6.12") limits the kernel series.  HL_BENCH_CONFIG picks the
# hosts: gaudi-host (default: device memory in a PCI BAR, as a Gaudi host
# gives it, so device memory crosses staged) or ram (RAM-backed emulated
# devices, whose memory soft-RoCE reaches through a CPU mapping); the
# files are bench-<series>.* and bench-<series>-ram.*.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=$(realpath "${1:-$TOP/build}")
OUT=$(realpath -m "${2:-$BUILD/multinode-bench}")
shift $(( $# > 2 ? 2 : $# )) || true
[ "${1:-}" = -- ] && shift
CPU=${HL_BENCH_CPU:-qemu64}
case ${HL_BENCH_CONFIG:-gaudi-host} in
gaudi-host) hosts=(--gaudi-host 2 --insmod "habanalabs_sim pci_memory=1") suffix= ;;
ram) hosts=(--insmod "habanalabs_sim num_devices=2") suffix=-ram ;;
*) echo "run-bench.sh: HL_BENCH_CONFIG is gaudi-host or ram" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
cd "$BUILD"
"$TOP/tools/vm/kernels.sh" | while read -r series kver; do
	case " ${HL_BENCH_KERNELS:-$series} " in *" $series "*) ;; *) continue ;; esac
	echo "== kernel $series ($kver), QEMU CPU model $CPU, two guests, ${HL_BENCH_CONFIG:-gaudi-host}"
	"$TOP/tools/vm/run-vm-pair" --kernel "$kver" --kmod-dir "$BUILD/kmod/$kver" \
		--cpu "$CPU" --timeout 3000 --rw "$OUT" --rxe \
		"${hosts[@]}" --insmod habanalabs_ipc \
		-- "$TOP/tests/multinode/bench/bench-node.sh" \
		"$BUILD/tests/multinode/multinode_bench" "$OUT/bench-$series$suffix" -- "$@" \
		</dev/null | grep -v '^\[node1\] link' | sed 's/^\[node0\] //' |
		tee "$OUT/bench-$series$suffix.txt"
	echo "kernel $kver qemu-cpu $CPU vcpus 2 per guest, two guests, ${HL_BENCH_CONFIG:-gaudi-host}" \
		>>"$OUT/bench-$series$suffix.txt"
done
