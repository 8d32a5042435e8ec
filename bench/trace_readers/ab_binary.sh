#!/bin/bash
# Binary blktrace ingest, two blkscope-native builds interleaved in one run: blkparse against
# `blkscope ingest --kind blktrace` with BEFORE and AFTER, each on one core (taskset -c 0) and on two
# (taskset -c 0,1). Every set in every round, the steps in a random order (the seed is printed); files in
# page cache; `sync` before each timed step. Then each set's events.parquet of BEFORE and AFTER compared byte
# for byte (the per-action counts against blkparse's: counts.sh, outside the timed hold).
# Usage: bench/trace_readers/ab_binary.sh BEFORE_EXE AFTER_EXE ROUNDS OUTDIR SET_PREFIX...
# Lines "TIME set step wall user sys" go to stdout; ab_summary.py turns them into ratios.
set -euo pipefail
before=$1; after=$2; rounds=$3; W=$4; shift 4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$W"
seed=${SEED:-$RANDOM}; echo "seed $seed; load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ)"
RANDOM=$seed
key() { local d; d=$(dirname "$1"); echo "$(basename "$(dirname "$d")")-$(basename "$d")-$(basename "$1")"; }  # asis/RUN/vda and tiled/RUN/vda apart
step() {  # set step -> one timed run
  local set=$1 s=$2 out=$W/out-$(key "$1")-$2 t
  rm -rf "$out"; sync
  case $s in
    blkparse) t=$( { taskset -c 0 /usr/bin/time -f "%e %U %S" blkparse -i "$set" -o /dev/null >/dev/null; } 2>&1 | tail -1) ;;
    *) local exe=$before cores=0
       [[ $s == after* ]] && exe=$after
       [[ $s == *2 ]] && cores=0,1
       t=$( { BLKSCOPE_NATIVE=$exe taskset -c $cores /usr/bin/time -f "%e %U %S" \
              blkscope ingest --kind blktrace "$set" -o "$out" >/dev/null; } 2>&1 | tail -1) ;;
  esac
  echo "TIME $(key "$set") $s $t"
}
for r in $(seq "$rounds"); do
  for set in "$@"; do
    cat "$set".blktrace.* > /dev/null
    for s in $(printf '%s\n' blkparse before1 after1 before2 after2 | while read -r x; do echo "$RANDOM $x"; done \
               | sort -n | cut -d' ' -f2); do
      step "$set" "$s"
    done
  done
done
for set in "$@"; do
  b=$(key "$set")
  for c in 1 2; do
    cmp -s "$W/out-$b-before$c/events.parquet" "$W/out-$b-after$c/events.parquet" \
      && echo "SAME $b $c-core events.parquet byte-identical" || echo "DIFF $b $c-core events.parquet differ"
  done
done
