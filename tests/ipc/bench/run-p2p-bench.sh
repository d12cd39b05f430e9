#!/usr/bin/env bash
# The peer-to-peer benchmark: one boot of the project's own kernel with
# CONFIG_PCI_P2PDMA, in its release flavour (tools/vm/debug-kernel.sh
# --release: no KASAN or lockdep, which slow the channel's kernel code
# more than the engine's copy), with two Gaudi-host devices and the
# stand-in DMA engine behind one PCIe switch, running p2p_bench (the
# channel against the engine's own raw copy) and hl-ipc bench (the channel
# against the staged path and the CPU's alternatives) side by side in that
# boot.  Builds that kernel (cached) and the modules for it when missing.
#
# usage: tests/ipc/bench/run-p2p-bench.sh [BUILD_DIR [OUT_DIR]]
#   BUILD_DIR  a configured and built tree; default build
#   OUT_DIR    where p2p-bench.txt (both tables) and p2p-bench.json go;
#              default BUILD_DIR/bench
# HL_BENCH_SIZES (default 64K,256K,1M,4M,16M) and HL_BENCH_ROUNDS
# (default 5) set the sizes and rounds; HL_BENCH_KERNEL=debug runs it on
# the debug kernel instead (default release).
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=$(realpath "${1:-$TOP/build}")
OUT=$(realpath -m "${2:-$BUILD/bench}")
SIZES=${HL_BENCH_SIZES:-64K,256K,1M,4M,16M}
ROUNDS=${HL_BENCH_ROUNDS:-5}
CPU=${HL_BENCH_CPU:-qemu64}
KERNEL=${HL_BENCH_KERNEL:-release}
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;; esac
case $KERNEL in
release) flavour=--release ;;
debug) flavour= ;;
*) echo "run-p2p-bench.sh: HL_BENCH_KERNEL is release or debug, not '$KERNEL'" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
bytes=
for s in ${SIZES//,/ }; do
	case $s in
	*[Kk]) n=$((${s%?} << 10)) ;;
	*[Mm]) n=$((${s%?} << 20)) ;;
	*) n=$s ;;
	esac
	bytes=${bytes:+$bytes,}$n
done
# shellcheck disable=SC2086
"$TOP/tools/vm/debug-kernel.sh" $flavour
# shellcheck disable=SC1090,SC2086
. "$("$TOP/tools/vm/debug-kernel.sh" $flavour --env)"
KMODS=$BUILD/kmod/$HLDK_KVER
HL_KDIR=$HLDK_BUILD "$TOP/tools/build-kmods.sh" "$HLDK_KVER" "$KMODS"
cd "$BUILD"
"$TOP/tools/vm/run-vm" --kernel "$KERNEL" --kmod-dir "$KMODS" --cpu "$CPU" --timeout 3000 --rw "$OUT" \
	--gaudi-host 2:128 --dma-engine --p2p-switch \
	--insmod hl_ipc_testdma --insmod "habanalabs_sim pci_memory=1" --insmod habanalabs_ipc \
	-- sh -c "tests/ipc/bench/p2p_bench --sizes $bytes --rounds $ROUNDS \
		--json '$OUT/p2p-bench.json' &&
		tools/hl-ipc/hl-ipc bench --sizes $SIZES" \
	</dev/null | tee "$OUT/p2p-bench.txt"
echo "kernel $KERNEL ($HLDK_KVER) qemu-cpu $CPU vcpus 2" >>"$OUT/p2p-bench.txt"
