#!/bin/bash
# Scale bench on the one-host SLURM cluster (issue T item 4): the split path of one large trace as SLURM jobs
# (sbatch, with dependencies), then the same analyses of the whole trace, and every table of the two compared.
#
#   split: ingest --part k/P (P jobs) -> gather-parts -> access-frequency -> zipf
#                                                    -> reuse --auto, latency, queue-depth, seek, characterise,
#                                                       metadata (each on parts.json)
#                                                    -> reuse with the exact profile and fixed-size SHARDS together
#                                                       (its summary: SHARDS' error against exact; split path only)
#   whole: after every split job (so the two never share the CPUs): ingest of the whole set, the same analyses
#          on its events.parquet; then compare_outputs.py, table by table.
# The commands and threads are the workflow's rules' (parts.smk, stats.smk, characterise.smk). Each job runs
# under measure.py (wall, CPU, peak RSS of its process tree): the cluster has no accounting, so no sacct MaxRSS.
# Input (input.sh): N x K events, ~51 bytes each, in WORKDIR/big; ~9.3 bytes per event of Parquet per path, the
# split path's deleted before the whole ingest: peak disk ~61 bytes per event (plus a 0.6 GB tile while making).
# The cluster (scripts/slurm-local.sh) is started in WORKDIR/slurm-local and stopped at the end if this started
# it; WORKDIR is deleted at the end unless KEEP=1 (then the input is reused by the next run); after a failure the
# jobs' logs stay in WORKDIR.jobs.
# Usage: bench/scale/slurm.sh [K] [WORKDIR] [P] [N]   (defaults 1 /tmp/blkscope-slurm 4 10500000; root)
set -euo pipefail
K=${1:-1}; W=$(realpath -m "${2:-/tmp/blkscope-slurm}"); P=${3:-4}; N=${4:-10500000}
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
cluster=$repo/scripts/slurm-local.sh
state=$W/slurm-local
export SLURM_CONF=$state/etc/slurm.conf
source "$here/input.sh"
# WORKDIR is deleted at the end: only a new one, or one this script made (its mark file)
[ ! -e "$W" ] || [ -e "$W/.scale-slurm-bench" ] || { echo "slurm.sh: $W exists and is not this bench's" >&2; exit 2; }
mkdir -p "$W"; touch "$W/.scale-slurm-bench"; cd "$W"

finish() {
  local rc=$?
  if [ -n "${sampler:-}" ]; then
    kill "$sampler" 2>/dev/null || true
    echo "# lowest free space on / during the run: $(sort -n "$W/diskfree" | head -1) MiB"
  fi
  if [ -n "${started:-}" ]; then "$cluster" down "$state" >&2 || true; fi
  if [ "${KEEP:-0}" != 1 ]; then
    if [ $rc -ne 0 ] && [ -d "$W/jobs" ]; then rm -rf "$W.jobs"; cp -r "$W/jobs" "$W.jobs"; fi  # the jobs' logs
    rm -rf "$W"
  fi
  echo "# $(date -u +%FT%TZ) end: load $(cut -d' ' -f1-3 /proc/loadavg); df / $(df -B1M --output=avail / | tail -1) MiB free"
  exit $rc
}
trap finish EXIT
trap 'exit 130' INT TERM

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, $((N * K)) events ($N x $K), $P parts; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# df / before: $(df -B1M --output=avail / | tail -1) MiB free"
# free space every 5 s: the run's peak disk use
while :; do df -B1M --output=avail / | tail -1; sleep 5; done > "$W/diskfree" &
sampler=$!
t=$SECONDS
make_input "$N" "$K" "$W/big"
echo "# input: $(du -cb big/tiled.blktrace.* | tail -1 | cut -f1) bytes in $(ls big/tiled.blktrace.* | wc -l) CPU files ($((SECONDS - t)) s to make)"
if ! "$cluster" status "$state" >/dev/null 2>&1; then "$cluster" up "$state" >&2; started=1; fi
rm -rf split whole jobs; mkdir -p jobs

ids=()
submit() {  # submit LABEL CPUS MEM DEPENDENCY CMD...: sbatch, the job id in $id; its line (start, measure.py) in jobs/
  local label=$1 cpus=$2 mem=$3 dep=$4; shift 4
  id=$(sbatch --parsable -J "$label" -c "$cpus" --mem="$mem" -D "$W" ${dep:+--dependency=$dep} \
    --kill-on-invalid-dep=yes -o "jobs/$label.tsv" -e "jobs/$label.err" \
    --wrap "printf '%s\t' \$(date +%s.%N); exec python $(printf '%q ' "$here/measure.py" "$label" "$@")")
  ids+=("$id")
}

# Each path's run is TAG/tiled/{trace,tables}: the same run id (tiled) in both paths' tables (run_id_of: a path's
# grandparent directory)
analyses() {  # analyses TAG EVENTS DEPENDENCY: the per-run analyses of the workflow on EVENTS, tables in TAG/tiled/tables
  local t=$1 ev=$2 dep=$3 o=$1/tiled/tables
  mkdir -p "$o"
  submit "$t.frequency" 1 2G "$dep" blkscope access-frequency "$ev" --mode cover --action C --page-kib 4 \
    --fof "$o/fof.parquet" --rank "$o/rank.parquet"
  submit "$t.zipf" 2 2G "afterok:$id" blkscope zipf "$o/fof.parquet" -j 2 --n-boot 200 --seed 0 -o "$o/zipf.parquet"
  submit "$t.reuse" 1 4G "$dep" blkscope reuse "$ev" --page-kib 4 --shards-size 8192 --auto \
    --streams all,read,write --classes all,data,meta -o "$o/reuse.parquet" --mrc "$o/mrc.parquet" \
    --wss "$o/wss.parquet" --distance "$o/distance.parquet"
  submit "$t.latency" 2 8G "$dep" blkscope latency "$ev" -j 2 --by-rw -o "$o/latency.parquet" \
    --latency-windows "$t/{run}/tables/latency_windows.parquet" \
    --latency-hist "$t/{run}/tables/latency_hist.parquet" --latency-window-s 0.1
  submit "$t.queue-depth" 1 2G "$dep" blkscope queue-depth "$ev" -o "$o/qd.parquet" --dist "$o/qd_dist.parquet" \
    --series "$o/qd_series.parquet"
  submit "$t.seek" 2 8G "$dep" blkscope seek "$ev" -j 2 --action D -o "$o/seek.parquet" --hist "$o/seek_hist.parquet"
  local views=() v
  for v in io_map throughput sizes merges processes arrivals dispersion; do views+=("--${v//_/-}" "$o/$v.parquet"); done
  submit "$t.characterise" 2 12G "$dep" blkscope characterise "$ev" "${views[@]}" -j 2
  submit "$t.metadata" 1 2G "$dep" blkscope metadata "$ev" --page-kib 4 -o "$o/metadata_hot.parquet" \
    --rank "$o/metadata_rank.parquet"
}

t0=$(date +%s.%N)
parts=()
for k in $(seq "$P"); do
  submit "split.ingest-part-$k" 1 1G "" blkscope ingest --kind blktrace --part "$k/$P" big/tiled -o "split/tiled/trace/p$k"
  parts+=("$id")
done
submit split.gather 1 1G "afterok:$(IFS=:; echo "${parts[*]}")" blkscope gather-parts \
  $(seq -f "split/tiled/trace/p%g" "$P") -o split/tiled/trace/parts.json
gather=$id
analyses split split/tiled/trace/parts.json "afterok:$gather"
mkdir -p split/exact
submit split.reuse-exact 1 4G "afterok:$gather" blkscope reuse split/tiled/trace/parts.json --page-kib 4 \
  --shards-size 8192 --streams all,read,write --classes all,data,meta -o split/exact/reuse.parquet \
  --mrc split/exact/mrc.parquet
# disk: the split path's Parquet goes once its analyses are done (its size noted first), the input once the whole
# ingest has read it (unless KEEP=1): at most the input and one path's Parquet on disk at a time
submit split.drop-parquet 1 100M "afterany:$(IFS=:; echo "${ids[*]}")" sh -c \
  'du -sb split/tiled/trace > split/parquet-bytes && rm -f split/tiled/trace/p*/events.parquet'
submit whole.ingest 1 1G "afterany:$id" blkscope ingest --kind blktrace big/tiled -o whole/tiled/trace
whole_ingest=$id
if [ "${KEEP:-0}" != 1 ]; then submit whole.drop-input 1 100M "afterany:$whole_ingest" rm -rf big; fi
analyses whole whole/tiled/trace/events.parquet "afterok:$whole_ingest"
echo "# submitted ${#ids[@]} jobs: ${ids[*]}"
until q=$(squeue -h -o %i 2>/dev/null) && [ -z "$q" ]; do sleep 2; done  # a failing squeue: try again
echo "# all jobs ended: $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)"

failed=0
python "$here/slurm_summary.py" "$t0" jobs split/tiled/trace/parts.json whole/tiled/trace/ingest.json \
  split/exact/reuse.parquet || failed=1
cat split/parquet-bytes | sed 's/^/# parquet bytes: /'
du -sb whole/tiled/trace | sed 's/^/# parquet bytes: /'
python "$here/compare_outputs.py" split/tiled whole/tiled 'tables/*.parquet' || failed=1
[ "$failed" = 0 ]
