#!/usr/bin/env bash
# ucx-gtest-run.sh: run the gaudi_ipc cases of a UCX gtest binary (built by
# tools/ucx-gtest.sh) with the transport loaded, and account for every case:
# ran, skipped or failed.  A case that kills the gtest process counts as
# failed and the remaining cases go on in a fresh process, so one crash does
# not hide the cases after it.  tools/ucx-gtest.sh runs it inside the VM; on
# a host with the modules loaded it runs as it is.
set -uo pipefail

usage() {
	cat <<'EOF'
usage: ucx-gtest-run.sh [options] GTEST HL_UCX [-- GTEST_ARGS...]

Lists the cases of the UCX gtest binary GTEST that match the filter, runs
them with `HL_UCX GTEST` (hl-ucx loads the gaudi_ipc transport), and writes
into the output directory:
  cases      the cases listed, one full gtest name a line
  log        the gtest output, every process of the run
  results    one line per case: NAME<TAB>ran|skipped|failed<TAB>detail
  summary    "cases N ran N skipped N failed N"
and prints the summary and the failed cases.

options:
  --filter F    gtest filter (default: *gaudi_ipc*)
  --out DIR     output directory (default: ./ucx-gtest.out)
  --label L     printed in front of the summary (e.g. "6.12 staged")
  --timeout S   UCX's per-case watchdog, seconds (default: UCX's own,
                900)
  -h, --help    this text

exit status: 0 if every listed case ran or was skipped, 1 if one failed or
crashed, 2 on misuse or if GTEST could not list its cases.
EOF
}

die() {
	echo "ucx-gtest-run.sh: $*" >&2
	exit 2
}

FILTER='*gaudi_ipc*'
OUT=./ucx-gtest.out
LABEL=
WATCHDOG=
while [ $# -gt 0 ]; do
	case $1 in
	--filter) FILTER=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--label) LABEL=$2; shift 2 ;;
	--timeout) WATCHDOG=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || die "GTEST and HL_UCX are needed (see --help)"
GTEST=$1
HL_UCX=$2
shift 2
[ "${1:-}" != -- ] || shift
EXTRA=("$@")
[ -x "$GTEST" ] || die "$GTEST is not an executable"
[ -x "$HL_UCX" ] || die "$HL_UCX is not an executable"
[ -z "$WATCHDOG" ] || [[ $WATCHDOG =~ ^[1-9][0-9]*$ ]] ||
	die "--timeout wants seconds, not '$WATCHDOG'"
mkdir -p "$OUT" || die "cannot create $OUT"

# UCX's gtest defaults: errors print a backtrace and end the process (the
# default 'freeze' would wait for a debugger), warnings are shown.
export UCX_HANDLE_ERRORS=${UCX_HANDLE_ERRORS:-bt}
export UCX_LOG_LEVEL=${UCX_LOG_LEVEL:-warn}
export UCX_LOG_PRINT_ENABLE=${UCX_LOG_PRINT_ENABLE:-y}

# --gtest_list_tests prints "Suite." lines (after a comment for typed
# suites) and indented "case  # comment" lines; anything else is other
# output.
"$HL_UCX" "$GTEST" --gtest_list_tests "--gtest_filter=$FILTER" >"$OUT/list" 2>&1 ||
	{ tail -n 20 "$OUT/list" >&2; die "$GTEST could not list its cases"; }
awk '/^[^ []/ { suite = ($1 ~ /\.$/) ? $1 : ""; next }
     /^  [^ ]/ && suite != "" { print suite $1 }' "$OUT/list" >"$OUT/cases"
total=$(wc -l <"$OUT/cases")
[ "$total" -gt 0 ] || die "no case matches '$FILTER' (is the transport loaded? see $OUT/list)"

# The result of each case from gtest's output: a case whose "[ RUN ]" has
# no "[ OK ]" or "[ FAILED ]" line was running when the process died.
# UCX's fixture prints "[ SKIP ] (reason)" inside a case it skips, which
# gtest then reports as passed.
parse() { # LOG -> NAME<TAB>RESULT<TAB>DETAIL lines of the cases it saw
	awk -v OFS='\t' '
	function finish(result, detail) { print name, result, detail; name = "" }
	/^\[ RUN      \] / { if (name != "") finish("failed", "the process died in this case"); name = $4; skip = ""; next }
	name != "" && /^\[     SKIP \] / { skip = substr($0, 14); if (skip == "") skip = "(no reason given)"; next }
	name != "" && /^\[       OK \] / && $4 == name { if (skip != "") finish("skipped", skip); else finish("ran", ""); next }
	# a parameterised case fails as "NAME, where GetParam() = ..."
	name != "" && /^\[  FAILED  \] / && ($4 == name || $4 == name ",") { finish("failed", ""); next }
	END { if (name != "") finish("failed", "the process died in this case") }' "$1"
}

: >"$OUT/log"
: >"$OUT/results"
cp "$OUT/cases" "$OUT/todo"
round=0
while [ -s "$OUT/todo" ]; do
	round=$((round + 1))
	filter=$(paste -sd: "$OUT/todo")
	echo "==== gtest process $round: $(wc -l <"$OUT/todo") cases" >>"$OUT/log"
	: >"$OUT/log.$round"
	# Progress, once a minute: cases started so far.
	before=$(wc -l <"$OUT/results")
	# (its sleep goes with it: it must not hold our output open)
	(trap 'kill "$nap" 2>/dev/null; exit 0' TERM
	while :; do
		sleep 60 &
		nap=$!
		wait "$nap"
		echo "ucx-gtest-run.sh: ${LABEL:+$LABEL: }$((before + $(grep -c '^\[ RUN' "$OUT/log.$round"))) of $total cases started"
	done) &
	progress=$!
	"$HL_UCX" "$GTEST" ${WATCHDOG:+-t "$WATCHDOG"} "--gtest_filter=$filter" ${EXTRA[@]+"${EXTRA[@]}"} \
		>>"$OUT/log.$round" 2>&1
	rc=$?
	kill "$progress" 2>/dev/null
	wait "$progress" 2>/dev/null
	cat "$OUT/log.$round" >>"$OUT/log"
	# a process that died mid-line
	[ -z "$(tail -c 1 "$OUT/log.$round")" ] || echo >>"$OUT/log"
	echo "==== gtest process $round exited with status $rc" >>"$OUT/log"
	parse "$OUT/log.$round" >"$OUT/results.$round"
	# A process that died between cases (at start or exit) fails nothing
	# by name: say so, and do not go round again with the same cases.
	if [ ! -s "$OUT/results.$round" ]; then
		echo "ucx-gtest-run.sh: gtest process $round ran no case (status $rc); see $OUT/log" >&2
		awk -v OFS='\t' -v rc="$rc" '{ print $0, "failed", "not run: the gtest process exited with status " rc " before it" }' \
			"$OUT/todo" >>"$OUT/results"
		break
	fi
	cat "$OUT/results.$round" >>"$OUT/results"
	cut -f1 "$OUT/results" | sort >"$OUT/seen"
	grep -vxF -f "$OUT/seen" "$OUT/cases" >"$OUT/todo" || true
	rm -f "$OUT/log.$round" "$OUT/results.$round"
	if [ "$rc" = 0 ] && [ -s "$OUT/todo" ]; then
		awk -v OFS='\t' '{ print $0, "failed", "listed but not run" }' "$OUT/todo" >>"$OUT/results"
		break
	fi
done
rm -f "$OUT/todo" "$OUT/seen"

count() { awk -F'\t' -v r="$1" '$2 == r' "$OUT/results" | wc -l; }
ran=$(count ran)
skipped=$(count skipped)
failed=$(count failed)
echo "cases $total ran $ran skipped $skipped failed $failed" >"$OUT/summary"
echo "${LABEL:+$LABEL: }$(cat "$OUT/summary")"
awk -F'\t' '$2 == "failed" { print "  FAILED " $1 ($3 != "" ? " (" $3 ")" : "") }' "$OUT/results"
[ "$failed" = 0 ] && [ $((ran + skipped)) = "$total" ]
