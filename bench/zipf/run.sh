#!/bin/sh
# Zipf-fit benchmarks (one core: BENCH_CPU, default 0); results go to bench/RESULTS.md ("Zipf fits").
set -eu
cd "$(dirname "$0")/../.."
exec taskset -c "${BENCH_CPU:-0}" .venv/bin/python bench/zipf/bench_fit.py "$@"
