#!/bin/bash
# blkscope-native builds (or one build under different environments) alternated run by run on one set, on two
# CPUs (CPUS=0: one), each run between cpu_pair.c probes (where the host had put the two vCPUs). Run it under the
# whole-machine lock. Lines "V arm wall user sys pair_before pair_after" (s; ns); arms_summary.py groups them.
# INGEST=1: each run through `blkscope ingest` (the Python from the environment), as ab_binary.sh runs the reader.
# Usage: [SEED=N] [CPUS=LIST] [INGEST=1] bench/trace_readers/arms.sh ROUNDS SET_PREFIX OUTDIR NAME=NATIVE[:VAR=VALUE]... > LOG
set -u
R=$1; SET=$2; W=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$W"
gcc -O2 -pthread -o "$W/cpu_pair" "$here/cpu_pair.c"
TIMEFORMAT='%3R %3U %3S'  # wall, user and sys
RANDOM=${SEED:-7}
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%FT%TZ) seed ${SEED:-7} cpus ${CPUS:-0,1}${INGEST:+ ingest} $*"
cat "$SET".blktrace.* >/dev/null
for _ in $(seq "$R"); do
  for a in $(printf '%s\n' "$@" | while read -r x; do echo "$RANDOM $x"; done | sort -n | cut -d' ' -f2); do
    name=${a%%=*}; rest=${a#*=}; bin=${rest%%:*}; envs=""; [[ $rest == *:* ]] && envs=${rest#*:}
    rm -f "$W/o.parquet"; sync
    p0=$("$W/cpu_pair")
    # shellcheck disable=SC2086  # envs: VAR=VALUE words for env
    if [ -n "${INGEST:-}" ]; then  # through `blkscope ingest`, as ab_binary.sh runs it
      rm -rf "$W/o"
      t=$( { time env $envs BLKSCOPE_NATIVE="$bin" taskset -c "${CPUS:-0,1}" blkscope ingest --kind blktrace "$SET" -o "$W/o" >/dev/null 2>&1; } 2>&1)
    else
      t=$( { time env $envs taskset -c "${CPUS:-0,1}" "$bin" blktrace --out "$W/o.parquet" --report "$W/o.json" "$SET" >/dev/null 2>&1; } 2>&1)
    fi
    echo "V $name $t $p0 $("$W/cpu_pair")"
  done
done
