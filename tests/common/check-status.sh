# Sourced by the host tests of command lines (POSIX sh).
# check STATUS COMMAND [ARG...]: runs COMMAND, prints "ok" or "FAIL" with
# its output, and sets fail=1 when it did not exit with exactly STATUS.
fail=0
check() {
	want=$1
	shift
	out=$("$@" 2>&1)
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL: '$*' exited $got, expected $want: $out"
		fail=1
	else
		echo "ok: '$*' -> $got"
	fi
}
