#!/usr/bin/env bash
# tests/test_workflow_e2e.py of one checkout, timed: bench/e2efast/e2e_ab.sh CHECKOUT TAG (e.g. an export of main,
# `git archive <commit> | tar -x -C DIR`, and this worktree, started together so both see the same load). Under
# /work/locks/cpu; /usr/bin/time counts pytest and every process it reaped (the miniature's Snakemake and jobs);
# bench/pytest_cpu.py gives each test's CPU in $OUT/e2e-TAG.cpu.* (the fixture's on the first test).
set -uo pipefail
dir=$1 tag=$2 out=${OUT:-/var/tmp/e2efast} here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$dir"
export PYTHONPATH=$dir/src:$here/bench PYTEST_CPU_OUT=$out/e2e-$tag.cpu
echo "$tag $dir start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/e2e_ab.txt"
/work/locks/cpu /usr/bin/time -f '%e %U %S' -o "$out/e2e-$tag.time" \
  pytest -q -p no:cacheprovider -p pytest_cpu -n 2 tests/test_workflow_e2e.py > "$out/e2e-$tag.log" 2>&1
rc=$?
echo "$tag $dir end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) rc=$rc wall/user/sys $(cat "$out/e2e-$tag.time")" \
  >> "$out/e2e_ab.txt"
