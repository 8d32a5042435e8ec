#!/bin/bash
# The two sets of the MRC bench (mrc_ab.sh), as blkscope-native's ingest writes real runs: the trace-reader
# bench's input (bench/scale/input.sh: the real tracefs fixture tiled to 10,500,000 events, a 2-CPU blktrace
# set) ingested to OUT/ing10/events.parquet, and that set tiled 10x on disk to OUT/ing105/events.parquet
# (105 M events). Kept if already there. Usage: mrc_sets.sh OUT   (PATH with the venv; under /work/locks/cpu)
set -euo pipefail
out=$1; here=$(cd "$(dirname "$0")" && pwd)
source "$here/../scale/input.sh"
for k in 1 10; do
  d=$out/ing$([ "$k" = 1 ] && echo 10 || echo 105)
  [ -e "$d/events.parquet" ] && continue
  make_input 10500000 "$k" "$out/bin-x$k"
  blkscope ingest --kind blktrace "$out/bin-x$k/tiled" -o "$d"
  rm -rf "$out/bin-x$k"
done
ls -l "$out"/ing*/events.parquet
