#!/bin/bash
# Builds, on the host, the module index (modules.dep and friends) that a
# kernel's module tree has once our modules are installed in it under
# updates/hl-test/, for VM tests that install the modules where modprobe
# and udev find them.  depmod over the guest's 9p root would read every
# module of the kernel under emulation (minutes); natively it takes two
# seconds.  The guest copies the result next to the modules
# (guest-lib.sh, install_modules).
#
# usage: make-modindex.sh KVER KMOD_DIR OUT_DIR
#   KMOD_DIR  where our built .ko files are
#   OUT_DIR   gets the index files (modules.*)
# The kernel's modules are in /lib/modules/KVER, or for the debug kernel in
# the cache of tools/vm/debug-kernel.sh.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: make-modindex.sh KVER KMOD_DIR OUT_DIR" >&2; exit 2; }
KVER=$1 KMODS=$2 OUT=$3
TREE=/lib/modules/$KVER
if [ ! -d "$TREE/kernel" ]; then
	TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	# shellcheck source=/dev/null
	env=$("$TOP/tools/vm/debug-kernel.sh" --env 2>/dev/null) &&
		TREE=$(. "$env" && [ "$HLDK_KVER" = "$KVER" ] &&
			echo "$HLDK_MODROOT/lib/modules/$KVER") || true
fi
[ -d "$TREE/kernel" ] || { echo "make-modindex: no modules of $KVER found" >&2; exit 1; }
ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
M=$ROOT/lib/modules/$KVER
mkdir -p "$M/updates/hl-test"
ln -s "$TREE/kernel" "$M/kernel"
cp "$TREE"/modules.builtin* "$TREE/modules.order" "$M/"
cp "$KMODS/habanalabs_ipc.ko" "$KMODS/habanalabs_sim.ko" "$M/updates/hl-test/"
depmod -b "$ROOT" "$KVER"
mkdir -p "$OUT"
rm -f "$OUT"/modules.*
cp "$M"/modules.* "$OUT/"
echo "make-modindex: index of $KVER with our modules in $OUT"
