# shellcheck shell=bash
# shellcheck disable=SC2034 # VERSION, MODDIR, KVER_RE: for the scripts that source it
# What both halves of the package install test share (sourced after
# tests/tools/guest-lib.sh, with SRC, DEBS and KVER set): the packages
# under test, their version, and small helpers.

# PKGS and FILES: every package of DEBS/debs.list but the emulator's
# (its postinst and prerm are the same dh_dkms scripts as the IPC
# module's; pkg.contents builds its sources for every kernel).
PKGS=()
FILES=()
while read -r f; do
	case $f in *-dbgsym_* | habanalabs-sim-dkms_*) continue ;; esac
	PKGS+=("$(dpkg-deb -f "$DEBS/$f" Package)")
	FILES+=("$DEBS/$f")
done <"$DEBS/debs.list"
[ ${#PKGS[@]} -gt 0 ] || fail "no packages in $DEBS/debs.list"

# has_deb PACKAGE: DEBS holds PACKAGE (ucx-gaudi-ipc is not built by
# tools/build-debs.sh --no-ucx).
has_deb() { grep -q "^$1_" "$DEBS/debs.list"; }

# deb_of PACKAGE: the file of PACKAGE in DEBS.
deb_of() {
	local f
	f=$(grep "^$1_" "$DEBS/debs.list") || fail "no $1 in $DEBS/debs.list"
	echo "$DEBS/$f"
}

# The DKMS modules carry the upstream version (no Debian revision).
DEBVERSION=$(dpkg-deb -f "$(deb_of habanalabs-ipc-dkms)" Version)
VERSION=${DEBVERSION%-*}
MODDIR=/lib/modules/$KVER/updates/dkms
KVER_RE=$(printf '%s' "$KVER" | sed 's/[.+]/\\&/g')

# re TEXT: TEXT as a literal in an extended regular expression.
re() { printf '%s' "$1" | sed 's/[].[+*?()|^$\\]/\\&/g'; }

# ours: our modules anywhere in /lib/modules but the kernels' own trees
# (thousands of files, slow to walk over 9p).
ours() {
	find /lib/modules -path '/lib/modules/*/kernel' -prune -o \
		\( -name 'habanalabs_ipc.ko*' -o -name 'habanalabs_sim.ko*' \) -print
}

# timed NAME CMD...: run CMD with its output in /run/out/NAME.log, print
# how long it took (in T too), show the log and fail if it fails.
timed() {
	local name=$1 t0 rc
	shift
	mkdir -p /run/out
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" >"/run/out/$name.log" 2>&1
	rc=$?
	T=$(awk -v t0="$t0" '{ printf "%.0f", $1 - t0 }' /proc/uptime)
	if [ "$rc" != 0 ]; then
		cat "/run/out/$name.log" >&2
		fail "'$*' exited with $rc"
	fi
	echo "ok: $* ($T s)"
}
