"""What every trace reader shares: the events table's columns beyond the contract (the native readers
write the same ones, native/src/parquet.rs) and the sniffing helpers of the text formats."""

from __future__ import annotations

import re

import polars as pl

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


def first_lines(head: bytes, n: int = 20) -> list[str]:
    """The first `n` non-empty, non-comment lines of a sniffed head (its last, maybe cut, line dropped)."""
    text = head.decode("utf-8", errors="replace")
    lines = text.splitlines()[:-1] if not text.endswith("\n") else text.splitlines()
    return [ln for ln in lines if ln.strip() and not ln.startswith("#")][:n]


def matches_any(lines: list[str], *patterns: str) -> bool:
    rxs = [re.compile(p) for p in patterns]
    return any(rx.match(ln) for rx in rxs for ln in lines)
