#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM without the module loaded: bad parameters are refused,
# the defaults are 2 devices of 256 MiB with 48 MiB of SRAM, an open node or a live dma-buf
# pins the module, and it unloads cleanly afterwards.
# usage: params.sh SIM_TEST_BINARY
set -u
KO=$HL_KMOD_DIR/habanalabs_sim.ko
TEST=$1
fail() { echo "params.sh: FAIL: $*" >&2; rmmod habanalabs_sim 2>/dev/null; exit 1; }

for bad in num_devices=0 num_devices=9 memory_mb=0 sram_mb=49; do
	if insmod "$KO" $bad 2>/dev/null; then
		fail "insmod with $bad succeeded"
	fi
done
[ ! -d /sys/module/habanalabs_sim ] || fail "module loaded after bad params"

insmod "$KO" || fail "insmod with defaults"
[ "$(cat /sys/module/habanalabs_sim/parameters/sram_mb)" = 48 ] ||
	fail "default sram_mb is not Gaudi2's 48"
[ -c /dev/hlsim0 ] && [ -c /dev/hlsim1 ] && [ -c /dev/hlsim_controlD1 ] ||
	fail "nodes of 2 devices missing"
[ ! -e /dev/hlsim2 ] || fail "a third device exists"
for i in 0 1; do
	sz=$(cat /sys/class/habanalabs_sim/hlsim$i/memory_size)
	[ "$sz" = 268435456 ] || fail "memory_size of hlsim$i is $sz"
done
[ "$(cat /sys/class/habanalabs_sim/hlsim0/pci_addr)" = 0000:10:00.0 ] ||
	fail "pci_addr of hlsim0"
[ "$(cat /sys/class/habanalabs_sim/hlsim1/pci_addr)" = 0000:11:00.0 ] ||
	fail "pci_addr of hlsim1"

# An open compute or control node refuses unloading.
for node in /dev/hlsim0 /dev/hlsim_controlD0; do
	exec 3<"$node" || fail "open $node"
	if rmmod habanalabs_sim 2>/dev/null; then
		fail "unloaded while $node is open"
	fi
	exec 3<&-
done

"$TEST" --gtest_brief=1 \
	--gtest_filter='Sim.NodesMirrorLegacyNaming:Sim.SysfsAttributes:Sim.InfoHwIpAndUsage:Sim.DmabufHoldsModule:Sim.ComputeNodeIsExclusive' ||
	fail "sim_test with default parameters"

rmmod habanalabs_sim || fail "rmmod after the tests"
[ ! -e /dev/hlsim0 ] || fail "nodes left after rmmod"
echo "params.sh: OK"
