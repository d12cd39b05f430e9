#!/usr/bin/env bash
# Host test of the built Debian packages, without installing them:
#  - the DKMS packages hold kernel/ and uapi/ as the tree has them (every
#    file, whatever its name), only their own module, no build products,
#    and a dkms.conf of the package's version whose modules are there;
#  - their sources build with dkms against every supported kernel's
#    headers (a private DKMS tree, as tests/dkms does for the checkout);
#  - the library packages work for a user: programs build against the
#    unpacked -dev packages with pkg-config and with the CMake packages,
#    and run against the unpacked runtime packages;
#  - ucx-gaudi-ipc holds the plugin in UCX's module directory, hl-ucx and
#    its manual page, and the transport's documentation; it depends on
#    exactly the installed libucx0 and says so in its version; its hl-ucx
#    loads the unpacked plugin into ucx_info, which lists gaudi_ipc; the
#    source package carries UCX's source of that version as its component
#    "ucx";
#  - nothing but libhlthunk-verbs1 and its -dev package pulls libibverbs.
# usage: contents-test.sh DEB_DIR SRC_DIR [KVER...]
set -euo pipefail
DEBS=$(realpath "$1")
SRC=$(realpath "$2")
shift 2
KVERS=("$@")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}
ok() { echo "ok: $*"; }

[ -s "$DEBS/debs.list" ] || { echo "no $DEBS/debs.list: build the packages first (tools/build-debs.sh)" >&2; exit 1; }
deb() {
	local f
	f=$(grep -E "^$1_[^_]+_[^_]+\.deb$" "$DEBS/debs.list" || true)
	[ -n "$f" ] || { echo "package $1 was not built" >&2; exit 1; }
	echo "$DEBS/$f"
}
DEBVERSION=$(dpkg-deb -f "$(deb hl-ipc-tools)" Version)
# The DKMS packages' sources and modules carry the upstream version.
VERSION=${DEBVERSION%-*}
echo "packages of version $DEBVERSION"

# --- the DKMS packages -----------------------------------------------------
# tree_files DIR: the tree's files under DIR (git's list when in git).
tree_files() {
	if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$SRC" && git ls-files --cached --others --exclude-standard -- "$1" |
			while read -r f; do [ -e "$f" ] && echo "$f"; done)
	else
		(cd "$SRC" && find "$1" -type f ! -name '*.o' ! -name '*.ko')
	fi | sort
}

check_dkms_package() {
	local pkg=$1 name=$2 own=$3 other=$4 root=$TMP/$1 dir f conf m
	dpkg-deb -x "$(deb "$pkg")" "$root"
	dir=$root/usr/src/$name-$VERSION
	[ -d "$dir" ] || { fail "$pkg has no /usr/src/$name-$VERSION"; return; }
	conf=$dir/dkms.conf
	[ "$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$conf")" = "$name" ] ||
		fail "$pkg: dkms.conf does not name $name"
	[ "$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$conf")" = "$VERSION" ] ||
		fail "$pkg: dkms.conf has not version $VERSION"
	for m in $(sed -n 's/^BUILT_MODULE_LOCATION\[[0-9]*\]="\(.*\)"/\1/p' "$conf"); do
		[ -f "$dir/$m/Kbuild" ] || fail "$pkg: dkms.conf builds in $m, which it lacks"
	done
	# Every file of the tree's kernel/ (but the other module) and uapi/.
	tree_files kernel | grep -v "^kernel/$other/" >"$TMP/want"
	tree_files uapi >>"$TMP/want"
	(cd "$dir" && find kernel uapi -type f | sort) >"$TMP/got"
	if ! diff -u "$TMP/want" "$TMP/got" >"$TMP/diff"; then
		fail "$pkg: /usr/src/$name-$VERSION differs from the tree's kernel/ and uapi/:"
		sed 's/^/    /' "$TMP/diff" >&2
	fi
	for f in $(cd "$dir" && find kernel uapi -type f); do
		cmp -s "$SRC/$f" "$dir/$f" || fail "$pkg: $f differs from the tree's"
	done
	[ -d "$dir/kernel/$own" ] || fail "$pkg lacks kernel/$own"
	[ ! -e "$dir/kernel/$other" ] || fail "$pkg ships kernel/$other"
	ok "$pkg: /usr/src/$name-$VERSION is the tree's kernel/ (without $other) and uapi/"
}
check_dkms_package habanalabs-ipc-dkms habanalabs-ipc habanalabs_ipc habanalabs_sim
check_dkms_package habanalabs-sim-dkms habanalabs-sim habanalabs_sim habanalabs_ipc

# dkms add + build of the packaged sources, in a private DKMS tree.
for kver in ${KVERS[@]+"${KVERS[@]}"}; do
	for name in habanalabs-ipc habanalabs-sim; do
		d=$TMP/dkms-$name-$kver
		mkdir -p "$d/src" "$d/tree" "$d/install"
		cp -a "$TMP/$name-dkms/usr/src/$name-$VERSION" "$d/src/"
		D=(dkms --sourcetree "$d/src" --dkmstree "$d/tree" --installtree "$d/install")
		t0=$(date +%s)
		if "${D[@]}" add -m "$name" -v "$VERSION" >"$d/log" 2>&1 &&
			"${D[@]}" build -m "$name" -v "$VERSION" -k "$kver" >>"$d/log" 2>&1; then
			m=${name/-/_}
			ko=$(find "$d/tree/$name/$VERSION/$kver" -name "$m.ko*" | head -n 1)
			if [ -z "$ko" ]; then
				fail "dkms build of $name for $kver made no $m.ko"
			elif [ "$(modinfo -F version "$ko")" != "$VERSION" ]; then
				fail "$m.ko built by dkms for $kver has version '$(modinfo -F version "$ko")', not $VERSION"
			else
				ok "dkms build of $name $VERSION for $kver: $m.ko, version $VERSION ($(($(date +%s) - t0)) s)"
			fi
		else
			cat "$d/log" "$d/tree/$name/$VERSION/build/make.log" 2>/dev/null | tail -n 30 >&2
			fail "dkms build of $name for $kver failed"
		fi
	done
done

# --- the libraries ---------------------------------------------------------
R=$TMP/root
for p in libhlthunk1 libhlthunk-dev libhlthunk-verbs1 libhlthunk-verbs-dev; do
	dpkg-deb -x "$(deb "$p")" "$R"
done
LIBDIR=$(dirname "$(find "$R" -name libhlthunk.so.1 | head -n 1)")
[ -n "$LIBDIR" ] && [ "$LIBDIR" != . ] || { fail "no libhlthunk.so.1 in libhlthunk1"; LIBDIR=$R; }
for l in libhlthunk libhlthunk-verbs; do
	[ "$(readlink -f "$LIBDIR/$l.so")" = "$(readlink -f "$LIBDIR/$l.so.1")" ] ||
		fail "$l.so of the -dev package does not lead to $l.so.1"
done
export PKG_CONFIG_PATH=$LIBDIR/pkgconfig
# The .pc files find their prefix from where they are (${pcfiledir}).
[ "$(pkg-config --variable=includedir libhlthunk)" -ef "$R/usr/include" ] ||
	fail "pkg-config libhlthunk: includedir is $(pkg-config --variable=includedir libhlthunk)"
# shellcheck disable=SC2046 # flags are words
if cc -std=c11 -Wall -Wextra -Werror "$SRC/tests/lib/install/consumer.c" \
	$(pkg-config --cflags --libs libhlthunk) -o "$TMP/c1" &&
	LD_LIBRARY_PATH=$LIBDIR "$TMP/c1"; then
	ok "a program built with pkg-config libhlthunk runs"
else
	fail "pkg-config libhlthunk"
fi
# shellcheck disable=SC2046
if cc -std=c11 -Wall -Wextra -Werror "$SRC/tests/rdma/install/consumer.c" \
	$(pkg-config --cflags --libs libhlthunk-verbs) -o "$TMP/c2" &&
	LD_LIBRARY_PATH=$LIBDIR "$TMP/c2"; then
	ok "a program built with pkg-config libhlthunk-verbs runs"
else
	fail "pkg-config libhlthunk-verbs"
fi
for p in lib rdma; do
	if cmake -S "$SRC/tests/$p/install" -B "$TMP/cm-$p" -DCMAKE_PREFIX_PATH="$R/usr" \
		>"$TMP/cm-$p.log" 2>&1 && cmake --build "$TMP/cm-$p" >>"$TMP/cm-$p.log" 2>&1; then
		ran=0
		for exe in "$TMP/cm-$p"/consumer*; do
			[ -x "$exe" ] && [ -f "$exe" ] || continue
			LD_LIBRARY_PATH=$LIBDIR "$exe" >/dev/null || fail "$exe failed"
			ran=$((ran + 1))
		done
		[ "$ran" -gt 0 ] || fail "the CMake consumer of tests/$p/install built nothing"
		ok "CMake find_package consumers of tests/$p/install build and run ($ran)"
	else
		cat "$TMP/cm-$p.log" >&2
		fail "CMake consumer of tests/$p/install against the packages"
	fi
done

# --- ucx-gaudi-ipc ---------------------------------------------------------
U=$TMP/ucx-gaudi-ipc
UDEB=$(deb ucx-gaudi-ipc)
dpkg-deb -x "$UDEB" "$U"
UCXV=$(dpkg-query -W -f '${Version}' libucx0)
MODULE_DIR=$(ucx_info -c | sed -n 's/^UCX_MODULE_DIR=//p')
want="./usr/bin/hl-ucx
.$MODULE_DIR/libuct_gaudi_ipc.so
./usr/share/doc/ucx-gaudi-ipc/changelog.Debian.gz
./usr/share/doc/ucx-gaudi-ipc/copyright
./usr/share/doc/ucx-gaudi-ipc/uct-bridge.md.gz
./usr/share/man/man1/hl-ucx.1.gz"
got=$(cd "$U" && find . ! -type d | sort)
if [ "$got" = "$want" ]; then
	ok "ucx-gaudi-ipc: the plugin in UCX's module directory ($MODULE_DIR), hl-ucx, hl-ucx(1), the documentation"
else
	fail "ucx-gaudi-ipc holds: $(diff <(echo "$want") <(echo "$got") | sed -n 's/^[<>]/&/p' | tr '\n' ' ')"
fi
uver=$(dpkg-deb -f "$UDEB" Version)
[ "$uver" = "$DEBVERSION+ucx$(tr ':-' '++' <<<"$UCXV")" ] ||
	fail "ucx-gaudi-ipc has version $uver, not $DEBVERSION+ucx<libucx0 $UCXV>"
udeps=$(dpkg-deb -f "$UDEB" Depends)
grep -q "libucx0 (= $UCXV)" <<<"$udeps" ||
	fail "ucx-gaudi-ipc does not depend on libucx0 (= $UCXV): $udeps"
grep -q "libhlthunk1 (>= " <<<"$udeps" || fail "ucx-gaudi-ipc does not depend on libhlthunk1: $udeps"
ok "ucx-gaudi-ipc $uver depends on $udeps"
grep -q "^built_for='$UCXV'\$" "$U/usr/bin/hl-ucx" ||
	fail "hl-ucx does not record libucx0 $UCXV: $(grep '^built_for=' "$U/usr/bin/hl-ucx")"
grep -q "^built_plugin='$MODULE_DIR/libuct_gaudi_ipc.so'\$" "$U/usr/bin/hl-ucx" ||
	fail "hl-ucx does not look in $MODULE_DIR first: $(grep '^built_plugin=' "$U/usr/bin/hl-ucx")"
out=$(HL_UCX_PLUGIN=$U$MODULE_DIR/libuct_gaudi_ipc.so LD_LIBRARY_PATH=$LIBDIR \
	"$U/usr/bin/hl-ucx" ucx_info -d 2>&1) &&
	grep -q '# *Transport: gaudi_ipc$' <<<"$out" &&
	grep -q '# *Component: gaudi_ipc$' <<<"$out" &&
	ok "the package's hl-ucx loads its plugin into ucx_info -d, which lists gaudi_ipc" ||
	{ echo "$out" | tail -n 20 >&2; fail "hl-ucx ucx_info -d with the package's plugin"; }
# The source package: UCX's source of exactly that version is its component.
dsc=$(ls "$DEBS"/*.dsc 2>/dev/null | head -n 1)
if [ -z "$dsc" ]; then
	fail "no source package (.dsc) in $DEBS"
else
	comp=$(sed -n 's/^ [0-9a-f]\{64\} [0-9]* \(.*\.orig-ucx\.tar\.xz\)$/\1/p' "$dsc" | sort -u)
	if [ -z "$comp" ] || [ ! -f "$DEBS/$comp" ]; then
		fail "$(basename "$dsc") has no component orig-ucx"
	else
		cv=$(tar -xJOf "$DEBS/$comp" ucx/debian/changelog | dpkg-parsechangelog -l - -SVersion)
		[ "$cv" = "$UCXV" ] || fail "$comp holds ucx $cv, libucx0 is $UCXV"
		ok "$(basename "$dsc"): UCX's source $cv is its component ($comp, $(($(stat -c %s "$DEBS/$comp") / 1024)) KiB)"
	fi
fi

# --- who pulls libibverbs --------------------------------------------------
while read -r f; do
	p=$(dpkg-deb -f "$DEBS/$f" Package)
	deps=$(dpkg-deb -f "$DEBS/$f" Depends Pre-Depends Recommends)
	case $p in
	libhlthunk-verbs1 | libhlthunk-verbs-dev | *-dbgsym)
		continue
		;;
	esac
	if grep -Eq 'libibverbs|libhlthunk-verbs' <<<"$deps"; then
		fail "$p depends on or recommends $(grep -Eo 'lib(ibverbs|hlthunk-verbs)[^ ,]*' <<<"$deps" | tr '\n' ' ')"
	fi
done <"$DEBS/debs.list"
dpkg-deb -f "$(deb libhlthunk-verbs1)" Depends | grep -q libibverbs1 ||
	fail "libhlthunk-verbs1 does not depend on libibverbs1"
ok "only libhlthunk-verbs1 and libhlthunk-verbs-dev pull libibverbs"

[ "$fails" = 0 ] || { echo "$fails failures" >&2; exit 1; }
echo PASS
