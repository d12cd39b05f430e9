#!/bin/bash
# The package install test, second half: the root that install-chroot.sh
# installed the packages into, booted (run-vm --root; writable, nothing
# reaches the host), used as an operator uses it:
#  - the state the chroot left: DKMS's habanalabs_ipc for the running
#    kernel, nothing loaded;
#  - dpkg -i hl-ipc-tools, with udevd running and a habanalabs_ipc of the
#    build tree loaded: its postinst creates the group hl and applies the
#    udev rules to the existing /dev/hl_ipc, and the installed hl-ipc
#    tells the loaded module from the installed one;
#  - modprobe loads the DKMS-installed module (its build id is the
#    file's); the emulator of the build tree makes udev load it through the
#    package's rules; the nodes belong to group hl; the installed hl-ipc
#    shows the installed module and both emulated devices, and a member of
#    hl runs the demo's copies through the installed libhlthunk;
#  - ucx-gaudi-ipc: a two-process ucx_perftest put over gaudi_ipc (UCT
#    level, with the two emulated devices) run by a member of hl moves its
#    data through the installed habanalabs_ipc's channels (its copy counter
#    grows);
#  - dpkg --purge removes every file the packages and DKMS installed, the
#    module is gone from /lib/modules and modprobe's index, and dkms
#    status is empty.
# usage (in the guest, as root): install-guest.sh SRC_DIR DEB_DIR
set -u
SRC=$1
DEBS=$2
. "$SRC/tests/tools/guest-lib.sh"
. "$SRC/tests/pkg/pkg-lib.sh"

cleanup() {
	stop_udevd
	! mountpoint -q "/lib/modules/$KVER/kernel" || umount "/lib/modules/$KVER/kernel"
	for m in habanalabs_ipc habanalabs_sim; do
		[ ! -d /sys/module/$m ] || rmmod $m || echo "cannot unload $m" >&2
	done
}
trap cleanup EXIT

step "set-up: the chroot's install, booted; udevd runs, a habanalabs_ipc of the build tree is loaded"
touch /usr/.hl-w 2>/dev/null && rm -f /usr/.hl-w ||
	fail "the root is not writable: run under run-vm --root"
dkms status -m habanalabs-ipc -v "$VERSION" -k "$KVER" | grep -q ': installed' ||
	fail "habanalabs-ipc $VERSION is not installed for $KVER (run through install-host.sh)"
[ "$(ours)" = "$(ls "$MODDIR"/habanalabs_ipc.ko*)" ] || fail "our modules: $(ours)"
! dpkg-query -W -f '${Status}' hl-ipc-tools 2>/dev/null | grep -q 'ok installed' ||
	fail "hl-ipc-tools is installed already"
! getent group hl >/dev/null || fail "the root has a group hl already; this test needs one without it"
[ -n "${HL_KMOD_DIR:-}" ] || fail "HL_KMOD_DIR is not set (run under run-vm)"
start_udevd
insmod "$HL_KMOD_DIR/habanalabs_ipc.ko" || fail "insmod $HL_KMOD_DIR/habanalabs_ipc.ko"
udevadm settle --timeout=60 || fail "udevadm settle timed out"
[ "$(stat -c %G /dev/hl_ipc)" = root ] || fail "/dev/hl_ipc is $(mode_of /dev/hl_ipc) before the rules are installed"

step "dpkg -i hl-ipc-tools: group hl, udev rules, modprobe.d, man page, completion"
export DEBIAN_FRONTEND=noninteractive
timed tools dpkg -i "$(deb_of hl-ipc-tools)"
TOOLS_T=$T
getent group hl >/dev/null || fail "group hl was not created"
echo "ok: group $(getent group hl)"
for f in /lib/udev/rules.d/70-habanalabs-ipc.rules /etc/modprobe.d/habanalabs-ipc.conf \
	/usr/lib/sysusers.d/habanalabs-ipc.conf /usr/share/bash-completion/completions/hl-ipc; do
	[ -f "$f" ] || fail "$f is missing"
done
man -w hl-ipc | grep -q '/usr/share/man/man8/hl-ipc.8' || fail "man hl-ipc does not find hl-ipc(8)"
lib=$(ldd /usr/bin/hl-ipc | awk '$1 == "libhlthunk.so.1" { print $3 }')
[ "$(readlink -f "$lib")" = "$(readlink -f "$(dpkg -L libhlthunk1 | grep 'libhlthunk\.so\.1$')")" ] ||
	fail "/usr/bin/hl-ipc uses '$lib', not libhlthunk1's library"
echo "ok: /usr/bin/hl-ipc runs with $lib"

step "the postinst applied the rules to the existing node; hl-ipc sees the build tree's module"
udevadm settle --timeout=60 || fail "udevadm settle timed out"
expect_mode /dev/hl_ipc "hl 660"
run_rc 0 status0 /usr/bin/hl-ipc status
has status0.out "installed +/lib/modules/$KVER_RE/updates/dkms/habanalabs_ipc\.ko"
has status0.out "loaded from +another file than the installed one"
rmmod habanalabs_ipc || fail "rmmod habanalabs_ipc"

step "modprobe habanalabs_ipc loads the installed module; udev gives it group hl"
path=$(modinfo -n habanalabs_ipc) || fail "modprobe does not know habanalabs_ipc"
timed modprobe-ipc modprobe habanalabs_ipc
[ "$(cat /sys/module/habanalabs_ipc/version)" = "$VERSION" ] ||
	fail "the loaded habanalabs_ipc has version $(cat /sys/module/habanalabs_ipc/version)"
# The GNU build id tells this build from the build tree's.
note=$(od -An -tx1 -v /sys/module/habanalabs_ipc/notes/.note.gnu.build-id | tr -d ' \n')
# DKMS compresses the module as the kernel's own (xz on 6.12).
elf=$path
case $path in
*.ko.xz) elf=/run/out/installed.ko; xz -dc "$path" >"$elf" || fail "cannot unpack $path" ;;
esac
id=$(readelf -n "$elf" | awk '/Build ID:/ { print $3 }')
[ -n "$id" ] && [ "${note%"$id"}" != "$note" ] ||
	fail "the loaded habanalabs_ipc (note $note) is not $path (build id $id)"
echo "ok: the loaded habanalabs_ipc is $path (build id $id)"
udevadm settle --timeout=60 || fail "udevadm settle timed out"
expect_mode /dev/hl_ipc "hl 660"
modprobe -r habanalabs_ipc || fail "modprobe -r habanalabs_ipc"

step "the emulator makes udev load the installed habanalabs_ipc; hl-ipc status shows both devices"
insmod "$HL_KMOD_DIR/habanalabs_sim.ko" num_devices=2 || fail "insmod habanalabs_sim"
udevadm settle --timeout=60 || fail "udevadm settle timed out"
[ -d /sys/module/habanalabs_ipc ] || fail "udev did not load habanalabs_ipc"
note=$(od -An -tx1 -v /sys/module/habanalabs_ipc/notes/.note.gnu.build-id | tr -d ' \n')
[ "${note%"$id"}" != "$note" ] || fail "udev loaded another habanalabs_ipc than $path"
echo "ok: udev loaded $path"
for n in /dev/hl_ipc /dev/hlsim0 /dev/hlsim1 /dev/hlsim_controlD0; do
	expect_mode "$n" "hl 660"
done
run_rc 0 status /usr/bin/hl-ipc status
cat /run/out/status.out
has status.out "^habanalabs_ipc: loaded"
has status.out "version +$VERSION"
has status.out "installed +/lib/modules/$KVER_RE/updates/dkms/habanalabs_ipc\.ko"
has status.out "loaded from +the installed file"
has status.out "hlsim0 +/dev/hlsim0 "
has status.out "hlsim1 +/dev/hlsim1 "

step "a member of group hl runs the demo's copies with the installed tool and library"
add_user hlmember hl
as hlmember /usr/bin/hl-ipc demo --sizes 4K,64K >/run/out/demo.log 2>&1 || {
	cat /run/out/demo.log >&2
	fail "hl-ipc demo failed for a member of group hl"
}
grep -q "every byte" /run/out/demo.log || fail "the demo printed no results"
echo "ok: demo as hlmember"

if has_deb ucx-gaudi-ipc; then
	step "ucx-gaudi-ipc: ucx_perftest puts over gaudi_ipc between two processes of a member of hl"
	ip link set lo up || fail "cannot bring lo up"
	copies() { /usr/bin/hl-ipc status | sed -n 's/^  since load *\([0-9]*\) copies.*/\1/p'; }
	c0=$(copies)
	# A UCX built with MPI (Debian 13's) takes a run without a terminal for a
	# one-process MPI job unless told -P 0 (which one built without MPI, as
	# Debian 12's, reads as -h); UCX 1.18's server wants the transport and
	# device as well.
	NOMPI=()
	! ucx_info -b | grep -q '^#define HAVE_MPI *1' || NOMPI=(-P 0)
	as hlmember hl-ucx timeout 120 ucx_perftest ${NOMPI[@]+"${NOMPI[@]}"} -p 13337 -x gaudi_ipc -d gaudi \
		>/run/out/perftest-server.log 2>&1 &
	srv=$!
	for _ in $(seq 50); do
		as hlmember hl-ucx timeout 120 ucx_perftest ${NOMPI[@]+"${NOMPI[@]}"} 127.0.0.1 -p 13337 -t put_bw -D zcopy \
			-x gaudi_ipc -d gaudi -s 1048576 -n 200 -w 20 >/run/out/perftest.log 2>&1
		rc=$?
		grep -q "connect() failed" /run/out/perftest.log || break
		sleep 0.2
	done
	wait $srv
	src=$?
	if [ "$rc" != 0 ] || [ "$src" != 0 ] || ! grep -q '^Final:' /run/out/perftest.log; then
		cat /run/out/perftest.log /run/out/perftest-server.log >&2
		fail "ucx_perftest put_bw over gaudi_ipc: client $rc, server $src"
	fi
	c1=$(copies)
	# 200 measured puts (and up to 20 to warm up: UCX stops warming up after its warm-up time), each one
	# channel copy of 1 MiB (UCX_GAUDI_IPC_SYNC_COPY_MAX).
	[ "$((c1 - c0))" -ge 200 ] ||
		fail "habanalabs_ipc counted $((c1 - c0)) copies during the 200 puts of ucx_perftest"
	echo "ok: ucx_perftest put_bw zcopy 1 MiB x 200: $(grep '^Final:' /run/out/perftest.log | tr -s ' ')"
	echo "ok: habanalabs_ipc counted $((c1 - c0)) copies for it"
else
	echo "no ucx-gaudi-ipc among the packages (built with --no-ucx): no ucx_perftest"
fi
stop_udevd
rmmod habanalabs_sim || fail "rmmod habanalabs_sim"
modprobe -r habanalabs_ipc || fail "modprobe -r habanalabs_ipc"

step "dpkg --purge removes everything the packages and DKMS installed"
# DKMS runs depmod after removing the module, and depmod reads every
# module of the kernel: over 9p, and on 6.12 decompressing each under
# TCG, that took 53 s (6.1) and 110 s (6.12).  Ours depend on no other
# module, so the kernel's own modules are hidden from depmod for the purge
# (a tmpfs over /lib/modules/$KVER/kernel): the index it writes then holds
# the modules under updates/ and extra/.
KTREE=/lib/modules/$KVER/kernel
mount -t tmpfs -o mode=0755 tmpfs "$KTREE" || fail "cannot hide $KTREE from depmod"
# What is there now: the packages' files and what DKMS made of them.
for p in "${PKGS[@]}"; do
	dpkg -L "$p"
done | while read -r f; do [ -d "$f" ] || echo "$f"; done >/run/out/installed.list
find /lib/modules -path '*/updates/dkms/habanalabs_*' >>/run/out/installed.list
ls -d /var/lib/dkms/habanalabs-* >>/run/out/installed.list
echo "$(wc -l </run/out/installed.list) files and directories installed"
timed purge dpkg --purge "${PKGS[@]}"
PURGE_T=$T
left=$(while read -r f; do [ ! -e "$f" ] && [ ! -L "$f" ] || echo "$f"; done </run/out/installed.list)
[ -z "$left" ] || fail "left after purge: $left"
for p in "${PKGS[@]}"; do
	! dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		fail "$p is still installed"
done
[ -z "$(ours)" ] || fail "modules left: $(ours)"
! grep -lE 'habanalabs_(ipc|sim)\.ko' /lib/modules/*/modules.dep ||
	fail "modules.dep still names our modules"
modprobe -n habanalabs_ipc 2>/dev/null && fail "modprobe still finds habanalabs_ipc"
[ -z "$(dkms status)" ] || fail "dkms status after purge: $(dkms status)"
[ -z "$(ls -d /usr/src/habanalabs-* 2>/dev/null)" ] || fail "left in /usr/src: $(ls -d /usr/src/habanalabs-*)"
echo "ok: nothing left; group hl stays, as Debian leaves system groups"
echo "times: dpkg -i hl-ipc-tools ${TOOLS_T} s, purge ${PURGE_T} s"
echo PASS
