#!/bin/bash
# A workspace for main_job.sh / ab_main_job.sh: hard links to every file the ingest manifests list (the traced
# runs' trace/ among them), the manifests, config/, and JOB.cmd per job, the shell command the main checkout's
# Snakemake would run (`snakemake -n -p --forcerun RULE -- RULE`). WS must be on the checkout's filesystem.
# Usage: make_workspace.sh CHECKOUT WS [RULE...]   (default rules: characterise_views metadata seek)
set -euo pipefail
co=$(cd "$1" && pwd); ws=$2; shift 2
rules=("$@"); [ $# -eq 0 ] && rules=(characterise_views metadata seek)
p=$ws/data/processed
mkdir -p "$p/datasets" "$ws/logs"
cp "$co"/data/processed/datasets/ingest_*.tsv "$p/datasets/"
cp -r "$co/config" "$ws/"
# manifest paths are relative to datasets/: ../<run>/trace/events.parquet
tail -q -n +2 "$co"/data/processed/datasets/ingest_*.tsv | cut -f1 | sed 's#^\.\./##' | while read -r f; do
  mkdir -p "$p/$(dirname "$f")" && ln -f "$co/data/processed/$f" "$p/$f"
done
for r in "${rules[@]}"; do
  job=${r#characterise_}  # main_job.sh's names: views, metadata, seek
  (cd "$co" && .venv/bin/snakemake -n -p --forcerun "$r" -- "$r" 2>/dev/null) | grep "^Shell command: blkscope " \
    | sed 's/^Shell command: //' > "$ws/$job.cmd"
  echo "$ws/$job.cmd: $(wc -c < "$ws/$job.cmd") bytes"
done
