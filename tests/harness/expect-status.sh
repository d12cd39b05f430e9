#!/bin/sh
# usage: expect-status.sh [--output-matches REGEX] STATUS COMMAND [ARG...]
# Run COMMAND and succeed only if it exits with exactly STATUS (and, with
# --output-matches, its output has a line matching the extended REGEX): the
# harness's self-tests use it to show that a broken guest makes run-vm fail
# for the right reason.
re=
if [ "$1" = --output-matches ]; then
	re=$2
	shift 2
fi
want=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
got=$?
cat "$out"
if [ "$got" -ne "$want" ]; then
	echo "expect-status: '$*' exited $got, expected $want" >&2
	exit 1
fi
if [ -n "$re" ] && ! grep -Eq -- "$re" "$out"; then
	echo "expect-status: '$*' exited $got but its output has no line matching '$re'" >&2
	exit 1
fi
echo "expect-status: exited $got as expected${re:+, output matches '$re'}"
