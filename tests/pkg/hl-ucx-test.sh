#!/usr/bin/env bash
# Host test of hl-ucx (uct-bridge/hl-ucx.in) as the build makes it:
#  - --help lists the places it looks for the plugin, says which one it
#    uses and the libucx0 version the plugin was built against;
#  - it runs the command with the plugin first in LD_PRELOAD (an existing
#    LD_PRELOAD kept after it), passes the command's exit status on, and
#    ucx_info -d run through it lists gaudi_ipc;
#  - without a plugin it exits 127 naming the places it looked, with a
#    plugin built against another libucx0 than the installed one 126
#    naming both versions (HL_UCX_IGNORE_VERSION=1 runs it anyway), with a
#    bad command line 2;
#  - its manual page formats without warnings.
# usage: hl-ucx-test.sh HL_UCX MAN_PAGE
set -uo pipefail
HL_UCX=$1
MAN=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}
ok() { echo "ok: $*"; }

# run WANT NAME CMD...: CMD's output in $TMP/NAME.{out,err}; it must exit WANT.
run() {
	local want=$1 name=$2 rc
	shift 2
	"$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		cat "$TMP/$name.out" "$TMP/$name.err" >&2
		fail "$name: '$*' exited with $rc, expected $want"
		return 1
	fi
}
has() { grep -Fq -- "$2" "$TMP/$1" || { cat "$TMP/$1" >&2; fail "$1 lacks '$2'"; return 1; }; }

plugin=$(sed -n "s/^built_plugin='\(.*\)'$/\1/p" "$HL_UCX")
built_for=$(sed -n "s/^built_for='\(.*\)'$/\1/p" "$HL_UCX")
installed=$(dpkg-query -W -f '${Version}' libucx0)
[ -r "$plugin" ] || { echo "hl-ucx-test: $HL_UCX names $plugin, which is not there: build the plugin first" >&2; exit 1; }
[ "$built_for" = "$installed" ] || fail "$HL_UCX records libucx0 '$built_for', the installed one is $installed"

run 0 help "$HL_UCX" --help &&
	has help.out "  $plugin  (found: used)" &&
	has help.out "built against libucx0 $installed" &&
	ok "--help: the plugin it uses, $(grep -c '^  /' "$TMP/help.out") places, libucx0 $installed"

run 7 status "$HL_UCX" sh -c 'echo "$LD_PRELOAD"; exit 7' &&
	grep -Eq "(^| )$plugin\$" "$TMP/status.out" &&
	ok "runs the command with the plugin in LD_PRELOAD, its exit status passed on" ||
	fail "LD_PRELOAD was '$(cat "$TMP/status.out")'"
LD_PRELOAD=/x/keep.so run 0 keep "$HL_UCX" --print &&
	grep -Eq "(^| )$plugin /x/keep\.so\$" "$TMP/keep.out" &&
	ok "--print: an existing LD_PRELOAD stays, after the plugin" ||
	fail "--print with LD_PRELOAD=/x/keep.so gave '$(cat "$TMP/keep.out")'"

run 0 info "$HL_UCX" ucx_info -d &&
	has info.out "Transport: gaudi_ipc" && has info.out "Component: gaudi_ipc" &&
	ok "ucx_info -d through it lists gaudi_ipc"

HL_UCX_PLUGIN=$TMP/none.so run 127 missing "$HL_UCX" true &&
	has missing.err "$TMP/none.so  (not there)" &&
	has missing.err "install the ucx-gaudi-ipc package" &&
	ok "no plugin: exit 127, the places named"
# A copy made for a plugin that is not there falls back to UCX's module
# directory (beside libucs.so.0), and says so.
sed "s|^built_plugin=.*|built_plugin='$TMP/gone.so'|" "$HL_UCX" >"$TMP/hl-ucx-gone"
chmod +x "$TMP/hl-ucx-gone"
libucs=$(readlink -f "$(ldconfig -p | sed -n 's/^[[:space:]]*libucs\.so\.0 (.*) => //p' | head -n 1)")
run 0 gone "$TMP/hl-ucx-gone" --help &&
	has gone.out "  $TMP/gone.so  (not there)" &&
	has gone.out "  $(dirname "$libucs")/ucx/libuct_gaudi_ipc.so  (" &&
	ok "--help also names UCX's module directory ($(dirname "$libucs")/ucx)"

sed "s|^built_for=.*|built_for='0.0.1-1'|" "$HL_UCX" >"$TMP/hl-ucx-old"
chmod +x "$TMP/hl-ucx-old"
run 126 mismatch "$TMP/hl-ucx-old" true &&
	has mismatch.err "built against libucx0 0.0.1-1, but libucx0 $installed is installed" &&
	ok "a plugin built against another libucx0: exit 126, both versions named"
HL_UCX_IGNORE_VERSION=1 run 0 ignore "$TMP/hl-ucx-old" true &&
	ok "HL_UCX_IGNORE_VERSION=1 runs it anyway"

run 2 badopt "$HL_UCX" --bogus && has badopt.err "unknown option '--bogus'" &&
	run 2 nocmd "$HL_UCX" && ok "a bad command line: exit 2"

warn=$(MANWIDTH=80 man --warnings -E UTF-8 -l "$MAN" 2>&1 >/dev/null)
[ -z "$warn" ] && ok "hl-ucx(1) formats without warnings" || fail "man $MAN: $warn"

[ "$fails" = 0 ] || { echo "$fails failures" >&2; exit 1; }
echo PASS
