#!/bin/bash
# One per-trace job of the main job (`characterise_views`, `metadata`, ...) on its real inputs, with a checkout's
# src/, its tables under <run>/char-TAG/ and analysis/char-TAG/ (not the workflow's), timed by measure.py.
# WS: a copy of the inputs (data/processed/<run>/... and datasets/ingest_*.tsv, hard links are fine) and JOB.cmd,
# the job's shell command as `snakemake -n -p --forcerun JOB -- JOB` prints it in the main checkout.
# Usage: main_job.sh WS SRC TAG JOB   (then compare_tables.py WS TAG_A TAG_B)
set -euo pipefail
ws=$1; src=$2; tag=$3; job=$4
M="$(cd "$(dirname "$0")/.." && pwd)/scale/measure.py"
py=${PYTHON:-python}
script=$ws/logs/$job.$tag.sh
mkdir -p "$ws/logs" "$ws/data/processed/analysis/char-$tag"
sed -e "s#> logs/[a-z_]*/\([a-z_.-]*\)\.log#> logs/\1.$tag.log#" -e "s#datasets/\([a-z_]*\)\.tsv --dataset-files#datasets/\1.$tag.tsv --dataset-files#" \
      -e "s#/characterise/#/char-$tag/#g" -e "s#/analysis/\([a-z_]*\)\.\(parquet\|csv\)#/analysis/char-$tag/\1.\2#g" -e "s#^blkscope #$py -m blkscope #" "$ws/$job.cmd" > "$script"
cd "$ws" && PYTHONPATH=$src $py "$M" "$job $tag" bash "$script"  # one argument of it would pass the 128 KiB limit
