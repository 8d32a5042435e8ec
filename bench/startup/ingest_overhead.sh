#!/bin/bash
# What `blkscope ingest --kind blktrace SET` costs around its native program, alternated run by run (issue 43 item 2):
#   py   the whole command; nat  blkscope-native alone on the same files (BLKSCOPE_NATIVE, else main's release build)
#   stub the whole command with a stand-in program that writes an empty table and a zero-row report: Python alone
#   pass `python -c pass`: the interpreter alone
# (ingest_start.py compares two trees' start to the program instead.) Lines "arm wall" (s); the medians at the
# end. Run under /work/locks/quiet, with the venv on PATH and PYTHONPATH.
# Usage: [CORES=0,1] [N=15] bench/startup/ingest_overhead.sh SET_PREFIX WORKDIR
set -euo pipefail
S=$1; W=$2; N=${N:-15}; C=${CORES:-0,1}
here=$(cd "$(dirname "$0")" && pwd)
nat=${BLKSCOPE_NATIVE:-$here/../../native/target/release/blkscope-native}
mkdir -p "$W"
cat > "$W/stub.c" <<'C'
#include <stdio.h>
#include <string.h>
int main(int c, char **v) {  /* --report: {"rows":{"events":0}}; --out: an empty file */
  for (int i = 1; i + 1 < c; i++) {
    if (!strcmp(v[i], "--report")) { FILE *f = fopen(v[i + 1], "w"); fputs("{\"rows\":{\"events\":0}}", f); fclose(f); }
    if (!strcmp(v[i], "--out")) fclose(fopen(v[i + 1], "w"));
  }
  return 0;
}
C
gcc -O2 -o "$W/stub" "$W/stub.c"
TIMEFORMAT='%3R'
cat "$S".blktrace.* > /dev/null
for _ in $(seq "$N"); do
  for a in $(printf 'py\nnat\nstub\npass\n' | shuf); do
    rm -rf "$W/o"; sync
    case $a in
      py) cmd=(env BLKSCOPE_NATIVE="$nat" blkscope ingest --kind blktrace "$S" -o "$W/o") ;;
      stub) cmd=(env BLKSCOPE_NATIVE="$W/stub" blkscope ingest --kind blktrace "$S" -o "$W/o") ;;
      nat) mkdir -p "$W/o"; cmd=("$nat" blktrace --out "$W/o/events.parquet" --report "$W/o/r.json" "$S") ;;
      pass) cmd=(python -c pass) ;;
    esac
    echo "$a $( { time taskset -c "$C" "${cmd[@]}" >/dev/null 2>&1; } 2>&1)"
  done
done | tee "$W/runs.log"
for a in py nat stub pass; do
  grep "^$a " "$W/runs.log" | sort -k2n | awk -v a=$a '{w[NR]=$2} END {print a, "median", w[int((NR+1)/2)], "s of", NR}'
done
