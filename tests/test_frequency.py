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


def _native_events(tmp_path) -> dict[str, list]:
    """Events files blkscope-native wrote (the reader `blkscope-native pages` takes): the tracefs fixture whole and
    in three parts, and the embedded YCSB run of test_reuse where this checkout has it."""
    from test_reuse import FIXTURE, ROOT, YCSB_RUN, _ingest, _split

    from blkscope.parts import events_files

    out = {"fixture": [_ingest(FIXTURE, tmp_path / "fx")], "parts": events_files([_split(tmp_path)])}
    ycsb = ROOT / "data" / "raw" / YCSB_RUN / "trace.txt.zst"
    if ycsb.exists():
        out["ycsb"] = [_ingest(ycsb, tmp_path / "ycsb")]
    return out


def test_native_page_counts_equal_polars(tmp_path):
    """blkscope-native pages counts as page_counts does in polars, every mode, by class or not, and sorts its
    rows as by_hotness does: equal tables, row for row (a trace in parts: the parts' counts summed)."""
    from blkscope.analysis.popularity.frequency import MODES, native_page_counts

    want = [(m, by_meta) for m in MODES for by_meta in (False, True)]
    for name, files in _native_events(tmp_path).items():
        got = native_page_counts(files, 4, "C", want)
        assert got is not None, name
        lf = pl.concat([pl.scan_parquet(str(f)) for f in files])
        for (mode, by_meta), g in zip(want, got, strict=True):
            ref = page_counts(lf, mode=mode, by_meta=by_meta)
            assert ref.height > 0 and g.equals(ref), (name, mode, by_meta)
            assert page_counts(files, mode=mode, by_meta=by_meta).equals(ref)  # the native path, through page_counts
        assert native_page_counts(files, 4, "D", [("cover", True)])[0].equals(page_counts(lf, action="D", by_meta=True))
        with pytest.raises(ValueError, match="completions only"):  # as page_counts
            native_page_counts(files, 4, "D", [("ssd-study", False)])


def test_native_page_counts_refuse_other_parquet(tmp_path):
    """A file blkscope-native did not write: the program refuses it, and page_counts counts in polars."""
    from blkscope.analysis.popularity.frequency import native_page_counts

    df = _events(np.random.default_rng(2), 500)
    df.write_parquet(tmp_path / "events.parquet")
    assert native_page_counts([tmp_path / "events.parquet"], 4, "C", [("cover", False)]) is None
    assert page_counts([tmp_path / "events.parquet"]).equals(page_counts(df.lazy()))
