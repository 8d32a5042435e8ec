"""The characterisation views (`blkscope characterise`: I/O map, throughput, request sizes, merges, per-process,
Q2Q and idle periods, dispersion, latency per window) on hand-counted events, and a split trace giving the
whole's answers for them and for `blkscope metadata`."""

import json
import re
import subprocess
from pathlib import Path

import polars as pl
import pytest

from blkscope.analysis import arrivals, io_map, request_mix
from blkscope.cli import main
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
    t = io_map.throughput(ev, bin_s=10e-9)  # bins [0, 10) [10, 20): zeros listed
    r = t.filter((pl.col("op") == "write") & (pl.col("class") == "data"))
    assert r["requests"].to_list() == [0, 1] and r["iops"].to_list() == [0.0, 1e8] and r["mean_kib"][1] == 8.0


def test_handmade_sizes_merges_processes():
    ev = _events(HANDMADE)
    s = request_mix.sizes(ev)
    assert s.filter(pl.col("action") == "Q").select("op", "class", "size_kib", "requests").rows() == [
        ("read", "data", 4.0, 1), ("write", "data", 4.0, 2), ("write", "meta", 5.0, 1)]
    g = {r["op"]: r for r in request_mix.merges(ev).iter_rows(named=True)}
    assert (g["write"]["queued"], g["write"]["issued"], g["write"]["back_merges"]) == (3, 2, 1)
    assert g["all"]["merge_ratio"] == 4 / 3 and g["read"]["merge_ratio"] == 1.0
    p = request_mix.processes(ev).filter(pl.col("op") == "all")
    # pid 7 is named in one of its rows only: all its rows take that name; 2 of its 3 Qs are not merged
    assert p.select("pid", "process", "queued", "back_merges").rows() == [(7, "db", 3, 1), (9, "jbd2", 1, 0)]
    assert p["merge_ratio"].to_list() == [1.5, 1.0] and p["queued_kib"].to_list() == [12.0, 5.0]


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
    row = d.filter(pl.col("op") == "all").row(0, named=True)
    assert (row["windows"], row["mean"], row["idc"]) == (2, 2.0, 1.0)


def test_handmade_dispersion_of_a_window_of_more_than_65535_requests():
    # 70,000 Qs in [0, 1 s), one at 1.5 s: counts 70,000 and 1; their squares overflowed u32 (IDC was negative)
    rows = [(k * 10_000, "Q", "W", 8 * k, 8, 1, None) for k in range(70_000)]
    rows.append((1_500_000_000, "Q", "W", 0, 8, 1, None))
    row = arrivals.dispersion(_events(rows), windows_s=[1.0]).filter(pl.col("op") == "all").row(0, named=True)
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
    m = pl.read_parquet(out / "m.parquet").filter(pl.col("op") == "all").row(0, named=True)
    assert (m["queued"], m["issued"]) == (int(merge[1]), int(merge[2]))
    assert round(m["merge_ratio"], 1) == float(merge[3])
