#!/bin/bash
# The blktrace sets of the embedded dataset (data/raw/*/blktrace, decompressed) and of ../shared/samples as
# set prefixes under OUTDIR/asis, and the named ones also tiled (tile_binary.py) to about BYTES bytes under
# OUTDIR/tiled: the real sets hold 1-150 KB, where any ingest is its start-up; tiled, they are the bench
# set's size with each capture's own mix of events. Prints the prefixes made, one a line: "asis P" / "tiled P".
# Usage: bench/trace_readers/prep_sets.sh OUTDIR BYTES [RUN...]   (RUN: a data/raw run or a samples set name)
set -euo pipefail
W=$1; bytes=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd); repo=$here/../..
samples=$repo/../shared/samples/blktrace-bin
[ -d "$samples" ] || samples=/work/shared/samples/blktrace-bin
mkdir -p "$W/asis" "$W/tiled"
for d in "$repo"/data/raw/*/blktrace "$samples"/*; do
  run=$(basename "${d%/blktrace}")
  mkdir -p "$W/asis/$run"
  for f in "$d"/*.blktrace.*; do
    b=$(basename "$f" .zst)
    if [[ $f == *.zst ]]; then zstd -qdcf "$f" > "$W/asis/$run/$b"; else cp "$f" "$W/asis/$run/$b"; fi
  done
  name=$(ls "$W/asis/$run" | head -1); echo "asis $W/asis/$run/${name%.blktrace.*}"
done
for run in "$@"; do
  p=$(ls "$W/asis/$run"/*.blktrace.0); p=${p%.blktrace.0}
  size=$(cat "$p".blktrace.* | wc -c)
  k=$(( (bytes + size - 1) / size ))
  rm -rf "$W/tiled/$run"; python "$here/tile_binary.py" "$p" "$k" "$W/tiled/$run/$(basename "$p")"
  echo "tiled $W/tiled/$run/$(basename "$p")"
done
