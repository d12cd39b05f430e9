#!/bin/sh
# run-bridge-tests.sh PROGRAM [ARGS...]
#
# Runs the bridge test program in the guest, then checks that nothing is
# left behind: habanalabs_ipc's live counters (contexts, regions,
# channels, jobs, pinned bytes) and habanalabs_sim's live objects are all
# zero once its processes have exited.  run-vm then unloads the modules,
# which fails if a reference leaked.
set -u
"$@"
rc=$?
leak=0
for f in contexts regions channels jobs pinned_bytes; do
	p=/sys/class/misc/hl_ipc/stats/$f
	[ -r "$p" ] || continue
	v=$(cat "$p")
	if [ "$v" != 0 ]; then
		echo "run-bridge-tests: habanalabs_ipc $f is $v after the tests (expected 0)"
		leak=1
	fi
done
stats=/sys/kernel/debug/habanalabs_sim/stats
if [ -r "$stats" ]; then
	while read -r name value; do
		if [ "$value" != 0 ]; then
			echo "run-bridge-tests: habanalabs_sim $name is $value after the tests (expected 0)"
			leak=1
		fi
	done <"$stats"
fi
[ $leak = 0 ] && echo "run-bridge-tests: no live objects left in habanalabs_ipc and habanalabs_sim"
[ $rc = 0 ] || exit $rc
exit $leak
