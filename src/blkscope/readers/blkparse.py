"""blkparse default text output -> events; its per-CPU and Total summary -> ingest.json (trace.summary).

Lines are split on whitespace, not fixed columns (sequence numbers past 10^8 and absolute timestamps
overflow blkparse's column widths): `  8,0  3  1  0.000000000  697  G  W 223490 + 8 [kjournald]`.
The action/RWBS/payload part is the tracefs one (readers/trace_text.py); the line-level driver is the
ftrace reader's, given this module's chunk parser.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from blkscope.readers import ftrace
from blkscope.readers.trace_text import first_lines, matches_any, ns_from_parts, parse_payload

LINE_RE = (
    r"^\s*(?P<maj>\d+),(?P<min>\d+)\s+(?P<cpu>\d+)\s+(?P<seq>\d+)\s+(?P<s>\d+)\.(?P<f>\d+)\s+(?P<pid>\d+)\s+"
    r"(?P<act>\S+)\s+(?P<rwbs>\S+)(?: (?P<rest>.*))?$"
)
HEAD = ["dev", "cpu", "seq", "time", "pid", "act", "rwbs"]  # tokens before the payload (text_fast)
# Summary section: `CPU0 (sda):`, `Total (sda):`, ` Reads Queued:  1,154,  4,616KiB  Writes Queued: ...`,
# `Throughput (R/W): 0KiB/s / 230KiB/s`, `Events (sda): 2,398 entries`, `Skips: ...`, `Input file ... added`.
SUMMARY_RE = r"^(?:CPU\d+ \(|Total \(| [A-Z][A-Za-z ]+:|Throughput|Events \(|Skips:|Input file |#|\s*$)"
NUM = r"(\d+(?:,\d{3})*)"  # thousands separators: 1,154
PAIR = re.compile(r"([A-Z][A-Za-z ]*?):\s+" + NUM + r"(?:,\s+" + NUM + r"KiB)?")


def sniff(head: bytes) -> bool:
    return matches_any(first_lines(head), LINE_RE)


def read(inputs: list[Path], writer, report) -> None:
    st = ftrace._State()
    summary: dict[str, dict[str, int]] = {}
    for path in inputs:
        lines: list[str] = []

        def parse(df: pl.DataFrame, lines=lines):
            return _parse_chunk(df, lines)

        ftrace._read_file(Path(path), writer, report, st, parse_chunk=parse, what="blkparse",
                          fast=(HEAD, "blkparse"))
        _summary(lines, summary)
    writer.ensure("events")
    report.trace.update(cpus_seen=sorted(st.cpus), sequence_numbers=True, summary=summary,
                        time_origin_s=None if st.origin is None else st.origin / 1e9)  # fmt: skip
    if st.before_origin:
        report.warn(f"{st.before_origin} events are earlier than the first event (negative time_ns)")


def _parse_chunk(df: pl.DataFrame, summary_lines: list[str]):
    df = df.with_columns(c=pl.col("line").str.extract_groups(LINE_RE))
    ok = pl.col("c").struct.field("maj").is_not_null()
    other = df.filter(~ok)
    is_summary = pl.col("line").str.contains(SUMMARY_RE)
    summary_lines.extend(other.filter(is_summary)["line"].to_list())  # small: a few lines per CPU
    unparsed = other.filter(~is_summary)["lineno"]
    ev = df.filter(ok).unnest("c").rename({"act": "action"}).with_columns(pl.col("rest").fill_null(""))
    lost = pl.DataFrame(schema={"cpu": pl.Int64, "n": pl.Int64})
    if ev.height == 0:
        return pl.DataFrame(), lost, unparsed
    ev = parse_payload(ev).with_columns(
        dev_major=pl.col("maj").cast(pl.UInt32),
        dev_minor=pl.col("min").cast(pl.UInt32),
        cpu=pl.col("cpu").cast(pl.UInt32),
        seq=pl.col("seq").cast(pl.Int64),
        pid=pl.col("pid").cast(pl.UInt32),
        abs_ns=ns_from_parts(pl.col("s"), pl.col("f")),
        process=pl.col("bracket"),
        layout=pl.lit("blkparse"),
    )
    return ev, lost, unparsed


def _summary(lines: list[str], out: dict[str, dict[str, int]]) -> None:
    section = None
    for ln in lines:
        m = re.match(r"^(CPU\d+|Total) \((.*)\):", ln)
        if m:
            section = f"{m[1]} ({m[2]})"
            out.setdefault(section, {})
            continue
        m = re.match(r"^Events \((.*)\): ([\d,]+) entries", ln)
        if m:
            out.setdefault(f"Total ({m[1]})", {})["Events"] = int(m[2].replace(",", ""))
            continue
        if section and ln.startswith(" "):
            for key, n, kib in PAIR.findall(ln):
                out[section][key.strip()] = int(n.replace(",", ""))
                if kib:
                    out[section][key.strip() + " KiB"] = int(kib.replace(",", ""))
