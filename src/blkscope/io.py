"""Write outputs atomically: a reader or analysis that fails leaves nothing behind.

The bottom of the package's output path: readers write through TableWriter and count what they meet in
Report; `blkscope ingest` (ingest.py) picks a reader and calls run_reader. polars and pyarrow are imported
where used: the native trace readers' path needs neither (startup time).

Tables are appended chunk by chunk through pyarrow's ParquetWriter into a staging directory next to
OUTDIR, so memory stays bounded by the chunk size; the staging directory is renamed into place only when
the reader finished without error.
"""

from __future__ import annotations

import json
import os
import re

from blkscope import __version__

# typing.TYPE_CHECKING without importing typing (~2 ms of `blkscope ingest`'s start; issues B and 43 time it):
# type checkers read this name as True. pathlib and shutil are imported where used: a trace's ingest works on
# str paths and does without them (8.5 and 6 ms of its start in paired runs, bench/RESULTS.md, eighteenth session).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, TypeVar

    P = TypeVar("P", str, Path)

    import polars as pl
    import pyarrow as pa


def umask() -> int:
    """The process's umask, read without changing it (Linux: /proc/self/status)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # elsewhere: set and restore
    os.umask(mask)
    return mask


# staging names: the prefix, then 8 characters of tempfile's alphabet (as mkstemp and mkdtemp made them)
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_STAGED = re.compile(f"[{_NAME_CHARS}]{{8}}")


def staged(target: str | Path, directory: bool = False, stem: str | None = None) -> str:
    """A new staging file (or directory) beside `target`, named `.<stem>.XXXXXXXX` (stem: target's name), mode as
    open() or mkdir() would give it, to be renamed into place. Staging left by a writer of the same target that was
    killed (SIGKILL: no `except` ran) is removed first, so a rerun leaves nothing behind (bench/kill_resume.py found
    a killed ingest's `.trace.*/events.parquet`). One writer per target at a time, as Snakemake runs jobs."""
    parent, name = os.path.split(os.fspath(target).rstrip("/") or "/")
    prefix = f".{stem or name}."
    with os.scandir(parent or ".") as entries:
        old = [e for e in entries if e.name.startswith(prefix) and _STAGED.fullmatch(e.name[len(prefix):])]
    for e in old:
        if e.is_dir(follow_symlinks=False):
            import shutil

            shutil.rmtree(e.path)
        elif os.path.lexists(e.path):  # one writer per target: only a user could have removed it meanwhile
            os.unlink(e.path)
    return follow_umask(_create(parent, prefix, directory))


def _create(parent: str, prefix: str, directory: bool) -> str:
    """What tempfile.mkdtemp / mkstemp do here (mode 0700 / 0600, made exclusively, another name on a clash; a
    file's path absolute, as mkstemp's), without importing tempfile and random (~2.5 ms of `blkscope ingest`'s
    start)."""
    parent = parent if directory else os.path.abspath(parent)
    for _ in range(100):
        path = os.path.join(parent, prefix + "".join(_NAME_CHARS[b % len(_NAME_CHARS)] for b in os.urandom(8)))
        try:
            if directory:
                os.mkdir(path, 0o700)
            else:
                os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"{parent}: no unused staging name {prefix}XXXXXXXX")


def follow_umask(path: P) -> P:
    """Give a file or directory made by mkstemp (0600) or mkdtemp (0700) the mode a plain open() or mkdir() would
    have: 0666 or 0777 less the umask (0644 / 0755 under 022), so outputs renamed into place are readable by whoever
    may read the rest of the tree (a group, a shared filesystem, a user reading a run captured as root). Returns
    `path` as given."""
    os.chmod(path, (0o777 if os.path.isdir(path) else 0o666) & ~umask())
    return path


# A table that says why it holds no rows (or lacks some runs) does so in its Parquet key-value metadata under
# this key: the file stays a plain table of its schema for every reader, and the reason travels with it.
NOTE_KEY = "blkscope.note"


def write_atomic(df: pl.DataFrame, path: str | Path, note: str | None = None) -> None:
    """Write Parquet (or CSV when the name ends in .csv) via a temp file and rename. `note`: why the table is
    empty or what it lacks, kept in the Parquet metadata (NOTE_KEY; a CSV copy holds the rows only)."""
    from pathlib import Path

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = staged(path)
    try:
        if path.suffix == ".csv":
            df.write_csv(tmp)
        else:
            df.write_parquet(tmp, compression="zstd", metadata={NOTE_KEY: note} if note else None)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_table(df: pl.DataFrame, path: str | Path | None, csv: str | Path | None = None,
                note: str | None = None) -> None:
    """Every verb's table writer: `df` to `path` if an output was asked for (not None; Parquet, or CSV by its
    name) with its `note`, and a CSV copy to `csv` if asked for (rows only)."""
    if path:
        write_atomic(df, path, note)
    if csv:
        write_atomic(df, csv)


def table_note(path: str | Path) -> str | None:
    """The note a table was written with (write_atomic), or None."""
    import polars as pl

    return pl.read_parquet_metadata(path).get(NOTE_KEY)


def read_noted(path: str | Path) -> pl.DataFrame:
    """A table as a notebook reads it: its rows, with its note printed when it has one or no rows at all."""
    import polars as pl

    df, note = pl.read_parquet(path), table_note(path)
    if note or df.is_empty():
        name = os.path.basename(os.fspath(path).rstrip("/"))
        print(f"{name}: {'no rows: ' if df.is_empty() else ''}{note or 'its writer gave no reason'}")
    return df


def write_text_atomic(text: str, path: str | Path) -> None:
    write_bytes_atomic(text.encode(), path)


def write_bytes_atomic(data: bytes, path: str | Path) -> None:
    os.makedirs(os.path.dirname(os.fspath(path)) or ".", exist_ok=True)
    tmp = staged(path)
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


class Report:
    """What ends up in ingest.json. (A plain class: importing dataclasses costs ~10 ms, more than a quarter of a
    trace ingest's ~35 ms of Python, and issues B and 43 time the whole command.)"""

    def __init__(self, kind: str, inputs: list[str]) -> None:
        self.kind = kind
        self.inputs = inputs
        self.versions: dict[str, Any] = {}
        self.rows: dict[str, int] = {}
        self.warnings: list[str] = []
        self.unknown: dict[str, int] = {}  # things a reader met and did not know, counted
        self.trace: dict[str, Any] = {}  # cpus seen, sequence gaps, drops, byte order ...
        self.extra: dict[str, Any] = {}

    def warn(self, msg: str) -> None:
        self.warnings.append(msg)

    def count_unknown(self, what: str, n: int = 1) -> None:
        self.unknown[what] = self.unknown.get(what, 0) + n

    def to_json(self) -> dict[str, Any]:
        return {
            "blkscope_version": __version__,
            "format": self.kind,
            "inputs": self.inputs,
            "versions": self.versions,
            "rows": self.rows,
            "warnings": self.warnings,
            "unknown": self.unknown,
            "trace": self.trace,
            **self.extra,
        }


ROW_GROUP = 1 << 20  # rows per Parquet row group: big enough to amortise per-group costs, bounded memory
# Events, measured on 10.5 M (bench/RESULTS.md): writing costs ~1.5 s per 10 M rows whatever the codec (none,
# lz4, snappy, zstd-1 within 0.15 s): the time is in encoding, so zstd (Arrow's default level 1) for the smallest
# file; dictionaries only for the string columns (plain numbers encode faster); delta encoding for the growing
# seq/time_ns (a fifth of the size); statistics only where filters use them.
OPTIONS: dict[str, dict[str, Any]] = {
    "events": {
        "use_dictionary": ["action", "rwbs", "process", "message", "cdb"],
        "column_encoding": {"seq": "DELTA_BINARY_PACKED", "time_ns": "DELTA_BINARY_PACKED"},
        "write_statistics": ["cpu", "time_ns", "sector"],
    },
}


class TableWriter:
    """Appends conformed chunks to one Parquet file per table in a staging dir.

    `write` takes polars frames; `write_arrow` takes record batches a reader built with the table's columns
    and dtypes (dictionary-encoded strings allowed: stored without the Arrow schema, read back as strings).
    Small chunks are buffered into row groups of about ROW_GROUP rows."""

    def __init__(self, staging: str, report: Report) -> None:
        self.staging = staging
        self.report = report
        self._writers: dict = {}  # table -> pyarrow.parquet.ParquetWriter
        self._pending: dict[str, list[pa.RecordBatch]] = {}
        self._pending_rows: dict[str, int] = {}
        self._external: set[str] = set()

    def external(self, table: str, rows: int) -> None:
        """`table`.parquet was written into the staging dir by another program (blkscope-native)."""
        self._external.add(table)
        self.report.rows[table] = self.report.rows.get(table, 0) + rows

    def write(self, table: str, df: pl.DataFrame) -> None:
        from blkscope.schemas import TABLES, conform

        df = conform(df, TABLES[table]) if table in TABLES else df
        self.write_arrow(table, df.to_arrow())

    def write_arrow(self, table: str, data: pa.RecordBatch | pa.Table) -> None:
        import pyarrow as pa

        if table in self._external:
            raise RuntimeError(f"{table} was written by blkscope-native; cannot append")
        batches = data.to_batches() if isinstance(data, pa.Table) else [data]
        if not batches:  # an empty table has no batches, but its schema still makes the file
            batches = [pa.RecordBatch.from_pylist([], schema=data.schema)]
        self._pending.setdefault(table, []).extend(batches)
        self._pending_rows[table] = self._pending_rows.get(table, 0) + data.num_rows
        self.report.rows[table] = self.report.rows.get(table, 0) + data.num_rows
        if self._pending_rows[table] >= ROW_GROUP:
            self._flush(table)

    def _flush(self, table: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        batches = self._pending.pop(table, [])
        self._pending_rows[table] = 0
        if not batches:
            return
        t = pa.Table.from_batches(batches)
        dictionaries = any(pa.types.is_dictionary(f.type) for f in t.schema)
        if dictionaries:
            t = t.unify_dictionaries()  # one dictionary per column chunk, else Parquet falls back to plain
        w = self._writers.get(table)
        if w is None:
            opts = {"compression": "zstd", **OPTIONS.get(table, {})}  # Arrow's zstd default level is 1
            path = os.path.join(self.staging, f"{table}.parquet")
            w = pq.ParquetWriter(path, t.schema, store_schema=not dictionaries, **opts)
            self._writers[table] = w
        elif t.schema != w.schema:
            t = t.cast(w.schema)
        w.write_table(t, row_group_size=max(t.num_rows, 1))

    def ensure(self, table: str) -> None:
        """Make sure the table exists even when the reader produced no rows."""
        if table not in self._writers and table not in self._external and not self._pending.get(table):
            from blkscope.schemas import TABLES, empty

            self.write(table, empty(TABLES[table]))

    def close(self, flush: bool = True) -> None:
        try:
            for table in list(self._pending) if flush else []:
                self._flush(table)
        finally:
            for w in self._writers.values():
                w.close()
            self._writers.clear()


def run_reader(reader, kind: str, inputs: list[str | Path], outdir: str | Path) -> Report:
    """Run `reader` into a staging directory beside `outdir`, then rename it into place: all or nothing."""
    report = Report(kind=kind, inputs=[str(p) for p in inputs])
    outdir = os.fspath(outdir)
    os.makedirs(os.path.dirname(outdir.rstrip("/")) or ".", exist_ok=True)
    staging = staged(outdir, directory=True)
    writer = TableWriter(staging, report)
    try:
        reader(inputs, writer, report)
        writer.close()
        with open(os.path.join(staging, "ingest.json"), "w") as f:
            f.write(json.dumps(report.to_json(), indent=2, default=str) + "\n")
        if os.path.exists(outdir):
            import shutil

            shutil.rmtree(outdir)
        os.rename(staging, outdir)
    except BaseException:
        writer.close(flush=False)
        import shutil

        shutil.rmtree(staging, ignore_errors=True)
        raise
    return report
