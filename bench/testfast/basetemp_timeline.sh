#!/usr/bin/env bash
# When each test of a pytest-xdist run started, from its basetemp alone (a CI run keeps one, e.g.
# /tmp/pytest-of-root/pytest-N, without bench/pytest_cpu.py): each tmp_path directory's birth time (and last
# change) in seconds from the first worker's first one, with its worker. Tests without tmp_path leave no trace;
# a module's span is from its first directory to the next module's on the same worker.
# Usage: bench/testfast/basetemp_timeline.sh BASETEMP [> timeline.txt]   (statx birth times: ext4, xfs, tmpfs)
set -eu
cd "$1"
find popen-gw* -mindepth 1 -maxdepth 1 -type d -exec stat -c '%W %Y %n' {} + | sort -n |
  awk 'NR == 1 { t0 = $1 } { printf "%5d %5d %s\n", $1 - t0, $2 - t0, $3 }'
