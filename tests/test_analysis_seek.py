"""Seek distances and sequentiality on hand-made streams."""

import polars as pl
import pytest

from blkscope.analysis.timing import seek
from blkscope.schemas import EVENTS, conform


def _ev(rows):
    cols = ["time_ns", "action", "sector", "nsectors", "rwbs"]
    df = pl.DataFrame([dict(zip(cols, r, strict=True)) for r in rows])
    return conform(df.with_columns(dev_major=pl.lit(7), dev_minor=pl.lit(0)), EVENTS).lazy()


def test_distances_per_stream():
    ev = _ev([(0, "D", 0, 8, "W"), (1, "D", 1000, 8, "R"), (2, "D", 8, 8, "W"), (3, "D", 1008, 8, "R"),
              (4, "D", 0, 8, "W"), (5, "Q", 5, 5, "W")])  # fmt: skip
    d = seek.distances(ev).filter(pl.col("class") == "all")  # no request marked M: class data is the same
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
    h = seek.histogram(seek.distances(ev)).filter((pl.col("op") == "all") & (pl.col("class") == "all"))
    assert dict(h.select("bucket", "count").iter_rows()) == {0: 1, 1: 1, 2: 1, -3: 1}


def test_handmade_distances_per_class():
    # data writes at 0 and 8 (sequential), metadata writes (WM) at 500 and 508 (sequential), a metadata read at
    # 100: interleaved, no request continues the one before it; each class on its own is sequential
    ev = _ev([(0, "D", 0, 8, "W"), (1, "D", 500, 8, "WM"), (2, "D", 8, 8, "W"), (3, "D", 508, 8, "WM"),
              (4, "D", 100, 8, "RM")])  # fmt: skip
    d = seek.distances(ev)

    def of(op, cls):
        return d.filter((pl.col("op") == op) & (pl.col("class") == cls))["distance"].to_list()

    assert of("write", "data") == of("write", "meta") == of("all", "data") == [None, 0]
    assert of("read", "meta") == of("read", "all") == [None] and of("read", "data") == []
    assert of("all", "meta") == [None, 0, 100 - 516]  # the read from the end of the last metadata write
    assert of("write", "all") == [None, 492, -500, 492]
    assert of("all", "all") == [None, 492, -500, 492, -416]
    s = {(r["op"], r["class"]): r for r in seek.summary(d).iter_rows(named=True)}
    assert (s["write", "meta"]["n"], s["write", "meta"]["sequential_share"]) == (1, 1.0)
    assert (s["all", "meta"]["n"], s["all", "meta"]["sequential_share"], s["all", "meta"]["backward_share"]) == (
        2, 0.5, 0.5)  # fmt: skip
    assert (s["all", "all"]["sequential_share"], s["write", "all"]["sequential_share"]) == (0.0, 0.0)
    h = seek.histogram(d).filter((pl.col("op") == "all") & (pl.col("class") == "meta"))
    assert dict(h.select("bucket", "count").iter_rows()) == {0: 1, -9: 1}  # |-416| in 256..511
    # the windowed pass gives the same rows, in the same order
    summ, hist = seek.summarise(ev, rows_per_window=2)
    assert summ.equals(seek.summary(d)) and hist.equals(seek.histogram(d))
    assert summ.select("op", "class").rows()[:3] == [("write", "data"), ("write", "meta"), ("read", "meta")]


def test_windowed_pass_over_a_file_with_a_window_of_discards_alone(tmp_path):
    # windows of ~2 events over 0..70 ns: the one of [30, 50) holds discards (RWBS D: neither read nor write)
    # alone, which op all counts and the read/write streams skip; the ends carry across every window
    rows = [(0, "D", 0, 8, "W"), (10, "D", 8, 8, "W"), (20, "D", 100, 8, "R"), (35, "D", 300, 8, "D"),
            (40, "D", 308, 8, "D"), (55, "D", 16, 8, "W"), (60, "D", 108, 8, "RM"), (70, "D", 24, 8, "W")]  # fmt: skip
    f = tmp_path / "events.parquet"
    _ev(rows).collect().write_parquet(f, row_group_size=2)
    summ, hist = seek.summarise([f], rows_per_window=2)
    d = seek.distances(_ev(rows))
    assert summ.equals(seek.summary(d)) and hist.equals(seek.histogram(d))
    assert d.filter((pl.col("op") == "write") & (pl.col("class") == "all"))["distance"].to_list() == [None, 0, 0, 0]
