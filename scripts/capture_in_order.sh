#!/usr/bin/env bash
# Capture the runs of an order file (scripts/capture_order.py) one after the other, each exactly as the
# Snakemake rule capture_run does (same command, same log path), skipping runs already captured. Run as root.
# Usage: scripts/capture_in_order.sh ORDER_FILE   (Cassandra runs need $BLKSCOPE_CASSANDRA_SOURCE or _STRESS)
set -euo pipefail
order=$1
workdir=${BLKSCOPE_WORKDIR:-/var/tmp/blkscope}
raw=${BLKSCOPE_RAW:-data/raw}     # where run directories go
logs=${BLKSCOPE_LOGS:-logs/experiments}
mkdir -p "$logs"
# (the loop reads from a process substitution, not a pipe: it runs in this shell, so stopping this shell's PID
# stops the loop; the capture in flight finishes on its own)
while read -r run; do
  [ -n "$run" ] || continue
  if [ -f "$raw/$run/run.yaml" ]; then echo "$run: captured already"; continue; fi
  echo "$(date -u +%H:%M:%S) $run (loadavg $(cut -d' ' -f1-3 /proc/loadavg))"
  blkscope capture --runs config/runs.tsv --run-id "$run" --config none --workdir "$workdir" \
    -o "$raw/$run" < /dev/null > "$logs/$run.log" 2>&1 || { echo "$run: FAILED ($logs/$run.log)"; exit 1; }
done < <(grep -v '^#' "$order")
