#!/usr/bin/env bash
# Plot bandwidth against size from uct_bench and perftest-compare JSON files.
# usage: plot-bench.sh OUT.svg FILE.json...
#   bench-<series>.json     (uct_bench): chan, bridge, staged, demo
#   perftest-<series>.json  (perftest-compare.sh): gaudi_ipc, cma
# Needs python3 and gnuplot.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: plot-bench.sh OUT.svg FILE.json..." >&2; exit 2; }
OUT=$1
shift
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
plots=()
for j in "$@"; do
	name=$(basename "$j" .json)
	python3 - "$j" >"$TMP/$name.dat" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if "sizes" in d:
    for r in d["sizes"]:
        print(r["size"], r["chan_mbs"], r["bridge_mbs"], r["staged_mbs"], r["demo_mbs"])
else:
    for r in d["put_bw"]:
        print(r["size"], r["gaudi_ipc_mbs"], r["cma_mbs"])
PY
	case $name in
	bench-*)
		plots+=("'$TMP/$name.dat' using 1:2 with linespoints title '$name raw channel copy'")
		plots+=("'$TMP/$name.dat' using 1:3 with linespoints title '$name bridge, channel path'")
		plots+=("'$TMP/$name.dat' using 1:4 with linespoints title '$name bridge, staged path'")
		plots+=("'$TMP/$name.dat' using 1:5 with lines dashtype 2 title '$name demo staged path'")
		;;
	perftest-*)
		plots+=("'$TMP/$name.dat' using 1:2 with linespoints title '$name perftest gaudi_ipc'")
		plots+=("'$TMP/$name.dat' using 1:3 with lines dashtype 3 title '$name perftest cma'")
		;;
	esac
done
IFS=,
gnuplot <<GP
set terminal svg size 960,600 noenhanced
set output '$OUT'
set logscale xy
set xlabel 'bytes per transfer'
set ylabel 'MB/s'
set key left top
set grid
set title 'gaudi_ipc UCT transport (TCG guest; compare within one run)'
plot ${plots[*]}
GP
echo "plot-bench: wrote $OUT"
