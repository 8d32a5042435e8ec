#!/bin/bash
# Is a slow two-core ingest the host's doing? Per iteration, each step between cpu_pair.c probes (where the host
# put the two vCPUs: ~60 ns together, ~340 ns apart): blkscope-native on CPU 1 alone; two one-core runs at once,
# one on each CPU (each core's own speed, no data shared); one two-core run (threads that hand data over).
# On 2026-11-30 the first two kept their speed in both placements and the two-core run took 2.1-2.5x as long with
# the vCPUs apart (bench/RESULTS.md, seventh session). Run it under the whole-machine lock, set in the page cache.
# OTHER=NATIVE2: each iteration then ends with a two-core run of that build too, and one more probe.
# Usage: [OTHER=NATIVE2] bench/trace_readers/placement.sh NATIVE SET_PREFIX ITERATIONS OUTDIR > LOG
# Lines: "probe P0 P1 P2 P3 cpu1 WALL pair WALL WALL two WALL [other WALL P4]" (ns; s).
set -euo pipefail
exe=$1; set=$2; n=$3; W=$4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$W"
gcc -O2 -pthread -o "$W/cpu_pair" "$here/cpu_pair.c"
TIMEFORMAT='%3R'
run() {  # CPUS NAME [NATIVE]: one timed run, its wall to $W/NAME.t
  { time taskset -c "$1" "${3:-$exe}" blktrace --out "$W/$2.parquet" --report "$W/$2.json" "$set" \
      >/dev/null 2>&1; } 2>"$W/$2.t"
}
fresh() { rm -f "$W"/*.parquet; sync; }
echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) $exe $set"
for _ in $(seq "$n"); do
  fresh; p0=$("$W/cpu_pair")
  run 1 cpu1; p1=$("$W/cpu_pair"); fresh
  run 0 a & run 1 b; wait; p2=$("$W/cpu_pair"); fresh
  run 0,1 two; p3=$("$W/cpu_pair")
  other=""
  if [ -n "${OTHER:-}" ]; then fresh; run 0,1 other "$OTHER"; other=" other $(cat "$W/other.t") $("$W/cpu_pair")"; fi
  echo "probe $p0 $p1 $p2 $p3 cpu1 $(cat "$W/cpu1.t") pair $(cat "$W/a.t") $(cat "$W/b.t") two $(cat "$W/two.t")$other"
done
