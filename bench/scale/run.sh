#!/bin/bash
# Scale bench (issue I): a >= 100 M-event binary blktrace set, tiled as the trace-reader bench tiles it, ingested
# and analysed (access frequency + Zipf fit, latency stages, queue depth, seeks) in two configurations:
#   1: one job at a time: the whole ingest, then the analyses one after another on events.parquet;
#   2: two parallel jobs: `ingest --part 1/2` and `2/2` at once (one CPU file each), gather-parts, then the
#      analyses two at a time on parts.json.
# Each job runs under measure.py (wall, CPU, peak RSS of its process tree). Configurations run in a random
# order (printed; or give it), the load average is printed before and after each, and the answers of the two
# configurations are compared table by table (compare_outputs.py).
# Usage: bench/scale/run.sh [EVENTS] [K] [WORKDIR] [ORDER]   (defaults 10500000 10 /tmp/blkscope-scale random)
# EVENTS: events of the tiled tracefs capture (exported to a 2-CPU set); K: that set tiled K times on disk.
set -euo pipefail
N=${1:-10500000}; K=${2:-10}; W=${3:-/tmp/blkscope-scale}; ORDER=${4:-$(shuf -e 1 2 1 2 | tr '\n' ' ')}
here=$(cd "$(dirname "$0")" && pwd); M="python $here/measure.py"
source "$here/input.sh"
mkdir -p "$W"; cd "$W"
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, order of configurations: $ORDER"
make_input "$N" "$K" "$W/big"
echo "# input: $(du -cb big/tiled.blktrace.* | tail -1 | cut -f1) bytes in $(ls big/tiled.blktrace.* | wc -l) CPU files"
sync
cat big/tiled.blktrace.* > /dev/null  # warm (as the trace-reader bench): both configurations read from the cache
echo -e "#config\trep\tjob\twall_s\tuser_s\tsys_s\ttree_rss_mib\tmax_rss_mib"

analyses() {  # $1 out dir, $2 events (events.parquet or parts.json), $3 1|2 jobs at a time, $4 label prefix
  local d=$1 ev=$2 p=$4 a=$1/analysis f=$1/run/frequency
  local freq=($M "$p frequency" blkscope access-frequency "$ev" --fof "$f/fof.parquet" --rank "$f/rank.parquet")
  local zipf=($M "$p zipf" blkscope zipf "$f/fof.parquet" --n-boot 100 -o "$a/zipf.parquet")
  local lat=($M "$p latency" blkscope latency "$ev" --by-rw -o "$a/latency.parquet")
  local qd=($M "$p queue-depth" blkscope queue-depth "$ev" -o "$a/qd.parquet" --dist "$a/qd_dist.parquet"
            --series "$a/qd_series.parquet")
  local seek=($M "$p seek" blkscope seek "$ev" -o "$a/seek.parquet" --hist "$a/seek_hist.parquet")
  if [ "$3" = 1 ]; then
    "${freq[@]}"; "${zipf[@]}"; "${lat[@]}"; "${qd[@]}"; "${seek[@]}"
  else
    ("${freq[@]}"; "${zipf[@]}") & "${lat[@]}"; wait $!
    "${qd[@]}" & "${seek[@]}"; wait $!
  fi
}

rep=0
for c in $ORDER; do
  rep=$((rep + 1)); d=$W/out$c; rm -rf "$d"; sync
  echo "# config $c (run $rep) start: load $(cut -d' ' -f1-3 /proc/loadavg)"
  t0=$(date +%s.%N)
  if [ "$c" = 1 ]; then
    $M "$c.$rep ingest" blkscope ingest --kind blktrace big/tiled -o "$d/run/trace"
    analyses "$d" "$d/run/trace/events.parquet" 1 "$c.$rep"
  else
    $M "$c.$rep ingest-part-1" blkscope ingest --kind blktrace --part 1/2 big/tiled -o "$d/run/trace_parts/p1" &
    $M "$c.$rep ingest-part-2" blkscope ingest --kind blktrace --part 2/2 big/tiled -o "$d/run/trace_parts/p2"
    wait $!
    $M "$c.$rep gather" blkscope gather-parts "$d"/run/trace_parts/p{1,2} -o "$d/run/trace_parts/parts.json"
    analyses "$d" "$d/run/trace_parts/parts.json" 2 "$c.$rep"
  fi
  t1=$(date +%s.%N)
  echo "# config $c (run $rep) total wall $(echo "$t1 - $t0" | bc) s; load after $(cut -d' ' -f1-3 /proc/loadavg)"
  du -sb "$d"/run/trace* | sed 's/^/# parquet bytes: /'
  if [ -d "$W/out1" ] && [ -d "$W/out2" ]; then python "$here/compare_outputs.py" "$W/out1" "$W/out2" || true; fi
done
