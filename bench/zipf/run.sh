#!/bin/sh
# Zipf-fit benchmarks; results go to bench/RESULTS.md ("Zipf fits") by hand with the date and machine.
set -eu
cd "$(dirname "$0")/../.."
exec taskset -c 0 .venv/bin/python bench/zipf/bench_fit.py "$@"
