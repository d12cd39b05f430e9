#!/bin/sh
# Host test of run-vm's command line: help, misuse and unknown kernels are
# reported with a clear message and status 127, without booting anything.
set -u
RUNVM=$1
. "$(dirname "$0")/../common/check-status.sh"
check 0 "$RUNVM" --help
check 127 "$RUNVM"
check 127 "$RUNVM" --bogus-option -- true
check 127 "$RUNVM" --kernel 2.6 -- true
check 127 "$RUNVM" --accel warp -- true
check 127 "$RUNVM" --insmod no_such_module -- true
# The debug kernel: a missing build is a clear error, not a boot attempt.
check 127 env HL_DEBUG_KERNEL_CACHE=/nonexistent "$RUNVM" --kernel debug -- true
check 0 "$(dirname "$RUNVM")/debug-kernel.sh" --help
check 1 "$(dirname "$RUNVM")/debug-kernel.sh" --bogus-option
# The two-guest link: malformed or incomplete options, before booting.
check 127 "$RUNVM" --link /tmp -- true
check 127 "$RUNVM" --link /nonexistent:0 -- true
check 127 "$RUNVM" --rxe -- true
check 127 "$RUNVM" --link /tmp:1 --link-timeout soon -- true
check 127 "$RUNVM" --link /tmp:1 --link-speed fast -- true
PAIR=$(dirname "$RUNVM")/run-vm-pair
check 0 "$PAIR" --help
check 127 "$PAIR"
check 127 "$PAIR" --link /tmp:0 -- true
"$PAIR" --help | grep -q 'exit status' || { echo "FAIL: run-vm-pair --help lacks exit codes"; fail=1; }
"$RUNVM" --help | grep -q 'exit status' || { echo "FAIL: --help lacks exit codes"; fail=1; }
exit $fail
