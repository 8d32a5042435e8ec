#!/bin/bash
# The main job's per-trace jobs (characterise_views, metadata, seek) of two commits A and B on the same inputs,
# interleaved A B B A per job, each alone on the machine (/tmp/bench-lock.sh if present); then every table of A
# against B's (compare_tables.py). WS: bench/characterise/make_workspace.sh (bench/RESULTS.md, 2026-11-27).
# Usage: ab_main_job.sh WS COMMIT_A COMMIT_B [JOB...]   (default jobs: views metadata)
set -euo pipefail
ws=$1; a=$2; b=$3; shift 3
jobs=("${@:-views}"); [ $# -eq 0 ] && jobs=(views metadata)
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
lock=(); [ -x /tmp/bench-lock.sh ] && lock=(/tmp/bench-lock.sh)
for c in "$a" "$b"; do  # each commit's src/ exported: the worktree may move on while this runs
  rm -rf "$ws/src-$c" && mkdir -p "$ws/src-$c" && git -C "$repo" archive "$c" src | tar -x -C "$ws/src-$c"
done
rm -rf "$ws"/data/processed/*/char-{"$a","$b"}{,-2}  # no table of an earlier run counts
echo "# $(date -u +%FT%TZ) A=$a B=$b jobs=${jobs[*]}"
echo -e "#job tag\twall_s\tuser_s\tsys_s\ttree_rss_mib\tmax_rss_mib\tload_1m_before"
py=${PYTHON:-python}
for j in "${jobs[@]}"; do
  for t in "$a" "$b" "$b-2" "$a-2"; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    "${lock[@]}" "$here/main_job.sh" "$ws" "$ws/src-${t%-2}/src" "$t" "$j" | sed "s/\$/\t$load/"
  done
done
for p in "$a $b" "$a-2 $b-2" "$a $a-2"; do $py "$here/compare_tables.py" "$ws" $p; done
echo "# $(date -u +%FT%TZ) done; $(uptime)"
