"""Which raw logs a captured run has, how each is read, and where its tables land.

data/raw/<run>/ holds the trace (tracefs text `trace.txt.zst`, or per-CPU `blktrace/*.blktrace.*`; an imported
run may have blkparse text `blkparse.txt`), `iostat.json` (imported: or `iostat.txt`) and the workload's log;
each becomes data/processed/<run>/<source>/ (tables + ingest.json). The workflow reads this module to declare
every file of its ingest jobs, and `blkscope ingest-runs` to read them, so the two agree.
A new workload adds one line to WORKLOAD_LOGS.
"""

from __future__ import annotations

import os
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
    "blkparse": ("events",),
    "iostat": ("iostat", "iostat_cpu"),
    "fio": ("fio_jobs",),
    "sysbench": ("sysbench_fileio",),
    "journal": ("journal_summary", "journal_latency"),
    "ycsb": ("ycsb_summary", "ycsb_series"),
    "cassandra-stress": ("cstress_summary", "cstress_intervals"),
    "filefrag": ("extents",),
}


# text traces by stored name: ours are tracefs text, zstd-compressed; an imported one (blkscope.importing) may be
# blkparse's text, and keeps the compression it came with, as every imported log does
TEXT_TRACES = (("trace.txt", "ftrace"), ("blkparse.txt", "blkparse"))
COMPRESSED = (".zst", "", ".gz", ".xz")


def _names(run_dir: Path) -> frozenset[str]:
    """The names in a run directory (none when it is absent): one listing answers every stored() of a run, where
    a stat per candidate name cost the workflow's start ~20 stats per run (thousands of runs)."""
    try:
        return frozenset(os.listdir(run_dir))
    except (FileNotFoundError, NotADirectoryError):
        return frozenset()


def _has(run_dir: Path, name: str, names: frozenset[str] | None) -> bool:
    """`run_dir / name` exists; with the directory's listing, only a listed name is checked (a link may dangle)."""
    return (names is None or name in names) and os.path.exists(os.path.join(run_dir, name))


def stored(run_dir: Path, name: str, names: frozenset[str] | None = None) -> Path | None:
    """A run's log `name` as stored: compressed or not (None: the run has no such log). `names`: the directory's
    listing, when the caller has it."""
    return next((run_dir / f"{name}{s}" for s in COMPRESSED if _has(run_dir, f"{name}{s}", names)), None)


def trace_source(run_dir: Path, names: frozenset[str] | None = None) -> tuple[str, list[Path]] | None:
    """(kind, files) of a run's trace: tracefs or blkparse text, or per-CPU blktrace files (guest, devices)."""
    for name, kind in TEXT_TRACES:
        if (text := stored(run_dir, name, names)) is not None:
            return kind, [text]
    if names is not None and "blktrace" not in names:
        return None
    files = sorted(run_dir.glob("blktrace/*.blktrace.*"))
    return ("blktrace", files) if files else None


def sources(raw: Path, run: str, workload: str) -> list[tuple[str, str, list[Path]]]:
    """(source directory, reader kind, raw files) of every log of one run. Our captures have all of them; an
    imported run has those the user gave (an absent iostat log or YCSB load phase is left out, not an error)."""
    d = Path(raw) / run
    names = _names(d)
    out = []
    trace = trace_source(d, names)
    if trace is not None:
        out.append(("trace", trace[0], trace[1]))
    if (iostat := stored(d, "iostat.json", names) or stored(d, "iostat.txt", names)) is not None:
        out.append(("iostat", "iostat", [iostat]))
    if workload in WORKLOAD_LOGS:
        sub, kind, logs_of = WORKLOAD_LOGS[workload]
        optional = [n for n in OPTIONAL_LOGS.get(workload, ()) if _has(d, n, names)]
        if logs := [p for n in logs_of if (p := stored(d, n, names)) is not None]:
            out.append((sub, kind, [*logs, *(d / n for n in optional)]))
    sub, kind, name = EXTENTS
    if _has(d, name, names):
        out.append((sub, kind, [d / name]))
    return out


def outputs(processed: Path, run: str, sources_: list[tuple[str, str, list[Path]]]) -> list[Path]:
    """The files ingesting `sources_` of `run` writes that the workflow declares."""
    return [Path(p) for p in output_paths(processed, run, sources_)]


def output_paths(processed: str | Path, run: str, sources_: list[tuple[str, str, list[Path]]]) -> list[str]:
    """outputs() as path strings: the workflow declares thousands at every start, a Path each cost it ~0.1 s."""
    out = []
    for sub, kind, _ in sources_:
        base = os.path.join(str(Path(processed)), run, sub)
        out += [f"{base}/{t}.parquet" for t in KIND_TABLES.get(kind, ())] + [f"{base}/ingest.json"]
    return out
