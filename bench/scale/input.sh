# Sourced by the scale benches (run.sh, slurm.sh): make_input N K DIR writes DIR/tiled.blktrace.{0,1}, the
# trace-reader bench's input: the real tracefs capture tests/fixtures/trace/tracefs_blk_classic_pipe.txt.zst
# ingested, tiled to N events (make_tiled.py), exported as a 2-CPU blktrace set, and that set tiled K times on
# disk (tile_binary.py): N x K events, ~51 bytes each. Kept if already there.
make_input() {
  local n=$1 k=$2 dir=$3 tr fix tmp
  [ -e "$dir/tiled.blktrace.1" ] && return 0
  tr=$(cd "$(dirname "${BASH_SOURCE[0]}")/../trace_readers" && pwd)
  fix=$tr/../../tests/fixtures/trace/tracefs_blk_classic_pipe.txt.zst
  mkdir -p "$(dirname "$dir")"
  tmp=$(mktemp -d "$(dirname "$dir")/input.XXXXXX")
  blkscope ingest --kind ftrace "$fix" -o "$tmp/src"
  python "$tr/make_tiled.py" "$tmp/src/events.parquet" "$n" "$tmp/tiled.parquet"
  blkscope export-blktrace "$tmp/tiled.parquet" -o "$tmp/bin/tiled"
  python "$tr/tile_binary.py" "$tmp/bin/tiled" "$k" "$tmp/big/tiled"
  mv "$tmp/big" "$dir"
  rm -rf "$tmp"
}
