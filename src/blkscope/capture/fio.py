"""Workload: fio with a job file from config/fio/, JSON report to a file.

The job files read BLKSCOPE_DIR, BLKSCOPE_RUNTIME and BLKSCOPE_SEED from the environment (fio expands ${VAR}),
so one file serves every filesystem, runtime and repeat in the runs sheet."""

from __future__ import annotations

import json
import os
from pathlib import Path

from blkscope.capture import procs
from blkscope.capture.sh import sh


def env(directory: Path, runtime_s: int, seed: int) -> dict[str, str]:
    return {"BLKSCOPE_DIR": str(directory), "BLKSCOPE_RUNTIME": str(runtime_s), "BLKSCOPE_SEED": str(seed)}


# the options that cap a job's rate (fio's HOWTO: rate=, rate_iops=; a value per direction, "100,100")
RATE_OPTIONS = ("rate", "rate_iops")


def job_rate(jobfile: Path) -> float | None:
    """The rate a job file fixes (the largest rate= or rate_iops= value it sets, in its own unit), 0 when it sets
    none (fio runs unthrottled); None when the file is absent."""
    if not jobfile.is_file():
        return None
    rates = [0.0]
    for line in jobfile.read_text().splitlines():
        key, eq, value = line.split(";")[0].split("#")[0].partition("=")
        if eq and key.strip() in RATE_OPTIONS:
            rates += [_size(v) for v in value.split(",") if v.strip()]
    return max(rates)


def _size(value: str) -> float:
    """A fio number with an optional k/m/g suffix ("100", "4m")."""
    v = value.strip().lower()
    mult = {"k": 1024, "m": 1024**2, "g": 1024**3}.get(v[-1:], 1)
    return float(v.rstrip("kmgib") or 0) * mult


def prepare(jobfile: Path, job_env: dict[str, str], cap=None) -> None:
    """Lay out the job's files before tracing starts, so the trace holds the workload, not its set-up. `cap`: the
    run's memory cap (memcap.MemCap), which fio starts inside, so the page cache it faults in is charged there."""
    sh(_wrapped(["fio", "--create_only=1", "--output=/dev/null", str(jobfile)], cap), env={**os.environ, **job_env})


def command(jobfile: Path, out: Path) -> list[str]:
    return ["fio", "--output-format=json", f"--output={out}", str(jobfile)]


def run(jobfile: Path, out: Path, job_env: dict[str, str], cap=None) -> dict:
    """Run fio to completion (inside `cap` as prepare()); on an exception (e.g. SIGINT turned into one) stop it
    before re-raising."""
    p = procs.start(_wrapped(command(jobfile, out), cap), None, env={**os.environ, **job_env})
    try:
        rc = p.wait()
    except BaseException:
        procs.stop(p, grace_s=10)
        raise
    if rc != 0:
        raise RuntimeError(f"fio exit {rc}: {procs.stderr_tail(p)}")
    return check_json(out)


def _wrapped(cmd: list[str], cap) -> list[str]:
    return cap.wrap(cmd) if cap is not None else cmd


def check_json(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text())
        jobs = doc["jobs"]
    except (OSError, ValueError, KeyError) as e:
        raise RuntimeError(f"{path}: fio JSON invalid: {e}") from e
    failed = [j["jobname"] for j in jobs if j.get("error")]
    if failed:
        raise RuntimeError(f"{path}: fio job(s) failed: {', '.join(failed)}")
    return {
        "version": doc.get("fio version"),
        "jobs": [j["jobname"] for j in jobs],
        "ios": {d: sum(j[d]["total_ios"] for j in jobs) for d in ("read", "write")},
    }
