"""Which raw logs a captured run has, how each is read, and where its tables land.

data/raw/<run>/ holds the trace (tracefs text `trace.txt.zst`, or per-CPU `blktrace/*.blktrace.*`), `iostat.json`
and the workload's log; each becomes data/processed/<run>/<source>/ (tables + ingest.json). The workflow reads
this module to declare every file of its ingest jobs, and `blkscope ingest-runs` to read them, so the two agree.
A new workload adds one line to WORKLOAD_LOGS.
"""

from __future__ import annotations

from pathlib import Path

# workload (runs sheet) -> (source directory, reader kind, raw files in the order the reader takes them)
WORKLOAD_LOGS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "fio": ("fio", "fio", ("fio.json",)),
    "sysbench": ("sysbench", "sysbench", ("sysbench.txt",)),
    "journal": ("journal", "journal", ("journal.json",)),
    "ycsb": ("ycsb", "ycsb", ("ycsb-load.txt", "ycsb-run.txt")),
    # the measured cassandra-stress run (an untraced prepare's cstress-prepare.txt stays raw)
    "cassandra": ("cstress", "cassandra-stress", ("cstress.txt",)),
    # YCSB on Cassandra: the same phases and tables as YCSB on RocksDB's three-phase job
    "cassandra-ycsb": ("ycsb", "ycsb", ("ycsb-load.txt", "ycsb-run.txt", "ycsb-read.txt")),
}
# Logs a run has when its job or its capture's version wrote them (read when present): YCSB's read-only phase
# after the run phase (a workload's source gets it), and each file's extents at the end of a Cassandra run
# (runs captured before issue L have none).
OPTIONAL_LOGS: dict[str, tuple[str, ...]] = {"ycsb": ("ycsb-read.txt",)}
EXTENTS = ("extents", "filefrag", "filefrag.txt")
# reader kind -> the tables the workflow declares (a reader may write more, e.g. sysbench_intervals)
KIND_TABLES: dict[str, tuple[str, ...]] = {
    "ftrace": ("events",),
    "blktrace": ("events",),
    "iostat": ("iostat", "iostat_cpu"),
    "fio": ("fio_jobs",),
    "sysbench": ("sysbench_fileio",),
    "journal": ("journal_summary", "journal_latency"),
    "ycsb": ("ycsb_summary", "ycsb_series"),
    "cassandra-stress": ("cstress_summary", "cstress_intervals"),
    "filefrag": ("extents",),
}


def trace_source(run_dir: Path) -> tuple[str, list[Path]] | None:
    """(kind, files) of a run's trace: tracefs text (host) or per-CPU blktrace files (guest, devices)."""
    text = run_dir / "trace.txt.zst"
    if text.exists():
        return "ftrace", [text]
    files = sorted(run_dir.glob("blktrace/*.blktrace.*"))
    return ("blktrace", files) if files else None


def sources(raw: Path, run: str, workload: str) -> list[tuple[str, str, list[Path]]]:
    """(source directory, reader kind, raw files) of every log of one run."""
    d = Path(raw) / run
    out = []
    trace = trace_source(d)
    if trace is not None:
        out.append(("trace", trace[0], trace[1]))
    out.append(("iostat", "iostat", [d / "iostat.json"]))
    if workload in WORKLOAD_LOGS:
        sub, kind, names = WORKLOAD_LOGS[workload]
        optional = [n for n in OPTIONAL_LOGS.get(workload, ()) if (d / n).exists()]
        out.append((sub, kind, [d / n for n in (*names, *optional)]))
    sub, kind, name = EXTENTS
    if (d / name).exists():
        out.append((sub, kind, [d / name]))
    return out


def outputs(processed: Path, run: str, sources_: list[tuple[str, str, list[Path]]]) -> list[Path]:
    """The files ingesting `sources_` of `run` writes that the workflow declares."""
    out = []
    for sub, kind, _ in sources_:
        base = Path(processed) / run / sub
        out += [base / f"{t}.parquet" for t in KIND_TABLES.get(kind, ())] + [base / "ingest.json"]
    return out
