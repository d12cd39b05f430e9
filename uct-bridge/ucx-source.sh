#!/usr/bin/env bash
# ucx-source.sh OUT [SOURCE_DIR]
#
# Prepares what building the gaudi_ipc transport needs from the UCX that is
# installed here, which does not ship its internal headers (uct/base/,
# most of ucs/): OUT/include holds the headers of the source of exactly the
# installed version, and OUT/include/config.h the installed build's own
# config.h as `ucx_info -b` prints it (ENABLE_STATS and friends change
# struct layouts, so the plugin must see the build's settings, not a fresh
# configure run's).
#
# The source is Debian's `ucx` source package at the version of the
# installed libucx0, fetched and checked by tools/ucx-debian-source.sh
# (apt-get source; needs deb-src entries: tools/setup.sh adds them) unless
# SOURCE_DIR names an unpacked tree of that version.  The result is
# cached: a second run only checks versions.  Nothing of UCX is kept
# outside OUT.
set -euo pipefail

die() {
	echo "ucx-source.sh: $*" >&2
	exit 1
}

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: ucx-source.sh OUT [SOURCE_DIR]"
OUT=$1
SRC=${2:-}
DEBSRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)/ucx-debian-source.sh

# Also checks that libucx0 and ucx_info agree.
installed=$("$DEBSRC" version) || exit 1

stamp=$OUT/stamp
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$installed" ] &&
	[ -f "$OUT/include/uct/base/uct_iface.h" ]; then
	exit 0
fi

rm -rf "$OUT"
mkdir -p "$OUT"
work=$OUT/work

if [ -n "$SRC" ]; then
	"$DEBSRC" check "$SRC" || exit 1
	tree=$(cd "$SRC" && pwd)
else
	tree=$("$DEBSRC" fetch "$work") ||
		die "or pass -DHL_UCX_SOURCE_DIR=<an unpacked ucx source of version $installed>"
fi

mkdir -p "$OUT/include"
(cd "$tree/src" && find . \( -name '*.h' -o -name '*.inl' \) -print0 |
	cpio -0 -pdm --quiet "$OUT/include")
ucx_info -b >"$OUT/include/config.h"
grep -q '^#define UCX_CONFIG_H' "$OUT/include/config.h" ||
	die "ucx_info -b did not print a config.h"
rm -rf "$work"
echo "$installed" >"$stamp"
echo "ucx-source.sh: UCX $installed internal headers and config.h in $OUT/include"
