"""A trace ingested whole and as parts (blkscope ingest --part K/N, gather-parts) gives the same answers:
per-action counts, page frequency tables, queue depth (summary, series, distribution) and latency stages,
through the same verbs the workflow runs (local executor; the rows of the parts are the whole's rows)."""

import json
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

from blkscope import native
from blkscope.analysis.summaries.run_summary import lost_events
from blkscope.analysis.timing import latency, queue_depth, replay, seek
from blkscope.cli import main

ROOT = Path(__file__).resolve().parents[1]
TEXT_RUN = "host-ext4-fio-randrw-r1"  # tracefs text, reads and writes
BIN_RUN = "guest-f2fs-fio-randrw-r1"  # real blktrace, two per-CPU files


def _ingest_both(raw: list[Path], kind: str, n: int, out: Path) -> tuple[Path, Path]:
    whole = out / "whole" / "trace"
    assert main(["ingest", "--kind", kind, *map(str, raw), "-o", str(whole)]) == 0
    dirs = [out / "split" / "trace_parts" / f"part-{k}-of-{n}" for k in range(1, n + 1)]
    for k, d in enumerate(dirs, 1):
        assert main(["ingest", "--kind", kind, "--part", f"{k}/{n}", *map(str, raw), "-o", str(d)]) == 0
    parts = out / "split" / "trace_parts" / "parts.json"
    assert main(["gather-parts", *map(str, dirs), "-o", str(parts)]) == 0
    return whole / "events.parquet", parts


def _answers(events: Path, out: Path) -> dict[str, pl.DataFrame]:
    """Every whole-trace analysis of one run through the verbs, tables by name."""
    out.mkdir(parents=True)
    ev = str(events)
    assert main(["access-frequency", ev, "--fof", str(out / "fof.parquet"), "--pages", str(out / "pages.parquet")]) == 0
    assert main(["access-frequency", ev, "--mode", "ssd-study", "--fof", str(out / "fof_ssd.parquet")]) == 0
    assert main(["latency", ev, "--by-rw", "-o", str(out / "lat.parquet")]) == 0
    assert main(["queue-depth", ev, "-o", str(out / "qd.parquet"), "--dist", str(out / "dist.parquet"),
                 "--series", str(out / "ser.parquet")]) == 0  # fmt: skip
    # run_id (named by the directory: "whole" or "split") aside, the tables must be equal
    tables = {p.stem: pl.read_parquet(p).drop("run_id", strict=False) for p in out.glob("*.parquet")}
    files = json.loads(events.read_text())["parts"] if events.suffix == ".json" else [events.name]
    scan = pl.scan_parquet([str(events.parent / f) for f in files])
    tables["actions"] = scan.group_by("action").len().sort("action").collect()
    return tables


@pytest.fixture(scope="module")
def text_trace(tmp_path_factory):
    src = ROOT / "data" / "raw" / TEXT_RUN / "trace.txt.zst"
    if not src.exists():
        pytest.skip("embedded run not in this checkout")
    tmp = tmp_path_factory.mktemp("text")
    plain = tmp / "trace.txt"  # byte ranges need the decompressed text (as the workflow's scatter rule makes it)
    subprocess.run(["zstd", "-dqf", str(src), "-o", str(plain)], check=True)
    return plain, tmp


@pytest.mark.parametrize("n", [1, 4])
def test_text_parts_equal_whole(text_trace, n):
    plain, tmp = text_trace
    out = tmp / f"n{n}"
    whole, parts = _ingest_both([plain], "ftrace", n, out)
    files = [parts.parent / f for f in json.loads(parts.read_text())["parts"]]
    assert pl.concat([pl.read_parquet(f) for f in files]).equals(pl.read_parquet(whole))  # every row and column
    a, b = _answers(whole, out / "a_whole"), _answers(parts, out / "a_parts")
    assert a.keys() == b.keys() and len(a) == 8
    for name in a:
        assert a[name].equals(b[name]), name
    assert a["lat"].filter(stage="q2c", rw="all")["n"].item() == 4013  # btt's count on this trace
    assert a["qd"]["requests"].item() > 0 and a["pages"].height > 0
    assert lost_events(parts) == lost_events(whole.parent / "ingest.json")  # counted over the parts


@pytest.mark.parametrize("plain,n", [(False, 3), (True, 5)])
def test_binary_parts_equal_whole(tmp_path, plain, n):
    """2 CPU files: compressed in 3 parts (one file each, the last part empty); plain in 5 (byte ranges cut at
    record starts, 2 or 3 per file)."""
    raw = ROOT / "data" / "raw" / BIN_RUN / "blktrace"
    if not raw.exists():
        pytest.skip("embedded run not in this checkout")
    if plain:
        for f in raw.glob("vda.blktrace.*.zst"):
            subprocess.run(["zstd", "-dqf", str(f), "-o", str(tmp_path / f.name.removesuffix(".zst"))], check=True)
        raw = tmp_path / "vda"
    whole, parts = _ingest_both([raw], "blktrace", n, tmp_path)
    doc = json.loads(parts.read_text())
    ranges = [json.loads((parts.parent / f).with_name("ingest.json").read_text())["part"].get("range") for f in
              doc["parts"]]  # fmt: skip
    assert all(ranges) == plain
    assert doc["rows"]["events"] == pl.read_parquet(whole).height
    w = pl.read_parquet(whole).sort("cpu", "seq")
    p = pl.concat([pl.read_parquet(parts.parent / f) for f in doc["parts"]]).sort("cpu", "seq")
    # process names are announced once per task, on one CPU: a part misses those of other parts' CPUs
    assert p.drop("process").equals(w.drop("process"))
    assert lost_events(parts) == lost_events(whole.parent / "ingest.json")
    seq = json.loads((whole.parent / "ingest.json").read_text())["trace"]["sequence_gaps"]
    assert doc["trace"]["sequence_gaps"] == seq  # (no gap falls on a cut here)
    a, b = _answers(whole, tmp_path / "a_whole"), _answers(parts, tmp_path / "a_parts")
    for name in a:
        assert a[name].equals(b[name]), name


def test_windows_carry_requests_in_flight(text_trace):
    """The replay fed in windows of 500 events (requests in flight at ~40 window edges) equals one window."""
    plain, tmp = text_trace
    ev = tmp / "n1" / "whole" / "trace" / "events.parquet"
    if not ev.exists():
        assert main(["ingest", "--kind", "ftrace", str(plain), "-o", str(ev.parent)]) == 0
    one, many = replay.run([ev], rows_per_window=10**9), replay.run([ev], rows_per_window=500)
    try:
        assert replay.bios_frame(one).equals(replay.bios_frame(many))
        assert one.depth == many.depth
    finally:
        one.close(), many.close()
    row, _, _ = queue_depth.from_events([ev])
    pairs, t0, t1 = queue_depth.dc_pairs([ev])  # the pairs of the join_asof version, held in memory
    old = queue_depth.summary(pairs, t0, t1)
    assert row["requests"] == old["requests"] and row["completed"] == old["completed"]
    assert row["mean_depth"] == pytest.approx(old["mean_depth"], rel=1e-12)
    bios = latency.per_bio([ev])
    assert bios["q2c"].drop_nulls().len() == 4013  # btt's Q2C count
    # the column-at-a-time summary equals stage_summary of the per-bio table (all, and by R/W)
    assert latency.stages([ev]).equals(latency.stage_summary(bios))
    rw = bios.with_columns(rw=pl.when(pl.col("rw").str.contains("R")).then(pl.lit("R")).otherwise(pl.lit("W")))
    by = latency.stages([ev], by_rw=True).filter(pl.col("rw") != "all")
    assert by.equals(latency.stage_summary(rw, by=["rw"]).sort("rw", maintain_order=True).select(by.columns))


def test_split_plan_and_bad_parts(text_trace, tmp_path, capsys):
    plain, _ = text_trace
    assert main(["split", "--kind", "ftrace", "--parts", "3", str(plain)]) == 0
    plan = json.loads(capsys.readouterr().out)
    cuts = [r for p in plan["plan"] for r in p["range"]]
    data = plain.read_bytes()
    assert cuts[0] == 0 and cuts[-1] == len(data) and all(data[c - 1] == 0x0A for c in cuts[1:-1])
    assert main(["ingest", "--part", "4/3", str(plain), "-o", str(tmp_path / "x")]) == 2
    zst = ROOT / "data" / "raw" / TEXT_RUN / "trace.txt.zst"
    assert main(["ingest", "--kind", "ftrace", "--part", "1/2", str(zst), "-o", str(tmp_path / "y")]) == 2
    err = capsys.readouterr().err
    assert "trace.txt.zst: byte offset 0: a compressed text trace cannot be cut" in err
    assert main(["ingest", "--kind", "ftrace", "--part", "1/1", str(zst), "-o", str(tmp_path / "z")]) == 0  # whole
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
    r = subprocess.run([str(native.program()), "ftrace", "--out", str(tmp_path / "e.parquet"), "--report",
                        str(tmp_path / "r.json"), "--range", "5:100", str(plain)], check=False)  # fmt: skip
    assert r.returncode == 2 and not (tmp_path / "e.parquet").exists()
    assert "byte offset 5" in json.loads((tmp_path / "r.json").read_text())["error"]["where"]


def test_seek_in_windows_equals_the_whole_table(text_trace):
    """seek.summarise (time windows, last ends carried) gives summary() and histogram() of the full table."""
    plain, tmp = text_trace
    ev = tmp / "n1" / "whole" / "trace" / "events.parquet"
    if not ev.exists():
        assert main(["ingest", "--kind", "ftrace", str(plain), "-o", str(ev.parent)]) == 0
    d = seek.distances([ev])
    for rows in (10**9, 300):
        summ, hist = seek.summarise([ev], rows_per_window=rows)
        assert summ.equals(seek.summary(d)) and hist.equals(seek.histogram(d)), rows
    # a stream above the exact limit (forced: 1,000 requests) keeps counts and a log histogram: same n, shares,
    # mean and histogram; the median within the log histogram's half-width
    from blkscope.analysis.stats.log_histogram import HALF_WIDTH

    summ, hist = seek.summarise([ev], rows_per_window=300, exact_max=1000)
    exact = seek.summary(d)
    assert hist.equals(seek.histogram(d)) and summ["n"].to_list() == exact["n"].to_list()
    assert max(exact["n"]) > 1000
    for a, b in zip(exact.iter_rows(named=True), summ.iter_rows(named=True), strict=True):
        assert (b["sequential_share"], b["backward_share"]) == (a["sequential_share"], a["backward_share"])
        assert b["mean_abs_sectors"] == pytest.approx(a["mean_abs_sectors"], rel=1e-9)
        assert abs(b["median_abs_sectors"] - a["median_abs_sectors"]) <= HALF_WIDTH * a["median_abs_sectors"] + 1e-9


def test_blkparse_text_parts_equal_whole(tmp_path):
    """blkparse's own text of a real set (sequence numbers, the summary at the end) cut in 3 byte ranges."""
    raw = ROOT / "data" / "raw" / BIN_RUN / "blktrace"
    if not raw.exists() or shutil.which("blkparse") is None:
        pytest.skip("needs the embedded guest run and blkparse")
    for f in raw.glob("vda.blktrace.*.zst"):
        subprocess.run(["zstd", "-dqf", str(f), "-o", str(tmp_path / f.name.removesuffix(".zst"))], check=True)
    text = tmp_path / "blkparse.txt"
    subprocess.run(["blkparse", "-i", str(tmp_path / "vda"), "-o", str(text)], check=True, capture_output=True)
    whole, parts = _ingest_both([text], "blkparse", 3, tmp_path / "out")
    files = [parts.parent / f for f in json.loads(parts.read_text())["parts"]]
    assert pl.concat([pl.read_parquet(f) for f in files]).equals(pl.read_parquet(whole))
    last = json.loads((files[-1].parent / "ingest.json").read_text())["trace"]
    assert "Total (vda)" in last["summary"]  # the part holding the end of the text reads blkparse's summary
