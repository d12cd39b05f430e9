#!/usr/bin/env bash
# Plot bandwidth against size from ipc_bench JSON files (one per kernel).
# usage: plot-bench.sh OUT.svg bench-6.1.json [bench-6.12.json ...]
# Needs python3 and gnuplot.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: plot-bench.sh OUT.svg BENCH.json..." >&2; exit 2; }
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
for r in d["rows"]:
    print(r["size"], r["chan_gbps"], r["pvw_gbps"], r["memcpy_gbps"],
          r["ceil_gbps"] if r["ceil_gbps"] > 0 else "NaN")
PY
	plots+=("'$TMP/$name.dat' using 1:2 with linespoints title '$name chan'")
	plots+=("'$TMP/$name.dat' using 1:3 with linespoints title '$name process_vm_writev'")
	plots+=("'$TMP/$name.dat' using 1:4 with linespoints title '$name memcpy'")
	plots+=("'$TMP/$name.dat' using 1:5 with lines dashtype 2 title '$name kernel ceiling'")
done
IFS=,
gnuplot <<GP
set terminal svg size 900,560 noenhanced
set output '$OUT'
set logscale xy
set xlabel 'bytes per copy'
set ylabel 'GB/s'
set key left top
set grid
set title 'habanalabs_ipc channel copy (TCG guest; compare against the same-routine ceiling)'
plot ${plots[*]}
GP
echo "plot-bench: wrote $OUT"
