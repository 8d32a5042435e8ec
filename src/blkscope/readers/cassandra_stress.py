"""cassandra-stress output, 2.1 to 5.0 -> tables `cstress_intervals` and `cstress_summary`.

A round starts at `Running <ops> with N threads`; auto thread mode runs several rounds in one
file. Each round has an interval table (`type, total ops, op/s, ...`, columns named by its
header) and a `Results:` block (`Op rate : 24 op/s [insert: 24 op/s]`), kept per metric with
its unit, plus one row per operation from the brackets (column `op`). Numbers follow the JVM
locale: ru_RU prints `251,4` inside the comma-separated table and groups thousands with U+00A0,
so columns are split on a comma followed by white space and the decimal mark is guessed per
file. The settings dump, driver errors and shell noise are tolerated anywhere and counted.
A round whose Results block does not reach `Total operation time` did not finish (the server died, the
log was cut): its interval rows are kept with `complete` false, the rounds before it are whole, and the
report warns; only a file with no round at all is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from blkscope.errors import InputError
from blkscope.readers.numbers import guess_decimal, parse_number
from blkscope.readers.textlines import cut_line, numbered_lines, unterminated
from blkscope.schemas import CSTRESS_INTERVALS, CSTRESS_SUMMARY

if TYPE_CHECKING:
    from blkscope.io import Report, TableWriter

_ROUND = re.compile(r"^Running (.+?) with (\d+) threads?\b")
_HEADER = re.compile(r"^type,?\s+total ops,")
_ROW = re.compile(r"^([A-Za-z][\w\-.:\[\]]*),\s+([-\d].*)$")
_SPLIT = re.compile(r",\s+")
_SUMMARY = re.compile(r"^([A-Za-z][\w .%()\-]*?)\s*:\s+(.+?)\s*$")
# Java prints NaN for an average over nothing (`Avg GC time : NaN ms` when a run had no collection)
_VALUE = re.compile(r"^([-\d][\d\s\u00a0\u202f.,]*?|NaN|-?Infinity)\s*([A-Za-z/%]+(?:/s)?)?\s*(?:\[(.*)\])?$")
_HMS = re.compile(r"^(\d+):(\d\d):(\d\d)$")
_SNIFF = re.compile(rb"\*{5,} Stress Settings \*{5,}|^type,?\s+total ops,\s+op/s|^Running \S.* with \d+ threads",
                    re.MULTILINE)
COLUMNS = {"total ops": "total_ops", "op/s": "op_s", "pk/s": "pk_s", "row/s": "row_s", "mean": "mean_ms",
           "med": "med_ms", ".95": "p95_ms", ".99": "p99_ms", ".999": "p999_ms", "max": "max_ms",
           "time": "time_s", "stderr": "stderr", "errors": "errors", "gc: #": "gc_count", "max ms": "gc_max_ms",
           "sum ms": "gc_sum_ms", "sdv ms": "gc_sdv_ms", "mb": "gc_mb"}
INTERVALS = {**CSTRESS_INTERVALS, "stderr": pl.Float64, "gc_count": pl.Float64, "gc_max_ms": pl.Float64,
             "gc_sum_ms": pl.Float64, "gc_sdv_ms": pl.Float64, "gc_mb": pl.Float64}
SUMMARY = {**CSTRESS_SUMMARY, "op": pl.Utf8}


def sniff(head: bytes) -> bool:
    return bool(_SNIFF.search(head))


@dataclass
class _Round:
    index: int
    threads: int
    line: int
    header: list[str] | None = None
    in_results: bool = False
    finished: bool = False
    intervals: list[dict[str, Any]] = field(default_factory=list)
    summary: list[dict[str, Any]] = field(default_factory=list)


def read(inputs: list[Path], writer: TableWriter, report: Report) -> None:
    index = 0
    for path in map(Path, inputs):
        rounds = _Parser(path, report, index).run()
        index += len(rounds)
        for r in rounds:
            intervals = pl.DataFrame(r.intervals, schema=INTERVALS).with_columns(complete=pl.lit(r.finished))
            writer.write("cstress_intervals", intervals)
            writer.write("cstress_summary", pl.DataFrame(r.summary, schema=SUMMARY))


class _Parser:
    def __init__(self, path: Path, report: Report, first_index: int) -> None:
        self.path, self.report, self.first = path, report, first_index
        self.rounds: list[_Round] = []
        self.decimal: str | None = None

    def err(self, n: int, msg: str) -> InputError:
        return InputError(self.path, f"line {n}", msg)

    def run(self) -> list[_Round]:
        cur: _Round | None = None
        n = 0
        for n, raw, complete in numbered_lines(self.path, "cassandra-stress output"):
            line = raw.strip()
            if m := _ROUND.match(line):
                self._close(cur)
                cur = _Round(self.first + len(self.rounds), int(m.group(2)), n)
                self.rounds.append(cur)
                continue
            if cur is None or cur.finished:
                self.report.count_unknown("cassandra-stress lines outside a round")
                continue
            if _HEADER.match(line):
                cur.header = [c.strip() for c in line.split(None, 1)[1].split(",")]
                cur.header = [c for c in cur.header if c]
                continue
            if line == "Results:":
                cur.in_results = True
                continue
            if cur.in_results:
                if line:
                    self._last_line(n, complete, self._summary, cur, n, line)
                continue
            m = _ROW.match(line)
            if m and cur.header is not None:
                self._last_line(n, complete, self._interval, cur, n, m.group(1).rstrip(":"), m.group(2))
                continue
            self.report.count_unknown("cassandra-stress lines not read")
        self._close(cur)
        if not self.rounds:
            raise self.err(n, "no cassandra-stress round found (no 'Running ... with N threads' line)")
        return self.rounds

    def _last_line(self, n: int, complete: bool, parse, *args) -> None:
        """Parse a data line; the file's last line without a line end is dropped with a warning if cut."""
        if complete:
            parse(*args)
            return
        try:
            parse(*args)
        except InputError as e:
            cut_line(self.report, self.path, n, f"does not read ({e.message})")
            return
        unterminated(self.report, self.path, n)

    def _close(self, r: _Round | None) -> None:
        if r is not None and not r.finished:
            # e.g. the server died mid-round: driver exceptions follow the intervals, no Results block
            self.report.warn(
                f"{self.path}: line {r.line}: cassandra-stress round {r.index} ({r.threads} threads) did not "
                f"finish (no Results block up to 'Total operation time'): its {len(r.intervals)} interval "
                "row(s) are kept with complete=false")

    def _num(self, n: int, s: str) -> float:
        try:
            return parse_number(s, self.decimal or ".")
        except ValueError:
            raise self.err(n, f"expected a number, got {s!r}") from None

    def _interval(self, r: _Round, n: int, kind: str, rest: str) -> None:
        assert r.header is not None
        values = _SPLIT.split(rest.rstrip(", "))
        if len(values) < len(r.header) and self.decimal != ",":
            # a value wider than its column loses the padding after the comma (`17.0,-31.25567`, the stderr
            # column): with a decimal point, any comma separates
            tight = re.split(r",\s*", rest.rstrip(", "))
            values = tight if len(tight) == len(r.header) else values
        if len(values) != len(r.header):
            raise self.err(n, f"expected {len(r.header)} values after '{kind}', found {len(values)}")
        if self.decimal is None and any("," in v for v in values):
            self.decimal = ","  # commas left inside values after splitting are decimal marks
        row: dict[str, Any] = {"round": r.index, "threads": r.threads, "type": kind}
        for name, v in zip(r.header, values, strict=True):
            col = COLUMNS.get(name)
            if col is None:
                self.report.count_unknown(f"cassandra-stress column {name}")
                continue
            x = self._num(n, v)
            row[col] = int(x) if col in ("total_ops", "errors") else x
        r.intervals.append(row)

    def _summary(self, r: _Round, n: int, line: str) -> None:
        m = _SUMMARY.match(line)
        if not m:
            raise self.err(n, f"expected 'name : value' in the Results block, got {line[:60]!r}")
        metric, text = m.group(1), m.group(2)
        if metric == "Total operation time":
            hms = _HMS.match(text)
            if not hms:
                raise self.err(n, f"expected hh:mm:ss, got {text!r}")
            secs = int(hms.group(1)) * 3600 + int(hms.group(2)) * 60 + int(hms.group(3))
            r.summary.append(self._srow(r, metric, float(secs), "s", None))
            r.finished = True
            return
        v = _VALUE.match(text)
        if not v:
            raise self.err(n, f"expected a number and unit for {metric!r}, got {text[:60]!r}")
        if self.decimal is None:
            self.decimal = guess_decimal([v.group(1)])
        unit = v.group(2)
        r.summary.append(self._srow(r, metric, self._num(n, v.group(1)), unit, None))
        for part in filter(None, (p.strip() for p in (v.group(3) or "").split(", "))):
            op, _, val = part.partition(":")
            pv = _VALUE.match(val.strip())
            if not pv:
                raise self.err(n, f"expected 'op: value' in brackets, got {part[:60]!r}")
            r.summary.append(self._srow(r, metric, self._num(n, pv.group(1)), pv.group(2) or unit, op.strip()))

    @staticmethod
    def _srow(r: _Round, metric: str, value: float, unit: str | None, op: str | None) -> dict[str, Any]:
        return {"round": r.index, "threads": r.threads, "metric": metric, "value": value, "unit": unit, "op": op}
