#!/usr/bin/env bash
# One imported run, then `snakemake --cores 8 all` (issue T1): bench/import/run.sh BEFORE_REF AFTER_REF [ROUNDS]
#
# For each configuration: export the commit into a fresh directory (`git archive`: data/raw as committed) and build
# it whole (`snakemake --cores 8 all`, untimed). Then ROUNDS rounds, in an order drawn per round (order.txt): each
# imports one more traced run into each workspace (`blkscope import ... --workload other`, which both accept) and
# times `snakemake --cores 8 all`, with the jobs it ran and how many of the paper's outputs (paper/main.pdf,
# paper/generated/) and of the study's (data/processed/{analysis,figures}, the study's dataset manifests, the
# study's notebooks) changed bytes or mtime (bench/import/snapshot.py). The run: a ~1.1 M-event blktrace set,
# host-ext4-fio-randrw-sat-r3's tracefs text converted to binary per-CPU files (`blkscope ingest` then `blkscope
# export-blktrace`), made once. Uses this checkout's .venv and blkscope-native (or $VENV, $BLKSCOPE_NATIVE);
# PYTHONPATH points at each export's src/. Take the whole machine: `/work/locks/quiet bench/import/run.sh ...`.
# Results: $OUT/results.tsv (default OUT=/var/tmp/blkscope-importbench); written up in bench/RESULTS.md ("One
# new run").
set -euo pipefail
source "$(dirname "$0")/../env.sh"
before=$1 after=$2 rounds=${3:-2} out=${OUT:-/var/tmp/blkscope-importbench}
mkdir -p "$out"
set_prefix=$out/set/loop0
if [ ! -e "$set_prefix.blktrace.0" ]; then
  PYTHONPATH=$here/src blkscope ingest --kind ftrace "$here/data/raw/host-ext4-fio-randrw-sat-r3/trace.txt.zst" \
    -o "$out/set-events"
  PYTHONPATH=$here/src blkscope export-blktrace "$out/set-events/events.parquet" -o "$set_prefix"
fi
printf 'config\tcommit\tround\trun_id\twall_s\tuser_s\tsys_s\tjobs\tpaper_changed\tstudy_changed\tload_before\n' \
  > "$out/results.tsv"
: > "$out/order.txt"
for name in before after; do
  ref=${!name}
  d=$out/$name
  rm -rf "$d" && mkdir -p "$d"
  git -C "$here" archive "$ref" | tar -x -C "$d"
  (cd "$d" && PYTHONPATH=$d/src snakemake --cores 8 all > build.log 2>&1)
done
for r in $(seq "$rounds"); do
  for name in $(printf 'before\nafter\n' | shuf); do
    echo "$r $name" >> "$out/order.txt"
    d=$out/$name run=bench-import-r$r
    (
      cd "$d"
      export PYTHONPATH=$d/src
      python "$here/bench/import/snapshot.py" . > "snap-$r.before"
      blkscope import "$run" --filesystem ext4 --workload other --job randrw-sat --testbed external \
        --origin "host-ext4-fio-randrw-sat-r3 as binary blktrace" --trace "$set_prefix".blktrace.* > "import-$r.log"
      l0=$(cut -d' ' -f1 /proc/loadavg)
      /usr/bin/time -f '%e %U %S' -o "time-$r" snakemake --cores 8 all > "all-$r.log" 2>&1
      python "$here/bench/import/snapshot.py" . > "snap-$r.after"
      read -r wall user sys < "time-$r"
      jobs=$({ grep -Eo '^[0-9]+ of [0-9]+ steps' "all-$r.log" || true; } | tail -1 | cut -d' ' -f3)
      changed() { diff <(grep "^$1	" "snap-$r.before") <(grep "^$1	" "snap-$r.after") | grep -c '^>' || true; }
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$(git -C "$here" rev-parse --short "${!name}")" \
        "$r" "$run" "$wall" "$user" "$sys" "${jobs:-0}" "$(changed paper)" "$(changed study)" "$l0" >> "$out/results.tsv"
    )
  done
done
column -t -s$'\t' "$out/results.tsv"
