#!/usr/bin/env bash
# Kernel coding style: scripts/checkpatch.pl of the debug kernel's source
# (Debian's 6.12 source, unpacked by tools/vm/debug-kernel.sh) over every
# C file of the modules, the compat layer and the test modules.  Errors
# and warnings fail the test.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
env=$(bash "$TOP/tools/vm/debug-kernel.sh" --env 2>/dev/null) || {
	echo "kernel-style: the debug kernel is not built (tools/vm/debug-kernel.sh); it brings checkpatch.pl" >&2
	exit 1
}
build=$(sed -n "s/^HLDK_BUILD='\(.*\)'$/\1/p" "$env")
checkpatch=$build/source/scripts/checkpatch.pl
[ -f "$checkpatch" ] || { echo "kernel-style: no $checkpatch" >&2; exit 1; }
cd "$TOP"
mapfile -t files < <(git ls-files 'kernel/*.c' 'kernel/*.h' 'tests/kmod/*.c' 'tests/kmod/*.h' 2>/dev/null ||
	find kernel tests/kmod -name '*.[ch]' -not -path '*/generated/*')
out=$(perl "$checkpatch" --no-tree --terse --show-types -f "${files[@]}" 2>&1 | grep -v '^total:' || true)
if [ -n "$out" ]; then
	printf '%s\n' "$out"
	echo "kernel-style: checkpatch found the problems above" >&2
	exit 1
fi
echo "kernel-style: ${#files[@]} files clean"
