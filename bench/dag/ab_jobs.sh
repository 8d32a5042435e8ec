#!/bin/bash
# Some of the main job's commands, with two checkouts' src/, interleaved: every figure (`blkscope figure`, PDF, PNG
# and SVG) and `latency` over every traced run, on the tables a finished main job left in WS (its data/processed).
# Usage (under /tmp/bench-lock.sh or the CPU lock): ab_jobs.sh WS SRC_A SRC_B REPS OUT
# Order: a random order of A and B per repeat (recorded in OUT/order.txt); OUT/results.tsv: wall and CPU per run;
# then the outputs of every run are compared with the first A run's (figures: PNG bytes; latency: Parquet, CSV).
set -euo pipefail
ws=$(cd "$1" && pwd); A=$2; B=$3; reps=$4; out=$5
py=${PYTHON:-python}
mkdir -p "$out"
figures() {  # name, table, output stem: the workflow's figure rules
  cat <<'LIST'
rank-frequency figures/rank_frequency rank_frequency
iostat-compare analysis/iostat_summary iostat_compare
frequency-of-frequency figures/frequency_of_frequency frequency_of_frequency
zipf-ccdf figures/zipf_ccdf zipf_ccdf
tracing-overhead analysis/overhead tracing_overhead
trace-cost figures/trace_cost trace_cost
io-over-time figures/io_over_time io_over_time
latency-stages figures/latency latency_stages
queue-depth figures/queue_depth queue_depth
seek-distance figures/seek_distance seek_distance
miss-ratio-curve figures/miss_ratio_curve miss_ratio_curve
metadata-vs-data analysis/metadata_vs_data metadata_vs_data
io-map figures/io_map io_map
latency-windows figures/latency_windows latency_windows
request-sizes figures/request_sizes request_sizes
arrivals figures/arrivals arrivals
request-size-over-time figures/request_size_over_time request_size_over_time
miss-ratio-by-class figures/miss_ratio_by_class miss_ratio_by_class
LIST
}
run() {  # side src dir: both job families, each timed whole
  local side=$1 src=$2 d=$3; mkdir -p "$d"
  cd "$ws"
  /usr/bin/time -f "%e %U %S" -o "$d/time.figures" bash -c "$(figures | while read -r n t s; do
    echo "PYTHONPATH=$src $py -m blkscope figure $n data/processed/$t.parquet -o $d/$s --formats pdf,png,svg || exit 1;"; done)"
  /usr/bin/time -f "%e %U %S" -o "$d/time.latency" env PYTHONPATH="$src" OPENBLAS_NUM_THREADS=1 $py -m blkscope \
    latency data/processed/*/trace/events.parquet -j 2 --by-rw -o "$d/latency.parquet" --csv "$d/latency.csv" > "$d/latency.log" 2>&1
  for j in figures latency; do read -r w u s < "$d/time.$j"; printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$side" "$rep" "$j" "$w" "$u" "$s" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/results.tsv"; done
}
printf 'side\trepeat\tjobs\twall_s\tuser_s\tsys_s\tload_after\n' > "$out/results.tsv"
: > "$out/order.txt"
for rep in $(seq "$reps"); do
  for side in $(printf 'A\nB\n' | shuf); do
    echo "$side $rep" >> "$out/order.txt"
    src=$A; [ "$side" = B ] && src=$B
    run "$side" "$src" "$out/$side-$rep"
  done
done
first=$out/A-1
for d in "$out"/[AB]-*; do
  for f in "$first"/*.png; do cmp -s "$f" "$d/$(basename "$f")" || echo "differs: $d/$(basename "$f")"; done
  cmp -s "$first/latency.csv" "$d/latency.csv" || echo "differs: $d/latency.csv"
  $py -c 'import sys, polars as pl; sys.exit(not pl.read_parquet(sys.argv[1]).equals(pl.read_parquet(sys.argv[2])))' \
    "$first/latency.parquet" "$d/latency.parquet" || echo "differs: $d/latency.parquet"
done
column -t "$out/results.tsv"
