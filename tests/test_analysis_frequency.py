"""Counting modes of page_counts against literal brute-force versions of their rules; frequency of frequency."""

from collections import Counter

import numpy as np
import polars as pl
import pytest

from blkscope.analysis.popularity.frequency import by_hotness, frequency_of_frequency, page_counts
from blkscope.schemas import EVENTS, conform


def _events(seed: int, n: int = 3000) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return conform(
        pl.DataFrame(
            {
                "action": rng.choice(["Q", "D", "C"], n),
                "rwbs": rng.choice(["R", "W", "WS", "FWFS", "N"], n),
                "sector": rng.integers(0, 2048, n),
                "nsectors": rng.choice([0, 1, 2, 7, 8, 9, 15, 16, 17, 255, 256], n),
            }
        ),
        EVENTS,
    )


def _ssd_brute(df: pl.DataFrame) -> dict[str, Counter]:
    """The SSD study's rule, literally: one hit per 8-sector step from the first sector, C events only."""
    out = {"read": Counter(), "write": Counter(), "all": Counter()}
    for r in df.iter_rows(named=True):
        if r["action"] != "C" or not r["nsectors"]:
            continue
        op = "read" if "R" in r["rwbs"] else "write" if "W" in r["rwbs"] else None
        if op is None:
            continue
        for s in range(r["sector"], r["sector"] + r["nsectors"], 8):
            out[op][s // 8] += 1
            out["all"][s // 8] += 1
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_ssd_study_mode_matches_the_literal_rule(seed):
    df = _events(seed)
    got = page_counts(df.lazy(), mode="ssd-study")
    want = _ssd_brute(df)
    for op in ("read", "write", "all"):
        assert dict(got.filter(pl.col("op") == op).select("page", "count").iter_rows()) == dict(want[op])


@pytest.mark.parametrize(
    "sector,n,cover,ssd",
    [(0, 8, [0], [0]), (7, 2, [0, 1], [0]), (0, 9, [0, 1], [0, 1]), (4, 9, [0, 1], [0, 1]), (4, 16, [0, 1, 2], [0, 1])],
)
def test_the_two_rules_on_single_requests(sector, n, cover, ssd):
    df = conform(pl.DataFrame({"action": ["C"], "rwbs": ["W"], "sector": [sector], "nsectors": [n]}), EVENTS).lazy()
    for mode, want in (("cover", cover), ("ssd-study", ssd)):
        got = page_counts(df, mode=mode).filter(pl.col("op") == "write").sort("page")["page"].to_list()
        assert got == want, mode


def test_ssd_study_mode_refuses_other_events_and_unknown_modes():
    df = _events(3).lazy()
    with pytest.raises(ValueError):
        page_counts(df, action="D", mode="ssd-study")
    with pytest.raises(ValueError):
        page_counts(df, mode="sectors")


def test_d_events_are_counted_from_d_only():
    df = _events(4)
    got = page_counts(df.lazy(), action="D")
    only_d = page_counts(df.filter(pl.col("action") == "D").lazy(), action="D")
    assert got.equals(only_d) and got.height > 0


def test_frequency_of_frequency_adds_up():
    counts = page_counts(_events(5).lazy())
    fof = frequency_of_frequency(counts)
    for op in ("read", "write", "all"):
        g, c = fof.filter(pl.col("op") == op), counts.filter(pl.col("op") == op)
        assert g["pages"].sum() == c.height
        assert (g["count"] * g["pages"]).sum() == c["count"].sum()
        assert g["count"].is_sorted() and g["count"].n_unique() == g.height


@pytest.mark.parametrize("count_max", [9, 2**40])  # the second does not fit one 64-bit key with these pages
@pytest.mark.parametrize("groups", [["op"], ["op", "meta"]])
def test_by_hotness_is_the_sort_by_columns(count_max, groups):
    rng = np.random.default_rng(count_max)
    n = 5000
    df = pl.DataFrame({
        "op": rng.choice(["write", "all", "read"], n), "meta": rng.random(n) < 0.3,
        "page": rng.integers(0, 1 << 30, n), "count": rng.integers(1, count_max, n, endpoint=True),
    }).unique([*groups, "page"])  # fmt: skip
    cols = [*groups, "count", "page"]
    assert by_hotness(df, groups).equals(df.sort(cols, descending=[c == "count" for c in cols]))
    assert by_hotness(df.head(1), groups).equals(df.head(1))
