"""A tool of the tests and the bench, not of the package: a trace's page accesses as one sequence, built in polars
independently of the native pass, and written in libCacheSim's oracleGeneral format, so libCacheSim (PyPI
`libcachesim`) simulates the same accesses our reuse profile (blkscope.analysis.characterise.reuse) sees: the parity
tests (test_reuse.py) and bench/characterise/lcs_mrc.py stand the two side by side.

Held in memory (8 bytes per access): for references and benches, not for the analyses of large traces.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

# oracleGeneral: u32 timestamp, u64 object id, u32 object size, i64 next access (-1: unknown), packed
ORACLE_GENERAL = np.dtype([("time", "<u4"), ("obj", "<u8"), ("size", "<u4"), ("next", "<i8")])


def page_sequence(events: Sequence[Path] | pl.LazyFrame, action: str = "C", page_kib: int = 4,
                  stream: str = "all") -> np.ndarray:  # fmt: skip
    """The page of every access in order: `action` events with data whose RWBS has R or W (stream: all, read
    (R), write (W without R)), stably sorted by time, each request's pages from floor(sector/S) to
    floor((sector+nsectors-1)/S) (S sectors per page) in ascending order."""
    from blkscope.parts import events_files

    lf = events if isinstance(events, pl.LazyFrame) else pl.scan_parquet([str(p) for p in events_files(events)])
    s = page_kib * 2
    rwbs = pl.col("rwbs")
    op = {"all": rwbs.str.contains("R") | rwbs.str.contains("W"), "read": rwbs.str.contains("R"),
          "write": ~rwbs.str.contains("R") & rwbs.str.contains("W")}[stream]  # fmt: skip
    df = (
        lf.filter((pl.col("action") == action) & (pl.col("nsectors") > 0) & pl.col("sector").is_not_null() & op)
        .select("time_ns", first=pl.col("sector") // s, last=(pl.col("sector") + pl.col("nsectors") - 1) // s)
        .sort("time_ns", maintain_order=True)
        .select(page=pl.int_ranges("first", pl.col("last") + 1))
        .explode("page")
        .collect()
    )
    return df["page"].to_numpy().astype(np.uint64)


def write_oracle_general(pages: np.ndarray, path: Path) -> Path:
    """One request per page access, object id = page, size 1, time = its index (libCacheSim reads sizes as
    given; with ReaderInitParam(ignore_obj_size=True) a cache of c holds c pages either way)."""
    a = np.zeros(pages.size, ORACLE_GENERAL)
    a["time"] = np.arange(pages.size, dtype=np.uint64).astype(np.uint32)
    a["obj"] = pages
    a["size"] = 1
    a["next"] = -1
    a.tofile(path)
    return path
