#!/usr/bin/env bash
# The peer-to-peer benchmark: one boot of the debug kernel (the kernel
# with CONFIG_PCI_P2PDMA) with two Gaudi-host devices and the stand-in DMA
# engine behind one PCIe switch, running p2p_bench (the channel against
# the engine's own raw copy) and hl-ipc bench (the channel against the
# staged path and the CPU's alternatives) side by side in that boot.
#
# usage: tests/ipc/bench/run-p2p-bench.sh [BUILD_DIR [OUT_DIR]]
#   BUILD_DIR  a configured and built tree; default build
#   OUT_DIR    where p2p-bench.txt (both tables) and p2p-bench.json go;
#              default BUILD_DIR/bench
# HL_BENCH_SIZES (default 64K,256K,1M,4M,16M) and HL_BENCH_ROUNDS
# (default 5) set the sizes and rounds.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=$(realpath "${1:-$TOP/build}")
OUT=$(realpath -m "${2:-$BUILD/bench}")
SIZES=${HL_BENCH_SIZES:-64K,256K,1M,4M,16M}
ROUNDS=${HL_BENCH_ROUNDS:-5}
CPU=${HL_BENCH_CPU:-qemu64}
case ${1:-} in -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
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
cd "$BUILD"
"$TOP/tools/vm/run-vm" --kernel debug --cpu "$CPU" --timeout 3000 --rw "$OUT" \
	--gaudi-host 2:128 --dma-engine --p2p-switch \
	--insmod hl_ipc_testdma --insmod "habanalabs_sim pci_memory=1" --insmod habanalabs_ipc \
	-- sh -c "tests/ipc/bench/p2p_bench --sizes $bytes --rounds $ROUNDS \
		--json '$OUT/p2p-bench.json' &&
		tools/hl-ipc/hl-ipc bench --sizes $SIZES" \
	</dev/null | tee "$OUT/p2p-bench.txt"
echo "kernel debug qemu-cpu $CPU vcpus 2" >>"$OUT/p2p-bench.txt"
