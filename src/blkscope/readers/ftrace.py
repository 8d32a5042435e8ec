"""tracefs `blk` tracer text (trace_pipe or the `trace` file) -> events.

Two layouts, both produced by the kernel (kernel/trace/blktrace.c):
- classic (trace_options blk_classic): `  7,0    1   583.245661688  9971  Q  RM 2128 + 8 [fio]`
  (dev, cpu, seconds.nanoseconds, pid, action, rwbs, payload; no sequence number);
- non-classic: the ftrace prefix `fio-10145 [001] d..1. 586.694868:` (task, pid, cpu, flags, time in
  the trace clock's resolution, usually microseconds), then `7,0 [cgroup] Q RM 2128 + 8 [fio]`.
The payload is shared with blkparse text (readers/trace_text.py). trace_pipe reports overruns as
`CPU:1 [LOST 42 EVENTS]`; those counts go to ingest.json (trace.lost_events).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from blkscope.errors import InputError
from blkscope.readers import text_fast
from blkscope.readers.trace_text import (
    KNOWN_ACTIONS,
    first_lines,
    iter_blocks,
    matches_any,
    ns_from_parts,
    parse_payload,
    progress,
    select_events,
    split_lines,
)

CLASSIC_RE = r"^\s*(?P<maj>\d+),(?P<min>\d+)\s+(?P<cpu>\d+)\s+(?P<s>\d+)\.(?P<f>\d+)\s+(?P<pid>\d+)\s+" \
    r"(?P<act>\S+)\s+(?P<rwbs>\S+)(?: (?P<rest>.*))?$"  # fmt: skip
NONCLASSIC_RE = (
    r"^\s*(?P<task>.*?)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(?P<cpu>\d+)\]\s+(?:[^\s:]+\s+)?"
    r"(?P<s>\d+)\.(?P<f>\d+):\s+(?P<maj>\d+),(?P<min>\d+)\s+(?:(?P<cg>/\S*|\[[^\]]*\])\s+)?"
    r"(?P<act>\S+)\s+(?P<rwbs>\S+)(?: (?P<rest>.*))?$"
)
LOST_RE = r"^CPU:(?P<cpu>\d+) \[LOST (?P<n>\d+) EVENTS\]"
# Lines that carry no event and are not an error: comments/headers, buffer-start markers, blank lines.
IGNORED_RE = r"^(?:#|\s*$|##### CPU \d+ buffer started ####)"
EXAMPLES = "'7,0 1 12.345678901 1234 Q W 2048 + 8 [fio]' or 'fio-1234 [001] .... 12.345678: 7,0 Q W 2048 + 8 [fio]'"
MAX_LISTED = 5  # line numbers named in a warning
CLASSIC_HEAD = ["dev", "cpu", "time", "pid", "act", "rwbs"]  # tokens before the payload (text_fast)
NO_LOST = pl.DataFrame(schema={"cpu": pl.Int64, "n": pl.Int64})


def sniff(head: bytes) -> bool:
    if b"# tracer: blk" in head[:4096]:
        return True
    return matches_any(first_lines(head), CLASSIC_RE, NONCLASSIC_RE)


def read(inputs: list[Path], writer, report) -> None:
    state = _State()
    for path in inputs:
        _read_file(Path(path), writer, report, state)
    writer.ensure("events")
    report.trace.update(
        cpus_seen=sorted(state.cpus),
        lost_events={str(k): v for k, v in sorted(state.lost.items())},
        sequence_numbers=False,
        layouts=sorted(state.layouts),
        time_origin_s=None if state.origin is None else state.origin / 1e9,
    )
    if state.lost:
        report.warn(f"tracefs reported {sum(state.lost.values())} lost events (buffer overruns): see trace.lost_events")
    if state.before_origin:
        report.warn(f"{state.before_origin} events are earlier than the first event (negative time_ns)")


class _State:
    def __init__(self) -> None:
        self.origin: int | None = None
        self.cpus: set[int] = set()
        self.lost: dict[int, int] = {}
        self.layouts: set[str] = set()
        self.before_origin = 0


def _read_file(path: Path, writer, report, st: _State, parse_chunk=None, what: str = "tracefs blk",
               fast: tuple[list[str], str] | None = (CLASSIC_HEAD, "classic")) -> None:
    """Shared by the blkparse text reader, which passes its own `parse_chunk` (same return contract) and
    `fast` (the token names before the payload, layout name) for the fast path of readers/text_fast.py."""
    parse_chunk = parse_chunk or _parse_chunk
    events = lines_seen = 0
    bad: list[int] = []
    nbad = 0
    with progress(_size(path), what) as bar:
        for lineno, block, n in iter_blocks(path, bar=bar):
            ev, lost, unparsed = _chunk(block, lineno, n, parse_chunk, fast)
            lines_seen += n
            for cpu, k in lost.iter_rows():
                st.lost[cpu] = st.lost.get(cpu, 0) + k
            if unparsed.len():
                nbad += unparsed.len()
                bad.extend(unparsed.head(max(0, MAX_LISTED - len(bad))).to_list())
            if ev.height == 0:
                continue
            events += ev.height
            _events(ev, path, writer, report, st)
    if lines_seen == 0:
        raise InputError(path, None, f"empty file: expected {what} output")
    if events == 0:
        where = f"line {bad[0]}" if bad else None
        hint = f" (expected e.g. {EXAMPLES})" if what == "tracefs blk" else ""
        raise InputError(path, where, f"no {what} events{hint}")
    if nbad:
        report.count_unknown("unparsed line", nbad)
        report.warn(f"{path}: {nbad} lines not understood (skipped), first at line(s) {', '.join(map(str, bad))}")


def _size(path: Path) -> int | None:
    with open(path, "rb") as f:
        plain = not f.read(6).startswith((b"\x28\xb5\x2f\xfd", b"\x1f\x8b", b"\xfd7zXZ"))
    return path.stat().st_size if plain else None


def _chunk(block: bytes, lineno: int, n: int, parse_chunk, fast) -> tuple[pl.DataFrame, pl.DataFrame, pl.Series]:
    """(events, lost counts, unparsed line numbers) of one block of `n` lines: common lines through the
    fast path, the others (and whole blocks it cannot split) through `parse_chunk`."""
    got = text_fast.split(block, fast[0], lineno, n) if fast else None
    if got is None:
        lines = split_lines(block)
        return parse_chunk(pl.DataFrame({"line": lines}).with_row_index("lineno", offset=lineno))
    ev, rest = got
    ev = ev.with_columns(layout=pl.lit(fast[1]))
    if rest.size == 0:
        return ev, NO_LOST, pl.Series("lineno", [], pl.UInt32)
    lines = split_lines(block).gather(rest - lineno)
    other, lost, unparsed = parse_chunk(pl.DataFrame({"lineno": pl.Series(rest).cast(pl.UInt32), "line": lines}))
    if other.height:
        ev = pl.concat([ev, other], how="diagonal_relaxed").sort("lineno")
    return ev, lost, unparsed


def _events(ev: pl.DataFrame, path: Path, writer, report, st: _State) -> None:
    st.layouts.update(ev["layout"].unique().to_list())
    if st.origin is None:
        st.origin = int(ev["abs_ns"][0])
    ev = ev.with_columns(time_ns=pl.col("abs_ns") - st.origin)
    st.before_origin += int((ev["time_ns"] < 0).sum())
    st.cpus.update(ev["cpu"].unique().to_list())
    unknown_act = ev.filter(~pl.col("action").is_in(KNOWN_ACTIONS))["action"].value_counts()
    for act, n in unknown_act.iter_rows():
        report.count_unknown(f"action {act}", n)
    nopay = ev.filter(~pl.col("payload_ok"))
    if nopay.height:
        report.count_unknown("unparsed payload", nopay.height)
        report.warn(f"{path}: line {nopay['lineno'][0]}: payload not understood: {nopay['rest'][0]!r}")
    writer.write("events", select_events(ev))


def _parse_chunk(df: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame, pl.Series]:
    """-> (events of this chunk, lost-event counts per CPU, line numbers not understood)."""
    df = df.with_columns(c=pl.col("line").str.extract_groups(CLASSIC_RE))
    classic = df.filter(pl.col("c").struct.field("maj").is_not_null()).unnest("c")
    other = df.filter(pl.col("c").struct.field("maj").is_null()).drop("c")
    frames = []
    if classic.height:
        frames.append(classic.with_columns(task=pl.lit(None, pl.Utf8), cg=pl.lit(None, pl.Utf8),
                                           layout=pl.lit("classic")))  # fmt: skip
    if other.height:
        other = other.with_columns(c=pl.col("line").str.extract_groups(NONCLASSIC_RE))
        nc = other.filter(pl.col("c").struct.field("maj").is_not_null()).unnest("c")
        if nc.height:
            frames.append(nc.with_columns(layout=pl.lit("nonclassic")))
        other = other.filter(pl.col("c").struct.field("maj").is_null()).drop("c")
    cols = ["lineno", "maj", "min", "cpu", "s", "f", "pid", "act", "rwbs", "rest", "task", "cg", "layout"]
    ev = pl.concat([f.select(cols) for f in frames]).sort("lineno") if frames else None

    lost = other.select(pl.col("line").str.extract_groups(LOST_RE).alias("g")).unnest("g").drop_nulls()
    lost = lost.select(pl.col("cpu").cast(pl.Int64), pl.col("n").cast(pl.Int64)).group_by("cpu").agg(pl.col("n").sum())
    unparsed = other.filter(~pl.col("line").str.contains(IGNORED_RE) & ~pl.col("line").str.contains(LOST_RE))["lineno"]
    if ev is None:
        return pl.DataFrame(), lost, unparsed

    ev = parse_payload(ev.rename({"act": "action"}).with_columns(pl.col("rest").fill_null("")))
    # The task name of the prefix is the process; classic lines only name it in brackets. ftrace shows
    # `<...>` when the pid's name was not saved: then fall back to the bracket.
    task = pl.when(pl.col("task").is_null() | (pl.col("task") == "<...>")).then(None).otherwise(pl.col("task"))
    ev = ev.with_columns(
        dev_major=pl.col("maj").cast(pl.UInt32),
        dev_minor=pl.col("min").cast(pl.UInt32),
        cpu=pl.col("cpu").cast(pl.UInt32),
        seq=pl.lit(None, pl.Int64),
        pid=pl.col("pid").cast(pl.UInt32),
        abs_ns=ns_from_parts(pl.col("s"), pl.col("f")),
        process=pl.coalesce(task, pl.col("bracket")),
    )
    return ev, lost, unparsed
