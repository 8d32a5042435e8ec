"""What the experiments rules may produce (used by workflow/rules/experiments.smk).

A capture rule matches only runs that have no data/raw/<run>/run.yaml yet, or that the config names for
recapture: committed raw data is then a plain source file to the rest of the workflow, so `snakemake all` can
never start a hardware run, whatever the mtimes of a fresh clone or the .snakemake metadata say."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import polars as pl

NOTHING = "(?!x)x"  # a wildcard pattern that matches no run id


def to_capture(
    runs: pl.DataFrame,
    raw_dir: str | Path,
    *,
    traced: bool,
    recapture: Iterable[str] = (),
    testbeds: Iterable[str] | None = None,
) -> list[str]:
    """Runs (traced or not, on the given testbeds; None: any) that have no raw data yet or are to be redone."""
    again = set(recapture)
    sel = runs.filter(pl.col("traced") == traced)
    if testbeds is not None:
        sel = sel.filter(pl.col("testbed").is_in(list(testbeds)))
    rows = sel["run_id"].to_list()
    return [r for r in rows if r in again or not Path(raw_dir, r, "run.yaml").exists()]


def pattern(run_ids: Iterable[str]) -> str:
    """Wildcard constraint matching exactly these run ids."""
    return "|".join(map(re.escape, run_ids)) or NOTHING


def job_inputs(runs: pl.DataFrame, run_id: str, fio_dir: str = "config/fio") -> list[str]:
    """Files a capture reads besides the runs sheet: the fio job file of fio runs (other workloads: none)."""
    row = runs.filter(pl.col("run_id") == run_id)
    return [fio_job(runs, run_id, fio_dir)] if row.height and row["workload"].item() == "fio" else []


def fio_job(runs: pl.DataFrame, run_id: str, fio_dir: str = "config/fio") -> str:
    return f"{fio_dir}/{runs.filter(pl.col('run_id') == run_id)['job'].item()}.fio"


def allow_options(devices: Iterable[str]) -> str:
    """Config `capture: allowed_devices` as `blkscope capture` options (empty: loop devices only)."""
    return " ".join(f"--allow-device {d}" for d in devices)
