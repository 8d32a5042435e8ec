#!/usr/bin/env bash
# bench/kill_resume.py one step per CPU slot (the reference run, round 0, each kill round: a few minutes each), so
# a hardware capture waiting for the whole machine waits at most one step. Usage: bench/kill_resume.sh [KILLS] [OUT]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kills=${1:-10} out=${2:-/var/tmp/blkscope-killresume}
cpu=${CPU_LOCK:-/work/locks/cpu}  # the shared machine's slot wrapper; CPU_LOCK= runs without it
while [ ! -e "$out/done" ]; do  # kill_resume.py marks it when KILLS rounds have killed the running job
  ${cpu:+"$cpu"} python "$here/bench/kill_resume.py" --kills "$kills" --steps 1 --out "$out" || status=1
  [ -e "$out/ref.json" ] || { echo "the reference run failed: $out/ref.log" >&2; exit 1; }
  sleep 5  # let a waiting capture take the machine between steps
done
column -t "$out/rounds.tsv"
exit ${status:-0}
