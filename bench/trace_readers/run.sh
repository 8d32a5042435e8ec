#!/bin/bash
# Trace-reader bench: binary ingest vs blkparse, text ingest vs a plain Python loop, peak RSS.
# Usage: bench/trace_readers/run.sh [EVENTS] [WORKDIR] [BIG]   (defaults 10500000, /tmp/blkscope-bench, 0)
# BIG=K > 0 also tiles the binary set K times (K=10: 5.4 GB) and ingests it for peak RSS.
# One core each (taskset -c 0); /usr/bin/time gives wall, user+sys CPU and peak RSS. Every timed step starts
# after `sync` (the files written just before, 1.2 GB of text, are otherwise flushed during the next step and
# bill it up to 0.4 s of sys time); the blkscope ingests run 3 times each. On a shared machine wall time
# follows the other load: compare CPU seconds (user + sys).
set -euo pipefail
N=${1:-10500000}; W=${2:-/tmp/blkscope-bench}; BIG=${3:-0}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p $W; cd $W
one() { sync; taskset -c 0 /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KiB max RSS" "$@"; }
three() { local out=$1; shift; for i in 1 2 3; do rm -rf "$out"; one "$@" -o "$out"; done; }
"$here/bench_set.sh" "$N" "$W"  # bin/tiled: the binary set
cat bin/tiled.blktrace.* > /dev/null  # warm: whoever reads a just-written file first pays ~0.4 s of sys time
echo "== blkparse -i (text to /dev/null, 2 runs)"; for i in 1 2; do one blkparse -i bin/tiled -o /dev/null; done
echo "== blkscope ingest binary (3 runs)"; three ing_bin blkscope ingest --kind blktrace bin/tiled
echo "== blkparse text of the same set (for the text path)"; blkparse -i bin/tiled -o tiled.txt >/dev/null
# tracefs-classic text of the same events: blkparse's lines without the sequence column
awk '$1 ~ /^[0-9]+,[0-9]+$/ && NF >= 7 { $3 = ""; print }' tiled.txt > tiled_ftrace.txt
ls -la tiled_ftrace.txt tiled.txt; cat tiled_ftrace.txt tiled.txt > /dev/null  # warm, as above
echo "== blkscope ingest ftrace text (3 runs)"; three ing_txt blkscope ingest --kind ftrace tiled_ftrace.txt
echo "== blkscope ingest blkparse text (3 runs)"; three ing_bptxt blkscope ingest --kind blkparse tiled.txt
echo "== plain Python line-splitting loop (3 runs)"; for i in 1 2 3; do one python $here/python_loop.py tiled_ftrace.txt; done
for d in ing_bin ing_txt ing_bptxt; do echo "$d: $(python $here/compare.py tiled.txt $d/events.parquet | tail -1)"; done
if [ "$BIG" -gt 0 ]; then
  rm -rf big; python $here/tile_binary.py bin/tiled $BIG big/tiled; du -cb big/tiled.blktrace.* | tail -1
  echo "== blkscope ingest binary, $BIG x"; one blkscope ingest --kind blktrace big/tiled -o ing_big
  rm -rf big
fi
