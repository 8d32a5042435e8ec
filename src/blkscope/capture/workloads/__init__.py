"""Workloads other than fio (which lives in capture/fio.py), run by `blkscope capture` inside the same
testbed / tracer / iostat frame: sysbench fileio, the journal writer (tools/journal), YCSB on RocksDB
(tools/ycsb-rocksdb) and Apache Cassandra with cassandra-stress, a tiny CQL client (tools/cassandra) or YCSB
(tools/ycsb-cassandra).
The runs sheet's `workload` column picks the class, `job` the variant.

Each defines a `Workload` subclass: `build()` before the hardware lock (compile tools), `prepare()` on the
mounted filesystem before tracing (lay out files, load data, start a server), `run()` traced, `stop()` after
tracing and always (stop a server), `finish()` after tracing on success (untraced phases, what the run leaves
on disk), `describe()` for the dry run, `outputs` (the logs it leaves), and `info` for
run.yaml (versions, resolved options, commands)."""

from __future__ import annotations

import importlib
from pathlib import Path

from blkscope.capture.workloads.base import Workload

NAMES = ("sysbench", "journal", "ycsb", "cassandra", "cassandra-cql", "cassandra-ycsb")
# workload name -> (module, its Workload class)
_CLASSES = {
    "sysbench": ("sysbench", "Sysbench"),
    "journal": ("journal", "Journal"),
    "ycsb": ("ycsb", "Ycsb"),
    "cassandra": ("cassandra", "Cassandra"),
    "cassandra-cql": ("cassandra", "CassandraCql"),
    "cassandra-ycsb": ("cassandra_ycsb", "CassandraYcsb"),
}


def _class(name: str, run_id: str = "") -> type[Workload]:
    if name not in _CLASSES:
        where = f"{run_id}: " if run_id else ""
        raise ValueError(f"{where}workload {name!r} is not implemented (fio, {', '.join(NAMES)})")
    module, cls = _CLASSES[name]
    return getattr(importlib.import_module(f"blkscope.capture.workloads.{module}"), cls)


def load(row: dict, tools_dir: Path, settings: dict | None = None) -> Workload:
    """The workload of a runs-sheet row (not fio), with its job resolved; ValueError for unknown ones."""
    return _class(row["workload"], row["run_id"])(row, tools_dir, settings)


def outputs(workload: str) -> tuple[str, ...]:
    """Raw files a workload writes into the run directory (besides iostat.json, run.yaml and the trace)."""
    return ("fio.json",) if workload == "fio" else _class(workload).outputs


FIO_DIR = Path("config/fio")


def rate(workload: str, job: str, fio_dir: Path = FIO_DIR) -> float | None:
    """The request rate a runs-sheet job fixes, from its own definition (fio: its job file's rate=/rate_iops=; the
    others: the job's rate option over the workload's defaults, Workload.job_rate), 0 when it runs unthrottled;
    None for a job not defined here (an unknown workload or job, a missing job file)."""
    if workload == "fio":
        from blkscope.capture.fio import job_rate

        return job_rate(fio_dir / f"{job}.fio")
    if workload not in _CLASSES:
        return None
    return _class(workload).job_rate(job)
