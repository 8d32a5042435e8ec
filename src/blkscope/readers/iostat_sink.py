"""Collect iostat reports from any layout into the `iostat` and `iostat_cpu` tables.

Both the text and JSON readers hand over one report (sample) at a time. The sink numbers the
samples per host, decides whether each run's first report is the since-boot summary (it holds
that report until the second arrives), and writes rows in chunks so memory stays bounded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from blkscope.readers.iostat_fields import COUNT_RATES, FIELDS, JSON_12, JSON_OLD
from blkscope.readers.iostat_sinceboot import first_report_since_boot
from blkscope.schemas import IOSTAT, IOSTAT_CPU

if TYPE_CHECKING:
    from blkscope.io import Report, TableWriter

CHUNK_ROWS = 50_000
TOTALS = (("kb_read", "rkb_s"), ("kb_wrtn", "wkb_s"))
# Every chunk carries the same columns (Parquet chunks must agree): the contract, then every
# extra column any layout can fill, as floats.
_EXTRA = sorted({c for m in (FIELDS, JSON_12, JSON_OLD) for c, _ in m.values()} - set(IOSTAT))
DISK_SCHEMA: dict[str, pl.DataType] = {**IOSTAT, **dict.fromkeys(_EXTRA, pl.Float64)}


@dataclass
class Sample:
    host: str
    timestamp: datetime | None
    cpu: dict[str, float] | None  # user, nice, system, iowait, steal, idle
    disks: list[dict[str, Any]] = field(default_factory=list)  # column -> value, with "device"
    where: str = ""  # e.g. "line 12", for the report
    ncpu: int | None = None  # from the banner / JSON header, for the since-boot test

    def count_rates(self) -> list[float]:
        return [d[c] for d in self.disks for c in COUNT_RATES if d.get(c) is not None]

    def covered_seconds(self) -> list[float]:
        """Basic layouts print totals beside rates: total / rate is the time the report covers."""
        return [d[t] / d[r] for d in self.disks for t, r in TOTALS if d.get(t) and d.get(r)]


class IostatSink:
    def __init__(self, writer: TableWriter, report: Report) -> None:
        self.writer, self.report = writer, report
        self.path = Path()
        self._next_sample: dict[str, int] = {}
        self._pending: dict[str, Sample] = {}  # first report of a run, waiting for its verdict
        self._seen_in_run: dict[str, int] = {}
        self._disk_rows: list[dict[str, Any]] = []
        self._cpu_rows: list[dict[str, Any]] = []
        self.verdicts: list[dict[str, Any]] = report.extra.setdefault("iostat_runs", [])

    def begin_file(self, path: Path) -> None:
        """Each input file holds its own iostat run(s); samples keep counting per host across files."""
        for host in list(self._pending):
            self._settle(host, None)
        self._seen_in_run.clear()
        self.path = path

    def start_run(self, host: str) -> None:
        """A new iostat invocation begins (banner line, JSON host block): its first report is suspect."""
        self._settle(host, None)
        self._seen_in_run[host] = 0

    def add(self, s: Sample) -> None:
        n = self._seen_in_run.get(s.host, 0)
        self._seen_in_run[s.host] = n + 1
        if n == 0:
            self._pending[s.host] = s
            return
        if n == 1:
            self._settle(s.host, s)
        self._emit(s, False)

    def close(self) -> None:
        for host in list(self._pending):
            self._settle(host, None)
        self._flush()
        self.writer.ensure("iostat")
        self.writer.ensure("iostat_cpu")

    def _settle(self, host: str, second: Sample | None) -> None:
        first = self._pending.pop(host, None)
        if first is None:
            return
        gap = None
        if second is not None and first.timestamp and second.timestamp:
            gap = (second.timestamp - first.timestamp).total_seconds()
        verdict = covered_verdict(first, second) if second is not None else None
        if verdict is None:
            cpu = None
            if first.cpu is not None and first.ncpu:
                cpu = (list(first.cpu.values()), list(second.cpu.values()) if second and second.cpu else None,
                       first.ncpu)
            verdict = first_report_since_boot(
                first.count_rates(), second.count_rates() if second is not None else None, gap, cpu
            )
        self.verdicts.append({"file": str(self.path), "host": host, "at": first.where, "since_boot": verdict})
        if verdict is None:
            self.report.warn(
                f"{self.path}: {first.where}: cannot tell whether the first report of host {host!r} is the "
                "since-boot summary (iostat prints no -y marker); since_boot left null"
            )
        self._emit(first, verdict)

    def _emit(self, s: Sample, since_boot: bool | None) -> None:
        sample = self._next_sample.get(s.host, 0)
        self._next_sample[s.host] = sample + 1
        base = {"host": s.host, "sample": sample, "timestamp": s.timestamp, "since_boot": since_boot}
        if s.cpu is not None:
            self._cpu_rows.append({**base, **s.cpu})
        for d in s.disks:
            self._disk_rows.append({**base, **d})
        if len(self._disk_rows) >= CHUNK_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self._disk_rows:
            self.writer.write("iostat", pl.DataFrame(self._disk_rows, schema=DISK_SCHEMA))
            self._disk_rows = []
        if self._cpu_rows:
            self.writer.write("iostat_cpu", pl.DataFrame(self._cpu_rows, schema=IOSTAT_CPU))
            self._cpu_rows = []



def covered_verdict(first: Sample, second: Sample) -> bool | None:
    """Since-boot if the first report covers far more time than the second (basic layouts only)."""
    a, b = first.covered_seconds(), second.covered_seconds()
    if not a or not b:
        return None
    # totals are integers (kB, MB, blocks) so a small report's ratio is rough; uptime dwarfs it
    return bool(min(a) > 10 * max(b) + 5)
