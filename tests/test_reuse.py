"""Reuse distance and LRU miss-ratio curves (blkscope.analysis.characterise.reuse, `blkscope reuse`): hand-counted
cases, a brute-force stack on random requests, libCacheSim's LRU on the same page sequence of real traces, SHARDS'
error, and a split trace giving the whole's answers."""

import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from page_sequence import page_sequence, write_oracle_general

from blkscope.analysis.characterise import reuse
from blkscope.analysis.characterise import reuse_tables as rt
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
    every = (pl.col("op") == "all") & (pl.col("class") == "all")
    w = rt.wss(r).filter(every)
    assert w["window"].to_list() == [0, 1, 2] and w["pages"].to_list() == [3, 3, 2]
    hist = rt.distance_histogram(r).filter(every)
    assert hist.select("lo", "hi", "mass").rows() == [(0, 1, 1.0), (1, 2, 2.0), (2, 4, 2.0)]
    # the stream meta alone is every op's metadata: op all, class meta in the tables
    assert rt.wss(r).filter(pl.col("class") == "meta").select("op", "window", "pages").rows() == [("all", 0, 1)]


def _by_filter(ev: pl.LazyFrame, op: str, cls: str) -> pl.LazyFrame:
    """The events of one (op, class) stream, chosen by RWBS in polars (the reference the native masks meet)."""
    rwbs = pl.col("rwbs")
    o = {"all": pl.lit(True), "read": rwbs.str.contains("R"), "write": ~rwbs.str.contains("R")}[op]
    c = {"all": pl.lit(True), "meta": rwbs.str.contains("M"), "data": ~rwbs.str.contains("M")}[cls]
    return ev.filter(o & c)


def _same(a: reuse.Profile, b: reuse.Profile) -> None:
    assert (a.requests, a.accesses, a.cold) == (b.requests, b.accesses, b.cold)
    assert a.distance.tolist() == b.distance.tolist() and a.mass.tolist() == b.mass.tolist()


def test_handmade_streams_by_class_equal_the_filtered_trace():
    """Every op x class stream of one pass is the profile of that stream's requests alone (the trace filtered
    by RWBS first), for the exact and the SHARDS profiles; the tables carry the class."""
    rng = np.random.default_rng(7)
    n = 300
    kinds = rng.choice(["R", "RM", "W", "WM", "WS"], n).tolist()
    ev = _events(list(zip(rng.integers(0, 40, n).tolist(), ["C"] * n, kinds, rng.integers(0, 300, n).tolist(),
                          rng.choice([8, 9, 16], n).tolist(), strict=True)))  # fmt: skip
    names = reuse.streams_by_class(["all", "read", "write"], ["all", "data", "meta"])
    assert len(names) == 9 and names[0] == "all/all" and "read/meta" in names
    r = reuse.profile(ev, streams=names, sizes=[16], window_s=10e-9)
    t0 = ev.select(pl.col("time_ns").min()).collect().item()
    for name in names:
        op, cls = reuse.stream_key(name)
        alone = reuse.profile(_by_filter(ev, op, cls), streams=["all"], sizes=[16], window_s=10e-9)
        for method in ("exact", "shards-size"):
            _same(r.profile(name, method), alone.profile("all", method))
        # working set: distinct pages per 10-ns window from the whole trace's first event
        w = rt.wss(r).filter((pl.col("op") == op) & (pl.col("class") == cls)).select("window", "pages")
        last = (pl.col("sector") + pl.col("nsectors") - 1) // 8
        want = (
            _by_filter(ev, op, cls)
            .select(window=(pl.col("time_ns") - t0) // 10, page=pl.int_ranges(pl.col("sector") // 8, last + 1))
            .explode("page").group_by("window").agg(pages=pl.col("page").n_unique()).sort("window").collect()
        )  # fmt: skip
        assert w.rows() == want.rows(), name
    bare = reuse.profile(ev, streams=names, sizes=[16], window_s=10e-9, wss=False)  # what --wss not asked runs
    for p, q in zip(r.profiles, bare.profiles, strict=True):
        _same(p, q)
    assert bare.wss.is_empty() and not r.wss.is_empty()
    s = rt.summary(r)
    assert s.select("op", "class").unique().height == 9 and s["of_record"].sum() == 9
    assert s.filter(pl.col("of_record"))["method"].unique().to_list() == ["exact"]
    assert s["exact_max_accesses"].is_null().all()
    m = rt.mrc(r)
    assert set(zip(m["op"], m["class"], strict=True)) == {reuse.stream_key(x) for x in names}
    dm = rt.distance_histogram(r).filter((pl.col("op") == "write") & (pl.col("class") == "meta"))
    assert dm.filter(pl.col("method") == "exact")["mass"].sum() == r.profile("write/meta").mass.sum() > 0
    with pytest.raises(ValueError, match="unknown stream"):
        reuse.streams_by_class(["all"], ["metadata"])


def test_handmade_ssd_study_mode_and_empty_streams():
    # sector 4, 16 sectors: pages 0 1 2 under cover, 0 1 under the SSD study's rule (frequency.py)
    ev = _events([(1, "C", "W", 4, 16), (2, "C", "W", 4, 16)])
    assert reuse.profile(ev).profile("all").mass.tolist() == [3.0]  # each page at distance 2
    st = reuse.profile(ev, mode="ssd-study").profile("all")
    assert (st.accesses, st.distance.tolist(), st.mass.tolist()) == (4, [1.0], [2.0])
    assert (reuse.page_accesses(ev), reuse.page_accesses(ev, mode="ssd-study")) == (6, 4)  # what --auto counts
    summ = rt.summary(reuse.profile(ev))
    note = summ.filter(pl.col("op") == "read")["note"].item()
    assert note == "no C reads with data (sector, nsectors > 0) in the trace"
    assert summ.filter(pl.col("op") == "write")["note"].item() is None
    assert rt.mrc(reuse.profile(ev)).filter(pl.col("op") == "read").is_empty()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exact_profile_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 400
    cols = (rng.integers(0, 50, n), ["C"] * n, rng.choice(["R", "W", "WM"], n), rng.integers(0, 600, n),
            rng.choice([1, 8, 9, 16, 24], n))  # fmt: skip
    ev = _events(list(zip(*(list(c) if isinstance(c, list) else c.tolist() for c in cols), strict=True)))
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
    often as our exact curve says (and our native pass sees that same sequence), and as the MRC table the
    program writes itself (--mrc) says at 5 of its sizes."""
    import libcachesim as lcs  # requirements.lock pins it
    ev = _ingest(FIXTURE, tmp_path / "fx") if which == "fixture" else ycsb
    pages = page_sequence([ev])
    r = reuse.profile([ev], streams=["all"], dump_pages=tmp_path / "pages.bin", mrc=tmp_path / "mrc.parquet")
    assert np.array_equal(np.fromfile(tmp_path / "pages.bin", dtype="<u8"), pages)
    p = r.profile("all")
    d = int(p.distinct_pages)
    assert d == np.unique(pages).size
    trace = write_oracle_general(pages, tmp_path / "pages.oracleGeneral.bin")
    sizes = sorted({1, 2, 10, 100, d // 10, d // 2, d - 1, d, d + 5} - {0})
    table = pl.read_parquet(tmp_path / "mrc.parquet")
    table = table[np.linspace(0, table.height - 1, 5).round().astype(int).tolist()]
    checks = [(c, p.miss_ratio(np.array([c]))[0]) for c in sizes] + table.select("cache_pages", "miss_ratio").rows()
    for c, ours in checks:
        reader = lcs.TraceReader(str(trace), lcs.TraceType.ORACLE_GENERAL_TRACE,
                                 lcs.ReaderInitParam(ignore_obj_size=True))  # fmt: skip
        theirs, _ = lcs.LRU(cache_size=c).process_trace(reader)
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
                     "--mrc", str(o / "m.parquet"), "--wss", str(o / "w.parquet"), "--classes", "all,data,meta",
                     "--distance", str(o / "d.parquet")]) == 0  # fmt: skip
        out[name] = [pl.read_parquet(o / f"{t}.parquet") for t in "smwd"]
    for a, b in zip(out["whole"], out["parts"], strict=True):
        assert a.height and a.equals(b)
    # ext4's jbd2 marks some writes M: the metadata and data streams partition every op's accesses
    s = out["whole"][0].filter(pl.col("method") == "exact")
    acc = {(r["op"], r["class"]): r["accesses"] for r in s.iter_rows(named=True)}
    assert acc["write", "meta"] > 0
    for op in ("all", "read", "write"):
        assert acc[op, "data"] + acc[op, "meta"] == acc[op, "all"], op


def test_auto_takes_the_exact_profile_up_to_its_limit_and_shards_above(tmp_path, capsys):
    """`reuse --auto` on a small real trace, with the limit at its page accesses (exact) and one below (fixed-size
    SHARDS alone, 8,192 pages unless a size or rate is asked for): the summary says which profile stands for each
    stream, and the limit."""
    ev = _ingest(FIXTURE, tmp_path / "fx")
    n = reuse.page_accesses([ev])
    got = {}
    for name, limit, extra in (("at", n, []), ("below", n - 1, []), ("size", n - 1, ["--shards-size", "100"]),
                               ("rate", n - 1, ["--shards-rate", "0.5"])):  # fmt: skip
        o = tmp_path / name
        assert main(["reuse", str(ev), "--auto", "--exact-max-accesses", str(limit), "--classes", "all,data,meta",
                     *extra, "-o", str(o / "s.parquet"), "--mrc", str(o / "m.parquet")]) == 0  # fmt: skip
        got[name] = pl.read_parquet(o / "s.parquet"), pl.read_parquet(o / "m.parquet"), capsys.readouterr().err
    s, m, err = got["at"]
    every = (pl.col("op") == "all") & (pl.col("class") == "all")
    assert set(s["method"]) == set(m["method"]) == {"exact"} and s["of_record"].all()
    assert (s["exact_max_accesses"] == n).all() and s.filter(every)["accesses"].item() == n  # the pass's count
    assert f"{n:,} page accesses, limit {n:,}: exact" in err
    s2, m2, err2 = got["below"]
    assert set(s2["method"]) == set(m2["method"]) == {"shards-size"} and (s2["size_limit"] == 8192).all()
    assert s2["of_record"].all() and (s2["exact_max_accesses"] == n - 1).all()
    assert "SHARDS only (no exact profile)" in err2
    # the trace's few hundred pages all fit in 8,192 samples: SHARDS' estimate is the exact count
    assert s2.filter(every)["distinct_pages"].item() == s.filter(every)["distinct_pages"].item()
    assert set(got["size"][0]["size_limit"]) == {100}
    assert set(got["rate"][0]["method"]) == {"shards-adj"}
    assert s.select("op", "class").unique().height == 9 and s2.select("op", "class").unique().height == 9


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
    for bad in (["--exact-max-accesses", "5"], ["--auto", "--no-exact", "--shards-size", "8"],
                ["--streams", "read/metadata"], ["--classes", "all,hot"],
                ["--auto", "--exact-max-accesses", "-1"]):  # fmt: skip
        assert main(["reuse", str(ev), *bad, "-o", str(tmp_path / "s.parquet")]) == 2, bad


def test_handmade_mrc_figure_data_takes_op_all_class_all():
    """figdata-mrc (what the figure and notebooks/all_setups.py draw) keeps one curve per run and method: op all,
    class all, from tables split by class and from tables written before the split alike."""
    from blkscope.figures.data import mrc_table

    m = pl.DataFrame({"op": ["all", "all", "all", "read"], "class": ["all", "meta", "data", "all"],
                      "method": "exact", "rate": 1.0, "size_limit": 0, "cache_pages": 1, "cache_mib": 1 / 256,
                      "miss_ratio": [0.5, 0.1, 0.2, 0.3]})  # fmt: skip
    runs = pl.DataFrame({"run_id": ["r1", "r2"], "filesystem": "ext4", "workload": "fio", "job": "randrw",
                         "testbed": "loop", "traced": True, "repeat": [1, 2]})  # fmt: skip
    t = mrc_table({"r1": m, "r2": m.filter(pl.col("class") == "all").drop("class")}, runs)
    assert t.select("run_id", "miss_ratio").rows() == [("r1", 0.5), ("r2", 0.5)]


def _same_result(a: reuse.Result, b: reuse.Result) -> None:
    """Every profile, the working set and the tables written from them identical."""
    assert [(p.op, p.cls, p.method) for p in a.profiles] == [(p.op, p.cls, p.method) for p in b.profiles]
    for x, y in zip(a.profiles, b.profiles, strict=True):
        assert (x.requests, x.accesses, x.sampled_accesses, x.sampled_pages, x.cold) == (
            y.requests, y.accesses, y.sampled_accesses, y.sampled_pages, y.cold)  # fmt: skip
        assert np.array_equal(x.distance, y.distance) and np.array_equal(x.mass, y.mass)
    assert a.wss.equals(b.wss)
    for table in (rt.summary, rt.mrc, rt.distance_histogram, rt.wss):
        assert table(a).equals(table(b)), table.__name__


def _split(tmp_path: Path, n: int = 3) -> Path:
    """The fixture ingested as n parts (gather-parts: a parts.json)."""
    plain = tmp_path / "fixture.txt"
    subprocess.run(["zstd", "-dqf", str(FIXTURE), "-o", str(plain)], check=True)
    dirs = [tmp_path / f"p{k}" for k in range(1, n + 1)]
    for k, d in enumerate(dirs, 1):
        assert main(["ingest", "--kind", "ftrace", "--part", f"{k}/{n}", str(plain), "-o", str(d)]) == 0
    assert main(["gather-parts", *map(str, dirs), "-o", str(tmp_path / "parts.json")]) == 0
    return tmp_path / "parts.json"


@pytest.mark.parametrize("which", ["fixture", "ycsb", "parts"])
def test_direct_read_equals_the_pipe(which, ycsb, tmp_path):
    """blkscope-native reading the events Parquet itself gives what the Python-fed pass gives: same page
    sequence, profiles, working set and tables, on real traces, whole or split into parts, both actions; and the
    MRC table the program writes itself (--mrc) is the one reuse_tables.mrc makes, every stream and method."""
    from blkscope.parts import events_files

    ev = {"fixture": lambda: _ingest(FIXTURE, tmp_path / "fx"), "ycsb": lambda: ycsb,
          "parts": lambda: _split(tmp_path)}[which]()  # fmt: skip
    files = events_files([ev])
    assert len(files) == (3 if which == "parts" else 1)
    streams = reuse.streams_by_class(["all", "read", "write"], ["all", "data", "meta"])
    kw = dict(rates=[0.1], sizes=[500], streams=streams)
    for action in ("C", "D"):
        got = {}
        for direct in (True, False):
            dump, mrc = tmp_path / f"pages-{direct}.bin", tmp_path / f"mrc-{direct}.parquet"
            got[direct] = reuse.profile(files, direct=direct, dump_pages=dump, action=action, mrc=mrc, **kw)
            assert pl.read_parquet(mrc).equals(rt.mrc(got[direct])), (action, direct)
        assert got[True].profile("all").accesses > 0
        _same_result(got[True], got[False])
        assert (tmp_path / "pages-True.bin").read_bytes() == (tmp_path / "pages-False.bin").read_bytes()


def test_direct_read_refuses_other_files_and_damaged_ones(tmp_path):
    """A file blkscope-native did not write (here polars) is refused by the program, and profile() answers through
    the pipe, the same; a damaged file of its own is refused with the file named."""
    import pyarrow.parquet as pq

    ev = _ingest(FIXTURE, tmp_path / "fx")
    other = tmp_path / "polars.parquet"
    pl.read_parquet(ev).write_parquet(other)
    calls = []
    ref = reuse.profile([ev], direct=True, rates=[0.1], meanwhile=lambda: calls.append("direct"))
    # refused, then the pipe: `meanwhile` still runs once
    _same_result(reuse.profile([other], rates=[0.1], meanwhile=lambda: calls.append("pipe")), ref)
    assert calls == ["direct", "pipe"]
    with pytest.raises(RuntimeError, match=r"exit 3\).*polars\.parquet.*not blkscope-native"):
        reuse.profile([other], direct=True)
    # the native file beside the polars one: refused as a whole, answered by the pipe
    _same_result(reuse.profile([ev, other]), reuse.profile([ev, other], direct=False))
    bad = tmp_path / "damaged.parquet"
    data = bytearray(ev.read_bytes())
    at = pq.ParquetFile(ev).metadata.row_group(0).column(list(EVENTS).index("time_ns")).data_page_offset
    data[at : at + 16] = b"\xff" * 16  # the time column's first page header
    bad.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match=r"exit 2\).*damaged\.parquet"):
        reuse.profile([bad])


def test_direct_read_starts_the_program_before_polars(tmp_path):
    """`blkscope reuse` on blkscope-native's own Parquet launches the pass before importing polars, numpy or
    pyarrow (they load while it runs: ~0.3 s of a short run), and loads the tables' module before waiting on it."""
    import os
    import sys

    ev = _ingest(FIXTURE, tmp_path / "fx")
    code = (
        "import subprocess, sys\n"
        "real = subprocess.Popen.__init__\n"
        "def spy(self, *a, **k):\n"
        "    print('LOADED', sorted(m for m in ('polars', 'numpy', 'pyarrow') if m in sys.modules), file=sys.stderr)\n"
        "    real(self, *a, **k)\n"
        "subprocess.Popen.__init__ = spy\n"
        "wait = subprocess.Popen.communicate\n"
        "def waiting(self, *a, **k):\n"
        "    print('WAITING', 'blkscope.analysis.characterise.reuse_tables' in sys.modules, file=sys.stderr)\n"
        "    return wait(self, *a, **k)\n"
        "subprocess.Popen.communicate = waiting\n"
        "from blkscope.cli import main\n"
        f"sys.exit(main(['reuse', {str(ev)!r}, '-o', {str(tmp_path / 's.parquet')!r}]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert got.stderr.splitlines()[:2] == ["LOADED []", "WAITING True"], got.stderr  # the tables' module too
    assert pl.read_parquet(tmp_path / "s.parquet").height
