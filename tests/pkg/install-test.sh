#!/bin/bash
# In-VM test of the Debian packages, installed as an operator installs
# them, in a guest whose root is writable (run-vm --writable-root: the
# host's root read-only below a tmpfs, so nothing reaches the host):
#  - dpkg -i of every package but the emulator's, with udevd running and
#    a habanalabs_ipc of the build tree loaded: hl-ipc-tools' postinst
#    creates the group hl and applies the udev rules to the existing
#    /dev/hl_ipc, and the installed hl-ipc tells the loaded module from
#    the installed one;
#  - habanalabs-ipc-dkms's postinst builds and installs habanalabs_ipc for
#    the running kernel, and skips, with its message, the other installed
#    kernels, whose headers the test hides;
#  - modprobe loads the DKMS-installed module, modinfo shows the package's
#    version; the emulator of the build tree makes udev load the installed
#    module through the package's rules; the nodes belong to group hl; the
#    installed hl-ipc shows the installed module and both emulated
#    devices, and a member of hl runs the demo's copies through the
#    installed libhlthunk;
#  - ucx-gaudi-ipc: the installed hl-ucx finds the installed plugin by
#    itself and says where it looked; `hl-ucx ucx_info -d` lists the
#    gaudi_ipc component, memory domain and transport; a two-process
#    ucx_perftest put over gaudi_ipc (UCT level, with the two emulated
#    devices) moves its data through the installed habanalabs_ipc's
#    channels (its copy counter grows);
#  - a UCX update (the installed UCX packages repacked with a newer
#    version, in a local repository): apt-get upgrade keeps it back,
#    full-upgrade removes ucx-gaudi-ipc for it; dpkg -i installs it and
#    leaves ucx-gaudi-ipc's dependency broken (apt-get check says so), and
#    hl-ucx then refuses the plugin (exit 126, both versions named); the
#    original libucx0 back, hl-ucx works again; ucx-gaudi-ipc rebuilt for
#    it (repacked so): apt-get install of it from a file takes the new UCX
#    with it, and in the repository apt-get upgrade installs both;
#  - dpkg --purge removes every file the packages and DKMS installed, the
#    module is gone from /lib/modules and modprobe's index, and dkms
#    status is empty.
# A DKMS build under TCG takes minutes: the test builds one module for
# one kernel.  habanalabs-sim-dkms is not installed here (its postinst and
# prerm are the same dh_dkms scripts); pkg.contents builds the sources of
# both DKMS packages for every kernel on the host, where it is fast.
# usage (in the guest, as root): install-test.sh SRC_DIR DEB_DIR
set -u
SRC=$1
DEBS=$2
. "$SRC/tests/tools/guest-lib.sh"

PKGS=()
FILES=()
while read -r f; do
	case $f in *-dbgsym_* | habanalabs-sim-dkms_*) continue ;; esac
	PKGS+=("$(dpkg-deb -f "$DEBS/$f" Package)")
	FILES+=("$DEBS/$f")
done <"$DEBS/debs.list"
# The DKMS modules carry the upstream version (no Debian revision).
DEBVERSION=$(dpkg-deb -f "$DEBS/$(grep '^habanalabs-ipc-dkms_' "$DEBS/debs.list")" Version)
VERSION=${DEBVERSION%-*}
MODDIR=/lib/modules/$KVER/updates/dkms
# re TEXT: TEXT as a literal in an extended regular expression.
re() { printf '%s' "$1" | sed 's/[].[+*?()|^$\\]/\\&/g'; }

cleanup() {
	stop_udevd
	! mountpoint -q "/lib/modules/$KVER/kernel" || umount "/lib/modules/$KVER/kernel"
	for m in habanalabs_ipc habanalabs_sim; do
		[ ! -d /sys/module/$m ] || rmmod $m || echo "cannot unload $m" >&2
	done
}
trap cleanup EXIT

# timed NAME CMD...: run CMD with its output in /run/out/NAME.log, print
# how long it took, show the log and fail if it fails.
timed() {
	local name=$1 t0 rc
	shift
	mkdir -p /run/out
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" >"/run/out/$name.log" 2>&1
	rc=$?
	T=$(awk -v t0="$t0" '{ printf "%.0f", $1 - t0 }' /proc/uptime)
	if [ "$rc" != 0 ]; then
		cat "/run/out/$name.log" >&2
		fail "'$*' exited with $rc"
	fi
	echo "ok: $* ($T s)"
}

# A UCX update, as the admin guide describes it.  Userspace only, the
# same on every kernel: it runs on one (CMake sets HL_PKG_UCX_UPGRADE=1
# for the newest kernel series' test).
ucx_upgrade_test() {
	# What an update of UCX in the archive would be: Debian's UCX packages
	# installed here, repacked with a newer version, in a local repository
	# that apt sees alone; and ucx-gaudi-ipc as a rebuild against it would be.
	NEWV=$UCXV+hltest1
	REPO=/run/out/repo
	mkdir -p "$REPO/lists/partial" "$REPO/cache/archives/partial"
	repack() { # PACKAGE VERSION DEB: the installed PACKAGE, as VERSION
		local d=/run/out/repack-$1
		rm -rf "$d"
		mkdir -p "$d/DEBIAN"
		# (cp -a --parents of an absolute path fails on Debian 12's coreutils.)
		dpkg -L "$1" | while read -r f; do
			if [ -L "$f" ] || [ -f "$f" ]; then (cd / && cp -a --parents "${f#/}" "$d") || exit 1; fi
		done || fail "cannot copy the files of $1"
		dpkg-query -s "$1" | sed -E -e '/^Status:/d' -e "s/^Version: .*/Version: $2/" \
			-e "s/libucx0 \\(= $(re "$UCXV")\\)/libucx0 (= $2)/" >"$d/DEBIAN/control"
		dpkg-deb -Znone --root-owner-group -b "$d" "$3" >/dev/null || fail "cannot repack $1 $2"
		rm -rf "$d"
	}
	UCXPKGS=$(dpkg-query -W -f '${Package} ${Status}\n' libucx0 libucx-dev ucx-utils 2>/dev/null |
		awk '/installed$/ { print $1 }')
	for p in $UCXPKGS; do
		repack "$p" "$NEWV" "$REPO/${p}_new.deb"
	done
	repack libucx0 "$UCXV" /run/out/libucx0-old.deb
	APT=(apt-get -q -o Debug::NoLocking=1 -o APT::Sandbox::User=root
		-o "Dir::Etc::SourceList=$REPO/sources.list" -o Dir::Etc::SourceParts=/nonexistent
		-o "Dir::State::Lists=$REPO/lists" -o "Dir::Cache=$REPO/cache")
	apt_local() { "${APT[@]}" "$@"; }
	echo "deb [trusted=yes] file:$REPO ./" >"$REPO/sources.list"
	index() {
		(cd "$REPO" && dpkg-scanpackages -m . /dev/null >Packages 2>/dev/null) || fail "dpkg-scanpackages"
		"${APT[@]}" update >/run/out/apt-update.log 2>&1 || { cat /run/out/apt-update.log >&2; fail "apt-get update"; }
	}
	index
	echo "the repository has: $(cd "$REPO" && ls ./*.deb | tr '\n' ' ')"
	run_rc 0 apt-upgrade apt_local -s upgrade
	has apt-upgrade.out "kept back"
	! grep -q "^Inst libucx0 " /run/out/apt-upgrade.out || fail "apt-get upgrade installs libucx0 $NEWV"
	echo "ok: apt-get upgrade keeps libucx0 $NEWV back: $(sed -n '/kept back/{n;p}' /run/out/apt-upgrade.out | tr -s ' ')"
	run_rc 0 apt-full apt_local -s full-upgrade
	has apt-full.out "^Remv ucx-gaudi-ipc "
	has apt-full.out "^Inst libucx0 \[$(re "$UCXV")\] \($(re "$NEWV") "
	echo "ok: apt-get full-upgrade removes ucx-gaudi-ipc to install libucx0 $NEWV"
	# dpkg alone does not check what installed packages want of a package it
	# upgrades: it installs the new libucx0 and leaves ucx-gaudi-ipc's
	# dependency broken, which apt then reports; hl-ucx refuses the plugin.
	run_rc 0 dpkg-new dpkg -i "$REPO/libucx0_new.deb"
	[ "$(dpkg-query -W -f '${Version}' libucx0)" = "$NEWV" ] || fail "dpkg did not install libucx0 $NEWV"
	run_rc 100 apt-check apt_local check
	cat /run/out/apt-check.err >>/run/out/apt-check.out
	has apt-check.out "ucx-gaudi-ipc : Depends: libucx0 \(= $(re "$UCXV")\) but $(re "$NEWV") is (installed|to be installed)"
	echo "ok: dpkg -i installs libucx0 $NEWV; apt-get check then says: $(grep -m1 'ucx-gaudi-ipc : Depends' /run/out/apt-check.out | sed 's/^ *//')"
	run_rc 126 hl-ucx-mismatch as hlmember hl-ucx ucx_info -d
	has hl-ucx-mismatch.err "built against libucx0 $(re "$UCXV"), but libucx0 $(re "$NEWV")"
	! grep -q gaudi_ipc /run/out/hl-ucx-mismatch.out || fail "hl-ucx ran ucx_info with the mismatched plugin"
	echo "ok: hl-ucx refuses the plugin: $(head -n 1 /run/out/hl-ucx-mismatch.err)"
	run_rc 0 dpkg-old dpkg -i /run/out/libucx0-old.deb
	run_rc 0 ucx-info-again as hlmember hl-ucx ucx_info -d
	has ucx-info-again.out "# +Transport: gaudi_ipc\$"
	run_rc 0 apt-check-again apt_local check
	echo "ok: libucx0 $UCXV back, hl-ucx loads the plugin again, apt-get check is content"
	# The rebuild: its version names the new UCX, it depends on it.
	d=/run/out/rebuilt
	dpkg-deb -R "$DEBS/$(grep '^ucx-gaudi-ipc_' "$DEBS/debs.list")" "$d" || fail "dpkg-deb -R"
	UV=$(sed -n 's/^Version: //p' "$d/DEBIAN/control")
	sed -E -i -e "s/^Version: .*/Version: ${UV%+ucx*}+ucx$(tr ':-' '++' <<<"$NEWV")/" \
		-e "s/libucx0 \\(= $(re "$UCXV")\\)/libucx0 (= $NEWV)/" "$d/DEBIAN/control"
	dpkg-deb -Znone --root-owner-group -b "$d" /run/out/ucx-gaudi-ipc_rebuilt.deb >/dev/null ||
		fail "cannot repack ucx-gaudi-ipc"
	rm -rf "$d"
	# From a file, apt takes the new UCX from the repository with it.
	run_rc 0 apt-file apt_local -s install /run/out/ucx-gaudi-ipc_rebuilt.deb
	has apt-file.out "^Inst ucx-gaudi-ipc "
	has apt-file.out "^Inst libucx0 \[$(re "$UCXV")\] \($(re "$NEWV") "
	! grep -Eq "^Remv " /run/out/apt-file.out || fail "apt-get install of the rebuild removes: $(grep '^Remv ' /run/out/apt-file.out)"
	echo "ok: apt-get install of the rebuilt ucx-gaudi-ipc from a file installs libucx0 $NEWV with it, removes nothing"
	# From the repository, apt-get upgrade installs both.
	mv /run/out/ucx-gaudi-ipc_rebuilt.deb "$REPO/"
	index
	run_rc 0 apt-rebuilt apt_local -s upgrade
	has apt-rebuilt.out "^Inst ucx-gaudi-ipc "
	has apt-rebuilt.out "^Inst libucx0 \[$(re "$UCXV")\] \($(re "$NEWV") "
	! grep -Eq "^Remv |kept back" /run/out/apt-rebuilt.out || fail "apt-get upgrade still removes or keeps back: $(grep -E '^Remv |kept back' /run/out/apt-rebuilt.out)"
	echo "ok: with ucx-gaudi-ipc rebuilt for it, apt-get upgrade installs both: $(grep '^Inst ucx-gaudi-ipc' /run/out/apt-rebuilt.out)"
	dpkg --audit >/run/out/audit.log 2>&1
	[ ! -s /run/out/audit.log ] || { cat /run/out/audit.log >&2; fail "dpkg --audit reports problems"; }
	rm -rf "$REPO" /run/out/libucx0-old.deb
}

step "set-up: a writable root, nothing of ours installed"
touch /usr/.hl-w 2>/dev/null && rm -f /usr/.hl-w ||
	fail "the root is not writable: run under run-vm --writable-root"
for p in "${PKGS[@]}"; do
	! dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q installed ||
		fail "$p is already installed on the host; this test needs a host without it"
done
# ours: our modules anywhere in /lib/modules but the kernels' own trees
# (thousands of files, slow to walk over 9p).
ours() {
	find /lib/modules -path '/lib/modules/*/kernel' -prune -o \
		\( -name 'habanalabs_ipc.ko*' -o -name 'habanalabs_sim.ko*' \) -print
}
[ -z "$(ours)" ] || fail "the host has our modules in /lib/modules: $(ours)"
# man-db's trigger would re-index every manual page over 9p.
rm -f /var/lib/man-db/auto-update
[ -z "$(dkms status 2>/dev/null)" ] || fail "dkms status is not empty: $(dkms status)"
echo "packages: ${PKGS[*]} ($DEBVERSION)"
# Only the running kernel's headers: a DKMS build under TCG takes minutes.
# (The root is an overlay: this removes nothing on the host.)
OTHERS=()
for b in /lib/modules/*/build; do
	k=$(basename "$(dirname "$b")")
	[ "$k" = "$KVER" ] && continue
	rm -f "$b" || fail "cannot hide the headers of $k"
	OTHERS+=("$k")
done
[ -e "/lib/modules/$KVER/build/include" ] || fail "no headers for $KVER in /lib/modules/$KVER/build"
echo "headers of $KVER only${OTHERS[*]:+ (hidden: ${OTHERS[*]})}"
# DKMS runs depmod after installing the module and after removing it, and
# depmod reads every module of the kernel: over 9p, and on 6.12
# decompressing each under TCG, that took 53 s (6.1) and 110 s (6.12)
# each time.  Ours depend on no other module, and nothing here loads one
# of the kernel's, so the kernel's own modules are hidden from depmod for
# the test (a tmpfs over /lib/modules/$KVER/kernel): the index it writes
# then holds the modules under updates/ and extra/, ours among them.
KTREE=/lib/modules/$KVER/kernel
mount -t tmpfs -o mode=0755 tmpfs "$KTREE" || fail "cannot hide $KTREE from depmod"
echo "the kernel's own modules hidden from depmod ($KTREE)"

step "before: udevd runs, a habanalabs_ipc of the build tree is loaded"
[ -n "${HL_KMOD_DIR:-}" ] || fail "HL_KMOD_DIR is not set (run under run-vm)"
start_udevd
insmod "$HL_KMOD_DIR/habanalabs_ipc.ko" || fail "insmod $HL_KMOD_DIR/habanalabs_ipc.ko"
udevadm settle --timeout=60 || fail "udevadm settle timed out"
[ "$(stat -c %G /dev/hl_ipc)" = root ] || fail "/dev/hl_ipc is $(mode_of /dev/hl_ipc) before the rules are installed"
! getent group hl >/dev/null || fail "the host has a group hl already; this test needs a host without it"

step "dpkg -i: DKMS builds and installs habanalabs_ipc"
export DEBIAN_FRONTEND=noninteractive
timed install dpkg -i "${FILES[@]}"
INSTALL_T=$T
grep -E '^(Building for|Building initial module|Done|Module build for kernel|.*skipped)' \
	/run/out/install.log | sed 's/^/  dkms: /'
dkms status | sed 's/^/  /'
dkms status -m habanalabs-ipc -v "$VERSION" -k "$KVER" | grep -q ': installed' ||
	fail "dkms did not install habanalabs-ipc $VERSION for $KVER"
for k in ${OTHERS[@]+"${OTHERS[@]}"}; do
	! dkms status 2>/dev/null | grep -qF ", $k," || fail "dkms built for $k, whose headers are hidden"
done

step "the installed module: DKMS's, with the package's version"
m=habanalabs_ipc
path=$(modinfo -n "$m") || fail "modprobe does not know $m"
case $path in
"$MODDIR/$m.ko" | "$MODDIR/$m.ko."*) ;;
*) fail "modinfo finds $m at $path, not in $MODDIR" ;;
esac
copies=$(ours | grep -c "/lib/modules/$KVER/.*/$m\.ko")
[ "$copies" = 1 ] || fail "$copies files of $m in /lib/modules/$KVER"
v=$(modinfo -F version "$m")
[ "$v" = "$VERSION" ] || fail "modinfo $m: version '$v', not $VERSION"
echo "ok: $m: $path, version $v"

step "the tools package: group hl, udev rules, modprobe.d, man page, completion"
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
KVER_RE=$(printf '%s' "$KVER" | sed 's/[.+]/\\&/g')
run_rc 0 status0 /usr/bin/hl-ipc status
has status0.out "installed +/lib/modules/$KVER_RE/updates/dkms/habanalabs_ipc\.ko"
has status0.out "loaded from +another file than the installed one"
rmmod habanalabs_ipc || fail "rmmod habanalabs_ipc"

step "modprobe habanalabs_ipc loads the installed module; udev gives it group hl"
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

step "ucx-gaudi-ipc: hl-ucx finds the installed plugin; ucx_info lists gaudi_ipc"
UCXV=$(dpkg-query -W -f '${Version}' libucx0)
PLUGIN=$(dpkg -L ucx-gaudi-ipc | grep '/ucx/libuct_gaudi_ipc\.so$') ||
	fail "ucx-gaudi-ipc has no libuct_gaudi_ipc.so"
MODULE_DIR=$(ucx_info -c | sed -n 's/^UCX_MODULE_DIR=//p')
[ "$(dirname "$PLUGIN")" -ef "$MODULE_DIR" ] ||
	fail "the plugin is in $(dirname "$PLUGIN"), UCX's module directory is $MODULE_DIR"
dpkg-deb -f "$DEBS/$(grep '^ucx-gaudi-ipc_' "$DEBS/debs.list")" Depends |
	grep -q "libucx0 (= $UCXV)" || fail "ucx-gaudi-ipc does not depend on libucx0 (= $UCXV)"
[ "$(command -v hl-ucx)" = /usr/bin/hl-ucx ] || fail "hl-ucx on the PATH is '$(command -v hl-ucx)'"
run_rc 0 hl-ucx-help as hlmember hl-ucx --help
has hl-ucx-help.out "^  $(re "$PLUGIN")  \(found: used\)"
has hl-ucx-help.out "built against libucx0 $(re "$UCXV")"
echo "ok: hl-ucx --help: $(grep -c '(found' /run/out/hl-ucx-help.out) of $(grep -c '^  /' /run/out/hl-ucx-help.out) places hold the plugin, $PLUGIN used"
man -w hl-ucx | grep -q '/usr/share/man/man1/hl-ucx.1' || fail "man hl-ucx does not find hl-ucx(1)"
run_rc 0 ucx-info as hlmember hl-ucx ucx_info -d
for want in "Component: gaudi_ipc" "Memory domain: gaudi_ipc" "Transport: gaudi_ipc" "Device: gaudi"; do
	has ucx-info.out "# +$want\$"
done
echo "ok: hl-ucx ucx_info -d lists the gaudi_ipc component, memory domain and transport on device gaudi"

step "ucx-gaudi-ipc: ucx_perftest puts over gaudi_ipc between two processes"
ip link set lo up || fail "cannot bring lo up"
copies() { /usr/bin/hl-ipc status | sed -n 's/^  since load *\([0-9]*\) copies.*/\1/p'; }
c0=$(copies)
as hlmember hl-ucx timeout 120 ucx_perftest -p 13337 >/run/out/perftest-server.log 2>&1 &
srv=$!
for _ in $(seq 50); do
	as hlmember hl-ucx timeout 120 ucx_perftest 127.0.0.1 -p 13337 -t put_bw -D zcopy \
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

step "a UCX update: held back, or ucx-gaudi-ipc removed, unless a rebuilt ucx-gaudi-ipc comes with it"
if [ "${HL_PKG_UCX_UPGRADE:-0}" = 1 ]; then
	ucx_upgrade_test
else
	echo "not on this kernel: the UCX update is tested on one kernel (HL_PKG_UCX_UPGRADE=1)"
fi
stop_udevd
rmmod habanalabs_sim || fail "rmmod habanalabs_sim"
modprobe -r habanalabs_ipc || fail "modprobe -r habanalabs_ipc"

step "dpkg --purge removes everything the packages and DKMS installed"
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
	! dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q installed ||
		fail "$p is still installed"
done
[ -z "$(ours)" ] || fail "modules left: $(ours)"
! grep -lE 'habanalabs_(ipc|sim)\.ko' /lib/modules/*/modules.dep ||
	fail "modules.dep still names our modules"
modprobe -n habanalabs_ipc 2>/dev/null && fail "modprobe still finds habanalabs_ipc"
[ -z "$(dkms status)" ] || fail "dkms status after purge: $(dkms status)"
[ -z "$(ls -d /usr/src/habanalabs-* 2>/dev/null)" ] || fail "left in /usr/src: $(ls -d /usr/src/habanalabs-*)"
echo "ok: nothing left; group hl stays, as Debian leaves system groups"
echo "times: install (DKMS builds) ${INSTALL_T} s, purge ${PURGE_T} s"
echo PASS
