#!/usr/bin/env bash
# CPU-s of the main job's two `blkscope zipf` commands (modes cover and ssd-study, as in its Snakemake log), with
# two source trees, RUNS times each, in a random order drawn by `shuf` from a fixed seed (printed); each run holds
# a slot of /work/locks/cpu and records the 1-min load at its start. Output: one TSV row per run.
#   bench/zipf/cpu_ab.sh JOB_DIR A_SRC B_SRC OUT [RUNS] > results.tsv
# JOB_DIR: a built tree (read only; its .snakemake/log holds the commands), OUT: where the tables go (A.cover.parquet ...)
set -euo pipefail
job=$1 a=$2 b=$3 out=$4 runs=${5:-3}
mkdir -p "$out"
for m in cover ssd-study; do
  grep -ho "blkscope zipf data.*fof\.$m\..*" "$job"/.snakemake/log/*.log | head -1 | sed 's/ > .*//' > "$out/cmd.$m"
done
order=$(for r in $(seq "$runs"); do for t in A B; do for m in cover ssd-study; do echo "$t $m"; done; done; done |
  shuf --random-source=<(yes 39))
echo -e "i\ttree\tmode\tload1\tuser\tsys\tcpu\twall"
i=0
while read -r t m; do
  i=$((i + 1)); src=$a; [ "$t" = B ] && src=$b
  cmd=$(sed "s| -o [^ ]*| -o $out/$t.$m.parquet|; s| --csv [^ ]*| --csv $out/$t.$m.csv|" "$out/cmd.$m")
  /work/locks/cpu bash -c "cd $job; load=\$(cut -d' ' -f1 /proc/loadavg)
    r=\$(PYTHONPATH=$src /usr/bin/time -f '%U %S %e' bash -c '$cmd' 2>&1 >/dev/null | tail -1); set -- \$r
    echo -e \"$i\t$t\t$m\t\$load\t\$1\t\$2\t\$(echo \"\$1 + \$2\" | bc)\t\$3\""
done <<<"$order"
