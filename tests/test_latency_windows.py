"""Latency percentiles over time windows, merged from per-window histograms (blkscope.analysis.timing.latency_windows):
hand-counted bios, the whole run against latency.stages on a real trace, and merged windows against windows
built that wide."""

import subprocess
from pathlib import Path

import polars as pl
import pytest

from blkscope.analysis.stats.log_histogram import HALF_WIDTH
from blkscope.analysis.timing import latency
from blkscope.analysis.timing import latency_windows as lw
from blkscope.cli import main
from blkscope.schemas import EVENTS, conform

ROOT = Path(__file__).resolve().parents[1]
MS = 1_000_000


def _ev(rows):
    cols = ["time_ns", "action", "sector", "nsectors", "rwbs"]
    df = pl.DataFrame([dict(zip(cols, r, strict=True)) for r in rows])
    return conform(df.with_columns(dev_major=pl.lit(8), dev_minor=pl.lit(0)), EVENTS).lazy()


def _bio(q, d, c, sector, rwbs):
    return [(q, "Q", sector, 8, rwbs), (d, "D", sector, 8, rwbs), (c, "C", sector, 8, rwbs)]


# reads of D2C 1 ms at 0, 100 and 200 ms; a read issued at 995 ms that completes at 1004 ms (9 ms: window 1, by
# completion); a metadata write queued at 1100 ms, issued 0.5 ms later, completed 2 ms after that
HANDMADE = sorted(
    _bio(0, 0, 1 * MS, 0, "R") + _bio(100 * MS, 100 * MS, 101 * MS, 8, "R")
    + _bio(200 * MS, 200 * MS, 201 * MS, 16, "R") + _bio(995 * MS, 995 * MS, 1004 * MS, 24, "R")
    + _bio(1100 * MS, 1100 * MS + MS // 2, 1102 * MS + MS // 2, 100, "WM"),
    key=lambda r: r[0],
)  # fmt: skip


def _cell(t: pl.DataFrame, stage: str, op: str, cls: str, window: int = 0) -> dict:
    sel = (pl.col("stage") == stage) & (pl.col("op") == op) & (pl.col("class") == cls) & (pl.col("window") == window)
    rows = t.filter(sel).rows(named=True)
    assert len(rows) == 1, (stage, op, cls, window)
    return rows[0]


def test_handmade_windows_and_their_merge():
    h = lw.histograms(_ev(HANDMADE), window_s=1.0)
    p = lw.percentiles(h)
    r0, r1 = _cell(p, "d2c", "read", "data", 0), _cell(p, "d2c", "read", "data", 1)
    assert (r0["n"], r0["p50_us"], r0["max_us"]) == (3, 1000.0, 1000.0)
    assert (r1["n"], r1["p50_us"], r1["start_s"]) == (1, 9000.0, 1.0)
    m = _cell(p, "q2c", "write", "meta", 1)
    assert (m["n"], m["p50_us"]) == (1, 2500.0) and _cell(p, "d2c", "write", "meta", 1)["p50_us"] == 2000.0
    assert p.filter((pl.col("op") == "write") & (pl.col("class") == "data")).is_empty()
    both = _cell(p, "d2c", "all", "all", 1)  # the 9 ms read and the 2 ms write: rank 0 is the min, rank 1 the max
    assert (both["n"], both["p50_us"], both["p90_us"]) == (2, 2000.0, 9000.0)
    # the whole run: the reads' p50 is 1 ms (3 of 4 reads), where the mean of the windows' p50s would be 5 ms
    w = _cell(lw.percentiles(lw.merge(h, 0)), "d2c", "read", "data", 0)
    assert (w["n"], w["p50_us"], w["p90_us"], w["mean_us"]) == (4, 1000.0, 9000.0, pytest.approx(3000.0))
    assert (w["start_s"], w["window_s"]) == (0.0, 2.0)


def test_a_long_trace_gets_wider_windows():
    # completions from 1 ms to 1102.5 ms: 1-s windows need 2; one window allowed makes it 2 s wide, from time 0
    h = lw.histograms(_ev(HANDMADE), window_s=1.0, max_windows=1)
    assert h["window"].unique().to_list() == [0] and h["window_s"].unique().to_list() == [2.0]
    assert lw.histograms(_ev(HANDMADE), window_s=0.1, max_windows=4)["window_s"][0] == pytest.approx(0.3)
    whole = lw.percentiles(lw.merge(lw.histograms(_ev(HANDMADE), window_s=1.0), 0))
    assert lw.percentiles(h).drop("window_s").equals(whole.drop("window_s"))


def test_windows_merge_into_wider_ones_and_into_the_whole_run(tmp_path):
    raw = ROOT / "data" / "raw" / "host-ext4-fio-randrw-r1" / "trace.txt.zst"
    if not raw.exists():
        pytest.skip("embedded run not in this checkout")
    src = tmp_path / "trace.txt"
    subprocess.run(["zstd", "-dqf", str(raw), "-o", str(src)], check=True)
    assert main(["ingest", "--kind", "ftrace", str(src), "-o", str(tmp_path / "t")]) == 0
    ev = [tmp_path / "t" / "events.parquet"]
    h1 = lw.histograms(ev, window_s=1.0)
    assert h1["window"].n_unique() > 10  # a run of ~20 s
    # a window's start is its index times the width, divided exactly (polars' division by a scalar multiplies by
    # the reciprocal in all but one-row pieces: the last bit changed from run to run)
    h01 = lw.histograms(ev, window_s=0.1)
    assert h01["start_s"].to_list() == [w * 100_000_000 / 1e9 for w in h01["window"].to_list()]
    # and each window's max, in us, is its max in ns divided exactly
    mx = h01.group_by(lw.KEYS).agg(pl.col("max_ns").max()).join(lw.percentiles(h01), on=lw.KEYS)
    assert mx.height and mx["max_us"].to_list() == [v / 1e3 for v in mx["max_ns"].to_list()]
    # two 1-s windows summed are the 2-s window, bucket for bucket: the same percentiles
    a, b = lw.percentiles(lw.merge(h1, 2)), lw.percentiles(lw.histograms(ev, window_s=2.0))
    assert a.drop("mean_us").equals(b.drop("mean_us")) and a["mean_us"].to_list() == pytest.approx(b["mean_us"])
    # the whole run from the windows' histograms: latency.stages' n, min, max, and its exact quantiles within the
    # histogram's half width
    whole = lw.percentiles(lw.merge(h1, 0)).filter(pl.col("class") == "all")
    exact = latency.stages(ev, by_rw=True)
    for op, rw in (("all", "all"), ("read", "R"), ("write", "W")):
        for st in ("d2c", "q2c"):
            w, e = _cell(whole, st, op, "all"), exact.filter((pl.col("rw") == rw) & (pl.col("stage") == st)).row(
                0, named=True)  # fmt: skip
            assert (w["n"], w["max_us"]) == (e["n"], pytest.approx(e["max_us"])) and w["n"] > 1000
            for q in ("p50_us", "p90_us", "p99_us", "p99_9_us"):
                assert w[q] == pytest.approx(e[q], rel=HALF_WIDTH), (op, st, q)
    # a class's windows sum to the op's
    n = lw.percentiles(h1).group_by("stage", "op", "class").agg(pl.col("n").sum())
    for st in ("d2c", "q2c"):
        got = {c: n.filter((pl.col("stage") == st) & (pl.col("op") == "all") & (pl.col("class") == c))["n"].sum()
               for c in ("data", "meta", "all")}  # fmt: skip
        assert got["data"] + got["meta"] == got["all"] and got["meta"] > 0


def test_cli_writes_both_tables_and_rejects_a_bad_window(tmp_path, capsys):
    ev = tmp_path / "events.parquet"
    _ev(HANDMADE).collect().write_parquet(ev)
    out, hist = tmp_path / "lw.parquet", tmp_path / "lh.parquet"
    assert main(["characterise", str(ev), "--latency-windows", str(out), "--latency-hist", str(hist),
                 "--latency-window-s", "0.5"]) == 0  # fmt: skip
    p = pl.read_parquet(out)
    assert _cell(p, "d2c", "read", "data", 2)["p50_us"] == 9000.0  # 1004 ms: the third 0.5-s window
    assert pl.read_parquet(hist)["count"].sum() == p["n"].sum()
    assert main(["characterise", str(ev), "--latency-windows", str(out), "--latency-window-s", "0"]) != 0
    assert "--latency-window-s" in capsys.readouterr().err


def test_the_latency_verb_writes_the_windows_from_its_own_replay(tmp_path, capsys):
    ev = tmp_path / "r1" / "trace" / "events.parquet"  # <processed>/<run>/trace: the run id fills {run}
    ev.parent.mkdir(parents=True)
    _ev(HANDMADE).collect().write_parquet(ev)
    lat = ["latency", str(ev), "--by-rw", "-o"]
    tables = ["--latency-hist", str(tmp_path / "{run}" / "lh.parquet"), "--latency-windows",
              str(tmp_path / "{run}" / "lw.parquet"), "--latency-window-s", "0.5"]  # fmt: skip
    assert main([*lat, str(tmp_path / "both.parquet"), *tables]) == 0
    assert main([*lat, str(tmp_path / "alone.parquet")]) == 0
    assert pl.read_parquet(tmp_path / "both.parquet").equals(pl.read_parquet(tmp_path / "alone.parquet"))
    assert main(["characterise", str(ev), "--latency-hist", str(tmp_path / "lh.parquet"), "--latency-windows",
                 str(tmp_path / "lw.parquet"), "--latency-window-s", "0.5"]) == 0  # fmt: skip
    for t in ("lh", "lw"):
        assert pl.read_parquet(tmp_path / "r1" / f"{t}.parquet").equals(pl.read_parquet(tmp_path / f"{t}.parquet"))
    # a template without {run} is refused before any work
    assert main([*lat, str(tmp_path / "no.parquet"), "--latency-hist", str(tmp_path / "lh2.parquet")]) != 0
    assert "{run}" in capsys.readouterr().err and not (tmp_path / "no.parquet").exists()


def test_a_run_of_reads_only_has_its_read_rows_equal_to_all():
    reads = latency.stages(_ev([r for r in HANDMADE if r[4] == "R"]), by_rw=True)
    assert set(reads["rw"]) == {"all", "R"}
    r, a = (reads.filter(pl.col("rw") == k).drop("rw") for k in ("R", "all"))
    assert r.height == len(latency.STAGES) and r.equals(a) and a.filter(pl.col("stage") == "d2c")["n"][0] == 4
