#!/usr/bin/env bash
# trixie-root.sh: a Debian 13 (trixie) root file system, built with
# debootstrap from the machine's own Debian archive and kept in a cache,
# for what the project does on trixie from a Debian 12 host: build the
# modules against trixie's kernel headers (whose kbuild programs need
# trixie's C library, so they run chrooted in this root) and boot trixie's
# kernel under run-vm (--kernel trixie) with its modules from this root.
#
# Nothing is fetched again while its package list and layout are
# unchanged; the root keeps the package versions it was built with (see
# --refresh).  Prints the path of its env file with --env.
set -euo pipefail
CACHE=${HL_TRIXIE_CACHE:-/var/cache/hlipc-trixie}
MODE=build
# What the root holds: trixie's kernel and its headers, and what building
# our modules needs there (the compiler the kernel was built with comes
# with the headers; sparse for the warning-free check build).
PACKAGES=(linux-image-amd64 linux-headers-amd64 make sparse kmod xz-utils zstd)
# What building the userspace and the Debian packages needs there, as
# debian/control's Build-Depends say (without the <!nocheck> ones: the
# userspace tests run on bookworm), with trixie's UCX and its source
# (deb-src entries), and what the packages' install test and UCX's gtest
# use in a guest booted with this root.
USERSPACE=(build-essential cmake pkgconf systemd-dev cpio file python3 git
	libkmod-dev libudev-dev liblzma-dev libibverbs-dev libucx-dev ucx-utils
	debhelper dh-dkms dkms fakeroot lintian dpkg-dev
	udev systemd man-db perl util-linux iproute2 rdma-core ibverbs-providers)

usage() {
	cat <<EOF
usage: trixie-root.sh [options]
Build (once) a trixie root file system with debootstrap, holding trixie's
kernel, its headers, what building out-of-tree modules, the userspace and
the Debian packages needs, and trixie's UCX:
  ${PACKAGES[*]}
  ${USERSPACE[*]}
and write an env file (HLTX_ROOT, HLTX_KVER, HLTX_VMLINUZ) beside it.
options:
  --cache DIR   cache directory (default: \$HL_TRIXIE_CACHE, else
                /var/cache/hlipc-trixie; now $CACHE); not under /tmp,
                /var/tmp, /run or /root, which run-vm's guest covers
  --env         print the env file's path if the root is built; fail if not
  --refresh     build it again (trixie's point releases move its kernel)
  -h, --help    this text
The archive is the one apt uses for bookworm on this machine; trixie's
signing keys come with Debian 12's debian-archive-keyring.
EOF
}
while [ $# -gt 0 ]; do
	case $1 in
	--cache) CACHE=$2; shift 2 ;;
	--env) MODE='env'; shift ;;
	--refresh) MODE='refresh'; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "trixie-root.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
say() { printf '[trixie-root] %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# The cache entry is named by the package list and by LAYOUT, which a
# change to what the root or its env file hold must raise.
LAYOUT=2
KEY=$(echo "$LAYOUT ${PACKAGES[*]} / ${USERSPACE[*]}" | sha256sum | cut -c1-16)
DIR=$CACHE/trixie-$KEY
ENV=$DIR/trixie.env
if [ "$MODE" = env ]; then
	[ -f "$DIR/ready" ] || die "no trixie root in $CACHE yet; run tools/vm/trixie-root.sh"
	echo "$ENV"
	exit 0
fi
[ "$(id -u)" = 0 ] || die "run as root (debootstrap and chroot need it)"
if [ "$MODE" = build ] && [ -f "$DIR/ready" ]; then
	say "cached: $(cat "$DIR/ready")"
	exit 0
fi
command -v debootstrap >/dev/null || die "debootstrap not found; run tools/setup.sh"

# The archive apt fetches bookworm from (a local mirror stays in use).
MIRROR=$(apt-get indextargets --no-release-info --format '$(SITE) $(RELEASE)' 2>/dev/null |
	awk '$2 == "bookworm" { print $1; exit }')
[ -n "$MIRROR" ] || die "apt has no bookworm archive configured; cannot tell where to fetch trixie from"

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
[ "$MODE" = refresh ] || [ ! -f "$DIR/ready" ] || { say "cached: $(cat "$DIR/ready")"; exit 0; }
TMP=$DIR.tmp
rm -rf "$TMP"
mkdir -p "$TMP"
say "debootstrap trixie from $MIRROR into $TMP (a few minutes; log in $TMP/debootstrap.log)"
inc=$(IFS=,; echo "${PACKAGES[*]}")
if ! debootstrap --variant=minbase --include="$inc" trixie "$TMP/root" "$MIRROR" \
	>"$TMP/debootstrap.log" 2>&1; then
	tail -n 20 "$TMP/debootstrap.log" >&2
	die "debootstrap failed (whole log: $TMP/debootstrap.log)"
fi
# apt-get source in the root (UCX's source for the transport and its
# gtest): deb-src beside debootstrap's deb line.
sed -n 's/^deb /deb-src /p' "$TMP/root/etc/apt/sources.list" >>"$TMP/root/etc/apt/sources.list"
grep -q '^deb-src ' "$TMP/root/etc/apt/sources.list" ||
	die "no deb line in the root's sources.list to add deb-src to"
# The userspace with apt, which resolves what debootstrap's --include does
# not (virtual packages), in a mount namespace that takes /proc away
# again; no service starts in the root.
say "installing the userspace packages in the root with apt (log in $TMP/apt.log)"
printf '#!/bin/sh\nexit 101\n' >"$TMP/root/usr/sbin/policy-rc.d"
chmod +x "$TMP/root/usr/sbin/policy-rc.d"
if ! unshare --mount --propagation private -- sh -c '
	mount -t proc proc "$1/proc" && shift &&
	chroot "$0" apt-get -q update &&
	DEBIAN_FRONTEND=noninteractive chroot "$0" apt-get -q -y --no-install-recommends install "$@"
' "$TMP/root" "$TMP/root" "${USERSPACE[@]}" >"$TMP/apt.log" 2>&1; then
	tail -n 20 "$TMP/apt.log" >&2
	die "apt-get install in the trixie root failed (whole log: $TMP/apt.log)"
fi
rm -f "$TMP/root/usr/sbin/policy-rc.d"
rm -rf "$TMP/root/var/cache/apt/archives/"*.deb

kvers=$(ls "$TMP/root/lib/modules")
[ "$(echo "$kvers" | wc -l)" = 1 ] || die "expected one kernel in the trixie root, found: $kvers"
KVER=$kvers
[ -f "$TMP/root/boot/vmlinuz-$KVER" ] && [ -d "$TMP/root/usr/src/linux-headers-$KVER" ] ||
	die "the trixie root lacks the image or the headers of $KVER"
pkgver=$(chroot "$TMP/root" dpkg-query -W -f '${Version}' "linux-image-$KVER")
{
	echo "# Written by tools/vm/trixie-root.sh; read by run-vm and the CMake build."
	echo "HLTX_ROOT='$DIR/root'"
	echo "HLTX_KVER='$KVER'"
	echo "HLTX_VMLINUZ='$DIR/root/boot/vmlinuz-$KVER'"
	echo "HLTX_KERNEL_PACKAGE='linux-image-$KVER $pkgver'"
} >"$TMP/trixie.env"
echo "trixie, kernel $KVER ($pkgver), built $(date -u +%F)" >"$TMP/ready"
rm -rf "$DIR"
mv "$TMP" "$DIR"
# Older entries (another package list or layout) go.
find "$CACHE" -mindepth 1 -maxdepth 1 -name 'trixie-*' ! -name "trixie-$KEY" -exec rm -rf {} +
say "ready: $(cat "$DIR/ready")"
