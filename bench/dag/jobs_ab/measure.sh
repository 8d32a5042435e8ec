#!/bin/bash
# measure.sh OUT.tsv REPEATS BEFORE_JSON BEFORE_SRC "BEFORE JOBS" AFTER_JSON AFTER_SRC "AFTER JOBS" [SEED]
# REPEATS sets of each arm, in an order drawn before the first (shuf, SEED), each job under /work/locks/cpu; a line
# per job: set, arm, job, user, sys, wall, the 1-min load at its start. Summarise with summary.py.
out=$1 n=$2 seed=${9:-20261129}
here=$(dirname "$(readlink -f "$0")")
declare -A json=([before]=$3 [after]=$6) src=([before]=$4 [after]=$7) jobs=([before]=$5 [after]=$8)
order=$( (for _ in $(seq "$n"); do echo before; echo after; done) | shuf --random-source=<(yes "$seed"))
echo "# order: $(echo $order)" >> "$out"
k=0
for arm in $order; do
  k=$((k + 1))
  for j in ${jobs[$arm]}; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    r=$(/work/locks/cpu "$here/run_job.sh" "${json[$arm]}" "$j" "${src[$arm]}" "/var/tmp/jobs_ab-$arm-$j")
    echo -e "$k\t$arm\t$(echo $r | tr ' ' '\t')\t$load" >> "$out"
  done
done
