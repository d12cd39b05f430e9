#!/usr/bin/env bash
# usage: dkms-build.sh KVER
# "dkms add" + "dkms build" of this source tree against KVER's headers, in
# a private DKMS tree under a temporary directory (the system's DKMS state
# is not touched), and check that both modules come out of it.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KVER=$1
NAME=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$TOP/dkms.conf")
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")
CMAKE_VER=$(sed -n 's/^project([^ ]* VERSION \([0-9.]*\).*/\1/p' "$TOP/CMakeLists.txt")
if [ "$VER" != "$CMAKE_VER" ]; then
	echo "dkms.conf version $VER differs from CMakeLists.txt version $CMAKE_VER" >&2
	exit 1
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SRC=$TMP/src/$NAME-$VER
mkdir -p "$SRC" "$TMP/dkms" "$TMP/install"
# What a DKMS source package ships: dkms.conf, the kernel sources, the uapi.
(cd "$TOP" && git ls-files -- dkms.conf kernel uapi 2>/dev/null || find dkms.conf kernel uapi -type f) |
	while read -r f; do
		mkdir -p "$SRC/$(dirname "$f")"
		cp "$TOP/$f" "$SRC/$f"
	done

D=(dkms --sourcetree "$TMP/src" --dkmstree "$TMP/dkms" --installtree "$TMP/install")
"${D[@]}" add -m "$NAME" -v "$VER"
if ! "${D[@]}" build -m "$NAME" -v "$VER" -k "$KVER"; then
	cat "$TMP/dkms/$NAME/$VER/build/make.log" 2>/dev/null | tail -n 40 >&2
	exit 1
fi
status=0
for m in $(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\(.*\)"/\1/p' "$TOP/dkms.conf"); do
	ko=$(find "$TMP/dkms/$NAME/$VER/$KVER" -name "$m.ko*" | head -n 1)
	if [ -z "$ko" ]; then
		echo "dkms build for $KVER did not produce $m" >&2
		status=1
	else
		echo "dkms: built $(basename "$ko") for $KVER ($(modinfo -F vermagic "$ko" | cut -d' ' -f1))"
	fi
done
exit $status
