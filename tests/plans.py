"""Snakemake's plan of a workspace: the jobs `snakemake -n` lists (tests of what a change makes the workflow do)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
# a job of a dry run: "rule NAME:" (or "localrule"), then its indented items ("    output: a, b")
JOB = re.compile(r"^(?:local)?rule (\w+):\n((?:    .*\n)+)", re.M)


def snakemake(work: Path, *args: str) -> str:
    """Run Snakemake in `work` (2 cores); its output, or an assertion error with its tail."""
    p = subprocess.run([SNAKEMAKE, "--cores", "2", *args], cwd=work, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    return p.stdout + p.stderr


def planned(work: Path, target: str = "all") -> dict[str, list[str]]:
    """Rule -> the outputs of its planned jobs, from `snakemake -n target` ({} when there is nothing to do)."""
    jobs: dict[str, list[str]] = {}
    for name, items in JOB.findall(snakemake(work, "-n", target)):
        out = re.search(r"^    output: (.*)$", items, re.M)
        jobs.setdefault(name, []).extend(out[1].split(", ") if out else [])
    return jobs
