#!/usr/bin/env bash
# Build the source package and the binary packages of debian/, under
# OUTDIR: dpkg-source and dpkg-buildpackage write their results next to the
# source directory, and this keeps them (and the build tree) inside OUTDIR
# instead of the checkout's parent directory.
#
# The source package has two upstream tarballs: the project's (the tree
# without debian/) and the component "ucx", Debian's ucx source package of
# the installed libucx0 version (apt-get source, with Debian's patches),
# which the gaudi_ipc transport is built against.  The binary packages are
# then built from that source package, unpacked afresh, with the network
# cut off: what the build needs is in the source.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
	cat <<'EOF'
usage: tools/build-debs.sh [--check] [--ucx-source TREE | --no-ucx] OUTDIR

Builds the source package (dpkg-source -b) from a copy of this tree under
OUTDIR/src, with Debian's ucx source package as its component "ucx", then
unpacks it again and builds the binary packages from it (dpkg-buildpackage
-b -us -uc) without network access.  OUTDIR gets the source package (.dsc,
.orig.tar.xz, .orig-ucx.tar.xz, .debian.tar.xz), the .deb files, the
.buildinfo and .changes files, the logs (source.log: dpkg-source;
build.log: dpkg-buildpackage) and lists of the
.deb files (debs.list) and of the source package's files (source.list).
The copy holds the files git tracks and the untracked files it does not
ignore (in a tree without git: everything but build*/, ucx/, .git/).

  --check            also run the host tests inside the package build (by
                     default the build has DEB_BUILD_OPTIONS=nocheck:
                     tools/test.sh runs them anyway)
  --ucx-source TREE  take UCX's source from TREE, an unpacked ucx source
                     package of the installed libucx0 version (dpkg-source
                     -x), or UCX's own release of that version (for an
                     archive that does not serve Debian's source: trixie's
                     here), instead of fetching it with apt-get source; the
                     fetched source is kept in OUTDIR/ucx-cache/ and used
                     again while libucx0 keeps its version
  --no-ucx           no UCX: the source package without the component
                     "ucx", the binary packages with the build profile
                     pkg.habanalabs-ipc.noucx, which leaves ucx-gaudi-ipc
                     out (where no UCX source of the installed version is
                     at hand)
  -h, --help         this text

Needs the packages of tools/setup.d/packages/debian.list and ucx.list
(tools/setup.sh), and deb-src entries for the archive libucx0 came from
unless --ucx-source is given.  Building without network isolation (when
unshare --net is not permitted, e.g. not as root) is said in the output.
EOF
}

CHECK=0
UCX_TREE=
UCX_VERSION=
NOUCX=0
while [ $# -gt 0 ]; do
	case $1 in
	--check) CHECK=1; shift ;;
	--ucx-source)
		[ $# -ge 2 ] || { echo "build-debs: --ucx-source needs a directory (see --help)" >&2; exit 2; }
		UCX_TREE=$(realpath "$2"); shift 2 ;;
	--no-ucx) NOUCX=1; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "build-debs: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
OUT=$(realpath -m "$1")

for t in dpkg-buildpackage dpkg-source dh dh_dkms; do
	command -v "$t" >/dev/null ||
		{ echo "build-debs: $t not found; run tools/setup.sh" >&2; exit 1; }
done
case $OUT/ in
"$TOP"/debian/* | "$TOP"/kernel/* | "$TOP"/uapi/* | "$TOP"/ucx/*)
	echo "build-debs: OUTDIR must not be inside the packaged sources" >&2
	exit 2
	;;
esac

NAME=$(cd "$TOP" && dpkg-parsechangelog -SSource)
VERSION=$(cd "$TOP" && dpkg-parsechangelog -SVersion)
UPSTREAM=${VERSION%-*}
UPSTREAM=${UPSTREAM#*:}
[ "$UPSTREAM" != "$VERSION" ] || {
	echo "build-debs: debian/changelog's version $VERSION has no Debian revision (source format 3.0 (quilt) needs one)" >&2
	exit 1
}
# The project's tarball gets the date of the changelog entry, so that the
# same tree makes the same tarball.
EPOCH=$(cd "$TOP" && dpkg-parsechangelog -STimestamp)
SRC=$OUT/src/$NAME-$UPSTREAM
BLD=$OUT/src/build/$NAME-$UPSTREAM
ORIG=${NAME}_$UPSTREAM.orig.tar.xz
ORIG_UCX=${NAME}_$UPSTREAM.orig-ucx.tar.xz
START=$(date +%s)
say() { printf '[build-debs %3d s] %s\n' $(($(date +%s) - START)) "$*"; }

# ucx_tarball DIR FILE: a reproducible tarball of DIR/ucx (files in name
# order, root-owned, dated as UCX's Debian changelog, or as its
# configure.ac in UCX's own release), xz-compressed into FILE: the same UCX
# source makes the same component.
ucx_tarball() {
	local t
	if [ -f "$1/ucx/debian/changelog" ]; then
		t=$(dpkg-parsechangelog -l "$1/ucx/debian/changelog" -STimestamp)
	else
		t=$(stat -c %Y "$1/ucx/configure.ac")
	fi
	tar -C "$1" --sort=name --mtime="@$t" --owner=0 --group=0 \
		--numeric-owner --format=gnu -cf - ucx | xz -6 -T1 >"$2.tmp"
	mv "$2.tmp" "$2"
}

mkdir -p "$OUT"
rm -rf "$OUT/src"
rm -f "$OUT"/*.deb "$OUT"/*.buildinfo "$OUT"/*.changes "$OUT"/*.dsc \
	"$OUT"/*.tar.xz "$OUT/debs.list" "$OUT/source.list"
mkdir -p "$SRC"
say "copying the tree to $SRC"
if git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard) |
		(cd "$TOP" && while IFS= read -r -d '' f; do
			# Deleted but still in the index: not part of the tree.
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done) |
		tar -C "$TOP" --null -T - -cf - | tar -C "$SRC" -xf -
else
	tar -C "$TOP" --exclude='./build*' --exclude=./ucx --exclude=./.git -cf - . | tar -C "$SRC" -xf -
fi
[ ! -e "$SRC/ucx" ] || {
	echo "build-debs: the tree has a ucx/ that git does not ignore; UCX's source comes only from the component (remove it)" >&2
	exit 1
}

# --- the component "ucx": Debian's ucx source of the installed version ----
DEBSRC=$TOP/tools/ucx-debian-source.sh
if [ "$NOUCX" = 1 ]; then
	[ -z "$UCX_TREE" ] || { echo "build-debs: --no-ucx and --ucx-source exclude each other" >&2; exit 2; }
	say "no UCX (--no-ucx): no component ucx, no ucx-gaudi-ipc"
elif ! UCX_VERSION=$("$DEBSRC" version); then
	exit 1
elif [ -n "$UCX_TREE" ]; then
	"$DEBSRC" check "$UCX_TREE" || exit 1
	say "UCX $UCX_VERSION: the source in $UCX_TREE"
	rm -rf "$OUT/ucx-tree"
	mkdir -p "$OUT/ucx-tree"
	cp -a "$UCX_TREE" "$OUT/ucx-tree/ucx"
	rm -rf "$OUT/ucx-tree/ucx/.pc"
	ucx_tarball "$OUT/ucx-tree" "$OUT/src/$ORIG_UCX"
	rm -rf "$OUT/ucx-tree"
else
	cache=$OUT/ucx-cache/ucx_$UCX_VERSION.tar.xz
	if [ -f "$cache" ]; then
		say "UCX $UCX_VERSION: the source fetched before ($cache)"
	else
		say "UCX $UCX_VERSION: fetching Debian's ucx source package (apt-get source)"
		rm -rf "$OUT/ucx-cache"
		mkdir -p "$OUT/ucx-cache"
		tree=$("$DEBSRC" --quiet fetch "$OUT/ucx-cache/work") || exit 1
		# Quilt's record of the applied patches is no part of the source.
		rm -rf "$tree/.pc"
		ucx_tarball "$(dirname "$tree")" "$cache"
		rm -rf "$OUT/ucx-cache/work"
	fi
	cp "$cache" "$OUT/src/$ORIG_UCX"
fi

# --- the source package ---------------------------------------------------
if [ "$NOUCX" = 1 ]; then
	say "the source package: $ORIG (the tree without debian/)"
else
	say "the source package: $ORIG (the tree without debian/), $ORIG_UCX"
fi
(cd "$SRC" && find . -mindepth 1 -maxdepth 1 ! -name debian -printf '%P\0' | sort -z) |
	(cd "$SRC" && tar --null -T - --sort=name --mtime="@$EPOCH" --owner=0 \
		--group=0 --numeric-owner --format=gnu \
		--transform "s,^,$NAME-$UPSTREAM/," -cf -) | xz -6 -T1 >"$OUT/src/$ORIG"
if [ "$NOUCX" = 1 ]; then
	# Without the component, debian/copyright speaks of no UCX file: its
	# ucx/ paragraphs go, and the license paragraphs only they used.
	perl -0 -i -e '
		my @p = grep { !/^Files: ucx\//m } split /\n\n+/, do { local $/; <> };
		my %used = map { /^License: (.+)$/m ? ($1 => 1) : () } grep { /^Files:/m } @p;
		print join("\n\n", grep { /^Files:/m || !/^License: (.+)$/m || $used{$1} } @p), "\n";
	' "$SRC/debian/copyright"
else
	tar -C "$SRC" -xJf "$OUT/src/$ORIG_UCX"
fi
(cd "$OUT/src" && dpkg-source -b "$NAME-$UPSTREAM") >"$OUT/source.log" 2>&1 || {
	cat "$OUT/source.log" >&2
	echo "build-debs: dpkg-source -b failed (tree kept in $SRC)" >&2
	exit 1
}
DSC=$OUT/src/${NAME}_${VERSION#*:}.dsc

# --- the binary packages, from the source package, offline ---------------
mkdir -p "$(dirname "$BLD")"
# (It checks the tarballs against the .dsc; that nobody signed the .dsc
# is no news.)
(cd "$OUT/src" && dpkg-source -x "$DSC" "$BLD") >>"$OUT/source.log" 2>&1 || {
	tail -n 20 "$OUT/source.log" >&2
	echo "build-debs: cannot unpack $DSC (whole log: $OUT/source.log)" >&2
	exit 1
}
if grep -v 'warning: extracting unsigned source package' "$OUT/source.log" |
	grep -E '^dpkg-source: (warning|error): ' >&2; then
	echo "build-debs: dpkg-source warned (see above and $OUT/source.log)" >&2
	exit 1
fi
OFFLINE=(unshare --net --)
if ! unshare --net true 2>/dev/null; then
	OFFLINE=()
	say "note: unshare --net is not permitted here; the build keeps network access"
fi
jobs=$(nproc)
opts="parallel=$jobs"
profiles=
# nocheck as an option skips the tests, as a build profile their build
# dependencies (<!nocheck> in debian/control).
[ "$CHECK" = 1 ] || { opts="nocheck $opts"; profiles=nocheck; }
[ "$NOUCX" = 0 ] || profiles="${profiles:+$profiles }pkg.habanalabs-ipc.noucx"
say "dpkg-buildpackage -b -us -uc${OFFLINE[*]:+ without network} (DEB_BUILD_OPTIONS='$opts'${profiles:+, DEB_BUILD_PROFILES='$profiles'}), log in $OUT/build.log"
if ! (cd "$BLD" && DEB_BUILD_OPTIONS="$opts" DEB_BUILD_PROFILES="$profiles" \
	${OFFLINE[@]+"${OFFLINE[@]}"} dpkg-buildpackage -b -us -uc) >"$OUT/build.log" 2>&1; then
	tail -n 60 "$OUT/build.log" >&2
	echo "build-debs: dpkg-buildpackage failed (whole log: $OUT/build.log; tree kept in $BLD)" >&2
	exit 1
fi
# Warnings that do not fail dpkg-buildpackage but mean a package is wrong.
# But one: on Debian 13, libc6 diverts the dynamic loader's /lib64 path
# for the /usr merge, and dpkg-shlibdeps says so for every binary that
# names it (the dependencies it computes are libc6's all the same).
if sed -n '/^dpkg-shlibdeps: warning: diversions involved/{N;/\n diversion by libc6 \(from\|to\): \/lib64\/ld-linux-x86-64\.so\.2\(\.usr-is-merged\)\?$/d;p;d};p' \
	"$OUT/build.log" |
	grep -E '^(dh_[a-z_]+|dpkg-source|dpkg-gencontrol|dpkg-shlibdeps): (warning|error): ' >&2; then
	echo "build-debs: the build warned (see above and $OUT/build.log)" >&2
	exit 1
fi

mv "$OUT"/src/build/*.deb "$OUT"/src/build/*.buildinfo "$OUT"/src/build/*.changes "$OUT/"
mv "$DSC" "$OUT/src/$ORIG" "$OUT"/src/*.debian.tar.xz "$OUT/"
[ "$NOUCX" = 1 ] || mv "$OUT/src/$ORIG_UCX" "$OUT/"
(cd "$OUT" && ls -1 ./*.deb | sed 's,^\./,,') >"$OUT/debs.list"
(cd "$OUT" && ls -1 ./*.dsc ./*.tar.xz | sed 's,^\./,,') >"$OUT/source.list"
rm -rf "$OUT/src"
say "built $(wc -l <"$OUT/debs.list") packages of $NAME $VERSION (UCX ${UCX_VERSION:-none: --no-ucx}) in $OUT:"
while read -r f; do
	printf '  %-58s %6s KiB\n' "$f" $(($(stat -c %s "$OUT/$f") / 1024))
done < <(cat "$OUT/source.list" "$OUT/debs.list")
