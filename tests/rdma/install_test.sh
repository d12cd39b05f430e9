#!/usr/bin/env bash
# Installs libhlthunk and libhlthunk-verbs from a build tree into a
# scratch prefix and builds programs against libhlthunk-verbs with
# pkg-config and with its CMake package.  Checks its soname, symbol
# versions and dependencies, and that a program using only libhlthunk
# never loads libibverbs.
#   install_test.sh BUILD_DIR SOURCE_DIR [EXTRA_FLAGS]
# EXTRA_FLAGS: flags the libraries were built with that their users need
# too (the sanitizer runtime of a sanitizer build).
set -euo pipefail
build=$1
src=$2
extra=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
die() {
	echo "install_test: $*"
	exit 1
}

cmake --install "$build/libhlthunk" --prefix "$prefix" >/dev/null
lib=$(find "$prefix" -name 'libhlthunk-verbs.so.1' | head -n1)
[ -n "$lib" ] || die "libhlthunk-verbs.so.1 not installed"
libdir=$(dirname "$lib")
[ -f "$prefix/include/hlthunk_verbs.h" ] || die "no header"
[ -f "$libdir/pkgconfig/libhlthunk-verbs.pc" ] || die "no pkg-config file"

readelf -d "$lib" >"$tmp/dyn"
grep -q 'SONAME.*\[libhlthunk-verbs.so.1\]' "$tmp/dyn" || die "soname"
grep -q 'NEEDED.*\[libibverbs.so.1\]' "$tmp/dyn" || die "does not need libibverbs"
grep -q 'NEEDED.*\[libhlthunk.so.1\]' "$tmp/dyn" || die "does not need libhlthunk"
readelf -d "$libdir/libhlthunk.so.1" >"$tmp/dyn"
if grep -q 'NEEDED.*libibverbs' "$tmp/dyn"; then
	die "libhlthunk itself needs libibverbs"
fi

# (Files rather than pipes into grep -q: with pipefail, an early exit of
# grep would fail the pipeline.)
objdump -T "$lib" >"$tmp/dynsym"
grep -q 'HLTHUNK_VERBS_1.0 *hlthunk_verbs_reg_device_memory$' "$tmp/dynsym" ||
	die "hlthunk_verbs_reg_device_memory not in HLTHUNK_VERBS_1.0"
if awk '$2 == "g" && $4 == ".text" {print $NF}' "$tmp/dynsym" |
	grep -v '^hlthunk_verbs_'; then
	die "symbols other than hlthunk_verbs_* exported"
fi
# The call it needs from libhlthunk is versioned there.
objdump -T "$libdir/libhlthunk.so.1" >"$tmp/dynsym"
grep -q 'HLTHUNK_EXT_1.1 *hlthunk_device_memory_export_dmabuf_range$' \
	"$tmp/dynsym" || die "hlthunk_device_memory_export_dmabuf_range not in HLTHUNK_EXT_1.1"

export PKG_CONFIG_PATH=$libdir/pkgconfig
# shellcheck disable=SC2086 # flags are words
cc -std=c11 -Wall -Wextra -Werror $extra "$src/tests/rdma/install/consumer.c" \
	$(pkg-config --cflags --libs libhlthunk-verbs) -o "$tmp/consumer_pc"
LD_LIBRARY_PATH=$libdir "$tmp/consumer_pc"

cmake -S "$src/tests/rdma/install" -B "$tmp/consumer" \
	-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="$extra" \
	-DCMAKE_CXX_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
LD_LIBRARY_PATH=$libdir "$tmp/consumer/consumer"
LD_LIBRARY_PATH=$libdir "$tmp/consumer/plain"
echo "install_test: ok"
