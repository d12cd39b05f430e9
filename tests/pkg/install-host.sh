#!/bin/bash
# The package install test: the Debian packages installed as an image
# builder installs them, then booted and used as an operator uses them.
#
# In a mount namespace of its own, a tmpfs-backed overlay of the host's
# root (nothing reaches the host):
#  1. install-chroot.sh, chrooted into it, natively: dpkg -i, where the
#     DKMS postinst builds the module for KVER, and the userspace checks
#     (ucx-gaudi-ipc, a UCX update);
#  2. install-guest.sh in a VM booting KVER with that root (run-vm --root):
#     modprobe, udev, the devices, the tools, channels, purge.
# The DKMS build, which compiles 17 files, runs on the host's cores, not
# under TCG, where it took 525 s of one vCPU (18 s natively).
#
# With --trixie, the root is Debian 13's of tools/vm/trixie-root.sh instead
# of the host's, and the guest boots its kernel: the packages built there,
# installed with trixie's dpkg and dkms.
#
# usage (as root): install-host.sh [--trixie] SRC_DIR DEB_DIR KVER KMOD_DIR [RUN-VM OPTION...]
set -euo pipefail

die() {
	echo "install-host.sh: $*" >&2
	exit 1
}

ARGS=("$@")
LOWER=/
KERNEL_ARG=
if [ "${1:-}" = --trixie ]; then
	shift
	env=$("$(dirname "$0")/../../tools/vm/trixie-root.sh" --env) || die "no trixie root"
	# shellcheck disable=SC1090
	. "$env"
	LOWER=$HLTX_ROOT
	KERNEL_ARG=trixie
fi
[ $# -ge 4 ] || die "usage: install-host.sh [--trixie] SRC_DIR DEB_DIR KVER KMOD_DIR [RUN-VM OPTION...]"
[ "$(id -u)" = 0 ] || die "needs root: it mounts an overlay and chroots (the suite runs as root)"
if [ -z "${HL_PKG_NAMESPACE:-}" ]; then
	# A mount namespace of its own: its mounts vanish with it, whatever
	# happens, and QEMU started in it sees the overlay.
	HL_PKG_NAMESPACE=1 exec unshare --mount --propagation private -- "$0" "${ARGS[@]}"
fi
SRC=$(realpath "$1")
DEBS=$(realpath "$2")
KVER=$3
KMOD_DIR=$(realpath "$4")
shift 4
[ -s "$DEBS/debs.list" ] || die "no packages in $DEBS (run tools/build-debs.sh $DEBS)"
[ -d "$LOWER/lib/modules/$KVER" ] || die "kernel $KVER is not installed in $LOWER (tools/setup.sh installs it)"

W=$(mktemp -d /var/tmp/hl-pkg-install.XXXXXX)
trap 'umount -R -l "$W" 2>/dev/null; rmdir "$W"' EXIT
# shellcheck source=tools/vm/overlay-root.sh
. "$SRC/tools/vm/overlay-root.sh"
overlay_root "$LOWER" "$W" || die "cannot mount an overlay of $LOWER"
R=$W/root
# The checkout and the packages wherever they are (a clone under /tmp,
# another file system).
chroot_mounts "$R" "$SRC" "$DEBS" || die "cannot prepare the chroot $R"

echo "== the packages installed in a chroot of an overlay of $LOWER (natively)"
HL_PKG_CHROOT=1 chroot "$R" /bin/bash "$SRC/tests/pkg/install-chroot.sh" "$SRC" "$DEBS" "$KVER"
# The guest mounts what it needs itself.
chroot_unmounts "$R" "$SRC" "$DEBS" || die "cannot undo the chroot's mounts"

echo "== that root, booted on $KVER"
"$SRC/tools/vm/run-vm" --root "$R" --kernel "${KERNEL_ARG:-$KVER}" --kmod-dir "$KMOD_DIR" \
	--show "$DEBS" "$@" -- \
	"$SRC/tests/pkg/install-guest.sh" "$SRC" "$DEBS"
