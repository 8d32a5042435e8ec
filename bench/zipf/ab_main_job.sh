#!/bin/bash
# A/B of `blkscope zipf` on the main job's own inputs: the two command lines of plan.txt (modes cover and
# ssd-study, -j 2 --n-boot 200), run from the job's directory with -o into OUT, alternating the two source trees,
# PAIRS pairs per mode; each run holds /tmp/blkscope-cpu.lock so nothing else runs beside it (WRAP: a prefix
# for that, default `flock /tmp/blkscope-cpu.lock`).
#   bench/zipf/ab_main_job.sh JOB_DIR A_SRC B_SRC OUT [PAIRS]    (prints: mode tree pair wall user sys loadavg)
set -euo pipefail
job=$1 a=$2 b=$3 out=$4 pairs=${5:-3}
mkdir -p "$out"
cd "$job"
uptime
for mode in cover ssd-study; do
  line=$(grep "^Shell command: blkscope zipf .*zipf_$mode.parquet" plan.txt)
  files=$(sed 's/^Shell command: blkscope zipf //; s/ -j 2 .*//' <<<"$line")
  check=$(grep -o -- '--check-datasets [^ ]*' <<<"$line")
  for i in $(seq "$pairs"); do
    for tree in a b; do
      src=${!tree}
      t=$(PYTHONPATH=$src ${WRAP:-flock /tmp/blkscope-cpu.lock} /usr/bin/time -f '%e %U %S' -o /dev/stdout \
        python -m blkscope zipf $files -j 2 --n-boot 200 --seed 0 -o "$out/zipf_$mode.$tree.parquet" \
        $check 2>/dev/null | tail -1)
      echo "$mode $tree $i $t $(cut -d' ' -f1-3 /proc/loadavg)"
    done
  done
done
uptime
