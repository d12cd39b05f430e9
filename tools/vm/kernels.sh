#!/usr/bin/env bash
# Print the installed kernels the project supports, one "SERIES KVER" line
# each: the newest installed 6.1 and 6.12 kernels that have both an image in
# /boot and headers to build against.  With a SERIES argument, print only
# that kernel's KVER (or fail with a hint).
set -euo pipefail

SERIES_LIST=(6.1 6.12)

newest_for() {
	local series=$1 v best=
	for img in /boot/vmlinuz-"$series".*; do
		[ -e "$img" ] || continue
		v=${img#/boot/vmlinuz-}
		[ -d "/lib/modules/$v/build" ] || continue
		best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)
	done
	printf '%s' "$best"
}

if [ $# -gt 0 ]; then
	case $1 in
	-h | --help)
		echo "usage: kernels.sh [SERIES|KVER]"
		echo "Lists the supported kernels installed here (series and version)."
		exit 0
		;;
	esac
	if [ -e "/boot/vmlinuz-$1" ]; then
		echo "$1"
		exit 0
	fi
	v=$(newest_for "$1")
	if [ -z "$v" ]; then
		echo "kernels.sh: no installed $1 kernel with headers; run tools/setup.sh" >&2
		exit 1
	fi
	echo "$v"
	exit 0
fi

rc=0
for s in "${SERIES_LIST[@]}"; do
	v=$(newest_for "$s")
	if [ -z "$v" ]; then
		echo "kernels.sh: no installed $s kernel with headers; run tools/setup.sh" >&2
		rc=1
		continue
	fi
	echo "$s $v"
done
exit $rc
