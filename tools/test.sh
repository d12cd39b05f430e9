#!/usr/bin/env bash
# The whole test suite: install what is missing, build userspace (with
# AddressSanitizer and UBSan, and once more without), build the kernel
# modules for both supported kernels and the debug kernel (W=1, sparse),
# then run every test: host tests, DKMS builds, the Debian packages (built
# into build/deb/, lintian, installed and purged in the VM), and the VM
# tests on 6.1, 6.12 and the KASAN/lockdep debug kernel (built from
# Debian's 6.12 source by tools/vm/debug-kernel.sh on the first run, cached
# after that).
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP"

case ${1:-} in
-h | --help)
	echo "usage: tools/test.sh"
	echo "Sets up this machine (tools/setup.sh) and runs the full test suite."
	echo "Build trees: build/ (ASan+UBSan, all tests; the Debian packages in"
	echo "build/deb/), build-release/ (host tests)."
	echo "The debug kernel is cached in /var/cache/hlipc-debug-kernel (about"
	echo "6 minutes to build the first time on 2 cores)."
	exit 0
	;;
esac

step() { printf '\n=== %s ===\n' "$*"; }

step "set-up"
bash tools/setup.sh

step "debug kernel (KASAN, lockdep): build or reuse the cached one"
bash tools/vm/debug-kernel.sh

step "build: release (-Werror), userspace only"
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DHL_BUILD_KMODS=OFF -DHL_VM_TESTS=OFF >/dev/null
cmake --build build-release -j"$(nproc)"

step "build: ASan+UBSan userspace and kernel modules for every kernel"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug -DHL_SANITIZE=ON >/dev/null
cmake --build build -j"$(nproc)"

step "VM boot time per kernel"
while read -r _ kver; do
	tools/vm/run-vm --kernel "$kver" --timeout 300 -- true 2>&1 |
		grep -E 'booted|accel' || true
done < <(tools/vm/kernels.sh; echo "debug debug")

step "host tests (release build)"
ctest --test-dir build-release --output-on-failure -L host -j"$(nproc)"

step "all tests (sanitizer build): host, dkms, VM on every kernel and the debug kernel"
ctest --test-dir build --output-on-failure -j"$(nproc)"
