"""Reuse distance and LRU miss-ratio curves (blkscope.analysis.reuse, `blkscope reuse`): hand-counted cases, a
brute-force stack on random requests, libCacheSim's LRU on the same page sequence of real traces, SHARDS' error,
and a split trace giving the whole's answers."""

import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from blkscope.analysis import reuse
from blkscope.analysis import reuse_tables as rt
from blkscope.analysis.page_sequence import page_sequence, write_oracle_general
from blkscope.cli import main
from blkscope.schemas import EVENTS, conform

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "trace" / "tracefs_blk_classic_pipe.txt.zst"
YCSB_RUN = "host-ext4-ycsb-workloada-zipfian-sat-r1"  # tracefs text, ~71k distinct pages
TEXT_RUN = "host-ext4-fio-randrw-r1"


def _events(rows: list[tuple]) -> pl.LazyFrame:
    """(time_ns, action, rwbs, sector, nsectors) rows as an events table."""
    df = pl.DataFrame(rows, schema=["time_ns", "action", "rwbs", "sector", "nsectors"], orient="row")
    return conform(df, EVENTS).lazy()


def _brute(pages) -> list:
    """Stack distances by definition (None: first access)."""
    out = []
    for i, p in enumerate(pages):
        prev = [j for j in range(i) if pages[j] == p]
        out.append(None if not prev else len(set(pages[prev[-1] + 1 : i])))
    return out


def test_handmade_pages_distances_and_curve():
    # pages 1 2 3 1 1 3 2 (8-sector requests, one 2-page request spanning 3|4 at the end: 3 then 4), listed out
    # of time order; a Q, a flush and a zero-length completion that count nothing
    ev = _events([
        (30, "C", "R", 8, 8), (10, "C", "W", 8, 8), (20, "C", "WS", 16, 8), (25, "C", "RM", 24, 8),
        (40, "C", "R", 8, 8), (50, "C", "W", 24, 8), (60, "C", "R", 16, 8), (5, "Q", "R", 800, 8),
        (61, "C", "FN", 0, 0), (62, "C", "W", 64, 0), (70, "C", "W", 28, 8),
    ])  # fmt: skip
    r = reuse.profile(ev, streams=["all", "read", "write", "meta"], window_s=30e-9)
    p = r.profile("all")
    # accesses 1 2 3 1 1 3 2 3 4: distances - - - 2 0 1 2 1 -
    assert (p.accesses, p.cold, p.distinct_pages) == (9, 4.0, 4.0)
    assert dict(zip(p.distance.tolist(), p.mass.tolist(), strict=True)) == {0.0: 1.0, 1.0: 2.0, 2.0: 2.0}
    assert p.miss_ratio(np.array([1, 2, 3, 4])).tolist() == [8 / 9, 6 / 9, 4 / 9, 4 / 9]
    # reads: 1 (t30), 3 (t25, RM) ... in time order 3 1 1 2: distances - - 0 -
    rd = r.profile("read")
    assert (rd.accesses, rd.cold, rd.mass.tolist()) == (4, 3.0, [1.0])
    meta = r.profile("meta")
    assert (meta.accesses, meta.cold) == (1, 1.0)
    # working set per 30 ns window from the first event (t=5): [5,35) pages 2 3 1, [35,65) 1 3 2, [65,95) 3 4
    w = rt.wss(r).filter(pl.col("op") == "all")
    assert w["window"].to_list() == [0, 1, 2] and w["pages"].to_list() == [3, 3, 2]
    hist = rt.distance_histogram(r).filter(pl.col("op") == "all")
    assert hist.select("lo", "hi", "mass").rows() == [(0, 1, 1.0), (1, 2, 2.0), (2, 4, 2.0)]


def test_handmade_ssd_study_mode_and_empty_streams():
    # sector 4, 16 sectors: pages 0 1 2 under cover, 0 1 under the SSD study's rule (frequency.py)
    ev = _events([(1, "C", "W", 4, 16), (2, "C", "W", 4, 16)])
    assert reuse.profile(ev).profile("all").mass.tolist() == [3.0]  # each page at distance 2
    st = reuse.profile(ev, mode="ssd-study").profile("all")
    assert (st.accesses, st.distance.tolist(), st.mass.tolist()) == (4, [1.0], [2.0])
    summ = rt.summary(reuse.profile(ev))
    note = summ.filter(pl.col("op") == "read")["note"].item()
    assert note == "no C reads with data (sector, nsectors > 0) in the trace"
    assert summ.filter(pl.col("op") == "write")["note"].item() is None
    assert rt.mrc(reuse.profile(ev)).filter(pl.col("op") == "read").is_empty()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exact_profile_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 400
    ev = _events(list(zip(rng.integers(0, 50, n).tolist(), ["C"] * n, rng.choice(["R", "W", "WM"], n).tolist(),
                          rng.integers(0, 600, n).tolist(), rng.choice([1, 8, 9, 16, 24], n).tolist(), strict=True)))
    pages = page_sequence(ev).tolist()
    d = _brute(pages)
    p = reuse.profile(ev).profile("all")
    assert p.cold == sum(x is None for x in d)
    c = np.arange(1, len(set(pages)) + 2)
    want = [(sum(x is None or x >= k for x in d)) / len(d) for k in c]
    assert p.miss_ratio(c).tolist() == pytest.approx(want, abs=1e-15)


def _ingest(src: Path, out: Path) -> Path:
    if not (out / "events.parquet").exists():
        assert main(["ingest", str(src), "-o", str(out)]) == 0
    return out / "events.parquet"


@pytest.fixture(scope="module")
def ycsb(tmp_path_factory):
    src = ROOT / "data" / "raw" / YCSB_RUN / "trace.txt.zst"
    if not src.exists():
        pytest.skip("embedded run not in this checkout")
    return _ingest(src, tmp_path_factory.mktemp("ycsb"))


@pytest.mark.parametrize("which", ["fixture", "ycsb"])
def test_lru_miss_ratios_equal_libcachesim(which, ycsb, tmp_path):
    """libCacheSim's LRU, run at several cache sizes on the page sequence built in polars, misses exactly as
    often as our exact curve says (and our native pass sees that same sequence)."""
    lcs = pytest.importorskip("libcachesim", reason="libcachesim (requirements.lock) is not installed")
    ev = _ingest(FIXTURE, tmp_path / "fx") if which == "fixture" else ycsb
    pages = page_sequence([ev])
    r = reuse.profile([ev], streams=["all"], dump_pages=tmp_path / "pages.bin")
    assert np.array_equal(np.fromfile(tmp_path / "pages.bin", dtype="<u8"), pages)
    p = r.profile("all")
    d = int(p.distinct_pages)
    assert d == np.unique(pages).size
    trace = write_oracle_general(pages, tmp_path / "pages.oracleGeneral.bin")
    sizes = sorted({1, 2, 10, 100, d // 10, d // 2, d - 1, d, d + 5} - {0})
    for c in sizes:
        reader = lcs.TraceReader(str(trace), lcs.TraceType.ORACLE_GENERAL_TRACE,
                                 lcs.ReaderInitParam(ignore_obj_size=True))  # fmt: skip
        theirs, _ = lcs.LRU(cache_size=c).process_trace(reader)
        ours = p.miss_ratio(np.array([c]))[0]
        assert round(theirs * pages.size) == round(ours * pages.size), c  # equal miss counts
        assert theirs == pytest.approx(ours, abs=1e-12)


def test_shards_error_on_a_real_trace(ycsb):
    """SHARDS at 10 % and fixed-size at 8192 pages within the error the FAST'15 paper reports for similar
    sample sizes (mean absolute error over every cache size; measured here 0.008 and 0.001)."""
    r = reuse.profile([ycsb], rates=[0.1, 1.0], sizes=[8192], streams=["all"])
    s = rt.summary(r).filter(pl.col("op") == "all")
    mae = dict(zip(s["method"] + "@" + s["rate"].round(3).cast(pl.Utf8), s["mae"], strict=True))
    assert mae["shards-adj@1.0"] < 1e-3  # rate 1: the exact curve, binned above distance 128
    assert mae["shards-adj@0.1"] < 0.02
    size = s.filter(pl.col("method") == "shards-size").row(0, named=True)
    assert size["sampled_pages"] <= 8192 and size["mae"] < 0.005
    assert size["distinct_pages"] == pytest.approx(s.filter(pl.col("method") == "exact")["distinct_pages"][0],
                                                   rel=0.05)  # fmt: skip


def test_split_trace_gives_the_whole_answers(tmp_path):
    src = ROOT / "data" / "raw" / TEXT_RUN / "trace.txt.zst"
    if not src.exists():
        pytest.skip("embedded run not in this checkout")
    plain = tmp_path / "trace.txt"
    subprocess.run(["zstd", "-dqf", str(src), "-o", str(plain)], check=True)
    whole = _ingest(plain, tmp_path / "whole")
    dirs = [tmp_path / f"p{k}" for k in (1, 2, 3)]
    for k, d in enumerate(dirs, 1):
        assert main(["ingest", "--kind", "ftrace", "--part", f"{k}/3", str(plain), "-o", str(d)]) == 0
    parts = tmp_path / "parts.json"
    assert main(["gather-parts", *map(str, dirs), "-o", str(parts)]) == 0
    out = {}
    for name, ev in (("whole", whole), ("parts", parts)):
        o = tmp_path / name
        assert main(["reuse", str(ev), "--shards-rate", "0.1", "--shards-size", "500", "-o", str(o / "s.parquet"),
                     "--mrc", str(o / "m.parquet"), "--wss", str(o / "w.parquet"),
                     "--distance", str(o / "d.parquet")]) == 0  # fmt: skip
        out[name] = [pl.read_parquet(o / f"{t}.parquet") for t in "smwd"]
    for a, b in zip(out["whole"], out["parts"], strict=True):
        assert a.height and a.equals(b)


def test_cli_errors(tmp_path, capsys):
    assert main(["reuse", str(tmp_path / "nope.parquet"), "-o", str(tmp_path / "s.parquet")]) == 2
    assert "nope.parquet: no such file" in capsys.readouterr().err
    ev = tmp_path / "q.parquet"
    conform(pl.DataFrame({"time_ns": [1], "action": ["Q"], "rwbs": ["R"], "sector": [0], "nsectors": [8]}),
            EVENTS).write_parquet(ev)  # fmt: skip
    assert main(["reuse", str(ev), "-o", str(tmp_path / "s.parquet"), "--mrc", str(tmp_path / "m.parquet")]) == 0
    assert "no C requests with data" in capsys.readouterr().err
    assert pl.read_parquet(tmp_path / "m.parquet").is_empty()
    assert main(["reuse", str(ev), "--no-exact", "-o", str(tmp_path / "s.parquet")]) == 2
    assert main(["reuse", str(ev), "--shards-rate", "1.5", "-o", str(tmp_path / "s.parquet")]) == 2
