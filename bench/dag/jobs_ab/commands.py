"""The shell commands of some of the main job's jobs, from `snakemake -n -p` of the built tree, with their per-run
tables, manifests and log written under a scratch directory ($SCR, filled in by run_job.sh) instead: the jobs
then run again on the same inputs without touching the tree, and what they write can be compared with it.

    snakemake -n -p --cores 2 --forcerun RULE... --until RULE... > dry.txt
    python bench/dag/jobs_ab/commands.py dry.txt commands.json [NAME=COMMAND ...]

NAME=COMMAND adds a command of one's own (e.g. the paper rule's PDF check, which the dry run prints with latexmk
before it). A rule with a {mode} wildcard is named RULE.MODE."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def commands(dry: str) -> list[list[str]]:
    out = []
    for rule, body, cmd in re.findall(r"rule (\w+):\n(.*?)Shell command: (.*?)\n", dry, re.S):
        mode = re.search(r"wildcards: mode=(\S+)", body)
        name = rule + (f".{mode.group(1)}" if mode else "")
        cmd = re.sub(r"data/processed/([^/ ']+)/(frequency|characterise)/", r"$SCR/\1/\2/", cmd)
        cmd = cmd.replace("--record-dataset data/processed/datasets/", "--record-dataset $SCR/datasets/")
        out.append([name, re.sub(r"> logs/\S+", f"> $SCR/{name}.log", cmd)])
    return out


if __name__ == "__main__":
    cmds = commands(Path(sys.argv[1]).read_text()) + [a.split("=", 1) for a in sys.argv[3:]]
    Path(sys.argv[2]).write_text(json.dumps(cmds))
    print("\n".join(f"{n}: {len(c)} characters" for n, c in cmds))
