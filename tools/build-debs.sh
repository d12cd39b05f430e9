#!/usr/bin/env bash
# Build the Debian packages of debian/ with dpkg-buildpackage, from a copy
# of the tree under OUTDIR: dpkg-buildpackage writes its results next to
# the source directory, and this keeps them (and its build tree) inside
# OUTDIR instead of the checkout's parent directory.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
	cat <<'EOF'
usage: tools/build-debs.sh [--check] OUTDIR

Builds the binary packages (dpkg-buildpackage -b -us -uc) from a copy of
this tree under OUTDIR/src, and puts the .deb files, the .buildinfo and
.changes files, the build log (build.log) and a list of the .deb files
(debs.list) into OUTDIR.  The copy holds the files git tracks and the
untracked files it does not ignore (in a tree without git: everything but
build*/ directories).

  --check   also run the host tests inside the package build (by default
            the build has DEB_BUILD_OPTIONS=nocheck: tools/test.sh runs
            them anyway)

Needs the packages of tools/setup.d/packages/debian.list (tools/setup.sh).
EOF
}

CHECK=0
while [ $# -gt 0 ]; do
	case $1 in
	--check) CHECK=1; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "build-debs: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
OUT=$(realpath -m "$1")

for t in dpkg-buildpackage dh dh_dkms; do
	command -v "$t" >/dev/null ||
		{ echo "build-debs: $t not found; run tools/setup.sh" >&2; exit 1; }
done
case $OUT/ in
"$TOP"/debian/* | "$TOP"/kernel/* | "$TOP"/uapi/*)
	echo "build-debs: OUTDIR must not be inside the packaged sources" >&2
	exit 2
	;;
esac

NAME=$(cd "$TOP" && dpkg-parsechangelog -SSource)
VERSION=$(cd "$TOP" && dpkg-parsechangelog -SVersion)
SRC=$OUT/src/$NAME-$VERSION
START=$(date +%s)
say() { printf '[build-debs %3d s] %s\n' $(($(date +%s) - START)) "$*"; }

mkdir -p "$OUT"
rm -rf "$OUT/src"
rm -f "$OUT"/*.deb "$OUT"/*.buildinfo "$OUT"/*.changes "$OUT/debs.list"
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
	tar -C "$TOP" --exclude='./build*' -cf - . | tar -C "$SRC" -xf -
fi

jobs=$(nproc)
opts="parallel=$jobs"
profiles=
# nocheck as an option skips the tests, as a build profile their build
# dependencies (<!nocheck> in debian/control).
[ "$CHECK" = 1 ] || { opts="nocheck $opts"; profiles=nocheck; }
say "dpkg-buildpackage -b -us -uc (DEB_BUILD_OPTIONS='$opts'${profiles:+, DEB_BUILD_PROFILES='$profiles'}), log in $OUT/build.log"
if ! (cd "$SRC" && DEB_BUILD_OPTIONS="$opts" DEB_BUILD_PROFILES="$profiles" \
	dpkg-buildpackage -b -us -uc) >"$OUT/build.log" 2>&1; then
	tail -n 60 "$OUT/build.log" >&2
	echo "build-debs: dpkg-buildpackage failed (whole log: $OUT/build.log; tree kept in $SRC)" >&2
	exit 1
fi
# Warnings that do not fail dpkg-buildpackage but mean a package is wrong.
if grep -E '^dh_[a-z_]+: (warning|error): ' "$OUT/build.log" >&2; then
	echo "build-debs: debhelper warned (see above and $OUT/build.log)" >&2
	exit 1
fi

mv "$OUT"/src/*.deb "$OUT"/src/*.buildinfo "$OUT"/src/*.changes "$OUT/"
(cd "$OUT" && ls -1 ./*.deb | sed 's,^\./,,') >"$OUT/debs.list"
rm -rf "$OUT/src"
say "built $(wc -l <"$OUT/debs.list") packages of $NAME $VERSION in $OUT:"
while read -r deb; do
	printf '  %-50s %6s KiB\n' "$deb" $(($(stat -c %s "$OUT/$deb") / 1024))
done <"$OUT/debs.list"
