#!/bin/bash
# Per-action counts and D sectors of ab_binary.sh's AFTER tables (2 cores) against blkparse's text of each set.
# Usage: bench/trace_readers/counts.sh OUTDIR SET_PREFIX...
set -euo pipefail
key() { local d; d=$(dirname "$1"); echo "$(basename "$(dirname "$d")")-$(basename "$d")-$(basename "$1")"; }  # asis/RUN/vda and tiled/RUN/vda apart
W=$1; shift; here=$(cd "$(dirname "$0")" && pwd)
for set in "$@"; do
  b=$(key "$set")
  blkparse -i "$set" -o "$W/$b.txt" >/dev/null
  echo "COUNTS $b $(python "$here/compare.py" "$W/$b.txt" "$W/out-$b-after2/events.parquet" | tail -1)"
  rm -f "$W/$b.txt"
done
