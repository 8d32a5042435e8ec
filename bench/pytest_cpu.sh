#!/usr/bin/env bash
# `make test`'s pytest (-q -n WORKERS -rs --strict-skips) in one checkout, with each test's CPU (bench/pytest_cpu.py,
# this script's own copy) and --durations=0. Usage: bench/pytest_cpu.sh CHECKOUT OUT [WORKERS [TEST...]]
# (TEST...: those tests only, e.g. tests/test_cassandra_root.py; default the whole suite)
# Writes OUT.log (pytest's output, then /usr/bin/time's line and the 1-min load before and after) and OUT.cpu.<worker>
# (summed by bench/pytest_cpu_sum.py OUT.cpu). Main's venv; BLKSCOPE_NATIVE defaults to main's testing build; build
# tools/parquet-check's test profile first, as make does.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "$2")
cd "$1"
source /work/main/.venv/bin/activate
export PYTHONPATH=$PWD/src:$here BLKSCOPE_NATIVE=${BLKSCOPE_NATIVE:-/work/main/native/target/testing/blkscope-native}
export BLKSCOPE_SAMPLES=${BLKSCOPE_SAMPLES:-/work/shared/samples} PYTEST_CPU_OUT=$out.cpu
rm -f "$out".cpu.*
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD)" > "$out.log"
/usr/bin/time -f "%e s wall %U user %S sys" pytest -q -n "${3:-4}" -rs --strict-skips --durations=0 -p pytest_cpu \
  -p no:cacheprovider "${@:4}" >> "$out.log" 2>&1
rc=$?
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%FT%TZ) rc=$rc" >> "$out.log"
