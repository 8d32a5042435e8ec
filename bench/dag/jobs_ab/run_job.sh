#!/bin/bash
# run_job.sh COMMANDS_JSON NAME SRC SCR: one command of commands.py's list with PYTHONPATH=SRC (a copy of src/ at
# the commit measured), writing under SCR (emptied first); prints "NAME user sys wall" (/usr/bin/time: the
# command and every child it waited for). Run it from the built checkout, under /work/locks/cpu.
set -e
json=$1 name=$2 src=$3 scr=$4
export PYTHONPATH=$src
rm -rf "$scr"; mkdir -p "$scr/datasets"
python3 -c "import json; d = dict(json.load(open('$json'))); print(d['$name'].replace('\$SCR', '$scr'))" > "$scr/cmd.sh"
/usr/bin/time -f "%U %S %e" -o "$scr/time" bash "$scr/cmd.sh"  # a file: the commands pass bash's 128 KiB argument
echo "$name $(cat "$scr/time")"
