#!/usr/bin/env bash
# ucx-debian-source.sh: Debian's `ucx` source package at exactly the version
# of the installed libucx0, fetched with `apt-get source` and unpacked with
# Debian's patches.  The UCT transport's build takes UCX's internal headers
# from it, tools/ucx-gtest.sh UCX's gtest.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: ucx-debian-source.sh [--quiet] fetch DIR
       ucx-debian-source.sh check TREE
       ucx-debian-source.sh version

fetch DIR    fetch Debian's `ucx` source package of the installed libucx0
             version (apt-get source --download-only ucx=VERSION), unpack
             it with Debian's patches into DIR/ucx (DIR is created; it must
             not hold a tree already) and print that path.  The archives
             are removed again.  Needs deb-src entries for the archive
             libucx0 came from (tools/setup.sh adds them) and dpkg-dev.
check TREE   check that TREE is an unpacked UCX source of the installed
             version (its debian/changelog, else its configure.ac).
version      print the installed libucx0 version (Debian's, e.g. 1.13.1-1).

Every mode first checks that libucx0 is installed and that ucx_info
(ucx-utils) reports the same upstream version.  Exit status 0 on success,
1 with a message on stderr otherwise.
  --quiet    say nothing on stderr unless something fails
EOF
}

die() {
	echo "ucx-debian-source.sh: $*" >&2
	exit 1
}

QUIET=0
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	-q | --quiet) QUIET=1; shift ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || die "no mode given (see --help)"
MODE=$1
shift
case $MODE in
fetch | check) [ $# -eq 1 ] || die "$MODE wants one directory (see --help)" ;;
version) [ $# -eq 0 ] || die "version takes no argument" ;;
*) die "unknown mode '$MODE' (see --help)" ;;
esac

command -v dpkg-query >/dev/null ||
	die "dpkg-query not found: this needs Debian's UCX packages"
INSTALLED=$(dpkg-query -W -f '${Version}' libucx0 2>/dev/null) && [ -n "$INSTALLED" ] ||
	die "libucx0 is not installed: run tools/setup.sh (or apt-get install libucx-dev ucx-utils)"
command -v ucx_info >/dev/null ||
	die "ucx_info not found: install ucx-utils (tools/setup.sh does)"
# The source package libucx0 was built from: the same version, but for a
# rebuild of the binaries alone (a binNMU, "+b1": trixie's 1.18.1+ds-2+b1).
SOURCE=$(dpkg-query -W -f '${source:Version}' libucx0)
# UCX's own version: without epoch, Debian revision and repack suffix
# ("+ds", "+dfsg").
UPSTREAM=${SOURCE%-*}
UPSTREAM=${UPSTREAM#*:}
UPSTREAM=${UPSTREAM%%[+~]*}
# "# Version 1.13.1" (1.13), "# Library version: 1.18.1" (1.18).
info_version=$(ucx_info -v | sed -n -e 's/^# Version //p' -e 's/^# Library version: //p' | head -n 1)
[ "$info_version" = "$UPSTREAM" ] ||
	die "ucx_info reports UCX $info_version but libucx0 is $INSTALLED: install matching libucx0 and ucx-utils"

# check_tree TREE: the tree is the installed version.
check_tree() {
	local tree=$1 v
	[ -d "$tree/src/uct/base" ] || die "$tree is not an unpacked UCX source (no src/uct/base)"
	if [ -f "$tree/debian/changelog" ]; then
		v=$(dpkg-parsechangelog -l "$tree/debian/changelog" -S Version)
		[ "$v" = "$SOURCE" ] ||
			die "the source in $tree is ucx $v, the installed libucx0 $INSTALLED is built from ucx $SOURCE"
	else
		v=$(sed -n 's/^define(\[ucx_ver_\(major\|minor\|patch\)\], \([0-9]*\)).*/\2/p' \
			"$tree/configure.ac" | paste -sd.)
		[ "$v" = "$UPSTREAM" ] ||
			die "the source in $tree is UCX $v, the installed libucx0 is $UPSTREAM"
	fi
}

case $MODE in
version)
	echo "$INSTALLED"
	exit 0
	;;
check)
	check_tree "$1"
	exit 0
	;;
esac

DIR=$1
[ ! -e "$DIR/ucx" ] || die "$DIR/ucx exists already: remove it first"
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
command -v dpkg-source >/dev/null || die "dpkg-source not found: install dpkg-dev"
[ "$QUIET" = 1 ] ||
	echo "ucx-debian-source.sh: fetching the source of UCX $INSTALLED (apt-get source ucx=$SOURCE)" >&2
dl=$DIR/download
rm -rf "$dl"
mkdir -p "$dl"
# apt drops root for downloads; a root-owned directory is fine all the same.
(cd "$dl" && apt-get source --download-only -q -o APT::Sandbox::User=root \
	"ucx=$SOURCE" >apt.log 2>&1) || {
	tail -5 "$dl/apt.log" >&2
	die "could not fetch the source of ucx $SOURCE: apt needs deb-src entries for the archive libucx0 came from (tools/setup.sh adds them)"
}
dsc=$(ls "$dl"/ucx_*.dsc)
# apt checked the files against the archive's signed index; the .dsc
# signature check would only complain that no Debian keyring is here.
(cd "$dl" && dpkg-source -q -x "$dsc" "$DIR/ucx" >unpack.log 2>&1) || {
	tail -5 "$dl/unpack.log" >&2
	die "could not unpack $dsc"
}
# dpkg-source leaves the upstream tarball beside the tree it made.
rm -rf "$dl" "$DIR"/ucx_*.orig.tar.*
check_tree "$DIR/ucx"
echo "$DIR/ucx"
