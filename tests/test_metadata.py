"""Metadata (M in RWBS) against data in the page access frequency (blkscope.analysis.characterise.metadata, `blkscope
metadata`, `blkscope metadata-vs-data`): hand-counted shares, agreement with the access frequency's hot share on
real traces, the cross-run table."""

from pathlib import Path

import polars as pl
import pytest

from blkscope.analysis.characterise import metadata as md
from blkscope.analysis.popularity import frequency
from blkscope.cli import main
from blkscope.schemas import EVENTS, METADATA_HOT, conform

ROOT = Path(__file__).resolve().parents[1]
GUEST_EXT4 = "guest-ext4-ycsb-workloada-zipfian-small-r1"  # real blktrace; ext4 marks some writes M
HOST_BTRFS = "host-btrfs-ycsb-workloada-zipfian-sat-r1"  # tracefs text; btrfs metadata writes marked M


def _events(rows: list[tuple]) -> pl.LazyFrame:
    df = pl.DataFrame(rows, schema=["time_ns", "action", "rwbs", "sector", "nsectors"], orient="row")
    return conform(df, EVENTS).lazy()


def _handmade() -> list[tuple]:
    # page 0: 5 metadata reads + 1 data write; page 1: 3 data reads; pages 2..9: one data read each;
    # page 10: two metadata writes (a 2-page request at sector 80 also covers page 11 once)
    rows = [(t, "C", "RM", 0, 8) for t in range(5)] + [(5, "C", "W", 0, 8)]
    rows += [(6 + t, "C", "R", 8, 8) for t in range(3)] + [(10 + p, "C", "RS", 8 * p, 8) for p in range(2, 10)]
    return rows + [(30, "C", "WSM", 80, 16), (31, "C", "WM", 80, 8), (32, "Q", "RM", 0, 8), (33, "C", "FN", 0, 0)]


def test_handmade_hot_pages_and_their_metadata_share():
    rows = _handmade()
    h = {r["op"]: r for r in md.hot(md.counts(_events(rows))).iter_rows(named=True)}
    a = h["all"]  # 12 pages, 20 accesses; top 1 %: ceil(0.12) = 1 page, page 0 (6 accesses, 5 of them metadata)
    assert (a["pages"], a["accesses"], a["meta_accesses"], a["meta_pages"]) == (12, 20, 8, 3)
    assert (a["hot_pages"], a["hot_accesses"], a["hot_share"], a["hot_meta_share"]) == (1, 6, 6 / 20, 5 / 6)
    assert a["meta_share"] == 8 / 20
    # metadata alone: pages 0 (5), 10 (2), 11 (1): top page 0 -> 5/8; data alone: 10 pages, top page 1 (3 of 12)
    assert (a["meta_top_share"], a["data_top_share"]) == (5 / 8, 3 / 12)
    r = h["read"]  # 10 pages, 16 accesses; hot: page 0 (5 metadata reads)
    assert (r["pages"], r["accesses"], r["hot_share"], r["hot_meta_share"]) == (10, 16, 5 / 16, 1.0)
    w = h["write"]  # pages 0 (1 data), 10 (2 metadata), 11 (1 metadata): hot page 10
    assert (w["hot_accesses"], w["hot_meta_share"], w["data_top_share"]) == (2, 1.0, 1.0)
    rank = md.rank(md.counts(_events(rows)))
    assert rank.filter((pl.col("op") == "all") & (pl.col("class") == "meta"))["count"].to_list() == [5, 2, 1]


def test_handmade_cover_counts_are_the_classes_summed():
    """The workflow's access_frequency job takes the cover mode's counts from the metadata's, summed over the class
    (frequency.summed_over_class): the table counting again gives. Page 0 has both classes under op all (5 metadata
    reads, 1 data write: 6); a trace without metadata has nothing to sum."""
    for rows in (_handmade(), [(1, "C", "W", 0, 8), (2, "C", "W", 8, 16), (3, "C", "R", 8, 8)]):
        by_class = md.counts(_events(rows))
        assert frequency.summed_over_class(by_class).equals(frequency.page_counts(_events(rows)))
        unsorted = frequency.summed_over_class(by_class, sort=False)
        assert frequency.by_hotness(unsorted).equals(frequency.page_counts(_events(rows)))
    summed = frequency.summed_over_class(md.counts(_events(_handmade())))
    assert summed.filter((pl.col("op") == "all") & (pl.col("page") == 0))["count"].to_list() == [6]


def test_handmade_no_metadata_and_no_reads_say_why():
    h = md.hot(md.counts(_events([(1, "C", "W", 0, 8), (2, "C", "W", 8, 8)])))
    notes = dict(zip(h["op"], h["note"], strict=True))
    assert notes["read"] == "no C reads with data (sector, nsectors > 0) in the trace"
    assert notes["write"].startswith("no request marked metadata (M in RWBS)")
    row = h.filter(pl.col("op") == "read").row(0, named=True)
    assert row["accesses"] == 0 and row["hot_share"] is None and row["hot_meta_share"] is None
    assert h.schema == pl.Schema(METADATA_HOT)


@pytest.mark.parametrize("run", [GUEST_EXT4, HOST_BTRFS])
def test_hot_share_is_the_access_frequencys(run, tmp_path):
    raw = ROOT / "data" / "raw" / run
    src = raw / "blktrace" if (raw / "blktrace").exists() else raw / "trace.txt.zst"
    if not src.exists():
        pytest.skip("embedded run not in this checkout")
    ev = tmp_path / run / "trace"
    assert main(["ingest", str(src), "-o", str(ev)]) == 0
    out = tmp_path / run / "characterise"
    assert main(["metadata", str(ev / "events.parquet"), "-o", str(out / "metadata_hot.parquet"),
                 "--rank", str(out / "metadata_rank.parquet")]) == 0  # fmt: skip
    got = pl.read_parquet(out / "metadata_hot.parquet")
    want = frequency.hot_share(frequency.page_counts([ev / "events.parquet"]))
    j = want.join(got, on="op")
    assert j.height == want.height and (j["top_share"] == j["hot_share"]).all()
    assert (j["pages_right"] == j["pages"]).all() and (j["accesses_right"] == j["accesses"]).all()
    meta = got.filter(pl.col("op") == "write")["meta_accesses"].item()
    events = pl.read_parquet(ev / "events.parquet").filter((pl.col("action") == "C") & (pl.col("nsectors") > 0))
    assert meta > 0 and events.filter(pl.col("rwbs").str.contains("M"))["nsectors"].sum() // 8 <= meta
    # the cross-run table carries the setup
    runs = tmp_path / "runs.tsv"
    fs = "ext4" if "ext4" in run else "btrfs"
    runs.write_text("run_id\tstudy\tworkload\tjob\tfilesystem\ttestbed\ttracer\ttraced\trepeat\n"
                    f"{run}\tssd\tycsb\ta\t{fs}\tx\tblk\ttrue\t1\n")
    assert main(["metadata-vs-data", "--runs", str(runs), str(out / "metadata_hot.parquet"), "-o",
                 str(tmp_path / "mvd.parquet")]) == 0  # fmt: skip
    mvd = pl.read_parquet(tmp_path / "mvd.parquet")
    assert mvd["op"].to_list() == ["read", "write", "all"] and set(mvd["filesystem"]) == {fs}
