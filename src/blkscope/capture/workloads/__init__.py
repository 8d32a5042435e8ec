"""Workloads other than fio (which lives in capture/fio.py), run by `blkscope capture` inside the same
testbed / tracer / iostat frame: sysbench fileio, the journal writer (tools/journal) and YCSB on RocksDB
(tools/ycsb-rocksdb). The runs sheet's `workload` column picks the module, `job` the variant.

Each module defines a `Workload` subclass: `build()` before the hardware lock (compile tools), `prepare()` on the
mounted filesystem before tracing (lay out files, load data), `run()` traced, `describe()` for the dry run, and
`info` for run.yaml (versions, resolved options, commands)."""

from __future__ import annotations

import importlib
from pathlib import Path

from blkscope.capture.workloads.base import Workload

NAMES = ("sysbench", "journal", "ycsb")
_CLASSES = {"sysbench": "Sysbench", "journal": "Journal", "ycsb": "Ycsb"}  # module name -> its Workload class


def _class(name: str, run_id: str = "") -> type[Workload]:
    if name not in _CLASSES:
        where = f"{run_id}: " if run_id else ""
        raise ValueError(f"{where}workload {name!r} is not implemented (fio, {', '.join(NAMES)})")
    return getattr(importlib.import_module(f"blkscope.capture.workloads.{name}"), _CLASSES[name])


def load(row: dict, tools_dir: Path) -> Workload:
    """The workload of a runs-sheet row (not fio), with its job resolved; ValueError for unknown ones."""
    return _class(row["workload"], row["run_id"])(row, tools_dir)


def outputs(workload: str) -> tuple[str, ...]:
    """Raw files a workload writes into the run directory (besides iostat.json, run.yaml and the trace)."""
    return ("fio.json",) if workload == "fio" else _class(workload).outputs
