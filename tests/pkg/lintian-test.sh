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
lintian --fail-on error,warning --display-info --show-overrides --info --allow-root \
	"${debs[@]}" >"$out" 2>&1 || rc=$?
cat "$out"
if [ "$rc" != 0 ]; then
	echo "lintian failed (status $rc): fix the packaging, or add an override with its reason" >&2
	exit 1
fi
echo "PASS: no lintian errors or warnings ($(grep -c '^I: ' "$out" || true) informational tags, $(grep -c '^O: ' "$out" || true) overridden)"
