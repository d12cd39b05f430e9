#!/usr/bin/env bash
# usage: setup-error-test.sh RUN-VM [RUN-VM OPTIONS]
# A module that cannot be loaded in the guest is a failure to prepare the
# command: run-vm must exit 125 at once with the guest's reason, not boot
# the guest a second time as if it had died during boot.
set -u
RUNVM=$1
shift
out=$("$RUNVM" "$@" --modprobe hlipc_no_such_module -- true 2>&1)
rc=$?
printf '%s\n' "$out"
fail=0
[ "$rc" = 125 ] || { echo "FAIL: exit status $rc, expected 125"; fail=1; }
grep -q 'run-vm: modprobe hlipc_no_such_module failed: .*not found' <<<"$out" ||
	{ echo "FAIL: the guest's reason is not printed"; fail=1; }
if grep -q 'booting again' <<<"$out"; then
	echo "FAIL: booted a second time"
	fail=1
fi
[ "$fail" = 0 ] && echo "ok: reported with its reason, status 125, one boot"
exit $fail
