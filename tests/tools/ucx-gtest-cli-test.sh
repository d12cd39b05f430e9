#!/bin/sh
# Host test of tools/ucx-gtest.sh and its helpers: help and misuse, and
# the runner's account of a gtest run (ran, skipped, failed, a case that
# kills the process and the cases after it) with a stand-in for UCX's
# gtest binary, so no UCX build is needed.
set -u
TOOLS=$1/tools
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/../common/check-status.sh"
check 0 "$TOOLS/ucx-gtest.sh" --help
check 2 "$TOOLS/ucx-gtest.sh" --bogus
check 2 "$TOOLS/ucx-gtest.sh" --path sideways
check 2 "$TOOLS/ucx-gtest.sh" --jobs many
check 0 "$TOOLS/ucx-gtest-run.sh" --help
check 2 "$TOOLS/ucx-gtest-run.sh"
check 2 "$TOOLS/ucx-gtest-run.sh" --timeout soon /bin/true /bin/true
check 0 "$TOOLS/ucx-debian-source.sh" --help
check 1 "$TOOLS/ucx-debian-source.sh" fetch
check 1 "$TOOLS/ucx-debian-source.sh" check "$work"
for t in ucx-gtest.sh ucx-gtest-run.sh; do
	"$TOOLS/$t" --help | grep -q 'exit status' ||
		{ echo "FAIL: $t --help lacks exit codes"; fail=1; }
done

# The stand-in: lists five cases in two suites, and per case passes,
# skips as UCX's fixture does, fails, or kills its process.
cat >"$work/gtest" <<'EOS'
#!/bin/sh
list=0
for a; do
	case $a in
	--gtest_list_tests) list=1 ;;
	--gtest_filter=*) filter=${a#--gtest_filter=} ;;
	esac
done
if [ $list = 1 ]; then
	echo "Note: output before the list"
	case $filter in nothing*) exit 0 ;; esac
	cat <<EOL
gaudi_ipc/uct_p2p_rma_test.
  put_short/0  # GetParam() = gaudi_ipc/gaudi
  get_short/0  # GetParam() = gaudi_ipc/gaudi
gaudi_ipc/uct_p2p_err_test.
  crash/0  # GetParam() = gaudi_ipc/gaudi
  bad/0  # GetParam() = gaudi_ipc/gaudi
  after/0  # GetParam() = gaudi_ipc/gaudi
EOL
	exit 0
fi
IFS=:
for c in $filter; do
	printf '[ RUN      ] %s\n' "$c"
	case $c in
	*put_short*|*after*) printf '[       OK ] %s (1 ms)\n' "$c" ;;
	*get_short*) printf '[     SKIP ] (no get_short)\n[       OK ] %s (0 ms)\n' "$c" ;;
	*bad*) printf '[  FAILED  ] %s, where GetParam() = gaudi_ipc/gaudi (2 ms)\n' "$c" ;;
	*crash*) printf 'half a line'; kill -SEGV $$ ;;
	esac
done
EOS
printf '#!/bin/sh\nexec "$@"\n' >"$work/hl-ucx"
chmod +x "$work/gtest" "$work/hl-ucx"
res=$work/out
check 1 "$TOOLS/ucx-gtest-run.sh" --out "$res" "$work/gtest" "$work/hl-ucx"
expect() { # what file line
	grep -qxF "$3" "$res/$2" || { echo "FAIL: $1: no line '$3' in $2:"; cat "$res/$2"; fail=1; }
}
expect summary summary "cases 5 ran 2 skipped 1 failed 2"
tab=$(printf '\t')
expect "a passed case" results "gaudi_ipc/uct_p2p_rma_test.put_short/0${tab}ran${tab}"
expect "the skip reason" results "gaudi_ipc/uct_p2p_rma_test.get_short/0${tab}skipped${tab}(no get_short)"
expect "a crash" results "gaudi_ipc/uct_p2p_err_test.crash/0${tab}failed${tab}the process died in this case"
expect "a failure" results "gaudi_ipc/uct_p2p_err_test.bad/0${tab}failed${tab}"
expect "the case after a crash" results "gaudi_ipc/uct_p2p_err_test.after/0${tab}ran${tab}"
expect "the second process" log "==== gtest process 2: 2 cases"
# A filter that matches nothing is misuse, not success.
check 2 "$TOOLS/ucx-gtest-run.sh" --filter 'nothing*' --out "$work/none" \
	"$work/gtest" "$work/hl-ucx"
exit $fail
