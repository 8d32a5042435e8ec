#!/usr/bin/env bash
# `make test`'s pytest in one checkout, timed, with --durations and a -v log whose lines carry seconds since start
# (which worker ran what, when). Usage, as root on a quiet machine: bench/pytest_time.sh CHECKOUT WORKERS LOG
# (main's venv; BLKSCOPE_NATIVE defaults to main's release build; build tools/parquet-check first, as make does).
set -u
cd "$1"
source /work/main/.venv/bin/activate
export PYTHONPATH=$PWD/src BLKSCOPE_NATIVE=${BLKSCOPE_NATIVE:-/work/main/native/target/release/blkscope-native}
export BLKSCOPE_SAMPLES=${BLKSCOPE_SAMPLES:-/work/shared/samples}
start=$(date +%s)
/usr/bin/time -f "%e s wall %U user %S sys" pytest -v -n "$2" -rs --strict-skips --durations=100 -p no:cacheprovider 2>&1 \
  | while IFS= read -r l; do echo "$(( $(date +%s) - start )) $l"; done > "$3"
echo "rc=${PIPESTATUS[0]}" >> "$3"
