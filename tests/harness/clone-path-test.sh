#!/usr/bin/env bash
# usage: clone-path-test.sh PARENT KVER KMOD_DIR
# A newcomer's clone may live anywhere, /root and /tmp included, which the
# run-vm guest covers with tmpfs of its own.  Copy the tree (what git
# tracks) into a fresh directory under PARENT, put the already built
# modules where a build in that copy would put them, and run the copy's
# run-vm from the copy's build directory, as tools/demo.sh does: the guest
# must enter the working directory, load the modules from the copy, and run
# a script of the copy by its absolute path.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PARENT=$1 KVER=$2 KMODS=$3

COPY=$(mktemp -d "$PARENT/hlipc-clone.XXXXXX")
trap 'rm -rf "$COPY"' EXIT
if git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$TOP" ls-files -z | (cd "$TOP" && xargs -0 cp --parents -t "$COPY")
else
	cp -a "$TOP/." "$COPY/" # not a git checkout: copy it all
fi
mkdir -p "$COPY/build/kmod/$KVER"
cp "$KMODS"/habanalabs_ipc.ko "$KMODS"/habanalabs_sim.ko "$COPY/build/kmod/$KVER/"
cat >"$COPY/build/probe.sh" <<'P'
#!/bin/sh
# Runs inside the guest: what the copy looks like from there.
echo "probe: cwd $(pwd)"
test -c /dev/hl_ipc && echo "probe: /dev/hl_ipc present"
head -n 1 ../README.md | sed 's/^/probe: README /'
P
chmod +x "$COPY/build/probe.sh"

cd "$COPY/build"
echo "clone-path: $COPY, kernel $KVER"
out=$("$COPY/tools/vm/run-vm" --quiet --cpus 1 --kernel "$KVER" --timeout 300 \
	--insmod 'habanalabs_sim num_devices=2' --insmod habanalabs_ipc \
	-- "$COPY/build/probe.sh" 2>&1) || {
	rc=$?
	printf '%s\n' "$out"
	echo "clone-path: run-vm from $COPY failed with status $rc" >&2
	exit 1
}
printf '%s\n' "$out"
fail=0
for want in "probe: cwd $COPY/build" "probe: /dev/hl_ipc present" \
	"probe: README # habanalabs-ipc"; do
	grep -qxF -- "$want" <<<"$out" || { echo "clone-path: missing '$want'" >&2; fail=1; }
done
exit $fail
