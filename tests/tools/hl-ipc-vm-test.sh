#!/bin/bash
# In-VM test of the hl-ipc subcommands as an operator uses them, with the
# modules installed where libkmod finds them: status, load, unload,
# channels, regions and bench, their output (table and JSON), and their
# errors: module absent, unknown parameters, in use, device busy, no
# permission.
# usage (in the guest, as root):
#   hl-ipc-vm-test.sh SRC_DIR HL_IPC IPC_HOLDER INDEX_BASE
#   INDEX_BASE/KVER: the module index from make-modindex.sh
set -u
SRC=$1
HL=$2
HOLDER=$3
INDEX=$4/$(uname -r)
. "$SRC/tests/tools/guest-lib.sh"
[ -n "${HL_KMOD_DIR:-}" ] || fail "HL_KMOD_DIR is not set (run under run-vm)"
# The kernel version inside a regular expression (6.12.117+deb12-amd64).
KVER_RE=$(printf '%s' "$KVER" | sed 's/[.+]/\\&/g')

HOLDER_PID=
stop_holder() {
	[ -n "$HOLDER_PID" ] || return 0
	exec 7>&-
	wait "$HOLDER_PID"
	HOLDER_PID=
}
cleanup() {
	stop_holder
	for m in habanalabs_ipc habanalabs_sim; do
		[ ! -d /sys/module/$m ] || rmmod $m || echo "cannot unload $m" >&2
	done
}
trap cleanup EXIT

step "modules not installed"
run_rc 1 load00 "$HL" load
has load00.err "habanalabs_ipc is not installed for kernel $KVER_RE .*install the habanalabs-ipc-dkms package"
run_rc 1 load01 "$HL" load habanalabs_sim
has load01.err "install the habanalabs-sim-dkms package"
run_rc 3 status00 "$HL" status
has status00.out "^habanalabs_ipc: not loaded, not installed for kernel $KVER_RE"
has status00.err "after installing the habanalabs-ipc-dkms package"

step "set-up: the modules installed, a user outside group hl"
install_modules "$HL_KMOD_DIR" "$INDEX"
add_group hl
add_user hlother

step "nothing loaded"
run_rc 3 status0 "$HL" status
has status0.out "^habanalabs_ipc: not loaded \(installed: /lib/modules/$KVER_RE/updates/hl-test/habanalabs_ipc.ko\)"
has status0.err "load it with 'hl-ipc load'"
run_rc 3 status0j "$HL" status --json
json status0j "not d['modules']['habanalabs_ipc']['loaded'] and d['modules']['habanalabs_ipc']['installed_file'].endswith('hl-test/habanalabs_ipc.ko') and d['devices'] == []"
run_rc 3 ch0 "$HL" channels
has ch0.err "habanalabs_ipc is not loaded"
run_rc 3 unl0 "$HL" unload
run_rc 1 bench0 "$HL" bench --sizes 4K
has bench0.err "needs two devices, found 0"

step "load, with parameters checked against the module"
run_rc 2 loadbad "$HL" load habanalabs_ipc no_such_param=1
has loadbad.err "has no parameter 'no_such_param'; it has: .*max_channels"
run_rc 2 loadbad2 "$HL" load habanalabs_ipc max_channels
run_rc 2 loadbad3 "$HL" load vgem
run_rc 1 loadval "$HL" load habanalabs_ipc max_channels=lots
has loadval.err "cannot load habanalabs_ipc: Invalid argument"
[ ! -d /sys/module/habanalabs_ipc ] || fail "habanalabs_ipc loaded with a bad value"
run_rc 1 loadroot as hlother "$HL" load habanalabs_sim
has loadroot.err "needs root"
run_rc 0 loadsim "$HL" load habanalabs_sim num_devices=2
has loadsim.out "loaded habanalabs_sim from /lib/modules/$KVER_RE/updates/hl-test/habanalabs_sim.ko with num_devices=2"
run_rc 0 loadsim2 "$HL" load habanalabs_sim
has loadsim2.out "already loaded"
run_rc 1 loadsim3 "$HL" load habanalabs_sim num_devices=1
has loadsim3.err "already loaded; unload it first"
# Devices but no /dev/hl_ipc yet.
run_rc 1 bench00 "$HL" bench --sizes 4K --time 0
has bench00.err "the habanalabs_ipc kernel module is not loaded"
run_rc 1 demo00 "$HL" demo --sizes 4K
has demo00.err "the habanalabs_ipc kernel module is not loaded"
run_rc 0 loadipc "$HL" load max_channels=8

step "status: the installed module, its parameters, both devices"
run_rc 0 status1 "$HL" status
has status1.out "^habanalabs_ipc: loaded \(live\)"
has status1.out "loaded from +the installed file"
has status1.out "parameters +.*max_channels=8"
has status1.out "ABI +version 1; features dmabuf user-memory async batch"
has status1.out "hlsim0 +/dev/hlsim0 /dev/hlsim_controlD0 +habanalabs_sim +GAUDI2 +0000:10:00.0"
has status1.out "hlsim1 .* 0000:11:00.0"
run_rc 0 status1j "$HL" status --json
json status1j "d['modules']['habanalabs_ipc']['parameters']['max_channels'] == '8' and d['modules']['habanalabs_ipc']['loaded_from_installed_file'] == 'yes' and d['ipc']['abi_version'] == 1 and d['ipc']['limits']['max_channels'] == 8 and d['ipc']['counters']['pinned_bytes'] == 0"
json status1j "[x['pci_addr'] for x in d['devices']] == ['0000:10:00.0', '0000:11:00.0'] and all(x['in_use'] is False and x['memory_size'] == 256 << 20 for x in d['devices'])"

step "a process holding a region, a channel and a device"
mkfifo /run/holder.in
"$HOLDER" --device /dev/hlsim0 </run/holder.in >/run/holder.out 2>&1 &
HOLDER_PID=$!
exec 7>/run/holder.in
for _ in $(seq 100); do
	grep -q ready /run/holder.out && break
	sleep 0.1
done
grep -q ready /run/holder.out || { cat /run/holder.out; fail "ipc_holder did not start"; }
COOKIE=$(awk '/ready/ { print $2 }' /run/holder.out)

run_rc 0 ch1 "$HL" channels
has ch1.out "^ *$HOLDER_PID +ipc_holder +[0-9]+ +1 +host +host +1 +1 +no +1 +4 KiB +0$"
run_rc 0 ch1j "$HL" channels --json --pid "$HOLDER_PID"
json ch1j "len(d['channels']) == 1 and d['channels'][0]['copies'] == 1 and d['channels'][0]['bytes'] == 4096 and d['channels'][0]['from'] == 'host'"
run_rc 0 ch1p "$HL" channels --pid 1
has ch1p.out "no channels are open"
run_rc 2 ch1bad "$HL" channels --pid abc
run_rc 0 rg1 "$HL" regions
has rg1.out "^ *$HOLDER_PID +ipc_holder +[0-9]+ +$COOKIE +user +rw +16 KiB +16 KiB +host$"
run_rc 0 rg1j "$HL" regions --json
json rg1j "[(r['cookie'], r['pinned'], r['writable']) for r in d['regions']] == [('$COOKIE', 16384, True)]"
run_rc 0 status2j "$HL" status --json
json status2j "d['ipc']['counters']['pinned_bytes'] == 16384 and d['ipc']['counters']['regions'] == 1 and d['ipc']['counters']['channels'] == 1"
json status2j "d['devices'][0]['in_use'] is True and d['devices'][0]['used_by'] == '$HOLDER_PID (ipc_holder)'"

run_rc 1 unl1 "$HL" unload
has unl1.err "habanalabs_ipc is in use; not unloaded"
has unl1.err "process $HOLDER_PID \(ipc_holder\) holds /dev/hl_ipc"
run_rc 1 unl2 "$HL" unload habanalabs_sim
has unl2.err "process $HOLDER_PID \(ipc_holder\) holds /dev/hlsim0"
run_rc 1 bench1 "$HL" bench --sizes 4K --time 0
has bench1.err "the device is busy"
has bench1.err "/dev/hlsim0 is in use by $HOLDER_PID \(ipc_holder\)"
run_rc 1 demo1 "$HL" demo --sizes 4K
has demo1.err "the device is busy"

step "a user who may not see the holder"
run_rc 0 ch2 as hlother "$HL" channels
has ch2.out "no channels are open"
has ch2.err "processes of other users could not be inspected"
run_rc 0 rg2 as hlother "$HL" regions
has rg2.out "no regions are registered"
has rg2.err "processes of other users could not be inspected"
stop_holder

step "bench: table, JSON, plot, progress bar"
run_rc 0 bench2 "$HL" bench --sizes 8,4K,64K --time 0.02
has bench2.out "^ +SIZE +channel +staged +process_vm_writev +memcpy +CHANNEL/STAGED +CHANNEL/PVW"
has bench2.out "^ +64 KiB +[0-9.]+ MB/s"
run_rc 0 bench3 "$HL" bench --sizes 8,1M --time 0 --json --plot /run/bench.svg
json bench3 "[r['size'] for r in d['rows']] == [8, 1048576] and all(r[p]['reps'] >= 3 and r[p]['seconds'] > 0 for r in d['rows'] for p in ('channel', 'staged', 'process_vm_writev', 'memcpy'))"
grep -q "<svg" /run/bench.svg || fail "no SVG plot"
has bench3.err "plot written to /run/bench.svg"
run_rc 0 bench4 script -qec "$HL bench --sizes 4K --time 0" /dev/null
has bench4.out "\[#*\s*\] +[0-9]+%"
run_rc 2 bench5 "$HL" bench --plot /run/x.pdf

step "no permission: /dev/hl_ipc without the udev rules"
chmod 0600 /dev/hl_ipc
run_rc 1 status3 as hlother "$HL" status
has status3.out "cannot open it: Permission denied; /dev/hl_ipc is crw------- root:root: the udev rules .* group 'hl'"
run_rc 1 bench6 as hlother "$HL" bench --sizes 4K
has bench6.err "EACCES"
run_rc 1 unl3 as hlother "$HL" unload
has unl3.err "needs root"

step "unload"
run_rc 0 unl4 "$HL" unload
run_rc 0 unl5 "$HL" unload habanalabs_sim
run_rc 3 status4 "$HL" status
echo PASS
