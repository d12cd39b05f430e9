#!/bin/bash
# Host test of hl-ipc's command line, where none of our modules is loaded:
# --help everywhere, exit codes and messages for bad input and for a
# missing module, valid JSON, and that the man page and the bash
# completion know every command and option that --help lists.
# usage: hl-ipc-cli-test.sh HL_IPC SRC_DIR
set -u
HL=$1
SRC=$2
MAN=$SRC/tools/hl-ipc/hl-ipc.8
COMPLETION=$SRC/tools/hl-ipc/hl-ipc.bash-completion
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
fails=0

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# expect RC PATTERN CMD...: exit status RC and PATTERN (grep -E) in the
# combined output ("" to skip).
expect() {
	local want=$1 pat=$2 rc
	shift 2
	"$@" >"$OUT/o" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		fail "'$*' exited with $rc, expected $want:"
		sed 's/^/    /' "$OUT/o" >&2
	elif [ -n "$pat" ] && ! grep -Eq -- "$pat" "$OUT/o"; then
		fail "'$*' printed no '$pat':"
		sed 's/^/    /' "$OUT/o" >&2
	fi
}

# Status 77: skipped (CTest's SKIP_RETURN_CODE), e.g. in a package build
# on a Gaudi host.
[ -d /sys/module/habanalabs_ipc ] && { echo "habanalabs_ipc is loaded on this host: this test needs it absent; skipped" >&2; exit 77; }

COMMANDS=$("$HL" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ -n "$COMMANDS" ] || fail "hl-ipc --help lists no commands"

expect 2 "usage: hl-ipc COMMAND" "$HL"
expect 0 "usage: hl-ipc COMMAND" "$HL" --help
expect 0 "^hl-ipc [0-9]" "$HL" --version
expect 2 "unknown command 'frobnicate' \(see 'hl-ipc --help'\)" "$HL" frobnicate
expect 2 "unknown option '--frob'" "$HL" --frob
for c in $COMMANDS; do
	expect 0 "^usage: hl-ipc $c" "$HL" "$c" --help
	expect 0 "^usage: hl-ipc $c" "$HL" "$c" -h
	expect 2 "hl-ipc $c: unknown option '--frob' \(see 'hl-ipc $c --help'\)" "$HL" "$c" --frob
done

# The module is absent here.
expect 3 "^habanalabs_ipc: not loaded" "$HL" status
"$HL" status --json >"$OUT/j" 2>/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["modules"]["habanalabs_ipc"]["loaded"] is False' "$OUT/j" ||
	fail "status --json is not valid JSON saying the module is absent"
expect 2 "unexpected argument 'x'" "$HL" status x
expect 2 "option '--json' takes no value" "$HL" status --json=1
expect 3 "habanalabs_ipc is not loaded" "$HL" unload
expect 3 "habanalabs_sim is not loaded" "$HL" unload habanalabs_sim
expect 3 "habanalabs_ipc is not loaded" "$HL" channels
expect 3 "habanalabs_ipc is not loaded" "$HL" regions --json
expect 2 "unknown module 'vgem'" "$HL" load vgem
expect 2 "unknown module 'vgem'" "$HL" unload vgem
expect 2 "'max_channels' is not PARAM=VALUE" "$HL" load habanalabs_ipc max_channels
expect 2 "'=3' is not PARAM=VALUE" "$HL" load =3
expect 2 "unexpected argument 'b'" "$HL" unload habanalabs_ipc b
expect 2 "--pid needs a process id, not 'me'" "$HL" channels --pid me
expect 2 "option '--pid' needs a value" "$HL" regions --pid
expect 2 "bad --sizes '0'" "$HL" bench --sizes 0
expect 2 "bad --sizes '4K,,8'" "$HL" bench --sizes 4K,,8
expect 2 "bad --sizes '2G'" "$HL" bench --sizes 2G
expect 2 "bad --time '-1'" "$HL" bench --time -1
expect 2 "--plot wants a file ending in .svg or .png" "$HL" bench --plot out.pdf
expect 1 "needs two devices, found 0" "$HL" bench --sizes 4K
expect 2 "" "$HL" demo --sizes 3

# The man page: renders without warnings, documents every command and
# every option of every command's --help.
warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$MAN" 2>&1 >/dev/null)
[ -z "$warnings" ] || fail "man page warnings: $warnings"
page=$(LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$MAN" 2>/dev/null | col -b)
for c in $COMMANDS; do
	grep -Eq "^   $c( |$)" <<<"$page" || fail "hl-ipc(8) has no section for '$c'"
	for o in $("$HL" "$c" --help | grep -Eo -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "$o" <<<"$page" || fail "hl-ipc(8) does not mention '$c $o'"
		# Completion: after the command, "-" offers the option.
		got=$(bash -c 'shopt -s extglob; . "$1"; COMP_WORDS=(hl-ipc "$2" --); COMP_CWORD=2; _hl_ipc; echo "${COMPREPLY[*]}"' _ "$COMPLETION" "$c")
		[ "$c" = load ] || [ "$c" = unload ] || grep -qw -- "$o" <<<"$got" ||
			fail "bash completion of 'hl-ipc $c --' lacks $o (got: $got)"
	done
done
got=$(bash -c '. "$1"; COMP_WORDS=(hl-ipc ""); COMP_CWORD=1; _hl_ipc; echo "${COMPREPLY[*]}"' _ "$COMPLETION")
for c in $COMMANDS; do
	grep -qw "$c" <<<"$got" || fail "bash completion does not offer '$c' (got: $got)"
done

# One group everywhere: the rules, the sysusers file, the tool's and the
# library's messages.
RULES=$SRC/tools/udev/70-habanalabs-ipc.rules
groups=$(grep -o 'GROUP="[^"]*"' "$RULES" | sort -u)
[ "$groups" = 'GROUP="hl"' ] || fail "the udev rules give the nodes to: $groups (want hl only)"
grep -q '^g hl ' "$SRC/tools/udev/hl-ipc.sysusers.conf" || fail "sysusers.conf does not create group hl"
grep -q 'kAccessGroup = "hl"' "$SRC/tools/hl-ipc/ipc_state.h" || fail "hl-ipc names another group"
grep -q "group 'hl'" "$SRC/libhlthunk/src/error_message.cc" || fail "libhlthunk names another group"
grep -E 'MODE="[0-9]+"' -o "$RULES" | grep -v 'MODE="0660"' && fail "the rules set a mode other than 0660"

[ "$fails" = 0 ] || { echo "$fails failures" >&2; exit 1; }
echo PASS
