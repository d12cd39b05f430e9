#!/usr/bin/env bash
# Install everything this project needs on a Debian 12 machine. Idempotent:
# a second run only checks that the packages are there.
set -euo pipefail

say() { printf '[setup] %s\n' "$*"; }

if [ "$(id -u)" -ne 0 ]; then
	echo "setup.sh: run as root (it installs Debian packages with apt-get)" >&2
	exit 1
fi

# Both kernels the project supports: Debian 12's 6.1 LTS and the 6.12 LTS
# (bookworm-security or bookworm-backports carry linux-image-6.12-amd64).
# deb-src lets the UCT bridge fetch the ucx source package for its headers.
SRC=/etc/apt/sources.list.d/hlipc-bookworm-extra.sources
if [ ! -f "$SRC" ]; then
	say "adding bookworm-backports and deb-src entries to apt"
	cat >"$SRC" <<'EOS'
Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
	rm -f /var/lib/hlipc-setup.stamp
fi

PKGS=(
	build-essential cmake pkg-config g++ git python3 bc
	qemu-system-x86 busybox-static cpio kmod xz-utils file openssl
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	dkms sparse
	libdrm-dev libibverbs-dev libkmod-dev libudev-dev rdma-core
	libucx-dev ucx-utils dpkg-dev
	libgtest-dev libgmock-dev googletest libbenchmark-dev
	gnuplot-nox
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
else
	say "all packages present"
fi

# Kernels in /boot must be readable by the VM harness when run unprivileged.
chmod a+r /boot/vmlinuz-* 2>/dev/null || true
say "done; kernels: $(ls /boot | sed -n 's/^vmlinuz-//p' | tr '\n' ' ')"
