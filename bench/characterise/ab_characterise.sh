#!/bin/bash
# `blkscope characterise` (every view) of two checkouts A and B interleaved, REPS times each, then `metadata` and
# `reuse --auto` of B; each step under measure.py; the views of A and B must be equal. Run it under the CPU lock.
# Usage: ab_characterise.sh EVENTS REPS OUTDIR SRC_A SRC_B   (SRC: a checkout's src/, run with PYTHONPATH)
set -euo pipefail
ev=$1; reps=$2; o=$3; A=$4; B=$5
M="python $(cd "$(dirname "$0")/.." && pwd)/scale/measure.py"
VIEWS=(io_map throughput sizes merges processes arrivals dispersion latency_windows latency_hist)
mkdir -p "$o"
echo "# $(date -u +%FT%TZ) $ev reps=$reps A=$A B=$B; $(uptime)"
echo -e "#step\twall_s\tuser_s\tsys_s\ttree_rss_mib\tmax_rss_mib"
for i in $(seq "$reps"); do
  for s in A B; do
    args=(); for v in "${VIEWS[@]}"; do args+=("--${v//_/-}" "$o/$v-$s.parquet"); done
    PYTHONPATH=${!s} $M "characterise $s" blkscope characterise "$ev" "${args[@]}"
  done
done
PYTHONPATH=$B $M "metadata B" blkscope metadata "$ev" -o "$o/meta.parquet" --rank "$o/meta_rank.parquet"
PYTHONPATH=$B $M "reuse --auto B" blkscope reuse "$ev" --auto -o "$o/auto.parquet" --mrc "$o/auto_mrc.parquet"
python - "$o" "${VIEWS[@]}" <<'PY'
import sys, polars as pl
o, views = sys.argv[1], sys.argv[2:]
for v in views:
    print(f"# {v}: A and B equal:", pl.read_parquet(f"{o}/{v}-A.parquet").equals(pl.read_parquet(f"{o}/{v}-B.parquet")))
a = pl.read_parquet(f"{o}/auto.parquet")
print(a.select(c for c in ("op", "class", "method", "of_record", "accesses", "exact_max_accesses") if c in a.columns))
PY
echo "# $(date -u +%FT%TZ) after: $(uptime)"
