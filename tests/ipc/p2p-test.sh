#!/bin/sh
# The P2P configuration's guest: the engine and peer-to-peer tests, then
# what hl-ipc status says about them (the engine, whether the kernel
# allows peer to peer).
# usage: p2p-test.sh IPC_TEST HL_IPC [GTEST_FILTER]
set -eu
ipc_test=$1
hl_ipc=$2
filter=${3:-Dma.*:P2p.*}

"$ipc_test" --gtest_filter="$filter"

fail() { echo "p2p-test: $*" >&2; exit 1; }
out=$("$hl_ipc" status)
echo "$out" | grep -E '^  (ABI|DMA engine|peer to peer) '
echo "$out" | grep -Eq '^  ABI .*engines cpu dma$' || fail "INFO lists no DMA engine"
echo "$out" | grep -Eq '^  DMA engine +hl_ipc_testdma on [0-9a-f:.]+, 4 channels$' ||
	fail "hl-ipc status does not show the engine"
case $(cat /sys/class/misc/hl_ipc/engine/p2pdma) in
1) want='^  peer to peer +in this kernel' ;;
*) want='^  peer to peer +not in this kernel \(CONFIG_PCI_P2PDMA unset\)' ;;
esac
echo "$out" | grep -Eq "$want" || fail "hl-ipc status misreports peer to peer"
json=$("$hl_ipc" status --json)
echo "$json" | tr -d ' \n' | grep -q '"dma_engine":{"driver":"hl_ipc_testdma",' ||
	fail "hl-ipc status --json has no dma_engine: $json"
echo "p2p-test: hl-ipc status shows the engine and the kernel's peer-to-peer support"
