#!/usr/bin/env bash
# Build our kernel modules (and the harness's test modules) for one kernel
# into OUTDIR, from a private copy of the sources so that builds for
# different kernels never share object files.
#
# usage: build-kmods.sh KVER OUTDIR [--no-check]
# HL_KDIR=DIR builds against DIR instead of /lib/modules/KVER/build.
# HL_KROOT=ROOT builds inside the root file system ROOT (chrooted, with
# OUTDIR shown in it at /hlbuild): for a kernel of another Debian release,
# whose kbuild programs need that release's C library
# (tools/vm/trixie-root.sh); HL_KDIR is then a path inside ROOT.
# By default the build is W=1 and sparse (C=1) and any warning fails it.
# HL_MODULES="habanalabs_sim" in the environment builds only that module.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: build-kmods.sh KVER OUTDIR [--no-check]" >&2; exit 2; }
KVER=$1
OUT=$(realpath -m "$2")
TARGET=check
[ "${3:-}" = --no-check ] && TARGET=all
# HL_KDIR names the build tree of a kernel not installed on the host (the
# debug kernel of tools/vm/debug-kernel.sh).
KDIR=${HL_KDIR:-/lib/modules/$KVER/build}
KROOT=${HL_KROOT:-}
[ -d "$KROOT$KDIR" ] || { echo "build-kmods: no headers for $KVER in $KROOT$KDIR; run tools/setup.sh" >&2; exit 1; }

SRC=$OUT/src
mkdir -p "$SRC"
# Copy only what changed so that kbuild's incremental build works.
for d in kernel uapi tests/kmod; do
	mkdir -p "$SRC/$d"
	cp -ru --preserve=timestamps "$TOP/$d/." "$SRC/$d/"
done
# Files removed from the tree must not linger in the copy.
for d in kernel uapi tests/kmod; do
	(cd "$SRC/$d" && find . -name '*.[ch]' -o -name Kbuild -o -name Makefile) |
		while read -r f; do
			case $f in ./compat/generated/*) continue ;; esac
			[ -e "$TOP/$d/$f" ] || rm -f "$SRC/$d/$f"
		done
done

# The module version comes from dkms.conf (kernel/Kbuild).
cp -u --preserve=timestamps "$TOP/dkms.conf" "$SRC/dkms.conf"

echo "build-kmods: $KVER ($TARGET)"
# in_build CMD...: run CMD where the kernel's build programs run, with
# BSRC the sources' path as CMD sees it.
if [ -z "$KROOT" ]; then
	in_build() { "$@"; }
	BSRC=$SRC
else
	mkdir -p "$KROOT/hlbuild"
	# A private mount namespace: the bind mount ends with the build.
	in_build() {
		unshare --mount --propagation private -- sh -c \
			'mount --bind "$1" "$2/hlbuild" && shift && exec chroot "$@"' \
			sh "$OUT" "$KROOT" "$@"
	}
	BSRC=/hlbuild/src
fi
in_build make -s -C "$BSRC/kernel" KVER="$KVER" KDIR="$KDIR" ${HL_MODULES:+HL_MODULES="$HL_MODULES"} "$TARGET"
in_build make -s -C "$KDIR" M="$BSRC/tests/kmod" W=1 modules
find "$SRC/kernel" "$SRC/tests/kmod" -name '*.ko' -exec cp {} "$OUT/" \;
echo "build-kmods: $KVER: $(cd "$OUT" && ls ./*.ko | xargs -n1 basename | tr '\n' ' ')"
