#!/bin/bash
# Trace-reader bench: binary ingest vs blkparse, text ingest vs a plain Python loop, peak RSS.
# Usage: bench/trace_readers/run.sh [EVENTS] [WORKDIR] [BIG]   (defaults 10500000, /tmp/blkscope-bench, 0)
# BIG=K > 0 also tiles the binary set K times (K=10: 5.4 GB) and ingests it for peak RSS.
# One core each (taskset -c 0); /usr/bin/time gives wall, user+sys CPU and peak RSS. On a shared machine
# wall time follows the other load: compare CPU seconds (user + sys) and run twice.
set -euo pipefail
N=${1:-10500000}; W=${2:-/tmp/blkscope-bench}; BIG=${3:-0}
here=$(cd "$(dirname "$0")" && pwd); fix=$here/../../tests/fixtures/trace/tracefs_blk_classic_pipe.txt.zst
mkdir -p $W; cd $W
one() { taskset -c 0 /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KiB max RSS" "$@"; }
blkscope ingest --kind ftrace $fix -o src
python $here/make_tiled.py src/events.parquet $N tiled.parquet
rm -rf bin; echo "== blkscope export-blktrace"; one blkscope export-blktrace tiled.parquet -o bin/tiled
du -cb bin/tiled.blktrace.* | tail -1
echo "== blkparse -i (text to /dev/null)"; one blkparse -i bin/tiled -o /dev/null
echo "== blkscope ingest binary"; one blkscope ingest --kind blktrace bin/tiled -o ing_bin
echo "== blkparse text of the same set (for the text path)"; blkparse -i bin/tiled -o tiled.txt >/dev/null
# tracefs-classic text of the same events: blkparse's lines without the sequence column
awk '$1 ~ /^[0-9]+,[0-9]+$/ && NF >= 7 { $3 = ""; print }' tiled.txt > tiled_ftrace.txt
ls -la tiled_ftrace.txt tiled.txt
echo "== blkscope ingest ftrace text"; one blkscope ingest --kind ftrace tiled_ftrace.txt -o ing_txt
echo "== blkscope ingest blkparse text"; one blkscope ingest --kind blkparse tiled.txt -o ing_bptxt
echo "== plain Python line-splitting loop"; one python $here/python_loop.py tiled_ftrace.txt
for d in ing_bin ing_txt ing_bptxt; do echo "$d: $(python $here/compare.py tiled.txt $d/events.parquet | tail -1)"; done
if [ "$BIG" -gt 0 ]; then
  rm -rf big; python $here/tile_binary.py bin/tiled $BIG big/tiled; du -cb big/tiled.blktrace.* | tail -1
  echo "== blkscope ingest binary, $BIG x"; one blkscope ingest --kind blktrace big/tiled -o ing_big
  rm -rf big
fi
