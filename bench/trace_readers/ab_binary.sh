#!/bin/bash
# Binary blktrace ingest, two arms interleaved in one run: blkparse against `blkscope ingest --kind blktrace`
# with BEFORE and AFTER, each on one core (taskset -c 0) and on two (taskset -c 0,1). An arm is a blkscope-native
# build (the Python from the environment) or a tree: its src/ on PYTHONPATH and its native/target/release build,
# so a change to the Python around the reader is timed too. Every set in every round, the steps in a random
# order (the seed is printed); before each set's round its files are put in the page cache as a read from disk
# leaves them (page_cache.py; CACHE=asis: only read, whatever state they are in); `sync` before each timed
# step. Then each set's events.parquet of BEFORE and AFTER compared byte for byte (the per-action counts against
# blkparse's: counts.sh, outside the timed hold). Start with a small page cache (`sync; echo 1 >
# /proc/sys/vm/drop_caches`): each set leaves the cache once timed.
# Usage: [CACHE=asis] bench/trace_readers/ab_binary.sh BEFORE AFTER ROUNDS OUTDIR SET_PREFIX...
# Lines "TIME set step wall user sys pair_before pair_after" go to stdout (pair: cpu_pair.c's round trip between
# CPUs 0 and 1 just before and after the step, in ns: where the host had put the two vCPUs); ab_summary.py turns
# them into ratios.
set -euo pipefail
before=$1; after=$2; rounds=$3; W=$4; shift 4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$W"
gcc -O2 -pthread -o "$W/cpu_pair" "$here/cpu_pair.c"
cache=${CACHE:-fresh}
TIMEFORMAT='%3R %3U %3S'  # bash's `time`: wall, user and sys in ms (GNU time's %e has 10 ms steps: 5 % of a run)
arm() {  # BEFORE or AFTER -> the environment its ingest runs with
  if [ -d "$1" ]; then echo "PYTHONPATH=$(cd "$1" && pwd)/src BLKSCOPE_NATIVE=$(cd "$1" && pwd)/native/target/release/blkscope-native"
  else echo "BLKSCOPE_NATIVE=$1"; fi
}
env_before=$(arm "$before"); env_after=$(arm "$after")
seed=${SEED:-$RANDOM}
echo "seed $seed; load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%FT%TZ); cache $cache; before $env_before; after $env_after"
RANDOM=$seed
for e in "$env_before" "$env_after"; do  # interpreter and modules cached, and bytecode written (PYTHONDONTWRITEBYTECODE)
  env $e blkscope ingest --help >/dev/null
  env $e python -m compileall -q "$(env $e python -c 'import blkscope, os; print(os.path.dirname(blkscope.__file__))')"
done
key() { local d; d=$(dirname "$1"); echo "$(basename "$(dirname "$d")")-$(basename "$d")-$(basename "$1")"; }  # asis/RUN/vda and tiled/RUN/vda apart
step() {  # set step -> one timed run
  local set=$1 s=$2 out=$W/out-$(key "$1")-$2 t
  rm -rf "$out"; sync
  local p0; p0=$("$W/cpu_pair")
  case $s in
    blkparse) t=$( { time taskset -c 0 blkparse -i "$set" -o /dev/null >/dev/null 2>>"$W/stderr.log"; } 2>&1) ;;
    *) local e=$env_before cores=0
       [[ $s == after* ]] && e=$env_after
       [[ $s == *2 ]] && cores=0,1
       # shellcheck disable=SC2086  # $e: NAME=VALUE words for env
       t=$( { time env $e taskset -c $cores blkscope ingest --kind blktrace "$set" -o "$out" \
                >/dev/null 2>>"$W/stderr.log"; } 2>&1) ;;
  esac
  echo "TIME $(key "$set") $s $t $p0 $("$W/cpu_pair")"
}
for r in $(seq "$rounds"); do
  for set in "$@"; do
    if [ "$cache" = asis ]; then cat "$set".blktrace.* > /dev/null; else python "$here/page_cache.py" "$set".blktrace.*; fi
    for s in $(printf '%s\n' blkparse before1 after1 before2 after2 | while read -r x; do echo "$RANDOM $x"; done \
               | sort -n | cut -d' ' -f2); do
      step "$set" "$s"
    done
    # out of the cache once timed: 31 sets of 536 MB and their outputs would fill it, and later runs would
    # reclaim pages as they allocate (CACHE=asis keeps the set: read from disk again, its state would change)
    drop=("$W"/out-"$(key "$set")"-*/events.parquet); [ "$cache" = asis ] || drop+=("$set".blktrace.*)
    python "$here/page_cache.py" --drop "${drop[@]}"
  done
done
for set in "$@"; do
  b=$(key "$set")
  for c in 1 2; do
    cmp -s "$W/out-$b-before$c/events.parquet" "$W/out-$b-after$c/events.parquet" \
      && echo "SAME $b $c-core events.parquet byte-identical" || echo "DIFF $b $c-core events.parquet differ"
  done
done
