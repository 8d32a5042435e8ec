#!/usr/bin/env bash
# The no-op `snakemake -n all`, before and after a change, interleaved, in one finished workflow directory:
#   bench/dag/noop.sh BEFORE_SRC AFTER_SRC WORKDIR [REPEATS] [WRAP...]
# BEFORE_SRC and AFTER_SRC are checkouts or `git archive`s (each with Snakefile, workflow/ and src/); WORKDIR is a
# directory where `snakemake all` has finished (a copy: the runs only read it, but Snakemake writes its .snakemake/
# there). Each repeat runs before, then after, with PYTHONPATH at the checkout's src/, and records wall and CPU
# time and the 1-min load average just before it. WRAP (optional) prefixes every timed command, e.g. a CPU lock.
# Every run must say "Nothing to be done": otherwise the directory is not finished for that checkout, and the
# script stops. Uses $VENV (default: this checkout's .venv). Rows on stdout: config, repeat, wall, user, sys, load.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
before=$1 after=$2 work=$3 reps=${4:-5}
shift $(($# < 4 ? $# : 4))
venv=${VENV:-$here/.venv}
printf 'config\trepeat\twall_s\tuser_s\tsys_s\tload_1min\n'
for r in $(seq "$reps"); do
  for name in before after; do
    src=$before && [ "$name" = after ] && src=$after
    log=$(mktemp)
    # the load is read inside WRAP, just before the timed run (a lock may make it wait)
    "$@" sh -c 'cut -d" " -f1 /proc/loadavg > "$1.l"; shift; exec "$@"' sh "$log" \
      /usr/bin/time -f '%e\t%U\t%S' -o "$log.t" env PYTHONPATH="$src/src" \
      "$venv/bin/snakemake" -n all -s "$src/Snakefile" -d "$work" > "$log" 2>&1
    grep -q "Nothing to be done" "$log" || { echo "$name: not a no-op in $work:" >&2; tail "$log" >&2; exit 1; }
    printf '%s\t%s\t%s\t%s\n' "$name" "$r" "$(cat "$log.t")" "$(cat "$log.l")"
    rm -f "$log" "$log.t" "$log.l"
  done
done
