#!/bin/bash
# `blkscope reuse` exact (op all) of two checkouts A and B, interleaved, and libCacheSim's LRU at K sizes (the
# first LCS_REPS rounds, default 1), each step under measure.py and the CPU lock; the two checkouts' tables must
# be equal. Usage: ab_reuse.sh EVENTS REPS K OUTDIR SRC_A SRC_B   (SRC: a checkout's src/, run with PYTHONPATH)
# NATIVE_A, NATIVE_B: each side's blkscope-native (BLKSCOPE_NATIVE; default: whatever the environment gives).
set -euo pipefail
ev=$1; reps=$2; K=$3; o=$4; A=$5; B=$6
nat() { local v=NATIVE_$1; echo "${!v:-${BLKSCOPE_NATIVE:-}}"; }
b=$(cd "$(dirname "$0")/.." && pwd); M="python $b/scale/measure.py"; L="flock /tmp/blkscope-cpu.lock"
mkdir -p "$o"
echo "# $(date -u +%FT%TZ) $ev reps=$reps K=$K A=$A ($(nat A)) B=$B ($(nat B)); $(uptime)"
PYTHONPATH=$B BLKSCOPE_NATIVE=$(nat B) $L blkscope reuse "$ev" --streams all -o "$o/warm.parquet" --dump-pages "$o/pages.bin"
[ -e "$o/trace.oracleGeneral" ] || $L $M "libcachesim convert" python "$b/characterise/lcs_mrc.py" convert \
  "$o/pages.bin" "$o/trace.oracleGeneral"
echo -e "#step\twall_s\tuser_s\tsys_s\ttree_rss_mib\tmax_rss_mib"
for i in $(seq "$reps"); do
  for s in A B; do
    PYTHONPATH=${!s} BLKSCOPE_NATIVE=$(nat $s) $L $M "reuse exact $s" blkscope reuse "$ev" --streams all -o "$o/exact-$s.parquet" --mrc "$o/mrc-$s.parquet"
  done
  if [ "$i" -le "${LCS_REPS:-1}" ]; then
    $L $M "libcachesim LRU at $K sizes" python "$b/characterise/lcs_mrc.py" run "$o/trace.oracleGeneral" \
      "$o/mrc-B.parquet" "$o/lcs-$i.tsv" "$K"
  fi
done
python - "$o" <<'PY'
import sys, polars as pl
o = sys.argv[1]
for f in ("exact", "mrc"):
    print(f"# {f}: A and B equal:", pl.read_parquet(f"{o}/{f}-A.parquet").equals(pl.read_parquet(f"{o}/{f}-B.parquet")))
lcs = pl.read_csv(f"{o}/lcs-1.tsv", separator="\t")
print(f"# libcachesim: {lcs.height} sizes, max |theirs - ours| = {(lcs['libcachesim'] - lcs['blkscope']).abs().max():.3g}")
PY
echo "# $(date -u +%FT%TZ) after: $(uptime)"
