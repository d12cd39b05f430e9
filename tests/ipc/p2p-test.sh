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

# The stack on top: the demo's channel (libhlthunk's ipc calls) and UCX
# rows move the devices' memory through the engine where the kernel
# allows peer to peer (as ipc_dma_test.cpp's kernel_allows_p2p() decides),
# and it goes on without a channel, saying why, where it does not.
allowed=0
if [ "$(cat /sys/class/misc/hl_ipc/engine/p2pdma)" = 1 ]; then
	if [ -n "${HL_P2P_SWITCH:-}" ]; then
		allowed=1
	else
		family=$(awk -F: '/^cpu family/ { print $2 + 0; exit }' /proc/cpuinfo)
		grep -q '^vendor_id.*AuthenticAMD' /proc/cpuinfo && [ "$family" -ge 23 ] &&
			allowed=1
	fi
fi
# UCX logs to stdout unless told otherwise.
demo=$(UCX_LOG_LEVEL=diag "$hl_ipc" demo --sizes 64K 2>&1) || fail "hl-ipc demo failed: $demo"
echo "$demo" | grep -E '^ +(by|none here|\(no channel)|.*gaudi_ipc: device memory)'
said=$(echo "$demo" | grep -c 'gaudi_ipc: device memory takes the staged path on this host' ||
	true)
if [ $allowed = 1 ]; then
	echo "$demo" | grep -Eq '^ +by the DMA engine hl_ipc_testdma on ' ||
		fail "the demo's channel did not go through the DMA engine"
	echo "$demo" | grep -Eq '^ +64 KiB +[0-9.]+ MB/s .* [0-9.]+ MB/s +[0-9.]+x +[0-9.]+ MB/s' ||
		fail "the demo has no UCX row"
	echo "$demo" | grep -q 'transport moved it by its staged path' &&
		fail "UCX's channel path did not take the channel"
	[ "$said" = 0 ] || fail "the transport says device memory is staged, and it is not"
else
	echo "$demo" | grep -Eq '^ +none here: .*no DMA engine may reach it' ||
		fail "the demo does not say why there is no channel"
	# The transport moves device memory by its staged path, and says so
	# once in each of the demo's two processes.
	echo "$demo" | grep -q 'transport moved it by its staged path' ||
		fail "the demo does not show that UCX staged the device memory"
	[ "$said" -ge 1 ] && [ "$said" -le 2 ] ||
		fail "the transport said why device memory is staged $said times (once per process)"
fi
echo "p2p-test: the demo's channel and UCX rows $([ $allowed = 1 ] && echo "went through the engine" || echo "were refused, and it said why")"
