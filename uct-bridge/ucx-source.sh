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
# installed libucx0, fetched with `apt-get source` (needs deb-src entries:
# tools/setup.sh adds them) unless SOURCE_DIR names an unpacked tree of
# that version.  The result is cached: a second run only checks versions.
# Nothing of UCX is kept outside OUT.
set -euo pipefail

die() {
	echo "ucx-source.sh: $*" >&2
	exit 1
}

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: ucx-source.sh OUT [SOURCE_DIR]"
OUT=$1
SRC=${2:-}

command -v dpkg-query >/dev/null ||
	die "dpkg-query not found: the bridge builds against Debian's UCX packages"
installed=$(dpkg-query -W -f '${Version}' libucx0 2>/dev/null) && [ -n "$installed" ] ||
	die "libucx0 is not installed: run tools/setup.sh (or apt-get install libucx-dev ucx-utils)"
command -v ucx_info >/dev/null ||
	die "ucx_info not found: install ucx-utils (tools/setup.sh does)"
upstream=${installed%-*}
upstream=${upstream#*:}
info_version=$(ucx_info -v | sed -n 's/^# Version //p')
[ "$info_version" = "$upstream" ] ||
	die "ucx_info reports UCX $info_version but libucx0 is $installed: install matching libucx0 and ucx-utils"

stamp=$OUT/stamp
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$installed" ] &&
	[ -f "$OUT/include/uct/base/uct_iface.h" ]; then
	exit 0
fi

rm -rf "$OUT"
mkdir -p "$OUT"
work=$OUT/work
mkdir -p "$work"

if [ -n "$SRC" ]; then
	[ -d "$SRC/src/uct/base" ] || die "$SRC is not an unpacked UCX source (no src/uct/base)"
	tree=$(cd "$SRC" && pwd)
else
	echo "ucx-source.sh: fetching the source of UCX $installed (apt-get source ucx=$installed)"
	command -v dpkg-source >/dev/null || die "dpkg-source not found: install dpkg-dev"
	(cd "$work" && apt-get source --download-only -q "ucx=$installed" >apt.log 2>&1) || {
		tail -5 "$work/apt.log" >&2
		die "could not fetch the source of ucx $installed: apt needs deb-src entries for the archive libucx0 came from (tools/setup.sh adds them), or pass -DHL_UCX_SOURCE_DIR=<unpacked ucx-$upstream>"
	}
	dsc=$(ls "$work"/ucx_*.dsc)
	# apt checked the files against the archive's signed index; the .dsc
	# signature check would only complain that no Debian keyring is here.
	(cd "$work" && dpkg-source -q -x "$dsc" src >unpack.log 2>&1) || {
		tail -5 "$work/unpack.log" >&2
		die "could not unpack $dsc"
	}
	tree=$work/src
fi

# The tree must be the installed version: its Debian changelog when it has
# one, else the version in configure.ac.
if [ -f "$tree/debian/changelog" ]; then
	src_version=$(dpkg-parsechangelog -l "$tree/debian/changelog" -S Version)
	[ "$src_version" = "$installed" ] ||
		die "the source in $tree is ucx $src_version, the installed libucx0 is $installed"
else
	v=$(sed -n 's/^define(\[ucx_ver_\(major\|minor\|patch\)\], \([0-9]*\)).*/\2/p' "$tree/configure.ac" | paste -sd.)
	[ "$v" = "$upstream" ] ||
		die "the source in $tree is UCX $v, the installed libucx0 is $upstream"
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
