#!/usr/bin/env bash
# `snakemake --lint`, failing on every lint except the conda/container note: the project
# pins its software in .venv (requirements.lock) and envs/ instead of per-rule environments.
set -uo pipefail
out=$(snakemake --lint 2>&1)
echo "$out" | grep -E '^(Lints for|\s+\* )' | grep -vE 'Specify a conda environment or container' \
  | grep -E '^\s+\* ' >/dev/null && { echo "$out"; echo "snakemake --lint: lints beyond the conda note" >&2; exit 1; }
echo "$out" | grep -q "Traceback\|Error" && { echo "$out"; exit 1; }
echo "snakemake --lint: only the conda/container note"
