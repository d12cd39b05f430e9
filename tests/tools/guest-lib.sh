# shellcheck shell=bash
# Shell functions for tests that run inside a run-vm guest as root and need
# to change the system the way an operator would (sourced, not run).
#
# The guest's root is the host's, read-only; these functions put a tmpfs
# overlay on the few directories a test writes to, so that the usual tools
# (groupadd, useradd, depmod, udevadm) work unchanged and the host is never
# touched.

KVER=$(uname -r)
# The guest runs its command chrooted into the host root (tools/vm/
# guest-init); udevadm ignores requests in a chroot unless told.
export SYSTEMD_IGNORE_CHROOT=1

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

step() { echo "--- [$(cut -d" " -f1 /proc/uptime) s] $*"; }

# writable DIR: make DIR writable for the rest of this guest's life.
writable() {
	local d=$1 top
	[ -w "$d" ] && touch "$d/.hl-w" 2>/dev/null && { rm -f "$d/.hl-w"; return 0; }
	grep -q overlay /proc/filesystems || modprobe overlay ||
		fail "cannot load the overlay module"
	top=/run/hl-overlay/$(echo "$d" | tr / _)
	mkdir -p "$top/upper" "$top/work"
	mount -t overlay overlay \
		-o "lowerdir=$d,upperdir=$top/upper,workdir=$top/work" "$d" ||
		fail "cannot make $d writable"
}

# install_modules KMOD_DIR INDEX_DIR: install our built modules where
# modprobe and udev's kmod builtin find them, as the DKMS package would,
# with the module index make-modindex.sh built for them on the host.
install_modules() {
	local src=$1 index=$2 m
	[ -s "$index/modules.dep.bin" ] || fail "no module index in $index"
	writable "/lib/modules/$KVER"
	mkdir -p "/lib/modules/$KVER/updates/hl-test"
	for m in habanalabs_ipc habanalabs_sim; do
		install -m 0644 "$src/$m.ko" "/lib/modules/$KVER/updates/hl-test/" ||
			fail "cannot install $m.ko"
	done
	cp "$index"/modules.* "/lib/modules/$KVER/" || fail "cannot install the index"
	modinfo -n habanalabs_ipc | grep -q updates/hl-test ||
		fail "modprobe does not find the installed habanalabs_ipc"
}

# add_group NAME, add_user NAME [GROUP...]: system group and plain users.
add_group() {
	writable /etc
	getent group "$1" >/dev/null || groupadd --system "$1" ||
		fail "cannot add group $1"
}

add_user() {
	local u=$1 groups
	shift
	groups=$(IFS=,; echo "$*")
	writable /etc
	useradd --no-create-home --no-log-init --shell /bin/sh \
		${groups:+--groups "$groups"} "$u" || fail "cannot add user $u"
}

# as USER CMD...: run CMD as USER with that user's groups.
as() {
	local u=$1
	shift
	setpriv --reuid="$u" --regid="$u" --init-groups -- "$@"
}

# start_udevd: a real systemd-udevd with the system's and our rules.
UDEVD_PID=
start_udevd() {
	/lib/systemd/systemd-udevd --resolve-names=early >/run/udevd.log 2>&1 &
	UDEVD_PID=$!
	local _
	for _ in $(seq 100); do
		[ -S /run/udev/control ] && udevadm control --ping 2>/dev/null && return 0
		sleep 0.1
	done
	cat /run/udevd.log >&2
	fail "systemd-udevd did not start"
}

stop_udevd() {
	[ -n "$UDEVD_PID" ] || return 0
	kill "$UDEVD_PID" 2>/dev/null
	wait "$UDEVD_PID" 2>/dev/null
	UDEVD_PID=
}

# mode_of NODE: "group octal-mode", e.g. "hl 660".
mode_of() { stat -c '%G %a' "$1"; }

expect_mode() {
	local got
	got=$(mode_of "$1") || fail "$1 does not exist"
	[ "$got" = "$2" ] || fail "$1 is '$got', expected '$2'"
	echo "ok: $1 is $got"
}

# run_rc WANT NAME CMD...: run CMD, keep its output in /run/out/NAME.{out,err},
# and fail unless it exits with WANT.
run_rc() {
	local want=$1 name=$2 rc t0
	shift 2
	mkdir -p /run/out
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" >"/run/out/$name.out" 2>"/run/out/$name.err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "== stdout of $*:" >&2; cat "/run/out/$name.out" >&2
		echo "== stderr:" >&2; cat "/run/out/$name.err" >&2
		fail "'$*' exited with $rc, expected $want"
	fi
	echo "ok: $* -> $rc ($(awk -v t0="$t0" '{ printf "%.1f", $1 - t0 }' /proc/uptime) s)"
}

# has NAME.{out,err} PATTERN: the output of run_rc NAME matches (grep -E).
has() {
	grep -Eq -- "$2" "/run/out/$1" || {
		cat "/run/out/$1" >&2
		fail "/run/out/$1 does not match '$2'"
	}
}

# json NAME PYTHON-EXPR: the JSON output of run_rc NAME makes the
# expression (over 'd') true.
json() {
	python3 - "/run/out/$1.out" "$2" <<'PY' || fail "JSON of $1: $2"
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2])
if not ok:
    json.dump(d, sys.stderr, indent=1)
    sys.exit(1)
PY
}
