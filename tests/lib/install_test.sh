#!/usr/bin/env bash
# Installs libhlthunk from a build tree into a scratch prefix and builds
# programs against it three ways: pkg-config, the CMake package (shared),
# the CMake package (static).  Checks the soname and the symbol versions,
# and (with pkg-config) that a program including the kernel's uapi header
# beside hlthunk.h compiles in either order (uapi/uapi-headers-test.sh).
#   install_test.sh BUILD_DIR SOURCE_DIR [EXTRA_FLAGS [KERNEL_BUILD_DIR_6_12]]
# EXTRA_FLAGS: compiler and linker flags the library was built with that
# its users need too (the sanitizer runtime of a sanitizer build).
set -euo pipefail
build=$1
src=$2
extra=${3:-}
kdir_612=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build/libhlthunk" --prefix "$prefix" >/dev/null
lib=$(find "$prefix" -name 'libhlthunk.so.1' | head -n1)
[ -n "$lib" ] || { echo "install_test: libhlthunk.so.1 not installed"; exit 1; }
libdir=$(dirname "$lib")
[ -f "$libdir/libhlthunk.a" ] || { echo "install_test: no static library"; exit 1; }
[ -f "$prefix/include/hlthunk.h" ] || { echo "install_test: no header"; exit 1; }
for h in habanalabs_abi.h hlthunk_uapi_compat.h habanalabs_extra.h; do
	[ -f "$prefix/include/$h" ] ||
		{ echo "install_test: no $h (hlthunk.h and its users need it)"; exit 1; }
done

soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libhlthunk.so.1 ] || { echo "install_test: soname '$soname'"; exit 1; }
# (Files rather than pipes into grep -q: with pipefail, an early exit of
# grep would fail the pipeline.)
objdump -T "$lib" >"$tmp/dynsym"
for v in HLTHUNK_1.0 HLTHUNK_IPC_1.0 HLTHUNK_1.1 HLTHUNK_IPC_1.2; do
	grep -q " $v " "$tmp/dynsym" ||
		{ echo "install_test: version node $v missing"; exit 1; }
done
grep -q 'HLTHUNK_1.0 *hlthunk_open$' "$tmp/dynsym" ||
	{ echo "install_test: hlthunk_open not in HLTHUNK_1.0"; exit 1; }
grep -q 'HLTHUNK_IPC_1.0 *hlthunk_ipc_channel_copy$' "$tmp/dynsym" ||
	{ echo "install_test: hlthunk_ipc_channel_copy not in HLTHUNK_IPC_1.0"; exit 1; }
grep -q 'HLTHUNK_IPC_1.2 *hlthunk_ipc_lookup_address$' "$tmp/dynsym" ||
	{ echo "install_test: hlthunk_ipc_lookup_address not in HLTHUNK_IPC_1.2"; exit 1; }
# Nothing but the public calls is exported.
if awk '$2 == "g" && $4 == ".text" {print $NF}' "$tmp/dynsym" |
	grep -v '^hlthunk_'; then
	echo "install_test: symbols other than hlthunk_* exported"; exit 1
fi

# The development link, next to the versioned library.
[ "$(readlink "$libdir/libhlthunk.so")" = libhlthunk.so.1 ] ||
	{ echo "install_test: no libhlthunk.so -> libhlthunk.so.1 link"; exit 1; }

# A program linked against hl-thunk's own library (libhl-thunk.so, no
# soname) runs on libhlthunk through the compatibility link.  Here
# hl-thunk's library is a stand-in with its exports and no soname (built
# from the facts of its API), as hl-thunk's build makes it.
[ "$(readlink -f "$libdir/hlthunk-compat/libhl-thunk.so")" = "$(readlink -f "$lib")" ] ||
	{ echo "install_test: hlthunk-compat/libhl-thunk.so is not libhlthunk"; exit 1; }
mkdir -p "$tmp/hl-thunk"
awk -F'\t' '$1 == "func" {printf "void %s(void) {}\n", $3}' \
	"$src/tests/lib/abi/hlthunk-8636f13.abi" >"$tmp/hl-thunk/stub.c"
cc -shared -fPIC -o "$tmp/hl-thunk/libhl-thunk.so" "$tmp/hl-thunk/stub.c"
# shellcheck disable=SC2086 # flags are words
cc -std=c11 -Wall -Werror $extra -I"$prefix/include" \
	"$src/tests/lib/abi/consumer.c" -L"$tmp/hl-thunk" -lhl-thunk \
	-o "$tmp/linked_to_hl_thunk"
readelf -d "$tmp/linked_to_hl_thunk" >"$tmp/dyn"
grep -q 'NEEDED.*\[libhl-thunk.so\]' "$tmp/dyn" ||
	{ echo "install_test: the program does not need libhl-thunk.so"; exit 1; }
LD_LIBRARY_PATH=$libdir/hlthunk-compat LD_TRACE_LOADED_OBJECTS=1 \
	"$tmp/linked_to_hl_thunk" >"$tmp/ldd"
grep -q "libhl-thunk.so => $libdir/hlthunk-compat/libhl-thunk.so" "$tmp/ldd" ||
	{ echo "install_test: libhl-thunk.so was not found in hlthunk-compat"; cat "$tmp/ldd"; exit 1; }
# It runs on libhlthunk: no device here, so it stops with "skipped" (77)
# after libhlthunk's hlthunk_get_device_count answered 0.
rc=0
LD_LIBRARY_PATH=$libdir/hlthunk-compat "$tmp/linked_to_hl_thunk" >"$tmp/out" || rc=$?
if ! grep -q "no Gaudi2 device" "$tmp/out" || [ "$rc" != 77 ]; then
	echo "install_test: the hl-thunk program did not run on libhlthunk ($rc)"
	cat "$tmp/out"
	exit 1
fi

# pkg-config
export PKG_CONFIG_PATH=$libdir/pkgconfig
# shellcheck disable=SC2086,SC2046 # flags are words
cc -std=c11 -Wall -Werror $extra "$src/tests/lib/install/consumer.c" \
	$(pkg-config --cflags --libs libhlthunk) -o "$tmp/consumer_pc"
LD_LIBRARY_PATH=$libdir "$tmp/consumer_pc"
readelf -d "$tmp/consumer_pc" >"$tmp/dyn"
grep -q 'NEEDED.*libhlthunk.so.1' "$tmp/dyn" ||
	{ echo "install_test: consumer does not need libhlthunk.so.1"; exit 1; }
if [ -n "$kdir_612" ]; then
	# shellcheck disable=SC2086,SC2046 # flags are words
	"$src/tests/lib/uapi/uapi-headers-test.sh" "$src" "$tmp/uapi" "$kdir_612" -- \
		$(pkg-config --cflags --libs libhlthunk) $extra >"$tmp/uapi.log" ||
		{ cat "$tmp/uapi.log"; echo "install_test: uapi headers"; exit 1; }
fi

# CMake package, shared and static
cmake -S "$src/tests/lib/install" -B "$tmp/consumer" \
	-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="$extra" \
	-DCMAKE_CXX_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
LD_LIBRARY_PATH=$libdir "$tmp/consumer/consumer_shared"
"$tmp/consumer/consumer_static"
readelf -d "$tmp/consumer/consumer_static" >"$tmp/dyn"
if grep -q 'NEEDED.*libhlthunk' "$tmp/dyn"; then
	echo "install_test: static consumer needs the shared library"; exit 1
fi
echo "install_test: ok"
