"""Workloads other than fio (which lives in capture/fio.py), run by `blkscope capture` inside the same
testbed / tracer / iostat frame: sysbench fileio, the journal writer (tools/journal) and YCSB on RocksDB
(tools/ycsb-rocksdb). The runs sheet's `workload` column picks the module, `job` the variant.

Each module defines a `Workload` subclass: `build()` before the hardware lock (compile tools), `prepare()` on the
mounted filesystem before tracing (lay out files, load data), `run()` traced, `describe()` for the dry run, and
`info` for run.yaml (versions, resolved options, commands)."""

from __future__ import annotations

from pathlib import Path

from blkscope.capture.workloads.base import Workload

NAMES = ("sysbench", "journal", "ycsb")


def load(row: dict, tools_dir: Path) -> Workload:
    """The workload of a runs-sheet row (not fio), with its job resolved; ValueError for unknown ones."""
    name = row["workload"]
    if name == "sysbench":
        from blkscope.capture.workloads.sysbench import Sysbench as cls
    elif name == "journal":
        from blkscope.capture.workloads.journal import Journal as cls
    elif name == "ycsb":
        from blkscope.capture.workloads.ycsb import Ycsb as cls
    else:
        raise ValueError(f"{row['run_id']}: workload {name!r} is not implemented (fio, {', '.join(NAMES)})")
    return cls(row, tools_dir)


def outputs(workload: str) -> tuple[str, ...]:
    """Raw files a workload writes into the run directory (besides iostat.json, run.yaml and the trace)."""
    if workload == "fio":
        return ("fio.json",)
    from blkscope.capture.workloads import journal, sysbench, ycsb

    return {"sysbench": sysbench.OUTPUTS, "journal": journal.OUTPUTS, "ycsb": ycsb.OUTPUTS}[workload]
