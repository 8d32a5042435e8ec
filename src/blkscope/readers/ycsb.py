"""YCSB client output, 0.1.x to 0.17 -> tables `ycsb_summary` and `ycsb_series`.

Summary lines `[SECTION], metric, value` are kept as printed (every section, hyphenated ones
such as READ-MODIFY-WRITE, *-FAILED and Intended-* included; histogram buckets and timeseries
points are metrics named `0`, `1`, `>1000`; Return=OK and Return=0 likewise). `-s` status lines
(`... 10 sec: 1234 operations; 123.4 current ops/sec; [READ: Count=.., Avg=..] ...`) become one
series row per bracketed statistic. A `Command line:` line starts a run; its `-load` or `-t`
gives the phase (load, run), unless it names one with `-p blkscope.phase=NAME` (blkscope's captures
name their read-only phase `read` so: it is a `-t` run as workload A's is). Everything else (banner,
DBWrapper, exceptions, GC logs) is tolerated anywhere and counted. A run without an [OVERALL] block
did not finish: that is an error. A summary that the end of the file cuts between two lines is kept
with a warning counting what is missing: an operation the last status line names without a section, or a
last section with fewer metrics than its siblings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from blkscope.errors import InputError
from blkscope.readers.numbers import parse_any
from blkscope.readers.textlines import cut_line, numbered_lines, unterminated
from blkscope.schemas import YCSB_SERIES, YCSB_SUMMARY

if TYPE_CHECKING:
    from blkscope.io import Report, TableWriter

_SUMMARY = re.compile(r"^\[([^\]]+)\], (.+), (\S+)\s*$")
_STATUS = re.compile(
    r"^(?:(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}) )?\s*(\d+) sec: (\d+) operations;"
    r"(?: (\S+) current ops/sec;)?(?: est completion in [^\[]*)?\s*(.*?)\s*$"
)
_BRACKET = re.compile(r"\[([^\]]*)\]")
_COMMAND = re.compile(r"^Command line:(.*)$")
_VERSION = re.compile(r"YCSB Client (\S+)")
_SNIFF = re.compile(rb"YCSB Client \d|^Command line: .*-db |^\[OVERALL\], RunTime", re.MULTILINE)
# operations measured by YCSB's DB wrapper, which counts each call's status in Return= lines
_DB_CALLS = {"READ", "UPDATE", "INSERT", "DELETE", "SCAN"}
SUMMARY_SCHEMA = {**YCSB_SUMMARY, "run": pl.Int64}
SERIES_SCHEMA = {**YCSB_SERIES, "run": pl.Int64, "phase": pl.Utf8, "time": pl.Utf8}


def sniff(head: bytes) -> bool:
    return bool(_SNIFF.search(head))


@dataclass
class _Run:
    index: int
    phase: str | None
    start_line: int
    summary: list[dict[str, Any]] = field(default_factory=list)
    series: list[dict[str, Any]] = field(default_factory=list)
    overall: bool = False
    last_section: str | None = None
    status_sections: list[str] = field(default_factory=list)  # operations named by the latest status line


def read(inputs: list[Path], writer: TableWriter, report: Report) -> None:
    run_no = 0
    for path in map(Path, inputs):
        runs = _parse(path, report, run_no)
        run_no += len(runs)
        for r in runs:
            if not r.overall:
                raise InputError(path, f"line {r.start_line}",
                                 "this YCSB run did not finish: no [OVERALL] block follows it")
            writer.write("ycsb_summary", pl.DataFrame(r.summary, schema=SUMMARY_SCHEMA))
            writer.write("ycsb_series", pl.DataFrame(r.series, schema=SERIES_SCHEMA))
    writer.ensure("ycsb_summary")
    writer.ensure("ycsb_series")


def _phase(args: str) -> str | None:
    words = args.split()
    named = [w.partition("=")[2] for w in words if w.startswith("blkscope.phase=")]
    if named and named[-1]:
        return named[-1]
    if "-load" in words:
        return "load"
    if "-t" in words:
        return "run"
    return None


def _parse(path: Path, report: Report, first_index: int) -> list[_Run]:
    runs: list[_Run] = []
    cur: _Run | None = None
    for n, line, complete in numbered_lines(path, "YCSB client output"):
        if m := _COMMAND.match(line):
            cur = _Run(first_index + len(runs), _phase(m.group(1)), n)
            runs.append(cur)
            continue
        if m := _VERSION.search(line):
            report.versions.setdefault("ycsb", m.group(1))
            continue
        sm = _SUMMARY.match(line)
        st = None if sm else _STATUS.match(line)
        if not (sm or st):
            if not complete and line.startswith("["):  # a summary line cut before its value
                cut_line(report, path, n, "is not a whole [SECTION], metric, value line")
                continue
            report.count_unknown("ycsb lines not from the client's report")
            continue
        if cur is None or (sm and sm.group(1) == "OVERALL" and cur.overall and cur.last_section != "OVERALL"):
            cur = _Run(first_index + len(runs), None, n)  # output without a command line, or a second report
            runs.append(cur)
        try:
            if sm:
                _summary_line(path, n, sm, cur)
            else:
                _status_line(path, n, st, cur)
        except InputError as e:
            if complete:
                raise
            cut_line(report, path, n, f"does not read ({e.message})")
            continue
        if not complete:
            unterminated(report, path, n)
    if not runs:
        raise InputError(path, "line 1", "no YCSB report found (no Command line:, status or [SECTION] lines)")
    if runs[-1].overall:
        _cut_summary(path, report, runs[-1])
    return runs


def _cut_summary(path: Path, report: Report, run: _Run) -> None:
    """YCSB prints its summary in one go at the end, so only the file's last run can be cut inside it: warn
    when an operation of the last status line has no section, the last section lacks metrics that every
    other section of its kind (plain or Intended-) prints, or it is a database call whose Return= counts do
    not add up to its Operations. Histogram buckets vary in number."""
    metrics: dict[str, list[str]] = {}
    returned: dict[str, float] = {}
    for r in run.summary:
        m = r["metric"]
        if m.startswith("Return="):
            returned[r["section"]] = returned.get(r["section"], 0) + r["value"]
        elif not (m[:1].isdigit() or m.startswith(">")):
            metrics.setdefault(r["section"], []).append(m)
    ops = [s for s in metrics if "Operations" in metrics[s]]
    missing = [s for s in run.status_sections if s not in metrics]
    last = run.last_section or ""
    kind = [s for s in ops if s != last and s.startswith("Intended-") == last.startswith("Intended-")]
    want = max((metrics[s] for s in kind), key=len, default=[])
    lacking = [m for m in want if m not in metrics.get(last, [])]
    operations = next((r["value"] for r in run.summary if r["section"] == last and r["metric"] == "Operations"), 0)
    if last in _DB_CALLS and returned.get(last, 0) < operations:
        lacking.append(f"Return= lines for {operations - returned.get(last, 0):g} operations")
    if missing or (last != "OVERALL" and lacking):
        what = [f"{len(missing)} section(s) the last status line names ({', '.join(missing)})"] if missing else []
        what += [f"{len(lacking)} metric(s) of section {last} ({', '.join(lacking)})"] if lacking else []
        report.warn(f"{path}: line {run.start_line}: the summary of this run ends with the file and lacks "
                    f"{' and '.join(what)}: the file looks cut; the {len(run.summary)} summary rows read are kept")


def _num(path: Path, n: int, text: str) -> float:
    try:
        return parse_any(text)
    except ValueError:
        raise InputError(path, f"line {n}", f"expected a number, got {text!r}") from None


def _summary_line(path: Path, n: int, m: re.Match[str], run: _Run) -> None:
    section, metric, value = m.group(1), m.group(2).strip(), m.group(3)
    if section == "OVERALL":
        run.overall = True
    run.last_section = section
    run.summary.append({"phase": run.phase, "section": section, "metric": metric,
                        "value": _num(path, n, value), "run": run.index})


def _status_line(path: Path, n: int, m: re.Match[str], run: _Run) -> None:
    time, secs, ops, rate, rest = m.groups()
    ops_per_s = None if rate in (None, "∞", "NaN", "Infinity") else _num(path, n, rate)
    base = {"elapsed_s": float(secs), "operations": int(ops), "ops_per_s": ops_per_s, "run": run.index,
            "phase": run.phase, "time": time}
    stats = list(_bracket_stats(path, n, rest))
    run.status_sections = list(dict.fromkeys(s for s, _, _ in stats))
    if not stats:
        run.series.append({**base, "section": None, "stat": None, "value": None})
    for section, stat, value in stats:
        run.series.append({**base, "section": section, "stat": stat, "value": value})


def _bracket_stats(path: Path, n: int, rest: str):
    """[READ: Count=66, Avg=1431.91, 99=5379] (HdrHistogram) or [READ AverageLatency(us)=750] (older)."""
    leftover = _BRACKET.sub("", rest).strip()
    if leftover:
        raise InputError(path, f"line {n}", f"unexpected text in a status line: {leftover[:60]!r}")
    for content in _BRACKET.findall(rest):
        head, sep, body = content.partition(": ")
        if not sep:
            head, _, body = content.partition(" ")
        for pair in filter(None, (p.strip() for p in body.split(", "))):
            stat, eq, value = pair.partition("=")
            if not eq:
                raise InputError(path, f"line {n}", f"expected stat=value in [{content[:60]}]")
            yield head.strip(), stat, _num(path, n, value)
