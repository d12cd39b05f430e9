#!/usr/bin/env bash
# Install everything this project needs on a Debian 12 machine. Idempotent:
# a second run only checks that the packages are there.
#
# What each part needs is listed in tools/setup.d/packages/*.list; apt
# sources the machine lacks (bookworm-backports, deb-src) are added from
# the machine's own configured archive by tools/setup.d/apt-sources.sh.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

say() { printf '[setup] %s\n' "$*"; }

case ${1:-} in
-h | --help)
	cat <<'EOH'
usage: tools/setup.sh
Installs the Debian packages listed in tools/setup.d/packages/*.list with
apt-get (as root), adding bookworm-backports and deb-src entries from this
machine's own Debian archive when they are missing.  Safe to run again.
EOH
	exit 0
	;;
esac

if [ "$(id -u)" -ne 0 ]; then
	echo "setup.sh: run as root (it installs Debian packages with apt-get)" >&2
	exit 1
fi

# Wait for another apt/dpkg run rather than failing on its lock.
APT=(apt-get -q -o DPkg::Lock::Timeout=900)

sources_changed=$(bash "$HERE/setup.d/apt-sources.sh")
[ -z "$sources_changed" ] || rm -f /var/lib/hlipc-setup.stamp

mapfile -t PKGS < <(sed 's/#.*//' "$HERE"/setup.d/packages/*.list | tr -s ' \t' '\n' | sed '/^$/d' | sort -u)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ] || [ -n "$sources_changed" ]; then
	export DEBIAN_FRONTEND=noninteractive
	"${APT[@]}" update
fi
if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	"${APT[@]}" install -y --no-install-recommends "${missing[@]}"
else
	say "all packages present"
fi

# Kernels in /boot must be readable by the VM harness when run unprivileged.
chmod a+r /boot/vmlinuz-* 2>/dev/null || true
say "done; kernels: $(ls /boot | sed -n 's/^vmlinuz-//p' | tr '\n' ' ')"
