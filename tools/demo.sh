#!/usr/bin/env bash
# The project's main job: set up this machine, build everything, boot a VM
# with two emulated Gaudi devices and the IPC module, and show them at work.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP"

KERNEL=6.12
DEMO_ARGS=()
while [ $# -gt 0 ]; do
	case $1 in
	-k | --kernel) KERNEL=$2; shift 2 ;;
	-h | --help)
		cat <<'EOH'
usage: tools/demo.sh [--kernel 6.1|6.12] [-- DEMO-OPTIONS]

Sets up this machine (tools/setup.sh), builds the modules and tools into
build-demo/, boots the chosen kernel (default 6.12) under QEMU with two
emulated Gaudi devices (habanalabs_sim) and habanalabs_ipc loaded, and runs
'hl-ipc demo' inside the guest: two processes, each owning one device,
move buffers to each other through a channel, through the staged DMA
path and through UCX (the gaudi_ipc transport of uct-bridge/, built with
the rest), and print a table of what each path achieved.  Options after
'--' go to 'hl-ipc demo' (see 'hl-ipc demo --help').
EOH
		exit 0
		;;
	--) shift; DEMO_ARGS=("$@"); break ;;
	*) echo "demo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

step() { printf '\n=== %s ===\n' "$*"; }

step "set-up"
bash tools/setup.sh
KVER=$(tools/vm/kernels.sh "$KERNEL")

step "build (modules for $KVER, tools)"
cmake -S . -B build-demo -DCMAKE_BUILD_TYPE=Release -DHL_VM_TESTS=OFF -DHL_BUILD_TESTS=OFF >/dev/null
cmake --build build-demo -j"$(nproc)"

step "demo in $KVER with two emulated devices"
exec tools/vm/run-vm --kernel "$KVER" --kmod-dir "build-demo/kmod/$KVER" \
	--insmod 'habanalabs_sim num_devices=2' --insmod habanalabs_ipc \
	-- build-demo/tools/hl-ipc/hl-ipc demo "${DEMO_ARGS[@]+"${DEMO_ARGS[@]}"}"
