"""The characterisation views (`blkscope characterise`: I/O map, throughput, request sizes, merges, per-process,
Q2Q and idle periods, dispersion, latency per window) on hand-counted events, and a split trace giving the
whole's answers for them and for `blkscope metadata`."""

import json
import re
import subprocess
from pathlib import Path

import polars as pl
import pytest

from blkscope.analysis.characterise import io_map, request_mix
from blkscope.analysis.popularity.frequency import class_expr, op_expr
from blkscope.analysis.timing import arrivals
from blkscope.cli import characterisation, main
from blkscope.schemas import EVENTS, conform

ROOT = Path(__file__).resolve().parents[1]
TEXT_RUN = "host-ext4-fio-randrw-r1"  # tracefs text, reads and writes
BIN_RUN = "guest-f2fs-fio-randrw-r1"  # real blktrace, two per-CPU files: process names on one CPU only


def _events(rows: list[tuple]) -> pl.LazyFrame:
    """(time_ns, action, rwbs, sector, nsectors, pid, process) rows."""
    df = pl.DataFrame(rows, schema=["time_ns", "action", "rwbs", "sector", "nsectors", "pid", "process"],
                      orient="row")  # fmt: skip
    return conform(df, EVENTS).lazy()


HANDMADE = [
    (0, "C", "W", 500, 8, 0, None), (0, "Q", "R", 0, 8, 7, "db"), (0, "D", "R", 0, 8, 7, "db"),
    (5, "C", "R", 0, 8, 0, None), (10, "Q", "W", 100, 8, 7, None), (12, "D", "W", 100, 16, 3, "kworker"),
    (13, "D", "WM", 190, 10, 3, "kworker"), (20, "C", "W", 100, 16, 0, None), (21, "C", "WM", 190, 10, 0, None),
    (30, "Q", "W", 108, 8, 7, None), (30, "M", "W", 108, 8, 7, None), (40, "D", "FN", 0, 0, 3, "kworker"),
    (50, "C", "FN", 0, 0, 0, None), (99, "Q", "WM", 190, 10, 9, "jbd2"),
]  # fmt: skip


def test_handmade_io_map_and_throughput():
    ev = _events(HANDMADE)
    # D requests with data: t0 read 0+8, t12 write 100+16, t13 write-meta 190+10; t_end 14, s_end 200
    m = io_map.io_map(ev, time_bins=2, sector_bins=2)  # bins of 7 ns and 100 sectors
    assert m.select("op", "class", "time_bin", "sector_bin", "requests", "bytes").rows() == [
        ("read", "data", 0, 0, 1, 4096), ("write", "data", 1, 1, 1, 8192), ("write", "meta", 1, 1, 1, 5120)]
    assert m["t_hi_s"].to_list() == pytest.approx([7e-9, 14e-9, 14e-9]) and m["sector_hi"].to_list() == [100, 200, 200]
    t = io_map.throughput(ev, actions="D", bin_s=10e-9)  # bins [0, 10) [10, 20): zeros listed
    r = t.filter((pl.col("op") == "write") & (pl.col("class") == "data"))
    assert r["requests"].to_list() == [0, 1] and r["iops"].to_list() == [0.0, 1e8] and r["mean_kib"][1] == 8.0
    # Q and D (the default): the last Q (t99) sets the span, 10 bins for every (action, op, class)
    t = io_map.throughput(ev, bin_s=10e-9)
    assert t.group_by("action").len().sort("action").rows() == [("D", 30), ("Q", 30)]
    q = t.filter((pl.col("action") == "Q") & (pl.col("op") == "write") & (pl.col("class") == "data"))
    assert q["requests"].to_list() == [0, 1, 0, 1, 0, 0, 0, 0, 0, 0] and q["median_kib"][3] == 4.0


def test_handmade_throughput_sizes_of_q_and_d_over_time():
    # bin [0, 10): D writes of 8, 64, 16, 16 sectors (an even count: the median of the middle two, 16 and 16),
    # Q writes of 8, 8, 64 (odd); bin [10, 20): a D read of 2 sectors, a Q metadata read of 24; a C not counted
    ev = _events([
        (1, "D", "W", 0, 8, 1, "a"), (2, "D", "W", 100, 64, 1, "a"), (3, "D", "WS", 300, 16, 1, "a"),
        (4, "D", "W", 400, 16, 1, "a"), (0, "Q", "W", 0, 8, 1, "a"), (1, "Q", "W", 8, 8, 1, "a"),
        (2, "Q", "W", 100, 64, 1, "a"), (11, "D", "R", 900, 2, 1, "a"), (12, "Q", "RM", 50, 24, 1, "a"),
        (13, "C", "W", 0, 800, 0, None),
    ])  # fmt: skip
    t = io_map.throughput(ev, bin_s=10e-9)
    rows = {(r["action"], r["op"], r["class"], r["bin"]): r for r in t.iter_rows(named=True)}
    assert t.height == 8 and set(t["action"]) == {"Q", "D"}
    d = rows["D", "write", "data", 0]
    assert (d["requests"], d["bytes"], d["mean_kib"], d["median_kib"]) == (4, 104 * 512, 13.0, 8.0)
    q = rows["Q", "write", "data", 0]
    assert (q["requests"], q["mean_kib"], q["median_kib"]) == (3, pytest.approx(80 / 3 / 2), 4.0)
    assert (rows["D", "write", "data", 1]["requests"], rows["D", "write", "data", 1]["median_kib"]) == (0, None)
    assert rows["D", "read", "data", 1]["median_kib"] == 1.0 and rows["Q", "read", "meta", 1]["median_kib"] == 12.0
    d4 = io_map.throughput(ev, actions=["D", "D"], bin_s=10e-9)  # one action: its rows only
    assert set(d4["action"]) == {"D"} and d4.height == 4


def test_handmade_sizes_merges_processes():
    ev = _events(HANDMADE)
    s = request_mix.sizes(ev)
    assert s.filter(pl.col("action") == "Q").select("op", "class", "size_kib", "requests").rows() == [
        ("read", "data", 4.0, 1), ("write", "data", 4.0, 2), ("write", "meta", 5.0, 1)]
    m = request_mix.merges(ev)
    g = {(r["op"], r["class"]): r for r in m.iter_rows(named=True)}
    assert (g["write", "all"]["queued"], g["write", "all"]["issued"], g["write", "all"]["back_merges"]) == (3, 2, 1)
    assert g["all", "all"]["merge_ratio"] == 4 / 3 and g["read", "all"]["merge_ratio"] == 1.0
    # by class (each event by its own RWBS): data Q 0 (R), 10, 30 (W), D 0 (R), 12 (W), M 30 (W); meta (WM) Q 99,
    # D 13; the flush (FN, no op) in no row; every (op, class) listed, read meta with nothing
    got = m.select("op", "class", "queued", "issued", "back_merges").rows()
    assert got == [("read", "data", 1, 1, 0), ("read", "meta", 0, 0, 0), ("read", "all", 1, 1, 0),
                   ("write", "data", 2, 1, 1), ("write", "meta", 1, 1, 0), ("write", "all", 3, 2, 1),
                   ("all", "data", 3, 2, 1), ("all", "meta", 1, 1, 0), ("all", "all", 4, 3, 1)]  # fmt: skip
    assert m["merge_ratio"].to_list() == [1.0, None, 1.0, 2.0, 1.0, 1.5, 1.5, 1.0, 4 / 3]
    p = request_mix.processes(ev)
    a = p.filter((pl.col("op") == "all") & (pl.col("class") == "all"))
    # pid 7 is named in one of its rows only: all its rows take that name; 2 of its 3 Qs are not merged
    assert a.select("pid", "process", "queued", "back_merges").rows() == [(7, "db", 3, 1), (9, "jbd2", 1, 0)]
    assert a["merge_ratio"].to_list() == [1.5, 1.0] and a["queued_kib"].to_list() == [12.0, 5.0]
    # by class: db (pid 7) queues data only (R 0, W 10, W 30 merged), jbd2 (pid 9) the one metadata write
    assert p.select("pid", "op", "class", "queued", "queued_kib", "back_merges").rows() == [
        (7, "all", "all", 3, 12.0, 1), (9, "all", "all", 1, 5.0, 0), (7, "all", "data", 3, 12.0, 1),
        (9, "all", "meta", 1, 5.0, 0), (7, "read", "all", 1, 4.0, 0), (7, "read", "data", 1, 4.0, 0),
        (7, "write", "all", 2, 8.0, 1), (9, "write", "all", 1, 5.0, 0), (7, "write", "data", 2, 8.0, 1),
        (9, "write", "meta", 1, 5.0, 0)]  # fmt: skip
    assert p.filter(pl.col("class") != "all")["merge_ratio"].to_list() == [1.5, 1.0, 1.0, 2.0, 1.0]
    assert set(p.filter(pl.col("pid") == 9)["process"]) == {"jbd2"}
    # an empty preflush (btrfs's "FWS" with no sectors) is a flush, as the sizes have it: not a data write queued
    # (issue Q review: btrfs's #Q/#D 0.71 against its sizes' 0.31)
    flushes = _events(HANDMADE + [(60 + i, "Q", "FWS", 0, 0, 3, "kworker") for i in range(4)])
    assert request_mix.merges(flushes).equals(m)


def test_handmade_arrivals_and_idle_periods():
    t = arrivals.arrivals(_events(HANDMADE))
    a = {(r["op"], r["what"]): r for r in t.filter(pl.col("class") == "all").iter_rows(named=True)}
    # Q with data at 0, 10, 30, 99: Q2Q 10, 20, 69 ns; writes 10 30 99: 20, 69
    assert (a["all", "q2q"]["n"], a["all", "q2q"]["total_s"]) == (3, pytest.approx(99e-9))
    assert a["write", "q2q"]["n"] == 2 and a["read", "q2q"]["n"] == 0 and a["read", "q2q"]["mean_us"] is None
    # by class: the data Qs at 0, 10, 30 (Q2Q 10, 20 ns); the one metadata Q (99, WM) has no predecessor
    c = {(r["op"], r["class"]): r for r in t.filter(pl.col("what") == "q2q").iter_rows(named=True)}
    assert (c["all", "data"]["n"], c["all", "data"]["total_s"]) == (2, pytest.approx(30e-9))
    assert c["all", "meta"]["n"] == 0 and c["write", "data"]["n"] == 1 and c["write", "meta"]["n"] == 0
    # in flight (D minus C, floored at 0): C0 (issued before the trace: floored), D0 (1), C5 (0: idle from 5),
    # D12 (idle 7 ns), D13, C20, C21 (idle from 21), D40 (idle 19 ns), C50 (idle from 50, never ended: not counted)
    idle = a["all", "idle"]
    assert (idle["n"], idle["total_s"], idle["max_us"]) == (2, pytest.approx(26e-9), pytest.approx(0.019))
    assert arrivals.arrivals(_events(HANDMADE), rows_per_window=3).equals(arrivals.arrivals(_events(HANDMADE)))


def test_handmade_dispersion():
    # Qs with data at 0, 10, 30, 99 ns; windows of 50 ns: counts 3, 1 -> mean 2, variance 2, IDC 1
    d = arrivals.dispersion(_events(HANDMADE), windows_s=[50e-9])
    row = d.filter((pl.col("op") == "all") & (pl.col("class") == "all")).row(0, named=True)
    assert (row["windows"], row["mean"], row["idc"]) == (2, 2.0, 1.0)


def test_handmade_dispersion_by_class():
    # windows of 20 ns; each (op, class) from 0 to its own last Q. data Qs at 0 (R), 10, 30 (W); meta at 99 (WM)
    d = arrivals.dispersion(_events(HANDMADE), windows_s=[20e-9])
    got = {(r["op"], r["class"]): (r["windows"], r["mean"], r["idc"]) for r in d.iter_rows(named=True)}
    # no read meta Q: no row
    assert list(got) == [("read", "data"), ("read", "all"), ("write", "data"), ("write", "meta"), ("write", "all"),
                         ("all", "data"), ("all", "meta"), ("all", "all")]  # fmt: skip
    approx = pytest.approx
    assert got["read", "data"] == (1, 1.0, None)  # one window: no variance
    assert got["write", "data"] == (2, 1.0, 0.0)  # counts 1, 1
    assert got["write", "meta"] == got["all", "meta"] == (5, approx(0.2), approx(1.0))  # 0, 0, 0, 0, 1
    assert got["write", "all"] == (5, approx(0.6), approx(0.5))  # 1, 1, 0, 0, 1: variance 0.3
    assert got["all", "data"] == (2, 1.5, approx(1 / 3))  # 2, 1: variance 0.5
    assert got["all", "all"] == (5, approx(0.8), approx(0.875))  # 2, 1, 0, 0, 1: variance 0.7


def test_handmade_dispersion_of_a_window_of_more_than_65535_requests():
    # 70,000 Qs in [0, 1 s), one at 1.5 s: counts 70,000 and 1; their squares overflowed u32 (IDC was negative)
    rows = [(k * 10_000, "Q", "W", 8 * k, 8, 1, None) for k in range(70_000)]
    rows.append((1_500_000_000, "Q", "W", 0, 8, 1, None))
    d = arrivals.dispersion(_events(rows), windows_s=[1.0])
    row = d.filter((pl.col("op") == "all") & (pl.col("class") == "all")).row(0, named=True)
    mean = 70_001 / 2
    assert (row["windows"], row["mean"]) == (2, mean)
    assert row["idc"] == pytest.approx(((70_000 - mean) ** 2 + (1 - mean) ** 2) / mean)


def _split(plain: Path, kind: str, n: int, tmp: Path) -> tuple[Path, Path]:
    whole = tmp / "whole" / "trace"
    assert main(["ingest", "--kind", kind, str(plain), "-o", str(whole)]) == 0
    dirs = [tmp / "split" / f"p{k}" for k in range(1, n + 1)]
    for k, d in enumerate(dirs, 1):
        assert main(["ingest", "--kind", kind, "--part", f"{k}/{n}", str(plain), "-o", str(d)]) == 0
    parts = tmp / "split" / "parts.json"
    assert main(["gather-parts", *map(str, dirs), "-o", str(parts)]) == 0
    return whole / "events.parquet", parts


def _views(ev: Path, out: Path) -> dict[str, pl.DataFrame]:
    names = ("io-map", "throughput", "sizes", "merges", "processes", "arrivals", "dispersion", "latency-windows",
             "latency-hist")
    args = [a for n in names for a in (f"--{n}", str(out / f"{n}.parquet"))]
    assert main(["characterise", str(ev), *args]) == 0
    assert main(["metadata", str(ev), "-o", str(out / "meta.parquet"), "--rank", str(out / "rank.parquet")]) == 0
    return {p.stem: pl.read_parquet(p) for p in out.glob("*.parquet")}


@pytest.mark.parametrize("run,kind,n", [(TEXT_RUN, "ftrace", 3), (BIN_RUN, "blktrace", 2)])
def test_split_trace_gives_the_whole_answers(run, kind, n, tmp_path):
    raw = ROOT / "data" / "raw" / run
    if kind == "ftrace":
        if not (raw / "trace.txt.zst").exists():
            pytest.skip("embedded run not in this checkout")
        src = tmp_path / "trace.txt"
        subprocess.run(["zstd", "-dqf", str(raw / "trace.txt.zst"), "-o", str(src)], check=True)
    else:
        src = raw / "blktrace"
        if not src.exists():
            pytest.skip("embedded run not in this checkout")
    whole, parts = _split(src, kind, n, tmp_path)
    part_files = [parts.parent / f for f in json.loads(parts.read_text())["parts"]]
    if kind == "blktrace":  # the case the per-process view must mend: a part's rows without their names
        nulls = sum(pl.read_parquet(f)["process"].null_count() for f in part_files)
        assert nulls > pl.read_parquet(whole)["process"].null_count()
    a, b = _views(whole, tmp_path / "a"), _views(parts, tmp_path / "b")
    assert set(a) == set(b) and len(a) == 11
    for name in a:
        assert a[name].height and a[name].equals(b[name]), name
    # request sizes over time: per (action, op, class, 1-s bin) the count, mean and median of the events' own
    # sizes (polars' median over the requests themselves), Q and D both present
    t = a["throughput"].filter(pl.col("requests") > 0)
    ev = pl.read_parquet(whole).filter(pl.col("action").cast(pl.Utf8).is_in(["Q", "D"]) & (pl.col("nsectors") > 0)
                                       & pl.col("sector").is_not_null())  # fmt: skip
    ev = ev.with_columns(op=op_expr(), **{"class": class_expr()}).filter(pl.col("op").is_not_null())
    want = ev.group_by(pl.col("action").cast(pl.Utf8), "op", "class", bin=pl.col("time_ns") // 10**9).agg(
        requests=pl.len(), mean_kib=(pl.col("nsectors") / 2).mean(), median_kib=(pl.col("nsectors") / 2).median()
    )  # fmt: skip
    got = t.select("action", "op", "class", "bin", "requests", "mean_kib", "median_kib")
    key = ["action", "op", "class", "bin"]
    assert set(got["action"]) == {"Q", "D"} and got.height == want.height
    j = got.join(want, on=key, suffix="_w")
    assert j.height == want.height and (j["requests"] == j["requests_w"]).all()
    assert ((j["mean_kib"] - j["mean_kib_w"]).abs() < 1e-9).all() and (j["median_kib"] == j["median_kib_w"]).all()
    # both filesystems mark some writes M (ext4's journal, f2fs's checkpoint): the class split has rows to split
    m, p = a["merges"], a["processes"]
    for op in ("read", "write", "all"):  # data and meta make all, in merges and summed over the processes
        c = {r["class"]: r for r in m.filter(pl.col("op") == op).iter_rows(named=True)}
        for col in ("queued", "issued", "back_merges", "front_merges"):
            assert c["data"][col] + c["meta"][col] == c["all"][col], (op, col)
        q = dict(p.filter(pl.col("op") == op).group_by("class").agg(pl.col("queued").sum()).iter_rows())
        assert q.get("data", 0) + q.get("meta", 0) == q["all"], op
    meta = m.filter((pl.col("op") == "write") & (pl.col("class") == "meta")).row(0, named=True)
    if kind == "ftrace":  # ext4: jbd2's metadata writes are the only ones merged in this run
        assert (meta["queued"], meta["issued"], meta["back_merges"]) == (13, 9, 4)
        assert m.filter(pl.col("class") == "data")["back_merges"].sum() == 0
    else:
        assert (meta["queued"], meta["issued"]) == (2, 2)
        assert set(p.filter(pl.col("class") == "meta")["process"]) == {"f2fs_ckpt-254:0"}  # the checkpoint thread


def test_q2q_and_merge_ratio_equal_btts(tmp_path):
    """The real btt on the same events (exported as a blktrace set): its All-Devices Q2Q (N, mean, max; printed
    to the ns) and its Device Merge Information (#Q, #D) equal ours."""
    run = "guest-ext4-ycsb-workloada-zipfian-small-r1"  # real blktrace, back merges on the writes
    src = ROOT / "data" / "raw" / run / "blktrace"
    if not src.exists():
        pytest.skip("embedded run not in this checkout")
    ev = tmp_path / "trace"
    assert main(["ingest", str(src), "-o", str(ev)]) == 0
    assert main(["btt", str(ev / "events.parquet"), "-o", str(tmp_path / "btt")]) == 0
    btt = pl.read_parquet(tmp_path / "btt" / "btt_avg.parquet")
    q2q = btt.filter((pl.col("section") == "All Devices") & (pl.col("metric") == "Q2Qdm")).row(0, named=True)
    merge = re.search(r"\|\s+(\d+)\s+(\d+)\s+([\d.]+)\s+\|", (tmp_path / "btt" / "btt.avg").read_text())
    out = tmp_path / "c"
    assert main(["characterise", str(ev / "events.parquet"), "--merges", str(out / "m.parquet"), "--arrivals",
                 str(out / "a.parquet")]) == 0  # fmt: skip
    a = pl.read_parquet(out / "a.parquet")
    ours = a.filter((pl.col("op") == "all") & (pl.col("class") == "all") & (pl.col("what") == "q2q")).row(0, named=True)
    assert ours["n"] == q2q["n"] == 2572
    assert abs(ours["mean_us"] / 1e6 - q2q["avg_s"]) < 1e-9 and abs(ours["max_us"] / 1e6 - q2q["max_s"]) < 1e-9
    m = pl.read_parquet(out / "m.parquet").filter((pl.col("op") == "all") & (pl.col("class") == "all"))
    m = m.row(0, named=True)
    assert (m["queued"], m["issued"]) == (int(merge[1]), int(merge[2]))
    assert round(m["merge_ratio"], 1) == float(merge[3])


def test_runs_in_parallel_processes_give_the_same_tables(tmp_path, monkeypatch):
    """`characterise --each -j 2` (the workflow's job) writes every run's tables as one process does; and a trace
    read once for the views that group its events writes the bytes that one scanned per view does (a trace above
    READ_ONCE_MAX_BYTES)."""
    runs = {TEXT_RUN: ROOT / "data" / "raw" / TEXT_RUN / "trace.txt.zst", BIN_RUN: ROOT / "data" / "raw" / BIN_RUN
            / "blktrace"}  # fmt: skip
    if not all(p.exists() for p in runs.values()):
        pytest.skip("embedded runs not in this checkout")
    events = []
    for run, src in runs.items():
        ev = tmp_path / "processed" / run / "trace"
        assert main(["ingest", str(src), "-o", str(ev)]) == 0
        events.append(str(ev / "events.parquet"))
    names = ("io-map", "throughput", "sizes", "merges", "processes", "arrivals", "dispersion", "latency-windows",
             "latency-hist")  # fmt: skip
    tables = {}
    for jobs in (1, 2, "scanned"):
        out = tmp_path / f"j{jobs}"
        args = [a for n in names for a in (f"--{n}", f"{out}/{{run}}/{n}.parquet")]
        if jobs == "scanned":  # in this process (-j 1): every trace is above the limit
            monkeypatch.setattr(characterisation, "READ_ONCE_MAX_BYTES", 0)
        assert main(["characterise", "--each", *events, *args, "-j", "1" if jobs == "scanned" else str(jobs)]) == 0
        tables[jobs] = {p.relative_to(out): p.read_bytes() for p in sorted(out.glob("*/*.parquet"))}
    assert len(tables[1]) == 2 * len(names) and tables[1].keys() == tables[2].keys() == tables["scanned"].keys()
    assert tables[1] == tables[2] == tables["scanned"]
