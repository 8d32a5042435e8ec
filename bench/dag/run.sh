#!/usr/bin/env bash
# The main job's speed, before and after a change: bench/dag/run.sh BEFORE_REF AFTER_REF [REPEATS]
#
# For each configuration and repeat, in one random order (recorded in order.txt): export the commit into a fresh
# directory (`git archive`: data/raw as committed, no data/processed), run `snakemake --cores 8 all` there, then
# the no-op `snakemake -n all`, each timed, with the load average before and after (the machine is shared).
# Both use this checkout's .venv and blkscope-native (or $VENV and $BLKSCOPE_NATIVE, e.g. from a worktree without
# them; VENV_BEFORE / VENV_AFTER: one per configuration, when the change is in the pinned packages; likewise
# NATIVE_BEFORE / NATIVE_AFTER: each configuration's blkscope-native, when the change is in native/); PYTHONPATH
# points the `blkscope` command at the exported commit's src/. After the no-op, the size of
# Snakemake's own records (.snakemake/, and its metadata/: one JSON record per declared output file) and their
# number. Then bench/dag/compare.py checks that every configuration produced the same outputs.
# CORES (default 8): snakemake --cores; issue P times the main job with --cores 2.
# Results: $OUT/results.tsv (default OUT=/var/tmp/blkscope-dagbench); written up in bench/RESULTS.md ("The main job").
set -euo pipefail
source "$(dirname "$0")/../env.sh"
before=$1 after=$2 reps=${3:-1} out=${OUT:-/var/tmp/blkscope-dagbench}
mkdir -p "$out"
order=$(for r in $(seq "$reps"); do echo "before $(git -C "$here" rev-parse --short "$before") $r"
                                    echo "after $(git -C "$here" rev-parse --short "$after") $r"; done | shuf)
echo "$order" > "$out/order.txt"
# snakemake-executor-plugin-slurm runs `scontrol show config` (timeout 10 s) at every Snakemake start; where
# slurm-client is installed without a reachable controller that is a 10 s wait. The no-op is also timed with a
# `scontrol` that fails at once (the plugin then goes on as on a machine without SLURM), to show both.
mkdir -p "$out/stub" && printf '#!/bin/sh\nexit 1\n' > "$out/stub/scontrol" && chmod +x "$out/stub/scontrol"
printf 'config\tcommit\trepeat\tall_wall_s\tall_user_s\tall_sys_s\tjobs\tnoop_wall_s\tnoop_user_s\tnoop_sys_s' \
  > "$out/results.tsv"
printf '\tnoop_no_scontrol_wall_s\tload_before\tload_after\tsnakemake_dir_kib\tmetadata_kib\trecords\n' \
  >> "$out/results.tsv"
# the load average every 10 s through the whole bench (others share the machine)
(while :; do echo "$(date -u +%T) $(cat /proc/loadavg)"; sleep 10; done) > "$out/loadavg.log" &
sampler=$!
trap 'kill $sampler' EXIT
while read -r name ref rep; do
  d=$out/$name-$rep
  rm -rf "$d" && mkdir -p "$d"
  git -C "$here" archive "$ref" | tar -x -C "$d"
  (
    cd "$d"
    v=VENV_${name^^}; source "${!v:-${VENV:-$here/.venv}}/bin/activate"
    export PYTHONPATH=$d/src
    n=NATIVE_${name^^}; export BLKSCOPE_NATIVE=${!n:-$BLKSCOPE_NATIVE}
    python -c 'import blkscope, sys; sys.exit(not blkscope.__file__.startswith(sys.argv[1]))' "$d/src"
    l0=$(cut -d' ' -f1-3 /proc/loadavg)
    /usr/bin/time -f '%e %U %S' -o time.all snakemake --cores "${CORES:-8}" all > all.log 2>&1
    l1=$(cut -d' ' -f1-3 /proc/loadavg)
    /usr/bin/time -f '%e %U %S' -o time.noop snakemake -n all > noop.log 2>&1
    grep -q 'Nothing to be done' noop.log
    PATH=$out/stub:$PATH /usr/bin/time -f '%e' -o time.noop2 snakemake -n all > noop2.log 2>&1
    jobs=$(grep -Eo '^[0-9]+ of [0-9]+ steps' all.log | tail -1 | cut -d' ' -f3)
    read -r wall user sys < time.all
    read -r nwall nuser nsys < time.noop
    dir_kib=$(du -sk .snakemake | cut -f1) meta_kib=$(du -sk .snakemake/metadata | cut -f1)
    records=$(find .snakemake/metadata -type f | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$ref" "$rep" "$wall" "$user" \
      "$sys" "$jobs" "$nwall" "$nuser" "$nsys" "$(cat time.noop2)" "$l0" "$l1" "$dir_kib" "$meta_kib" "$records" \
      >> "$out/results.tsv"
  )
  tail -1 "$out/results.tsv"
done <<< "$order"
python "$here/bench/dag/compare.py" "$out"/*-*/
