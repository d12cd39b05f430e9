#!/bin/bash
# The package install test, first half: the packages installed as an image
# builder installs them, with dpkg in a chroot, natively on the host.
# install-host.sh runs it chrooted into an overlay of the host's root
# (nothing reaches the host) and then boots that root for the second half
# (install-guest.sh):
#  - dpkg -i of every package but hl-ipc-tools (which the guest installs
#    with udevd running) and the emulator's: habanalabs-ipc-dkms's postinst
#    finds no running kernel of the root ("a chroot's host"), builds and
#    installs habanalabs_ipc for the kernel whose headers are installed,
#    and skips, with its message, the other kernels, whose headers the
#    test hides;
#  - modinfo shows the DKMS-built module, with the package's version;
#  - ucx-gaudi-ipc: the plugin lies in UCX's module directory and depends
#    on exactly the installed libucx0; the installed hl-ucx finds it by
#    itself and `hl-ucx ucx_info -d` lists the gaudi_ipc component, memory
#    domain and transport;
#  - a UCX update (ucx-upgrade-test.sh): apt and dpkg with ucx-gaudi-ipc
#    installed, and hl-ucx's version check.
# Userspace and file-level checks all: what needs the kernel (modprobe,
# udev, the devices, channels, purge) is the guest's half.
# usage (as root, in the chroot): install-chroot.sh SRC_DIR DEB_DIR KVER
set -u
SRC=$1
DEBS=$2
. "$SRC/tests/tools/guest-lib.sh"
KVER=$3
. "$SRC/tests/pkg/pkg-lib.sh"

CHROOT_FILES=()
for f in "${FILES[@]}"; do
	[ "$f" = "$(deb_of hl-ipc-tools)" ] || CHROOT_FILES+=("$f")
done

step "set-up: a chroot of an overlay of the root, nothing of ours installed"
[ "${HL_PKG_CHROOT:-}" = 1 ] || fail "run it through install-host.sh (in its chroot)"
for p in "${PKGS[@]}"; do
	! dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		fail "$p is already installed on the host; this test needs a host without it"
done
[ -z "$(ours)" ] || fail "the host has our modules in /lib/modules: $(ours)"
[ -z "$(dkms status 2>/dev/null)" ] || fail "dkms status is not empty: $(dkms status)"
# man-db's trigger would re-index every manual page.
rm -f /var/lib/man-db/auto-update
echo "packages: ${PKGS[*]} ($DEBVERSION)"
# Only KVER's headers: the guest boots KVER.  (The root is an overlay:
# this removes nothing on the host.)
OTHERS=()
for b in /lib/modules/*/build; do
	k=$(basename "$(dirname "$b")")
	[ "$k" = "$KVER" ] && continue
	rm -f "$b" || fail "cannot hide the headers of $k"
	OTHERS+=("$k")
done
[ -e "/lib/modules/$KVER/build/include" ] || fail "no headers for $KVER in /lib/modules/$KVER/build"
echo "headers of $KVER only${OTHERS[*]:+ (hidden: ${OTHERS[*]})}"
[ ! -d "/lib/modules/$(uname -r)" ] ||
	echo "note: the host runs $(uname -r), a kernel of this root: DKMS builds for it and the newest kernel"

step "dpkg -i in the chroot: DKMS builds and installs habanalabs_ipc for $KVER"
export DEBIAN_FRONTEND=noninteractive
timed install dpkg -i "${CHROOT_FILES[@]}"
INSTALL_T=$T
grep -E '^(It is likely|Building for|Building initial module|Done|Module build for kernel|.*skipped)' \
	/run/out/install.log | sed 's/^/  dkms: /'
dkms status | sed 's/^/  /'
dkms status -m habanalabs-ipc -v "$VERSION" -k "$KVER" | grep -q ': installed' ||
	fail "dkms did not install habanalabs-ipc $VERSION for $KVER"
for k in ${OTHERS[@]+"${OTHERS[@]}"}; do
	! dkms status 2>/dev/null | grep -qF ", $k," || fail "dkms built for $k, whose headers are hidden"
	grep -qF "Module build for kernel $k was skipped" /run/out/install.log ||
		fail "the postinst did not say that it skipped $k"
done

step "the installed module: DKMS's, with the package's version, in $KVER's index"
m=habanalabs_ipc
path=$(modinfo -k "$KVER" -n "$m") || fail "modprobe does not know $m for $KVER"
case $path in
"$MODDIR/$m.ko" | "$MODDIR/$m.ko."*) ;;
*) fail "modinfo finds $m at $path, not in $MODDIR" ;;
esac
copies=$(ours | grep -c "/lib/modules/$KVER/.*/$m\.ko")
[ "$copies" = 1 ] || fail "$copies files of $m in /lib/modules/$KVER"
v=$(modinfo -k "$KVER" -F version "$m")
[ "$v" = "$VERSION" ] || fail "modinfo $m: version '$v', not $VERSION"
grep -q "updates/dkms/$m\.ko" "/lib/modules/$KVER/modules.dep" ||
	fail "modules.dep of $KVER does not name $m"
echo "ok: $m: $path, version $v"

if ! has_deb ucx-gaudi-ipc; then
	echo "no ucx-gaudi-ipc among the packages (built with --no-ucx): no UCX checks"
	echo "times: install (DKMS builds) ${INSTALL_T} s"
	echo PASS
	exit 0
fi

step "ucx-gaudi-ipc: hl-ucx finds the installed plugin; ucx_info lists gaudi_ipc"
UCXV=$(dpkg-query -W -f '${Version}' libucx0)
PLUGIN=$(dpkg -L ucx-gaudi-ipc | grep '/ucx/libuct_gaudi_ipc\.so$') ||
	fail "ucx-gaudi-ipc has no libuct_gaudi_ipc.so"
MODULE_DIR=$(ucx_info -c | sed -n 's/^UCX_MODULE_DIR=//p')
[ "$(dirname "$PLUGIN")" -ef "$MODULE_DIR" ] ||
	fail "the plugin is in $(dirname "$PLUGIN"), UCX's module directory is $MODULE_DIR"
dpkg-deb -f "$(deb_of ucx-gaudi-ipc)" Depends | grep -q "libucx0 (= $UCXV)" ||
	fail "ucx-gaudi-ipc does not depend on libucx0 (= $UCXV)"
[ "$(command -v hl-ucx)" = /usr/bin/hl-ucx ] || fail "hl-ucx on the PATH is '$(command -v hl-ucx)'"
run_rc 0 hl-ucx-help hl-ucx --help
has hl-ucx-help.out "^  $(re "$PLUGIN")  \(found: used\)"
has hl-ucx-help.out "built against libucx0 $(re "$UCXV")"
echo "ok: hl-ucx --help: $(grep -c '(found' /run/out/hl-ucx-help.out) of $(grep -c '^  /' /run/out/hl-ucx-help.out) places hold the plugin, $PLUGIN used"
man -w hl-ucx | grep -q '/usr/share/man/man1/hl-ucx.1' || fail "man hl-ucx does not find hl-ucx(1)"
run_rc 0 ucx-info hl-ucx ucx_info -d
for want in "Component: gaudi_ipc" "Memory domain: gaudi_ipc" "Transport: gaudi_ipc" "Device: gaudi"; do
	has ucx-info.out "# +$want\$"
done
echo "ok: hl-ucx ucx_info -d lists the gaudi_ipc component, memory domain and transport on device gaudi"

step "a UCX update: held back, or ucx-gaudi-ipc removed, unless a rebuilt ucx-gaudi-ipc comes with it"
. "$SRC/tests/pkg/ucx-upgrade-test.sh"
ucx_upgrade_test
echo "times: install (DKMS builds) ${INSTALL_T} s"
echo PASS
