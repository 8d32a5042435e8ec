#!/usr/bin/env bash
# One imported run, then `snakemake --cores 8 all` (issue T1), before and after a change, in two steps:
#   bench/import/run.sh prepare BEFORE_REF AFTER_REF [BUILT]   (untimed; under /work/locks/cpu)
#   bench/import/run.sh time [ROUNDS]                           (timed; the whole machine: /work/locks/quiet)
# prepare: the `before` workspace is BEFORE_REF exported (`git archive`: data/raw as committed) and built whole
# (`snakemake --cores 8 all`), or a copy of BUILT, a workspace of BEFORE_REF already built (its mtimes and
# Snakemake's records kept; its .git left out); the `after` workspace is a copy of `before` with AFTER_REF's files
# laid over it, then `snakemake --cores 8 all` for what the change itself reruns. Then the run to import: a ~1.1
# M-event blktrace set, host-ext4-fio-randrw-sat-r3's tracefs text converted to binary per-CPU files (`blkscope
# ingest`, `blkscope export-blktrace`).
# time: ROUNDS rounds (default 2), each in an order drawn for it (order.txt): import one more run into each
# workspace (`blkscope import ... --workload other`, which both accept) and time `snakemake --cores 8 all`, with the
# jobs it ran and how many of the paper's outputs (paper/main.pdf, paper/generated/) and of the study's
# (data/processed/{analysis,figures}, the study's dataset manifests, the study's notebooks) changed bytes or mtime
# (bench/import/snapshot.py). Uses this checkout's .venv and blkscope-native (or $VENV, $BLKSCOPE_NATIVE);
# PYTHONPATH points at each workspace's src/. Results: $OUT/results.tsv (default OUT=/var/tmp/blkscope-importbench);
# written up in bench/RESULTS.md ("One new run in seconds").
set -euo pipefail
source "$(dirname "$0")/../env.sh"
step=$1 out=${OUT:-/var/tmp/blkscope-importbench}
mkdir -p "$out"
set_prefix=$out/set/loop0
if [ "$step" = prepare ]; then
  before=$2 after=$3 built=${4:-}
  echo "before $(git -C "$here" rev-parse --short "$before") after $(git -C "$here" rev-parse --short "$after")" \
    "built ${built:-(exported and built here)}" > "$out/refs.txt"
  rm -rf "$out/before" "$out/after"
  if [ -n "$built" ]; then
    mkdir -p "$out/before" && tar -C "$built" --exclude=./.git -cf - . | tar -C "$out/before" -xpf -
  else
    mkdir -p "$out/before" && git -C "$here" archive "$before" | tar -x -C "$out/before"
    (cd "$out/before" && PYTHONPATH=$out/before/src snakemake --cores 8 all > build.log 2>&1)
  fi
  cp -a "$out/before" "$out/after"
  git -C "$here" archive "$after" | tar -x -C "$out/after"
  (cd "$out/after" && PYTHONPATH=$out/after/src snakemake --cores 8 all > build.log 2>&1)
  if [ ! -e "$set_prefix.blktrace.0" ]; then
    PYTHONPATH=$here/src blkscope ingest --kind ftrace "$here/data/raw/host-ext4-fio-randrw-sat-r3/trace.txt.zst" \
      -o "$out/set-events"
    PYTHONPATH=$here/src blkscope export-blktrace "$out/set-events/events.parquet" -o "$set_prefix"
  fi
  exit 0
fi
rounds=${2:-2}
printf 'config\tround\trun_id\twall_s\tuser_s\tsys_s\tjobs\tpaper_changed\tstudy_changed\tload_before\n' \
  > "$out/results.tsv"
: > "$out/order.txt"
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
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$r" "$run" "$wall" "$user" "$sys" "${jobs:-0}" \
        "$(changed paper)" "$(changed study)" "$l0" >> "$out/results.tsv"
    )
  done
done
column -t -s$'\t' "$out/results.tsv"
