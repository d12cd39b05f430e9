#!/bin/sh
# usage: expect-status.sh STATUS COMMAND [ARG...]
# Run COMMAND and succeed only if it exits with exactly STATUS: the harness's
# self-tests use it to show that a broken guest makes run-vm fail.
want=$1
shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
	echo "expect-status: '$*' exited $got, expected $want" >&2
	exit 1
fi
echo "expect-status: exited $got as expected"
