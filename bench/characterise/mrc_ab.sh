#!/bin/bash
# The LRU miss-ratio curve of one events file three ways, interleaved in a random order (its seed printed):
#   A  before, main's path: `blkscope reuse EVENTS --streams all -o ... --mrc ...` (SRC_A's Python, NATIVE_A):
#      Python's start and imports, the program reading the Parquet and the pass, the tables written by polars;
#   B  after, the program alone: `blkscope-native reuse --exact --events EVENTS --mrc ...` (NATIVE_B): its
#      start, reading the Parquet, the pass, the same MRC table written (native/src/reuse/mrc.rs);
#   L  libCacheSim's LRU at K of the curve's cache sizes (lcs_mrc.py run: one process_trace each, reading the
#      oracleGeneral trace of the same page sequence, which is prepared before the timed steps).
# Each step is one process tree under measure.py (wall). lcs_mrc.py also records its per-size seconds (reader
# and process_trace), whose sum is L without Python's start, its imports and the read of our table: L's strict
# span. Checks: A's and B's tables equal in every round, libCacheSim's K miss ratios against B's.
# Usage: mrc_ab.sh EVENTS REPS K OUT SRC_A   (PATH with the venv; NATIVE_A, NATIVE_B: the two programs; SEED:
# the order's seed, default random; REPS 0: only the untimed preparation). The timed run takes the machine:
#   /work/locks/quiet bench/characterise/mrc_ab.sh ...
set -euo pipefail
ev=$1; reps=$2; K=$3; o=$4; A=$5
b=$(cd "$(dirname "$0")/.." && pwd); M="python $b/scale/measure.py"
B_CMD=("$NATIVE_B" reuse --page-sectors 8 --mode cover --window 0 --exact --stream all/all:15 --events "$ev" --action C)
mkdir -p "$o"
if [ ! -e "$o/trace.oracleGeneral" ]; then  # untimed: the page sequence for libCacheSim, the sizes it runs at
  "${B_CMD[@]}" --mrc "$o/mrc-ref.parquet" --dump-pages "$o/pages.bin"
  python "$b/characterise/lcs_mrc.py" convert "$o/pages.bin" "$o/trace.oracleGeneral"
  rm "$o/pages.bin"
fi
[ "$reps" -gt 0 ] || exit 0
# untimed: the events file read once, so that no step pays a cold page cache (the first timed step did, 2026-11-29)
cat "$ev" > /dev/null
seed=${SEED:-$RANDOM}
rev() { git -C "$1" log -1 --format=%h 2>/dev/null || echo "?"; }
echo "# $(date -u +%FT%TZ) $ev reps=$reps K=$K seed=$seed"
echo "# A: $A at $(rev "$A") with $NATIVE_A; B: $NATIVE_B (its checkout at $(rev "$(dirname "$NATIVE_B")"))"
echo "# $(nproc) CPUs; $(uptime)"
echo -e "#step\twall_s\tuser_s\tsys_s\ttree_rss_mib\tmax_rss_mib"
python -c "import random, sys; r = random.Random(int(sys.argv[1])); [print(*r.sample('ABL', 3)) for _ in range(int(sys.argv[2]))]" \
  "$seed" "$reps" > "$o/order.txt"
rm -f "$o/times.tsv"
i=0
while read -r -a order; do
  i=$((i + 1)); echo "# round $i: ${order[*]}"
  for s in "${order[@]}"; do
    case $s in
      A) PYTHONPATH=$A BLKSCOPE_NATIVE=$NATIVE_A $M "A main blkscope reuse $i" blkscope reuse "$ev" --streams all \
           -o "$o/exact-A.parquet" --mrc "$o/mrc-A-$i.parquet" | tee -a "$o/times.tsv" ;;
      B) $M "B blkscope-native reuse --mrc $i" "${B_CMD[@]}" --mrc "$o/mrc-B-$i.parquet" | tee -a "$o/times.tsv" ;;
      L) $M "L libcachesim LRU at $K sizes $i" python "$b/characterise/lcs_mrc.py" run "$o/trace.oracleGeneral" \
           "$o/mrc-ref.parquet" "$o/lcs-$i.tsv" "$K" | tee -a "$o/times.tsv" ;;
    esac
  done
done < "$o/order.txt"
echo "# $(date -u +%FT%TZ) after: $(uptime)"
python "$b/characterise/mrc_ab_check.py" "$o"
