#!/bin/bash
# Parquet writer bench: our writer (native/src/parquet.rs) against arrow-rs's ArrowWriter, end to end
# (trace -> events.parquet) on the 10.5 M-event set of bench/trace_readers, then the cross-reader check of
# the files (DuckDB, arrow-rs, polars, footer: tools/parquet-check/crosscheck.py).
# Usage: bench/parquet_writer/run.sh [EVENTS] [WORKDIR] [REPEATS]   (defaults 10500000, /tmp/blkscope-pqbench, 5)
# Run with the venv active (SETUP_ONLY=1: build the set and stop). Builds the set, then timing.py times every
# configuration REPEATS times in one shuffled order (recorded), one core each (taskset -c 0).
set -euo pipefail
N=${1:-10500000}; W=${2:-/tmp/blkscope-pqbench}; R=${3:-5}; SETUP_ONLY=${SETUP_ONLY:-0}
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
fix=$repo/tests/fixtures/trace/tracefs_blk_classic_pipe.txt.zst
make -s -C "$repo" native parquet-check
mkdir -p "$W/tmp"; cd "$W"
export TMPDIR=$W/tmp  # the cross-check's Arrow IPC copy of 10.5 M rows (~1 GB) goes here, not to /tmp
if [ ! -e bin/tiled.blktrace.0 ] || [ ! -e tiled_ftrace.txt ]; then
  # the set of bench/trace_readers/run.sh: a real tracefs capture tiled to N events, exported to blktrace
  # binary (2 CPUs), and blkparse's text of it without the sequence column (tracefs classic layout)
  rm -rf src bin; blkscope ingest --kind ftrace "$fix" -o src
  python "$repo/bench/trace_readers/make_tiled.py" src/events.parquet "$N" tiled.parquet
  blkscope export-blktrace tiled.parquet -o bin/tiled
  blkparse -i bin/tiled -o tiled.txt >/dev/null
  awk '$1 ~ /^[0-9]+,[0-9]+$/ && NF >= 7 { $3 = ""; print }' tiled.txt > tiled_ftrace.txt
  rm -f tiled.txt
fi
du -cb bin/tiled.blktrace.* | tail -1; ls -l tiled_ftrace.txt
[ "$SETUP_ONLY" = 1 ] && exit 0  # the set only (SETUP_ONLY=1), e.g. before a quiet moment for the timing
cat bin/tiled.blktrace.* tiled_ftrace.txt > /dev/null  # in page cache before the timed runs
python "$here/timing.py" --repeats "$R" --out "$W/timing.tsv" \
  --native "$repo/native/target/release/blkscope-native" \
  --check "$repo/tools/parquet-check/target/release/parquet-check" \
  blktrace="$(ls bin/tiled.blktrace.* | tr '\n' ' ')" ftrace=tiled_ftrace.txt
# the files the timed runs wrote: ours read by DuckDB and arrow-rs; arrow-rs's holds the same table
python "$repo/tools/parquet-check/crosscheck.py" --checker "$repo/tools/parquet-check/target/release/parquet-check" \
  out/native-blktrace.parquet out/native-ftrace.parquet
python - <<'PY'
import polars as pl
for k in ("blktrace", "ftrace"):
    a, b = pl.read_parquet(f"out/native-{k}.parquet"), pl.read_parquet(f"out/arrow-{k}.parquet")
    assert a.equals(b), k
    print(f"{k}: arrow-rs's file holds the same {a.height} rows as ours")
PY
