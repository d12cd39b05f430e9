#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A program that includes the kernel's habanalabs uapi header and
# <hlthunk.h>, in either order, compiles unchanged (as with hl-thunk),
# gets the system's definitions (hlthunk.h adds only what they lack), links
# against libhlthunk and runs:
#
#   uapi-headers-test.sh SRC_DIR WORK_DIR KERNEL_BUILD_DIR -- CFLAGS-AND-LIBS...
#
# SRC_DIR is the checkout, for consumer.c; the words after -- are the
# compiler and linker flags that find hlthunk.h and libhlthunk (the build
# tree's, or `pkg-config --cflags --libs libhlthunk` of an installed one).
# Debian 12's own uapi is Linux 6.1's misc/habanalabs.h.  Linux 6.12's
# drm/habanalabs_accel.h is installed from KERNEL_BUILD_DIR (a 6.12
# /lib/modules/VER/build) with the kernel's own headers_install.sh into
# WORK_DIR and put after the system directories, as a distribution's would
# be found.  Every program is built as C11 and C++17 with -Wall -Wextra
# -Werror; -M shows which uapi header each one included.
set -euo pipefail
if [ $# -lt 4 ] || [ "$4" != -- ]; then
	echo "usage: $0 SRC_DIR WORK_DIR KERNEL_BUILD_DIR -- FLAGS..." >&2
	exit 2
fi
src=$1
work=$2
kdir=$3
shift 4
flags=("$@")
mkdir -p "$work"

# The uapi of the 6.12 headers package: in the build directory, or in the
# source tree its Makefile includes (Debian's -common package).
uapi=$kdir/include/uapi
if [ ! -e "$uapi/drm/habanalabs_accel.h" ] && [ -e "$kdir/Makefile" ]; then
	common=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$kdir/Makefile")
	uapi=$common/include/uapi
fi
if [ ! -e "$uapi/drm/habanalabs_accel.h" ] || [ ! -x "$kdir/scripts/headers_install.sh" ]; then
	echo "uapi-headers-test: no drm/habanalabs_accel.h or headers_install.sh in $kdir;"
	echo "run tools/setup.sh (the 6.12 kernel headers)"
	exit 1
fi
accel=$work/accel-uapi
mkdir -p "$accel/drm"
for h in drm.h drm_mode.h habanalabs_accel.h; do
	(cd "$kdir" && scripts/headers_install.sh "$uapi/drm/$h" "$accel/drm/$h")
done
consumer=$src/tests/lib/uapi/consumer.c
lib_path=
for f in "${flags[@]}"; do
	case $f in -L*) lib_path=${lib_path:+$lib_path:}${f#-L} ;; esac
done
failures=0

# build NAME LANG EXPECT HEADER_FILE [CPPFLAGS...]
build() {
	local name=$1 lang=$2 expect=$3 header=$4
	shift 4
	local std=-std=c11 cc=${CC:-cc}
	if [ "$lang" = c++ ]; then
		std=-std=c++17
		cc=${CXX:-c++}
	fi
	local out=$work/$name-$lang
	if ! "$cc" -x "$lang" "$std" -Wall -Wextra -Werror "-DEXPECT_UAPI_$expect" \
		"$@" "$consumer" "${flags[@]}" -o "$out" 2>"$out.log"; then
		echo "uapi-headers-test: $name ($lang) does not compile:"
		cat "$out.log"
		failures=$((failures + 1))
		return
	fi
	"$cc" -x "$lang" "$std" "-DEXPECT_UAPI_$expect" "$@" "${flags[@]}" -M \
		"$consumer" >"$out.deps" 2>/dev/null
	if [ -n "$header" ] && ! grep -q "$header" "$out.deps"; then
		echo "uapi-headers-test: $name ($lang) did not include $header"
		failures=$((failures + 1))
		return
	fi
	if ! LD_LIBRARY_PATH=$lib_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$out" \
		>"$out.run" 2>&1; then
		echo "uapi-headers-test: $name ($lang) does not run:"
		cat "$out.run"
		failures=$((failures + 1))
		return
	fi
	echo "uapi-headers-test: $name ($lang): ok"
}

legacy='<misc/habanalabs.h>'
drm='<drm/habanalabs_accel.h>'
for lang in c c++; do
	if [ -e /usr/include/misc/habanalabs.h ]; then
		build legacy-first "$lang" LEGACY misc/habanalabs.h \
			-DUAPI_FIRST "-DUAPI_HEADER=$legacy"
		build legacy-second "$lang" LEGACY misc/habanalabs.h \
			"-DUAPI_HEADER=$legacy"
		build legacy-alone "$lang" LEGACY misc/habanalabs.h
	fi
	build accel-first "$lang" ACCEL drm/habanalabs_accel.h -idirafter "$accel" \
		-DUAPI_FIRST "-DUAPI_HEADER=$drm"
	build accel-second "$lang" ACCEL drm/habanalabs_accel.h -idirafter "$accel" \
		"-DUAPI_HEADER=$drm"
	build accel-alone "$lang" ACCEL drm/habanalabs_accel.h -idirafter "$accel"
	build own "$lang" OWN habanalabs_abi.h -DHLTHUNK_OWN_UAPI
done
if [ "$failures" != 0 ]; then
	echo "uapi-headers-test: $failures failed"
	exit 1
fi
echo "uapi-headers-test: ok"
