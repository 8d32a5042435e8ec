"""What every trace reader shares: the events table's columns beyond the contract (the native readers
write the same ones, native/src/parquet.rs). The text formats' sniffing helpers are in text_sniff.py."""

from __future__ import annotations

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

