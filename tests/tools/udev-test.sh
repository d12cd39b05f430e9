#!/bin/bash
# In-VM test of the udev rules with a real systemd-udevd:
#  - a node that existed before udevd started gets group and mode from
#    'udevadm trigger';
#  - loading habanalabs_sim (insmod, nobody calls modprobe) makes udev load
#    habanalabs_ipc through its kmod builtin;
#  - /dev/hl_ipc and the sim nodes are group hl, 0660;
#  - a member of hl runs the demo's copies; another user gets EACCES with a
#    message that names the group;
#  - the modprobe.d softdep loads habanalabs_ipc with habanalabs_sim when
#    udev is not running.
# usage (in the guest, as root): udev-test.sh SRC_DIR HL_IPC INDEX_BASE
#   INDEX_BASE/KVER: the module index from make-modindex.sh
set -u
SRC=$1
HL_IPC=$2
INDEX=$3/$(uname -r)
. "$SRC/tests/tools/guest-lib.sh"
[ -n "${HL_KMOD_DIR:-}" ] || fail "HL_KMOD_DIR is not set (run under run-vm)"

loaded() { [ -d "/sys/module/$1" ]; }
cleanup() {
	stop_udevd
	for m in habanalabs_ipc habanalabs_sim; do
		! loaded $m || rmmod $m || echo "cannot unload $m" >&2
	done
}
trap cleanup EXIT

step "set-up: group, users, the modules and the rules installed"
add_group hl
add_user hlmember hl
add_user hlother
install_modules "$HL_KMOD_DIR" "$INDEX"
writable /etc/udev/rules.d
install -m 0644 "$SRC/tools/udev/70-habanalabs-ipc.rules" /etc/udev/rules.d/
writable /etc/modprobe.d
install -m 0644 "$SRC/tools/udev/habanalabs-ipc.conf" /etc/modprobe.d/

step "a node created before udevd runs gets its group from 'udevadm trigger'"
insmod "$HL_KMOD_DIR/habanalabs_ipc.ko" || fail "insmod habanalabs_ipc"
[ "$(stat -c %G /dev/hl_ipc)" = root ] || fail "/dev/hl_ipc is not root's before udev"
start_udevd
udevadm trigger --action=add --subsystem-match=misc --sysname-match=hl_ipc
udevadm settle --timeout=60 || fail "udevadm settle timed out"
expect_mode /dev/hl_ipc "hl 660"
rmmod habanalabs_ipc || fail "rmmod habanalabs_ipc"

step "loading habanalabs_sim makes udev load habanalabs_ipc"
loaded habanalabs_ipc && fail "habanalabs_ipc is still loaded"
insmod "$HL_KMOD_DIR/habanalabs_sim.ko" num_devices=2 || fail "insmod habanalabs_sim"
udevadm settle --timeout=60 || fail "udevadm settle timed out"
loaded habanalabs_ipc || {
	cat /run/udevd.log >&2
	fail "habanalabs_ipc was not loaded by udev"
}
echo "ok: habanalabs_ipc loaded by udev"
expect_mode /dev/hl_ipc "hl 660"
for n in /dev/hlsim0 /dev/hlsim1 /dev/hlsim_controlD0 /dev/hlsim_controlD1; do
	expect_mode "$n" "hl 660"
done

step "a member of group hl runs the demo's copies"
as hlmember "$HL_IPC" demo --sizes 4K,64K >/run/member.out 2>&1 || {
	cat /run/member.out >&2
	fail "the demo failed for a member of group hl"
}
grep -q "every byte" /run/member.out || fail "the demo printed no results"
echo "ok: demo as hlmember"

step "a user outside group hl is refused with a message naming the group"
if as hlother "$HL_IPC" demo --sizes 4K >/run/other.out 2>&1; then
	fail "the demo succeeded for a user outside group hl"
fi
cat /run/other.out
grep -q "EACCES" /run/other.out || fail "no EACCES in the message"
grep -q "group 'hl'" /run/other.out || fail "the message does not name group 'hl'"
as hlother "$HL_IPC" status >/run/other-status.out 2>&1
grep -q "group 'hl'" /run/other-status.out || {
	cat /run/other-status.out >&2
	fail "hl-ipc status does not name group 'hl' to a user outside it"
}
echo "ok: refused, naming the group"

step "without udev, the modprobe.d softdep loads habanalabs_ipc with the sim"
stop_udevd
rmmod habanalabs_ipc habanalabs_sim || fail "cannot unload the modules"
modprobe habanalabs_sim num_devices=1 || fail "modprobe habanalabs_sim"
loaded habanalabs_ipc || fail "the softdep did not load habanalabs_ipc"
echo "ok: softdep"
modprobe -r habanalabs_sim habanalabs_ipc || fail "modprobe -r"
echo "PASS"
