"""Shared parsing of blkparse-style text: tracefs `blk` output and blkparse output print the same
action / RWBS / payload after their different prefixes, so both readers call `parse_payload` here.

Everything is vectorised over a polars column of lines; no per-line Python loop.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from blkscope.readers.textio import open_binary

# Extra columns of the events table beyond the contract (same names in every trace reader).
EVENT_EXTRAS: dict[str, pl.DataType] = {
    "remap_dev_major": pl.UInt32,  # A: the device the request came from
    "remap_dev_minor": pl.UInt32,
    "remap_sector": pl.Int64,  # A: the sector on that device
    "split_sector": pl.Int64,  # X: where the second half starts
    "unplug_count": pl.Int64,  # U/UT: requests released
    "pc_bytes": pl.Int64,  # SCSI packet-command events carry bytes, not sectors
    "cdb": pl.Utf8,
    "message": pl.Utf8,  # m: message text
    "cgroup_id": pl.UInt64,  # binary traces with the cgroup bit set
}

EVENT_COLUMNS = ["dev_major", "dev_minor", "cpu", "seq", "time_ns", "pid", "action", "rwbs", "sector", "nsectors",
                 "error", "process", *EVENT_EXTRAS]  # fmt: skip


def select_events(df: pl.DataFrame) -> pl.DataFrame:
    """Contract columns then EVENT_EXTRAS (missing extras as typed nulls): every trace reader writes this."""
    missing = [pl.lit(None, dt).alias(c) for c, dt in EVENT_EXTRAS.items() if c not in df.columns]
    casts = [pl.col(c).cast(dt) for c, dt in EVENT_EXTRAS.items() if c in df.columns]
    return df.with_columns(*missing, *casts).select(EVENT_COLUMNS)


# Long action names (tracefs `verbose` option) -> the short form blkparse prints.
LONG_ACTIONS = {
    "queue": "Q", "backmerge": "M", "frontmerge": "F", "getrq": "G", "sleeprq": "S", "requeue": "R",
    "issue": "D", "complete": "C", "plug": "P", "unplug_io": "U", "unplug_timer": "UT", "insert": "I",
    "split": "X", "bounce": "B", "remap": "A", "message": "m",
}  # fmt: skip
KNOWN_ACTIONS = frozenset(["Q", "M", "F", "G", "S", "R", "D", "C", "P", "U", "UT", "I", "X", "B", "A", "m",
                           "ZP", "ZU", "N"])  # fmt: skip
# Actions whose bracket holds the error code, not the command name (kernel blk_log_with_error, blkparse C).
ERROR_ACTIONS = ("C", "R")

# sector [+ n] [/ split] [<- (maj,min) from] [(cdb)] [[bracket]] [count]
PAYLOAD_RE = (
    r"^(?:(?P<a>\d+)(?: \+ (?P<n>\d+))?(?: / (?P<split>\d+))?"
    r"(?: <- \((?P<rmaj>\d+),(?P<rmin>\d+)\) (?P<rsec>\d+))? ?)?"
    r"(?:\((?P<cdb>[^)]*)\) ?)?(?:\[(?P<br>.*)\])?(?: (?P<cnt>\d+))?$"
)

PROGRESS_MIN = 64 << 20  # smaller inputs read in about a second: no bar
BLOCK_BYTES = 32 << 20  # ~400k lines per chunk: bounded memory, few enough chunks to amortise polars calls


def iter_blocks(path: str | Path, block_bytes: int = BLOCK_BYTES, bar=None) -> Iterator[tuple[int, bytes, int]]:
    """Yield (line number of the first line, bytes of whole lines each ending in a newline, number of lines)
    for `path`, decompressing transparently; a last line without newline gets one (it may be truncated)."""
    lineno = 1
    carry = b""
    with open_binary(path) as f:
        while True:
            block = f.read(block_bytes)
            if not block:
                break
            if bar is not None:
                bar.update(len(block))
            block = carry + block
            cut = block.rfind(b"\n")
            if cut < 0:
                carry = block
                continue
            carry = block[cut + 1 :]
            n = block.count(b"\n", 0, cut + 1)
            yield lineno, block[: cut + 1], n
            lineno += n
        if carry:
            yield lineno, carry + b"\n", carry.count(b"\n") + 1


def iter_line_chunks(path: str | Path, block_bytes: int = BLOCK_BYTES) -> Iterator[tuple[int, pl.Series]]:
    """Yield (line number of the first line, lines) for `path`, decompressing transparently."""
    for lineno, block, _ in iter_blocks(path, block_bytes):
        yield lineno, split_lines(block)


def split_lines(data: bytes) -> pl.Series:
    """Whole lines (ending in a newline) -> a Series of lines without line ends."""
    text = data.decode("utf-8", errors="replace")
    s = pl.Series("line", [text]).str.split("\n").explode()
    s = s.head(s.len() - 1)  # the text ends with "\n": drop the empty tail
    return s.str.strip_suffix("\r")


def parse_payload(df: pl.DataFrame) -> pl.DataFrame:
    """Columns `action` (short or long form) and `rest` (text after RWBS) -> event fields.

    Adds sector, nsectors, error, bracket (command name where the line prints one), the
    EVENT_EXTRAS columns and `payload_ok` (False where the payload did not parse).
    """
    act = pl.col("action").replace(LONG_ACTIONS)
    rest = pl.col("rest").str.strip_chars()
    g = rest.str.extract_groups(PAYLOAD_RE)
    is_msg = act == "m"
    is_pc = g.struct.field("cdb").is_not_null()
    br = g.struct.field("br")
    err_act = act.is_in(ERROR_ACTIONS)
    br_int = br.cast(pl.Int32, strict=False)
    a = g.struct.field("a").cast(pl.Int64)
    return df.with_columns(
        action=act,
        sector=pl.when(is_pc | is_msg).then(None).otherwise(a),
        nsectors=pl.when(is_msg).then(None).otherwise(g.struct.field("n").cast(pl.Int64)),
        error=pl.when(err_act).then(br_int).otherwise(None),
        bracket=pl.when(err_act & br_int.is_not_null()).then(None).otherwise(br),
        remap_dev_major=g.struct.field("rmaj").cast(pl.UInt32),
        remap_dev_minor=g.struct.field("rmin").cast(pl.UInt32),
        remap_sector=g.struct.field("rsec").cast(pl.Int64),
        split_sector=g.struct.field("split").cast(pl.Int64),
        unplug_count=g.struct.field("cnt").cast(pl.Int64),
        pc_bytes=pl.when(is_pc).then(a).otherwise(None),
        cdb=g.struct.field("cdb"),
        message=pl.when(is_msg).then(rest).otherwise(None),
        payload_ok=is_msg | g.struct.field("a").is_not_null() | br.is_not_null() | is_pc,
    )


def ns_from_parts(secs: pl.Expr, frac: pl.Expr) -> pl.Expr:
    """'123' and '4567' (of 123.4567 s) -> 123456700000 ns, exactly (no float rounding)."""
    return secs.cast(pl.Int64) * 1_000_000_000 + frac.str.pad_end(9, "0").str.slice(0, 9).cast(pl.Int64)


def progress(total: int | None, desc: str):
    """A byte-count progress bar on stderr for large inputs; silent when stderr is not a terminal."""
    import sys

    from tqdm import tqdm

    quiet = not sys.stderr.isatty() or (total is not None and total < PROGRESS_MIN)
    return tqdm(total=total, desc=desc, unit="B", unit_scale=True, file=sys.stderr, disable=quiet, leave=False)


def first_lines(head: bytes, n: int = 20) -> list[str]:
    """The first `n` non-empty, non-comment lines of a sniffed head (its last, maybe cut, line dropped)."""
    text = head.decode("utf-8", errors="replace")
    lines = text.splitlines()[:-1] if not text.endswith("\n") else text.splitlines()
    return [ln for ln in lines if ln.strip() and not ln.startswith("#")][:n]


def matches_any(lines: list[str], *patterns: str) -> bool:
    rxs = [re.compile(p) for p in patterns]
    return any(rx.match(ln) for rx in rxs for ln in lines)
