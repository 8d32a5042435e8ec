#!/usr/bin/env bash
# A/B of Snakemake's own CPU: bench/dag/ab_master.sh DIR ORDER OUT.tsv [SNAKEMAKE ARGS...]
#
# DIR: a built tree (bench/dag/profile_master.sh's). ORDER: arms in the order to run, e.g. "base noreeval nobench
# base ...": base, or any AB_<ARM>=1 switch of bench/dag/ab.smk (copied into DIR). Each run goes through
# /work/locks/cpu, runs `snakemake -s ab.smk ARGS` (e.g. --cores 2 --forcerun R... TARGETS) with PYSPY=0, and adds
# a line to OUT.tsv: arm, the master's own user and sys CPU-s, its children's, /usr/bin/time's user, sys and wall.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
d=$1 order=$2 out=$3
shift 3
cp "$here/bench/dag/ab.smk" "$d/ab.smk"
[ -s "$out" ] || printf 'arm\tstart\tself_user\tself_sys\tchildren_user\tchildren_sys\tuser\tsys\twall\n' > "$out"
for arm in $order; do
    env_arm=()
    [ "$arm" = base ] || env_arm=("AB_${arm^^}=1")
    # wait (holding nothing) until a slot is free: /work/locks/cpu then takes it at once instead of queueing on slot 1
    until flock -n /work/locks/slot1 true || flock -n /work/locks/slot2 true; do sleep 2; done
    env "${env_arm[@]}" KEEP=1 PYSPY=0 /work/locks/cpu "$here/bench/dag/profile_master.sh" ab "$d" -s ab.smk "$@" \
        > "$d/ab-last.out" 2>&1
    python3 - "$d" "$arm" >> "$out" <<'PY'
import json, re, sys
d, arm = sys.argv[1], sys.argv[2]
m = json.load(open(f"{d}/master.json"))
t = open(f"{d}/time.txt").read()
get = lambda k: re.search(k + r": (\S+)", t).group(1)
start = open(f"{d}/bench.txt").read().split(" start ")[1].split()[0]
print(arm, start, m["self_user"], m["self_sys"], m["children_user"], m["children_sys"], get("User time \\(seconds\\)"),
      get("System time \\(seconds\\)"), get(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\)"), sep="\t")
PY
    tail -1 "$out"
done
