"""sysbench fileio output, 0.4.x and 1.0.x -> tables `sysbench_fileio` (+ `sysbench_intervals`).

A file may hold several invocations (prepare, run, cleanup, repeated); each starts with the
`sysbench <version>` banner and only `run` invocations give a row. sysbench 1.0 prints reads/s,
writes/s, fsyncs/s and MiB/s; 0.4 prints operation counts (`6000 Read, 4000 Write, 12800 Other`)
and volumes in `Mb` (MiB), so there reads_s, writes_s, read_mib_s and written_mib_s are those
totals divided by the total time, and fsyncs_s stays null (Other counts more than fsyncs).
A run must reach the end of its latency block; one that stops before (FATAL error, truncation) is an error.
1.0's `--report-interval` lines go to `sysbench_intervals`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from blkscope.errors import InputError
from blkscope.readers.numbers import parse_number
from blkscope.readers.textlines import cut_line, numbered_lines, unterminated
from blkscope.schemas import SYSBENCH_FILEIO, SYSBENCH_INTERVALS

if TYPE_CHECKING:
    from blkscope.io import Report, TableWriter

NUM = r"([-+]?\d[\d.,]*)"
_BANNER = re.compile(r"^sysbench (\d[\w.\-]*)")
_SNIFF = re.compile(rb"^sysbench \d[\w.\-]*[: ]", re.MULTILINE)
_FILEIO = re.compile(rb"^Extra file open flags|^Removing test files|^Creating files for the test", re.MULTILINE)
_MODES = {"sequential write (creation)": "seqwr", "sequential rewrite": "seqrewr", "sequential read": "seqrd",
          "random read": "rndrd", "random write": "rndwr", "random r/w": "rndrw"}
_UNIT_MIB = {"b": 1 / 1048576, "Kb": 1 / 1024, "Mb": 1.0, "Gb": 1024.0, "Tb": 1048576.0}
_TIME_MS = {"ms": 1.0, "s": 1000.0, "us": 0.001}

# (regex, field, kind): kind f = float, i = int, ms = float with time unit suffix
_FIELDS: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"^Number of threads:\s+(\d+)$"), "threads", "i"),
    (re.compile(rf"^reads/s:\s+{NUM}$"), "reads_s", "f"),
    (re.compile(rf"^writes/s:\s+{NUM}$"), "writes_s", "f"),
    (re.compile(rf"^fsyncs/s:\s+{NUM}$"), "fsyncs_s", "f"),
    (re.compile(rf"^read, MiB/s:\s+{NUM}$"), "read_mib_s", "f"),
    (re.compile(rf"^written, MiB/s:\s+{NUM}$"), "written_mib_s", "f"),
    (re.compile(rf"^total time:\s+{NUM}s$"), "total_time_s", "f"),
    (re.compile(r"^total number of events:\s+(\d+)$"), "total_events", "i"),
    (re.compile(rf"^min:\s+{NUM}(ms|s|us)?$"), "lat_min_ms", "ms"),
    (re.compile(rf"^avg:\s+{NUM}(ms|s|us)?$"), "lat_avg_ms", "ms"),
    (re.compile(rf"^max:\s+{NUM}(ms|s|us)?$"), "lat_max_ms", "ms"),
    (re.compile(rf"^(?:95th percentile|approx\.\s+95 percentile):\s+{NUM}(ms|s|us)?$"), "lat_p95_ms", "ms"),
    (re.compile(rf"^sum:\s+{NUM}$"), "lat_sum_ms", "f"),
    (re.compile(rf"^{NUM} Requests/sec executed$"), "requests_s", "f"),
]
_OPS04 = re.compile(r"^Operations performed:\s+(\d+) Reads?, (\d+) Writes?, (\d+) Other = (\d+) Total$")
_VOL04 = re.compile(rf"^Read {NUM}(b|Kb|Mb|Gb|Tb)\s+Written {NUM}(b|Kb|Mb|Gb|Tb)\s+Total transferred")
_INTERVAL = re.compile(
    rf"^\[\s*{NUM}s \] reads: {NUM} MiB/s writes: {NUM} MiB/s fsyncs: {NUM}/s latency \(ms,(\d+)%\): {NUM}$"
)
EXTRA = {"run": pl.Int64, "requests_s": pl.Float64, "lat_sum_ms": pl.Float64, "read_ops": pl.Int64,
         "write_ops": pl.Int64, "other_ops": pl.Int64, "line": pl.Int64}
SCHEMA = {**SYSBENCH_FILEIO, **EXTRA}
INTERVALS = SYSBENCH_INTERVALS


def sniff(head: bytes) -> bool:
    # the banner names no test; "Extra file open flags" is printed by fileio only (prepare and run)
    return bool(_SNIFF.search(head)) and bool(_FILEIO.search(head))


def read(inputs: list[Path], writer: TableWriter, report: Report) -> None:
    rows: list[dict[str, Any]] = []
    intervals: list[dict[str, Any]] = []
    for path in map(Path, inputs):
        _parse(path, report, rows, intervals)
    writer.write("sysbench_fileio", pl.DataFrame(rows, schema=SCHEMA))
    writer.write("sysbench_intervals", pl.DataFrame(intervals, schema=INTERVALS))


def _parse(path: Path, report: Report, rows: list[dict[str, Any]], intervals: list[dict[str, Any]]) -> None:
    version: str | None = None
    run: dict[str, Any] | None = None
    fatal: tuple[int, str] | None = None
    n = 0

    def close() -> None:
        if run is None:
            return
        # the latency block ends with "sum:" (1.0) or the 95th percentile (0.4): a run cut before is unfinished
        last = "lat_p95_ms" if str(run.get("version") or "").startswith("0.") else "lat_sum_ms"
        if run.get("total_time_s") is None or run.get(last) is None:
            at, why = fatal if fatal else (run["line"], "no results")
            raise InputError(path, f"line {at}", f"sysbench run that starts at line {run['line']} did not finish "
                             f"({why[:80]})")
        _derive_04(run)
        rows.append(run)

    for n, line, complete in numbered_lines(path, "sysbench fileio output"):
        text = line.strip()
        if m := _BANNER.match(text):
            close()
            run, fatal, version = None, None, m.group(1)
            report.versions.setdefault("sysbench", version)
            continue
        if text.startswith("Running the test with following options"):
            close()
            run = {"version": version, "run": len(rows), "line": n, "fatal": None}
            fatal = None
            continue
        if text.startswith("FATAL"):
            fatal = (n, text)
            continue
        if run is None:  # prepare / cleanup output, shell prompts: counted, as what a run holds and is not read
            if text:
                report.count_unknown("sysbench lines outside a run")
            continue
        if text.startswith("Doing ") and text.endswith(" test"):
            desc = text[len("Doing "):-len(" test")]
            run["test_mode"] = _MODES.get(desc, desc)
            continue
        if not complete:  # the file's last line, without a line end: parse a copy, keep it only if whole
            trial, trial_iv = dict(run), list(intervals)
            try:
                hit = (_field(path, n, text, trial) or _ops_04(path, n, text, trial)
                       or _interval(path, n, text, trial, trial_iv))
            except InputError as e:
                cut_line(report, path, n, f"does not read ({e.message})")
                continue
            if hit:
                run.update(trial)
                intervals[:] = trial_iv
                unterminated(report, path, n)
            elif text:
                report.count_unknown("sysbench lines not read")
            continue
        hit = _field(path, n, text, run) or _ops_04(path, n, text, run) or _interval(path, n, text, run, intervals)
        if not hit and text:
            report.count_unknown("sysbench lines not read")
    close()
    if not rows:
        raise InputError(path, f"line {n}", "no sysbench fileio run results found")
    for r in rows:
        r.pop("fatal", None)


def _num(path: Path, n: int, s: str) -> float:
    try:
        return parse_number(s)
    except ValueError:
        raise InputError(path, f"line {n}", f"expected a number, got {s!r}") from None


def _field(path: Path, n: int, text: str, run: dict[str, Any]) -> bool:
    for rx, name, kind in _FIELDS:
        if m := rx.match(text):
            if kind == "i":
                run[name] = int(m.group(1))
            elif kind == "ms":
                run[name] = _num(path, n, m.group(1)) * _TIME_MS[m.group(2) or "ms"]
            else:
                run[name] = _num(path, n, m.group(1))
            return True
    return False


def _ops_04(path: Path, n: int, text: str, run: dict[str, Any]) -> bool:
    if m := _OPS04.match(text):
        run["read_ops"], run["write_ops"], run["other_ops"] = int(m.group(1)), int(m.group(2)), int(m.group(3))
        return True
    if m := _VOL04.match(text):
        run["_read_mib"] = _num(path, n, m.group(1)) * _UNIT_MIB[m.group(2)]
        run["_written_mib"] = _num(path, n, m.group(3)) * _UNIT_MIB[m.group(4)]
        return True
    return False


def _interval(path: Path, n: int, text: str, run: dict[str, Any], out: list[dict[str, Any]]) -> bool:
    m = _INTERVAL.match(text)
    if not m:
        return False
    t, r, w, f, pct, lat = m.groups()
    out.append({"run": run["run"], "time_s": _num(path, n, t), "reads_mib_s": _num(path, n, r),
                "writes_mib_s": _num(path, n, w), "fsyncs_s": _num(path, n, f), "lat_pct": int(pct),
                "lat_pct_ms": _num(path, n, lat)})
    return True


def _derive_04(run: dict[str, Any]) -> None:
    """0.4 prints totals, not rates: divide by the total time (see module doc)."""
    t = run["total_time_s"]
    read_mib, written_mib = run.pop("_read_mib", None), run.pop("_written_mib", None)
    if run.get("reads_s") is None and run.get("read_ops") is not None and t:
        run["reads_s"] = run["read_ops"] / t
        run["writes_s"] = run["write_ops"] / t
    if run.get("read_mib_s") is None and read_mib is not None and t:
        run["read_mib_s"] = read_mib / t
        run["written_mib_s"] = written_mib / t
