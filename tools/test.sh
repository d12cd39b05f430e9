#!/usr/bin/env bash
# The whole test suite: install what is missing, build userspace (with
# AddressSanitizer and UBSan, and once more without), build the kernel
# modules for both supported kernels and the debug kernel (W=1, sparse),
# then run every test: host tests, DKMS builds, the Debian packages (built
# into build/deb/, lintian, installed and purged in the VM), the VM tests
# on 6.1, 6.12 and the KASAN/lockdep debug kernel (built from Debian's
# 6.12 source by tools/vm/debug-kernel.sh on the first run, cached after
# that), and the two-host tests (two guests over soft-RoCE).  At the end,
# even after a failure, it prints how long each phase took and the time of
# each CTest label.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP"

case ${1:-} in
-h | --help)
	echo "usage: tools/test.sh"
	echo "Sets up this machine (tools/setup.sh) and runs the full test suite."
	echo "Build trees: build/ (ASan+UBSan, all tests; the Debian packages in"
	echo "build/deb/), build-release/ (host tests)."
	echo "Debian 13's kernel and headers come in a trixie root file system"
	echo "cached in /var/cache/hlipc-trixie (tools/vm/trixie-root.sh, about 2"
	echo "minutes the first time)."
	echo "The debug kernel is cached in /var/cache/hlipc-debug-kernel (about"
	echo "6 minutes to build the first time on 2 cores), and the compiler's"
	echo "results in /var/cache/hlipc-ccache (ccache; HL_CCACHE=0 turns it off)."
	echo "At the end it prints the time of each phase and of each CTest label;"
	echo "the budget and the measured times are in Documentation/testing.md."
	exit 0
	;;
esac

T_START=$(date +%s)
PHASES=()
CTEST_LOG=$(mktemp /tmp/hl-test-ctest.XXXXXX)
PHASE=
PHASE_T0=

# phase NAME: ends the phase before (recording its time) and starts NAME.
phase() {
	phase_end
	PHASE=$1
	PHASE_T0=$(date +%s)
	printf '\n=== %s ===\n' "$1"
}
phase_end() {
	[ -n "$PHASE" ] || return 0
	PHASES+=("$(($(date +%s) - PHASE_T0))|$PHASE")
	PHASE=
}
mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

summary() {
	local rc=$? p
	phase_end
	printf '\n=== times (wall clock) ===\n'
	for p in ${PHASES[@]+"${PHASES[@]}"}; do
		printf '  %8s  %s\n' "$(mmss "${p%%|*}")" "${p#*|}"
	done
	printf '  %8s  %s\n' "$(mmss $(($(date +%s) - T_START)))" "the whole suite"
	# CTest's own sums per label (seconds of test time; host tests run
	# in parallel, so their sum exceeds their wall time).
	if grep -q '^Label Time Summary:' "$CTEST_LOG" 2>/dev/null; then
		printf '\n=== time per CTest label (sum over its tests) ===\n'
		sed -n '/^Label Time Summary:/,/^$/p' "$CTEST_LOG" | sed '1d;/^$/d' |
			while read -r label _ secs _; do
				printf '  %8s  %s\n' "$(mmss "${secs%.*}")" "$label"
			done
	fi
	rm -f "$CTEST_LOG"
	[ "$rc" = 0 ] && echo "all passed" || echo "FAILED (status $rc)"
	exit "$rc"
}
trap summary EXIT

phase "set-up"
bash tools/setup.sh

phase "debug kernel (KASAN, lockdep): build or reuse the cached one"
bash tools/vm/debug-kernel.sh

phase "Debian 13 (trixie) root with its kernel: build or reuse the cached one"
bash tools/vm/trixie-root.sh

# The compiler's results are cached across clones, as the debug kernel is:
# paths are hashed relative to the tree (base_dir), and not the build
# directory, so a fresh clone anywhere reuses what an earlier one compiled.
# A changed source, flag or header is a miss, and compiles again.  (The
# kernel modules' build is mostly sparse and BTF: a cache gains nothing.)
LAUNCHER=()
if [ "${HL_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
	export CCACHE_DIR=${CCACHE_DIR:-/var/cache/hlipc-ccache}
	export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1
	mkdir -p "$CCACHE_DIR"
	ccache -z >/dev/null
	LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

phase "build: release (-Werror), userspace only"
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DHL_BUILD_KMODS=OFF -DHL_VM_TESTS=OFF ${LAUNCHER[@]+"${LAUNCHER[@]}"} >/dev/null
cmake --build build-release -j"$(nproc)"

phase "build: ASan+UBSan userspace and kernel modules for every kernel"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug -DHL_SANITIZE=ON \
	${LAUNCHER[@]+"${LAUNCHER[@]}"} >/dev/null
cmake --build build -j"$(nproc)"
[ ${#LAUNCHER[@]} = 0 ] || ccache -s | grep -E '^(Cacheable calls|  Hits|  Misses)' || true

phase "VM boot time per kernel"
while read -r _ kver; do
	tools/vm/run-vm --kernel "$kver" --timeout 300 -- true 2>&1 |
		grep -E 'booted|accel' || true
done < <(tools/vm/kernels.sh; echo "debug debug"; echo "trixie trixie")

phase "host tests (release build)"
ctest --test-dir build-release --output-on-failure -L host -j"$(nproc)"

phase "all tests (sanitizer build): host, dkms, pkg, VM on every kernel and the debug kernel, two-host"
ctest --test-dir build --output-on-failure -j"$(nproc)" 2>&1 | tee "$CTEST_LOG"
