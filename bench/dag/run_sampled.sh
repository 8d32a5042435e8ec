#!/usr/bin/env bash
# One from-scratch main job with its CPU per job: bench/dag/run_sampled.sh REF DIR [CORES]
#
# Exports REF (`git archive`: data/raw as committed) into DIR (emptied first), runs `snakemake --cores CORES all`
# (default 2) there, timed, with bench/dag/sample_cpu.py beside it (DIR/cpu.json: CPU seconds per job) and the load
# average at start and end (DIR/bench.txt). The repeats of an A/B go in a recorded order, each under
# /work/locks/quiet; DIR/.snakemake/log/*.log gives each job's start and length (bench/dag/job_timeline.py).
# Uses this checkout's .venv and blkscope-native (or $VENV, $BLKSCOPE_NATIVE: bench/env.sh).
set -euo pipefail
source "$(dirname "$0")/../env.sh"
ref=$1 d=$2 cores=${3:-2}
rm -rf "$d" && mkdir -p "$d"
git -C "$here" archive "$ref" | tar -x -C "$d"
cd "$d"
export PYTHONPATH=$d/src
echo "ref $ref cores $cores start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" > bench.txt
/usr/bin/time -f '%e %U %S' -o time.all snakemake --cores "$cores" all > all.log 2>&1 &
timer=$!
sleep 0.5
python "$here/bench/dag/sample_cpu.py" "$(pgrep -P "$timer" -f snakemake || echo "$timer")" cpu.json &
rc=0
wait "$timer" || rc=$?
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) exit $rc wall/user/sys $(cat time.all)" >> bench.txt
wait
cat bench.txt
exit "$rc"
