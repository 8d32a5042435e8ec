#!/bin/bash
# Trace-reader bench: binary ingest vs blkparse, text ingest vs a plain Python loop, peak RSS.
# Usage: bench/trace_readers/run.sh [EVENTS] [WORKDIR]   (defaults 10500000, /tmp/blkscope-bench)
set -euo pipefail
N=${1:-10500000}; W=${2:-/tmp/blkscope-bench}
here=$(cd "$(dirname "$0")" && pwd); fix=$here/../../tests/fixtures/trace/tracefs_blk_classic_pipe.txt.zst
mkdir -p $W; cd $W
one() { taskset -c 0 /usr/bin/time -f "%e s, %M KiB max RSS" "$@"; }
blkscope ingest --kind ftrace $fix -o src
python $here/make_tiled.py src/events.parquet $N tiled.parquet
rm -rf bin; blkscope export-blktrace tiled.parquet -o bin/tiled
du -cb bin/tiled.blktrace.* | tail -1
echo "== blkparse -i (text to /dev/null)"; one blkparse -i bin/tiled -o /dev/null
echo "== blkscope ingest binary"; one blkscope ingest --kind blktrace bin/tiled -o ing_bin
echo "== blkparse text of the same set (for the text path)"; blkparse -i bin/tiled -o tiled.txt >/dev/null
# tracefs-classic text of the same events: blkparse's lines without the sequence column
awk '$1 ~ /^[0-9]+,[0-9]+$/ && NF >= 7 { $3 = ""; print }' tiled.txt > tiled_ftrace.txt
ls -la tiled_ftrace.txt
echo "== blkscope ingest ftrace text"; one blkscope ingest --kind ftrace tiled_ftrace.txt -o ing_txt
echo "== plain Python line-splitting loop"; one python $here/python_loop.py tiled_ftrace.txt
python $here/compare.py tiled.txt ing_bin/events.parquet
