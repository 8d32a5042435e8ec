#!/bin/bash
# Characterisation bench (issue N): the whole characterisation (reuse, metadata, every view) and the LRU miss-ratio curve of 4 KiB pages by `blkscope reuse` (exact: one pass
# gives every cache size; SHARDS fixed-size and fixed-rate) against libCacheSim's LRU (PyPI libcachesim, one
# simulation per cache size, K sizes) on the same page sequence, which `blkscope reuse --dump-pages` writes and
# lcs_mrc.py converts to libCacheSim's oracleGeneral format (timed apart). Every step under measure.py (wall,
# CPU, peak RSS of the process tree). Input: the trace-reader bench's set (the real tracefs fixture tiled to
# EVENTS events, make_tiled.py), and that set tiled TILES times more (tile_parquet.py: 10 -> the 105 M scale).
# Usage: bench/characterise/run.sh [EVENTS] [TILES] [WORKDIR] [K]   (defaults 10500000 1 /tmp/blkscope-char 20)
# EVENTS may also be an events.parquet of a real run (TILES 1): the same steps on it.
# Run it under the CPU lock: flock /tmp/blkscope-cpu.lock bench/characterise/run.sh ...
set -euo pipefail
N=${1:-10500000}; T=${2:-1}; W=${3:-/tmp/blkscope-char}; K=${4:-20}
here=$(cd "$(dirname "$0")" && pwd); tr=$here/../trace_readers
fix=$here/../../tests/fixtures/trace/tracefs_blk_classic_pipe.txt.zst
M="python $here/../scale/measure.py"
mkdir -p "$W"; cd "$W"
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, $N events x $T tiles, K=$K"
if [ -f "$N" ]; then
  ev=$(realpath "$N"); T=1; N=$(basename "$(dirname "$(dirname "$ev")")")  # <processed>/<run>/trace/events.parquet
elif [ ! -e "tiled-$N.parquet" ]; then
  blkscope ingest --kind ftrace "$fix" -o src
  python "$tr/make_tiled.py" src/events.parquet "$N" "tiled-$N.parquet"
fi
[ -f "${ev:-}" ] || ev=tiled-$N.parquet
if [ "$T" -gt 1 ]; then
  ev=tiled-$N-x$T.parquet
  [ -e "$ev" ] || python "$here/tile_parquet.py" "tiled-$N.parquet" "$T" "$ev"
fi
o=out-$N-x$T; mkdir -p "$o"
blkscope reuse "$ev" --streams all -o "$o/warm.parquet" --dump-pages "$o/pages.bin"  # the sequence; warms the cache
echo "# $(date -u +%FT%TZ) before the timed steps: $(uptime)"
echo -e "#step\twall_s\tuser_s\tsys_s\ttree_rss_mib\tmax_rss_mib"
$M "blkscope reuse exact" blkscope reuse "$ev" --streams all -o "$o/exact.parquet" --mrc "$o/mrc.parquet"
$M "blkscope reuse shards-size 8192" blkscope reuse "$ev" --streams all --no-exact --shards-size 8192 \
  -o "$o/size.parquet" --mrc "$o/size_mrc.parquet"
$M "blkscope reuse shards-rate 0.01" blkscope reuse "$ev" --streams all --no-exact --shards-rate 0.01 \
  -o "$o/rate.parquet" --mrc "$o/rate_mrc.parquet"
$M "blkscope reuse exact+shards all,read,write" blkscope reuse "$ev" --shards-size 8192 --shards-rate 0.01 \
  -o "$o/full.parquet" --mrc "$o/full_mrc.parquet" --wss "$o/wss.parquet" --distance "$o/dist.parquet"
$M "blkscope metadata" blkscope metadata "$ev" -o "$o/meta.parquet" --rank "$o/meta_rank.parquet"
$M "blkscope characterise (all views)" blkscope characterise "$ev" --io-map "$o/io_map.parquet" \
  --throughput "$o/tp.parquet" --sizes "$o/sizes.parquet" --merges "$o/merges.parquet" \
  --processes "$o/proc.parquet" --arrivals "$o/arr.parquet" --dispersion "$o/disp.parquet" \
  --latency-windows "$o/lat_win.parquet" --latency-hist "$o/lat_hist.parquet"
$M "libcachesim convert (oracleGeneral)" python "$here/lcs_mrc.py" convert "$o/pages.bin" "$o/trace.oracleGeneral"
$M "libcachesim LRU at $K sizes" python "$here/lcs_mrc.py" run "$o/trace.oracleGeneral" "$o/mrc.parquet" "$o/lcs.tsv" "$K"
echo "# accesses: $(( $(stat -c %s "$o/pages.bin") / 8 )); libcachesim vs ours (cache_pages, theirs, ours, s):"
cat "$o/lcs.tsv"
python - "$o" <<'PY'
import sys, polars as pl
o = sys.argv[1]
lcs = pl.read_csv(f"{o}/lcs.tsv", separator="\t")
print(f"# libcachesim: {lcs.height} sizes, {lcs['seconds'].sum():.1f} s; max |theirs - ours| ="
      f" {(lcs['libcachesim'] - lcs['blkscope']).abs().max():.3g}")
m = pl.read_parquet(f"{o}/mrc.parquet").filter((pl.col("op") == "all") & (pl.col("method") == "exact"))
per = lcs["seconds"].mean()
print(f"# our exact curve holds {m.height} cache sizes; libcachesim at all of them: ~{m.height * per:.0f} s"
      f" ({per:.3f} s per size, the mean of the {lcs.height} above)")
for f in ("exact", "size", "rate"):
    s = pl.read_parquet(f"{o}/{f}.parquet").filter(pl.col("op") == "all")
    print(f"# {f}: " + ", ".join(f"{k}={v}" for k, v in s.select("method", "rate", "accesses", "sampled_pages",
                                                                 "distinct_pages").row(0, named=True).items()))
PY
echo "# $(date -u +%FT%TZ) after: $(uptime)"
