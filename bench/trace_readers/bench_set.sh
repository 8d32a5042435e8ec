#!/bin/bash
# The benchmark's binary blktrace set: the real tracefs capture of the fixtures, ingested, tiled to N events
# (make_tiled.py) and exported as a 2-CPU v7 set WORKDIR/bin/tiled.blktrace.{0,1} (536 MB at 10.5 M events).
# Usage: bench/trace_readers/bench_set.sh [EVENTS] [WORKDIR]   (defaults 10500000, /tmp/blkscope-bench;
# run in the venv, or with its bin on PATH). run.sh makes it first; ab_binary.sh takes WORKDIR/bin/tiled.
set -euo pipefail
N=${1:-10500000}; W=${2:-/tmp/blkscope-bench}
here=$(cd "$(dirname "$0")" && pwd); fix=$here/../../tests/fixtures/trace/tracefs_blk_classic_pipe.txt.zst
mkdir -p "$W"; cd "$W"
rm -rf src; blkscope ingest --kind ftrace "$fix" -o src
python "$here/make_tiled.py" src/events.parquet "$N" tiled.parquet
rm -rf bin; echo "== blkscope export-blktrace"
sync; taskset -c 0 /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KiB max RSS" \
  blkscope export-blktrace tiled.parquet -o bin/tiled
du -cb bin/tiled.blktrace.* | tail -1
