"""Page access counts against a brute-force count over every sector of every request."""

from collections import Counter

import numpy as np
import polars as pl
import pytest

from blkscope.analysis.popularity.frequency import hot_share, page_counts, rank_frequency, thin_ranks
from blkscope.schemas import EVENTS, conform


def _events(rng: np.random.Generator, n: int) -> pl.DataFrame:
    actions = rng.choice(["Q", "D", "C", "C", "C"], n)
    rwbs = rng.choice(["R", "RA", "W", "WS", "FWFS", "N", "D"], n)
    sector = rng.integers(0, 4096, n)
    nsectors = rng.choice([0, 1, 7, 8, 9, 16, 64, 255], n)
    return conform(
        pl.DataFrame({"action": actions, "rwbs": rwbs, "sector": sector, "nsectors": nsectors, "time_ns": range(n)}),
        EVENTS,
    )


def _brute(df: pl.DataFrame, page_kib: int, action: str) -> dict[str, Counter]:
    per = page_kib * 2
    out = {"read": Counter(), "write": Counter(), "all": Counter()}
    for r in df.iter_rows(named=True):
        if r["action"] != action or not r["nsectors"]:
            continue
        op = "read" if "R" in r["rwbs"] else "write" if "W" in r["rwbs"] else None
        if op is None:
            continue
        pages = {s // per for s in range(r["sector"], r["sector"] + r["nsectors"])}
        for p in pages:
            out[op][p] += 1
            out["all"][p] += 1
    return out


@pytest.mark.parametrize("page_kib,action", [(4, "C"), (16, "C"), (4, "D")])
def test_page_counts_match_brute_force(tmp_path, page_kib, action):
    df = _events(np.random.default_rng(page_kib), 3000)
    df.write_parquet(tmp_path / "events.parquet")
    got = page_counts([tmp_path / "events.parquet"], page_kib=page_kib, action=action)
    want = _brute(df, page_kib, action)
    for op in ("read", "write", "all"):
        g = dict(got.filter(pl.col("op") == op).select("page", "count").iter_rows())
        assert g == dict(want[op]), op


def test_request_spanning_a_page_boundary_counts_both_pages():
    df = conform(pl.DataFrame({"action": ["C"], "rwbs": ["W"], "sector": [7], "nsectors": [2]}), EVENTS)
    got = page_counts(df.lazy())
    assert sorted(got.filter(pl.col("op") == "write")["page"].to_list()) == [0, 1]
    assert got.filter(pl.col("op") == "read").height == 0


def test_rank_frequency_is_decreasing_and_thinning_keeps_ends():
    df = _events(np.random.default_rng(1), 5000)
    rank = rank_frequency(page_counts(df.lazy()))
    for _, g in rank.group_by("op"):
        c = g.sort("rank")["count"].to_numpy()
        assert (np.diff(c) <= 0).all()
        assert g["rank"].min() == 1 and g["rank"].max() == g.height
    thin = thin_ranks(rank, points=20)
    for (op,), g in thin.group_by("op"):
        full = rank.filter(pl.col("op") == op)
        assert g.height <= 21 and g["rank"].min() == 1 and g["rank"].max() == full.height


def test_hot_share_of_skewed_counts():
    counts = pl.DataFrame({"op": ["all"] * 100, "page": range(100), "count": [901] + [1] * 99})
    hs = hot_share(counts, top_fraction=0.01).row(0, named=True)
    assert hs["pages"] == 100 and hs["accesses"] == 1000
    assert hs["top_share"] == pytest.approx(0.901)
