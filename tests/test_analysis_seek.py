"""Seek distances and sequentiality on hand-made streams."""

import polars as pl
import pytest

from blkscope.analysis import seek
from blkscope.schemas import EVENTS, conform


def _ev(rows):
    cols = ["time_ns", "action", "sector", "nsectors", "rwbs"]
    df = pl.DataFrame([dict(zip(cols, r, strict=True)) for r in rows])
    return conform(df.with_columns(dev_major=pl.lit(7), dev_minor=pl.lit(0)), EVENTS).lazy()


def test_distances_per_stream():
    ev = _ev([(0, "D", 0, 8, "W"), (1, "D", 1000, 8, "R"), (2, "D", 8, 8, "W"), (3, "D", 1008, 8, "R"),
              (4, "D", 0, 8, "W"), (5, "Q", 5, 5, "W")])  # fmt: skip
    d = seek.distances(ev)
    assert d.filter(pl.col("op") == "write")["distance"].to_list() == [None, 0, -16]
    assert d.filter(pl.col("op") == "read")["distance"].to_list() == [None, 0]
    assert d.filter(pl.col("op") == "all")["distance"].to_list() == [None, 992, -1000, 992, -1016]
    s = {r["op"]: r for r in seek.summary(d).iter_rows(named=True)}
    assert s["write"]["n"] == 2 and s["write"]["sequential_share"] == 0.5
    assert s["all"]["sequential_share"] == 0 and s["all"]["backward_share"] == 0.5
    assert s["all"]["mean_abs_sectors"] == pytest.approx(1000)
    assert 0 <= s["write"]["sequential_lo"] < 0.5 < s["write"]["sequential_hi"] <= 1


def test_histogram_buckets():
    ev = _ev([(i, "D", s, 1, "W") for i, s in enumerate([0, 1, 3, 7, 2])])  # distances 0, 1, 3, -6
    h = seek.histogram(seek.distances(ev)).filter(pl.col("op") == "all")
    assert dict(h.select("bucket", "count").iter_rows()) == {0: 1, 1: 1, 2: 1, -3: 1}
