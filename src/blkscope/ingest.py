"""Run a reader and write its tables atomically: all of OUTDIR or nothing.

Tables are appended chunk by chunk through pyarrow's ParquetWriter into a staging
directory next to OUTDIR, so memory stays bounded by the chunk size; the staging
directory is renamed into place only when the reader finished without error.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq

from blkscope import __version__
from blkscope.schemas import TABLES, conform, empty


@dataclass
class Report:
    """What ends up in ingest.json."""

    kind: str
    inputs: list[str]
    versions: dict[str, Any] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    unknown: dict[str, int] = field(default_factory=dict)  # things a reader met and did not know, counted
    trace: dict[str, Any] = field(default_factory=dict)  # cpus seen, sequence gaps, drops, byte order ...
    extra: dict[str, Any] = field(default_factory=dict)

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


class TableWriter:
    """Appends conformed chunks to one Parquet file per table in a staging dir."""

    def __init__(self, staging: Path, report: Report) -> None:
        self.staging = staging
        self.report = report
        self._writers: dict[str, pq.ParquetWriter] = {}

    def write(self, table: str, df: pl.DataFrame) -> None:
        df = conform(df, TABLES[table]) if table in TABLES else df
        arrow = df.to_arrow()
        w = self._writers.get(table)
        if w is None:
            w = pq.ParquetWriter(self.staging / f"{table}.parquet", arrow.schema, compression="zstd")
            self._writers[table] = w
        else:
            arrow = arrow.cast(w.schema)
        w.write_table(arrow)
        self.report.rows[table] = self.report.rows.get(table, 0) + df.height

    def ensure(self, table: str) -> None:
        """Make sure the table exists even when the reader produced no rows."""
        if table not in self._writers:
            self.write(table, empty(TABLES[table]))

    def close(self) -> None:
        for w in self._writers.values():
            w.close()
        self._writers.clear()


def run_ingest(kind: str, inputs: list[Path], outdir: Path) -> Report:
    """Read `inputs` with the reader for `kind` (or sniffed) into `outdir`, atomically."""
    from blkscope.readers import get_reader
    from blkscope.readers.detect import detect

    if kind == "auto":
        kind = detect(inputs)
    reader = get_reader(kind)
    report = Report(kind=kind, inputs=[str(p) for p in inputs])
    outdir = Path(outdir)
    outdir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{outdir.name}.", dir=outdir.parent))
    writer = TableWriter(staging, report)
    try:
        reader(inputs, writer, report)
        writer.close()
        (staging / "ingest.json").write_text(json.dumps(report.to_json(), indent=2, default=str) + "\n")
        if outdir.exists():
            shutil.rmtree(outdir)
        staging.rename(outdir)
    except BaseException:
        writer.close()
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return report
