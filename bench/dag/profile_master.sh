#!/usr/bin/env bash
# Snakemake's own process profiled through a run: bench/dag/profile_master.sh REF DIR [SNAKEMAKE ARGS...]
#
# Exports REF (`git archive`) into DIR (emptied first; with KEEP=1 DIR is used as it is, e.g. a built tree for a
# --forcerun), runs `snakemake ARGS` there (default: --cores 2 all) under /usr/bin/time -v (DIR/time.txt: the
# whole job, children included), and beside it:
#   DIR/master.json  the master's own CPU and its reaped children's, from /proc (bench/dag/master_cpu.py)
#   DIR/cpu.json     CPU per job by command line (bench/dag/sample_cpu.py; "snakemake(main)" is the master)
#   DIR/master.raw   py-spy's collapsed stacks of the master alone, every thread, $RATE Hz (default 50),
#                    --nonblocking; summed by bench/dag/profile_summary.py
# With PYSPY=0 no py-spy (the A/B runs: CPU only). PY_SPY: the py-spy binary (a scratch venv, not the project's).
# Run it under /work/locks/cpu (or /work/locks/quiet when timing).
set -euo pipefail
source "$(dirname "$0")/../env.sh"
ref=$1 d=$2
shift 2
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--cores 2 all)
py_spy=${PY_SPY:-/var/tmp/snakeprof-venv/bin/py-spy}
if [ "${KEEP:-0}" != 1 ]; then
    rm -rf "$d" && mkdir -p "$d"
    git -C "$here" archive "$ref" | tar -x -C "$d"
fi
cd "$d"
export PYTHONPATH=$d/src
echo "ref $ref args ${args[*]} start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" > bench.txt
/usr/bin/time -v -o time.txt snakemake "${args[@]}" > all.log 2>&1 &
timer=$!
pid=
for _ in $(seq 200); do
    pid=$(pgrep -P "$timer" || true)
    [ -n "$pid" ] && break
    sleep 0.01
done
python "$here/bench/dag/master_cpu.py" "$pid" master.json &
python "$here/bench/dag/sample_cpu.py" "$pid" cpu.json &
if [ "${PYSPY:-1}" != 0 ]; then
    "$py_spy" record --pid "$pid" --rate "${RATE:-50}" --nonblocking --threads --format raw -o master.raw \
        > pyspy.log 2>&1 &
fi
rc=0
wait "$timer" || rc=$?
wait
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) exit $rc" >> bench.txt
grep -E "Elapsed|User time|System time" time.txt >> bench.txt
cat bench.txt master.json | head -20
exit "$rc"
