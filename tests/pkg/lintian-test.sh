#!/usr/bin/env bash
# lintian on the built packages and on the source package (the .dsc,
# with its component ucx): any error fails, and so does any warning (the
# packages have none; an accepted one goes into debian/*.lintian-overrides,
# or debian/source/lintian-overrides, with its reason).  Informational
# tags are printed only.
# usage: lintian-test.sh DEB_DIR
set -euo pipefail
DEBS=$(realpath "$1")
[ -s "$DEBS/debs.list" ] || { echo "no $DEBS/debs.list: build the packages first (tools/build-debs.sh)" >&2; exit 1; }
command -v lintian >/dev/null || { echo "lintian not found: run tools/setup.sh" >&2; exit 1; }
[ -s "$DEBS/source.list" ] || { echo "no $DEBS/source.list: build the packages with tools/build-debs.sh" >&2; exit 1; }
mapfile -t debs < <(sed "s,^,$DEBS/," "$DEBS/debs.list"; grep '\.dsc$' "$DEBS/source.list" | sed "s,^,$DEBS/,")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "lintian $(lintian --version | awk '{print $2}') on ${#debs[@]} packages (the source package among them)"
# --fail-on error,warning: the exit status; --info adds the explanation of
# each tag reported.
rc=0
lintian --fail-on error,warning --display-info --info --allow-root \
	"${debs[@]}" >"$out" 2>&1 || rc=$?
cat "$out"
if [ "$rc" != 0 ]; then
	echo "lintian failed (status $rc): fix the packaging, or add an override with its reason" >&2
	exit 1
fi
# The accepted tags (lintian does not print them: with --show-overrides,
# --fail-on counts them too): the overrides the packages carry.
overrides() {
	local f
	for f in "${debs[@]}"; do
		case $f in
		*.dsc) tar -xJOf "${f%.dsc}.debian.tar.xz" debian/source/lintian-overrides 2>/dev/null ;;
		*.deb) dpkg-deb --fsys-tarfile "$f" | tar -xOf - --wildcards './usr/share/lintian/overrides/*' 2>/dev/null ;;
		esac
	done | grep -v '^#' | grep -v '^[[:space:]]*$' || true
}
ov=$(overrides)
[ -z "$ov" ] || { echo "overridden (each with its reason in the override file):"; echo "$ov" | sed 's/^/  /'; }
echo "PASS: no lintian errors or warnings ($(grep -c '^I: ' "$out" || true) informational tags, $(echo -n "$ov" | grep -c . || true) overridden)"
