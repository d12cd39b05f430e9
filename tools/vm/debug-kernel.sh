#!/usr/bin/env bash
# Build the QEMU-only debug kernel (KASAN, lockdep, list and object
# debugging, slab fault injection) from Debian's own 6.12 source package,
# into a cache keyed by the source version and the config.  A second run
# with nothing changed only checks the cache.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FRAGMENT=$HERE/debug-kernel.config
CACHE=${HL_DEBUG_KERNEL_CACHE:-/var/cache/hlipc-debug-kernel}
JOBS=$(nproc)
WANT_VERSION=
MODE=build
FLAVOUR=debug

usage() {
	cat <<EOF
usage: debug-kernel.sh [options]

Fetch Debian's source package of the installed 6.12 kernel with
'apt-get source', configure it for QEMU with the debugging options in
tools/vm/debug-kernel.config (merged onto allnoconfig), build bzImage and
modules, and install the image, the modules and the build tree (for
out-of-tree modules) into the cache.  Nothing is built again while the
source version and the config are unchanged; a changed config gets a
build of its own beside the others (the four newest are kept), so
checkouts with different configs can share the cache.

When the archive does not serve that exact source version (security
updates are often binary-only on mirrors), the newest 6.12 source that it
does serve is used instead, and the run says so.

options:
  --cache DIR        cache directory (default: \$HL_DEBUG_KERNEL_CACHE,
                     else /var/cache/hlipc-debug-kernel; now $CACHE);
                     not under /tmp, /var/tmp, /run or /root, which the
                     run-vm guest covers with its own tmpfs
  --jobs N           parallel compile jobs (default: $JOBS, all cores)
  --source-version V build Debian source version V (e.g. 6.12.95-1~bpo12+1)
  --env              print the path of the kernel.env (shell variables
                     HLDK_KVER, HLDK_VMLINUZ, HLDK_MODROOT, HLDK_BUILD,
                     ...) of the newest ready build of this checkout's
                     config, or exit 1 if there is none; builds nothing
  --release          the release flavour: the same kernel (P2PDMA, IOMMU,
                     DMA engines, the guest's devices) without the
                     debugging section of the config (no KASAN, lockdep,
                     ...), named 6.12.x-hlrelease; for benchmarks, whose
                     timings KASAN distorts.  With --env: its kernel.env
  -h, --help         this text

The cache holds src/VERSION/ (what apt-get source unpacked) and, per
source version and config, VERSION-KEY/ with build/ (the object tree, also
the headers for out-of-tree modules: make -C build M=...), install/
(vmlinuz and lib/modules/KVER), kernel.env and build.log.  'current'
points at the last debug one made ready.
Packages needed: tools/setup.d/packages/debug-kernel.list (tools/setup.sh).
EOF
}

die() {
	echo "debug-kernel: $*" >&2
	exit 1
}
say() { printf '[debug-kernel] %s\n' "$*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--cache) CACHE=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	--source-version) WANT_VERSION=$2; shift 2 ;;
	--env) MODE='env'; shift ;;
	--release) FLAVOUR=release; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

# Everything that decides the result of a build besides the source
# version: a change to any of it gives a build directory of its own.
BUILD_RECIPE=1

# The config fragment of this flavour: the file itself, or for the
# release flavour the file up to its debugging section (the last one),
# under another name.
DEBUG_SECTION='^# --- the debugging this kernel exists for'
fragment() {
	if [ "$FLAVOUR" = debug ]; then
		cat "$FRAGMENT"
		return
	fi
	grep -q "$DEBUG_SECTION" "$FRAGMENT" ||
		die "$FRAGMENT has no debugging section to leave out"
	sed -e "/$DEBUG_SECTION/,\$d" \
		-e 's/^CONFIG_LOCALVERSION=.*/CONFIG_LOCALVERSION="-hlrelease"/' "$FRAGMENT"
}
config_key() {
	{ echo "recipe $BUILD_RECIPE"; fragment; } | sha256sum | cut -c1-16
}

# The ready stamps of all builds, newest first (our names have no spaces).
ready_stamps() {
	# shellcheck disable=SC2010,SC2012
	ls -t "$CACHE"/*/ready 2>/dev/null | grep -v "/current/ready$" || true
}

if [ "$MODE" = env ]; then
	key=$(config_key)
	# The newest ready build of this config, whatever its source version.
	for r in $(ready_stamps); do
		if [ "$(cat "$r")" = "$key" ] && [ -r "${r%/ready}/kernel.env" ]; then
			echo "${r%/ready}/kernel.env"
			exit 0
		fi
	done
	opt=; [ "$FLAVOUR" = debug ] || opt=" --$FLAVOUR"
	die "no $FLAVOUR kernel for this checkout's tools/vm/debug-kernel.config in $CACHE; build it with tools/vm/debug-kernel.sh$opt"
fi

if ! mkdir -p "$CACHE" 2>/dev/null || [ ! -w "$CACHE" ]; then
	die "cannot write the cache $CACHE: run as root (tools/test.sh does) or pass --cache DIR"
fi
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
	say "another build holds $CACHE/.lock; waiting for it"
	flock 9
fi

# --- which source: the installed 6.12 image's, else the newest served ----
installed_source() { # prints "PACKAGE VERSION" of the installed 6.12 image
	local kver pkg bu
	kver=$("$HERE/kernels.sh" 6.12) || return 1
	pkg=$(dpkg-query -S "/boot/vmlinuz-$kver" 2>/dev/null | cut -d: -f1) || return 1
	# The signed image names the unsigned source it was built from.
	bu=$(dpkg-query -W -f '${Built-Using}' "$pkg" 2>/dev/null |
		tr ',' '\n' | sed -n 's/^ *\(linux[-0-9.]*\) (= \([^)]*\)).*/\1 \2/p' | head -n 1)
	if [ -z "$bu" ]; then
		bu="$(dpkg-query -W -f '${source:Package} ${source:Version}' "$pkg")"
	fi
	echo "$bu"
}

# Every 6.12 source version apt knows of, newest first: "PACKAGE VERSION".
served_sources() {
	local p
	for p in linux-6.12 linux; do
		apt-cache showsrc "$p" 2>/dev/null |
			awk -v p="$p" '/^Package: /{ok = ($2 == p)} ok && /^Version: 6\.12\./{print p, $2}'
	done | sort -u -k2,2Vr
}

dirname_for() { tr '~+:' '___' <<<"$1"; }

# fetch PACKAGE VERSION DIR: apt-get source into DIR, atomically.
fetch() {
	local pkg=$1 ver=$2 dir=$3 tmp t0
	[ -d "$dir" ] && return 0
	tmp=$dir.partial
	rm -rf "$tmp"
	mkdir -p "$tmp"
	say "fetching $pkg $ver with apt-get source"
	t0=$(date +%s)
	# apt drops root for downloads; the cache is root's, so let it be.
	if ! (cd "$tmp" && apt-get -q -o APT::Sandbox::User=root source "$pkg=$ver") \
		>"$tmp.log" 2>&1; then
		grep -E '^(E|Err):' "$tmp.log" | head -n 3 | sed 's/^/  /' >&2
		rm -rf "$tmp" "$tmp.log"
		return 1
	fi
	# The unpacked tree is all that is used: drop the 150 MB of archives.
	rm -f "$tmp"/*.tar.*
	echo "$(($(date +%s) - t0))" >"$tmp/fetch.seconds"
	mv "$tmp.log" "$tmp/fetch.log"
	mv "$tmp" "$dir"
	say "fetched and unpacked in $(cat "$dir/fetch.seconds") s"
}

is_ready() { # DIR
	[ -f "$1/ready" ] && [ "$(cat "$1/ready")" = "$KEY" ]
}

read -r INST_PKG INST_VER < <(installed_source || true) || true
[ -n "${INST_VER:-}" ] ||
	die "no installed 6.12 kernel found (linux-image-6.12-amd64); run tools/setup.sh"

candidates=()
if [ -n "$WANT_VERSION" ]; then
	while read -r p v; do
		[ "$v" = "$WANT_VERSION" ] && candidates+=("$p $v")
	done < <(served_sources)
	[ ${#candidates[@]} -gt 0 ] ||
		die "apt knows no 6.12 source version $WANT_VERSION (apt-cache showsrc linux linux-6.12)"
else
	candidates+=("$INST_PKG $INST_VER")
	while read -r p v; do
		[ "$v" = "$INST_VER" ] || candidates+=("$p $v")
	done < <(served_sources)
fi

KEY=$(config_key)
PKG='' VER='' DIR=''
failed_pkgs=" "
for c in "${candidates[@]}"; do
	read -r p v <<<"$c"
	d=$CACHE/$(dirname_for "$v")-$KEY
	if is_ready "$d"; then
		PKG=$p VER=$v DIR=$d
		break
	fi
	# The archive serves all or none of one source package's versions.
	case $failed_pkgs in *" $p "*) continue ;; esac
	if fetch "$p" "$v" "$CACHE/src/$(dirname_for "$v")"; then
		PKG=$p VER=$v DIR=$d
		break
	fi
	say "the archive does not serve $p $v"
	failed_pkgs+="$p "
done
[ -n "$VER" ] || die "could not fetch any 6.12 kernel source; are deb-src entries configured? (tools/setup.sh adds them)"
if [ "$VER" != "$INST_VER" ]; then
	say "note: installed 6.12 kernel is $INST_PKG $INST_VER; its source is not served here, using $PKG $VER"
fi

SRCDIR=$CACHE/src/$(dirname_for "$VER")
SRC=$(find "$SRCDIR" -mindepth 1 -maxdepth 1 -type d -name 'linux*' | head -n 1)
[ -f "$SRC/Makefile" ] || die "no kernel tree in $SRCDIR; remove it and run again"
BUILD=$DIR/build
INSTALL=$DIR/install

if is_ready "$DIR"; then
	# shellcheck disable=SC1091
	. "$DIR/kernel.env"
	say "cached: $HLDK_KVER from $PKG $VER (built in ${HLDK_BUILD_SECONDS:-?} s) in $DIR"
	[ "$FLAVOUR" = release ] || ln -sfn "$(basename "$DIR")" "$CACHE/current"
	exit 0
fi

# --- configure -----------------------------------------------------------
rm -f "$DIR/ready"
mkdir -p "$BUILD"
say "configuring the $FLAVOUR kernel: allnoconfig + $(basename "$FRAGMENT")"
fragment >"$DIR/fragment.config"
(cd "$SRC" && scripts/kconfig/merge_config.sh -n -O "$BUILD" "$DIR/fragment.config") \
	>"$DIR/config.log" 2>&1 || { tail -n 20 "$DIR/config.log" >&2; die "configuration failed"; }
# Every line of the fragment must have taken effect: a silently dropped
# option (a dependency missing) would give a kernel that checks less.
missing=$(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)/\1/p; s/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1 is not set/p' "$DIR/fragment.config" |
	while read -r line; do
		case $line in
		*" is not set") grep -qE "^${line%% *}=" "$BUILD/.config" && echo "${line%% *} (wanted off)" ;;
		*) grep -qxF "$line" "$BUILD/.config" || echo "$line" ;;
		esac
	done || true)
[ -z "$missing" ] || die "these config lines did not take effect (missing dependency?): $missing"

# --- build ---------------------------------------------------------------
say "building bzImage and modules with $JOBS jobs (about 1500 files, 6 min on 2 cores; log: $DIR/build.log)"
t0=$(date +%s)
make -C "$BUILD" -j"$JOBS" bzImage modules >"$DIR/build.log" 2>&1 &
mk=$!
last=$t0
while kill -0 "$mk" 2>/dev/null; do
	sleep 2
	if [ $(($(date +%s) - last)) -lt 60 ] || ! kill -0 "$mk" 2>/dev/null; then
		continue
	fi
	last=$(date +%s)
	n=$(grep -c '^  CC ' "$DIR/build.log" || true)
	say "$(((last - t0) / 60)) min: $n files compiled, now: $(tail -n 1 "$DIR/build.log" | sed 's/^ *//' | cut -c1-60)"
done
wait "$mk" || { tail -n 30 "$DIR/build.log" >&2; die "build failed (full log: $DIR/build.log)"; }
secs=$(($(date +%s) - t0))
say "built in $((secs / 60)) min $((secs % 60)) s"

# --- install into the cache ----------------------------------------------
KVER=$(make -s -C "$BUILD" kernelrelease 2>/dev/null | tail -n 1)
rm -rf "$INSTALL"
mkdir -p "$INSTALL"
cp "$BUILD/arch/x86/boot/bzImage" "$INSTALL/vmlinuz"
make -C "$BUILD" INSTALL_MOD_PATH="$INSTALL" INSTALL_MOD_STRIP=1 modules_install \
	>>"$DIR/build.log" 2>&1 || die "modules_install failed (see $DIR/build.log)"
# What /lib/modules/KVER/build is for a packaged kernel.
ln -sfn "$BUILD" "$INSTALL/lib/modules/$KVER/build"

cat >"$DIR/kernel.env" <<EOF
# Written by tools/vm/debug-kernel.sh; read by run-vm and the CMake build.
HLDK_KVER='$KVER'
HLDK_VMLINUZ='$INSTALL/vmlinuz'
HLDK_MODROOT='$INSTALL'
HLDK_BUILD='$BUILD'
HLDK_SOURCE='$PKG $VER'
HLDK_INSTALLED_SOURCE='$INST_PKG $INST_VER'
HLDK_BUILD_SECONDS='$secs'
EOF
echo "$KEY" >"$DIR/ready"
[ "$FLAVOUR" = release ] || ln -sfn "$(basename "$DIR")" "$CACHE/current"
say "ready: $KVER (from $PKG $VER) in $DIR"

# Keep the four newest builds (a release one among them), and the
# sources they were built from.
for r in $(ready_stamps | tail -n +5); do
	say "removing the old build ${r%/ready}"
	rm -rf "${r%/ready}"
done
for s in "$CACHE"/src/*/; do
	s=${s%/}
	ls -d "$CACHE/$(basename "$s")"-* >/dev/null 2>&1 || { say "removing the unused source $s"; rm -rf "$s"; }
done
