"""Every registered figure, drawn from tables made here from real embedded runs: the largest committed YCSB run
(traced, with its YCSB status lines), a traced and an untraced fio run. Raw logs are ingested into a temporary
directory, the statistics and figure-data verbs run on them as the workflow runs them, and each chart must give
a valid Vega-Lite spec with no dataset over Altair's 5,000 rows, render to SVG within the text width, and draw
an empty table without crashing."""

from __future__ import annotations

import importlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import vl_convert as vlc

from blkscope.cli import main
from blkscope.figures import FIGURES
from blkscope.figures.panels import check_panels, panel_marks, sparse_panels
from blkscope.figures.theme import COLUMN_WIDTH_PT, MAX_FIGURE_HEIGHT_PT, TEXT_WIDTH_PT
from blkscope.paper.figure_tex import width as figure_width
from blkscope.paper.pdf_geometry import check_figure_pdf

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "data" / "raw"
RUNS = ROOT / "config" / "runs.tsv"
FIO, FIO_UNTRACED = "host-ext4-fio-randrw-r1", "host-ext4-fio-randrw-untraced-r1"


def _largest_ycsb() -> str | None:
    # a whole-run trace: a memory-capped run (-mem) keeps 3 s of 4 M records, where no page is hot enough to rank
    runs = sorted((p for p in RAW.glob("host-*-ycsb-*-r*/trace.txt.zst") if "-mem" not in p.parent.name),
                  key=lambda p: p.stat().st_size)  # fmt: skip
    return runs[-1].parent.name if runs else None


YCSB = _largest_ycsb()


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> dict[str, Path]:
    """Figure name -> the table its rule gives it, built from the embedded runs."""
    if YCSB is None or not (RAW / FIO / "trace.txt.zst").exists() or not (RAW / FIO_UNTRACED).exists():
        pytest.skip("embedded runs not in this checkout")
    proc = tmp_path_factory.mktemp("processed")
    a, f = proc / "analysis", proc / "figures"
    ingest = [
        (YCSB, "ftrace", ["trace.txt.zst"], "trace"), (YCSB, "iostat", ["iostat.json"], "iostat"),
        (YCSB, "ycsb", ["ycsb-load.txt", "ycsb-run.txt"], "ycsb"), (FIO, "ftrace", ["trace.txt.zst"], "trace"),
        (FIO, "iostat", ["iostat.json"], "iostat"), (FIO, "fio", ["fio.json"], "fio"),
        (FIO_UNTRACED, "fio", ["fio.json"], "fio"),
    ]  # fmt: skip
    for run, kind, files, stage in ingest:
        paths = [str(RAW / run / x) for x in files]
        assert main(["ingest", "--kind", kind, *paths, "-o", str(proc / run / stage)]) == 0
    traced = [YCSB, FIO]
    ev = [str(proc / r / "trace" / "events.parquet") for r in traced]
    io = [str(proc / r / "iostat" / "iostat.parquet") for r in traced]
    fof = [str(proc / r / "frequency" / "fof.cover.parquet") for r in traced]
    for e, o in zip(ev, fof, strict=True):
        assert main(["access-frequency", e, "--fof", o]) == 0
    runs = ["--runs", str(RUNS)]
    rank = proc / FIO / "frequency" / "rank.parquet"
    fio = [str(proc / r / "fio" / "fio_jobs.parquet") for r in (FIO, FIO_UNTRACED)]
    verbs = [
        ["zipf", *fof, "--n-boot", "0", "-o", str(a / "zipf.parquet")],
        ["latency", *ev, "--by-rw", "-o", str(a / "latency.parquet")],
        ["queue-depth", *ev, "--iostat", *io, "-o", str(a / "qd.parquet"), "--dist", str(a / "qd_dist.parquet"),
         "--series", str(a / "qd_series.parquet")],
        ["seek", *ev, "-o", str(a / "seek.parquet"), "--hist", str(a / "seek_hist.parquet")],
        ["trace-cost", "--raw", str(RAW), *ev, "-o", str(a / "trace_cost.parquet")],
        ["overhead", *runs, *fio, "-o", str(a / "overhead.parquet")],
        ["overhead", *runs, fio[0], "-o", str(a / "overhead_none.parquet")],
        ["figdata-fof", *runs, *fof, "-o", str(f / "fof.parquet")],
        ["figdata-rank", *runs, *fof, "-o", str(f / "rank.parquet")],
        ["figdata-ccdf", *runs, "--zipf", str(a / "zipf.parquet"), *fof, "-o", str(f / "ccdf.parquet")],
        ["figdata-series", *runs, "-o", str(f / "series.parquet"), "--ycsb",
         str(proc / YCSB / "ycsb" / "ycsb_series.parquet"), "--", *io],
        ["figdata-queue-depth", *runs, "--series", str(a / "qd_series.parquet"), "--dist", str(a / "qd_dist.parquet"),
         "-o", str(f / "qd.parquet")],
        ["figdata-seek", *runs, "--seek", str(a / "seek.parquet"), "--hist", str(a / "seek_hist.parquet"),
         "-o", str(f / "seek.parquet")],
        ["figdata-join", *runs, str(a / "latency.parquet"), "-o", str(f / "latency.parquet")],
        ["figdata-join", *runs, str(a / "trace_cost.parquet"), "-o", str(f / "trace_cost.parquet")],
        ["rank-frequency", *runs, "-o", str(a / "rank_frequency.parquet"), str(rank)],
        ["iostat-summary", *runs, "-o", str(a / "iostat_summary.parquet"), *io],
    ]  # fmt: skip
    assert main(["frequency", ev[1], "--rank", str(rank)]) == 0
    char = [proc / r / "characterise" for r in traced]
    for e, c in zip(ev, char, strict=True):
        mrc, hot = str(c / "mrc.parquet"), str(c / "metadata_hot.parquet")
        verbs += [["reuse", e, "--shards-size", "8192", "--auto", "--classes", "all,data,meta", "-o",
                   str(c / "reuse.parquet"), "--mrc", mrc],  # as the workflow: class rows the figure leaves out
                  ["metadata", e, "-o", hot], ["characterise", e, "--io-map", str(c / "io_map.parquet"),
                   "--latency-windows", str(c / "latency_windows.parquet"), "--latency-window-s", "0.1", "--sizes",
                   str(c / "sizes.parquet"), "--arrivals", str(c / "arrivals.parquet"), "--throughput",
                   str(c / "throughput.parquet")]]  # fmt: skip
    mrcs = [str(c / "mrc.parquet") for c in char]
    verbs += [["figdata-mrc", *runs, *mrcs, "-o", str(f / "mrc.parquet")],
              ["figdata-mrc", *runs, "--classes", "all,data,meta", "--of-record", *mrcs, "-o",
               str(f / "mrc_by_class.parquet")],
              ["figdata-request-size-over-time", *runs, *[str(c / "throughput.parquet") for c in char], "-o",
               str(f / "size_over_time.parquet")],
              ["figdata-io-map", *runs, *[str(c / "io_map.parquet") for c in char], "-o", str(f / "io_map.parquet")],
              ["figdata-latency-windows", *runs, *[str(c / "latency_windows.parquet") for c in char], "-o",
               str(f / "latency_windows.parquet")],
              ["figdata-request-sizes", *runs, *[str(c / "sizes.parquet") for c in char], "-o",
               str(f / "request_sizes.parquet")],
              ["figdata-arrivals", *runs, *[str(c / "arrivals.parquet") for c in char], "-o",
               str(f / "arrivals.parquet")],
              ["metadata-vs-data", *runs, *[str(c / "metadata_hot.parquet") for c in char], "-o",
               str(a / "metadata_vs_data.parquet")],
              # the YCSB run (no memory cap: its cache is RocksDB's block cache) stands in for a sweep run
              ["cache-sweep", *runs, "--raw", str(RAW), "--processed", str(proc), "--zipf", str(a / "zipf.parquet"),
               "--metadata", str(a / "metadata_vs_data.parquet"), "-o", str(a / "cache_sweep.parquet"),
               YCSB]]  # fmt: skip
    for v in verbs:
        assert main(v) == 0, v[0]
    return {
        "rank-frequency": f / "rank.parquet", "iostat-compare": a / "iostat_summary.parquet",
        "frequency-of-frequency": f / "fof.parquet", "zipf-ccdf": f / "ccdf.parquet",
        "tracing-overhead": a / "overhead.parquet", "trace-cost": f / "trace_cost.parquet",
        "io-over-time": f / "series.parquet", "latency-stages": f / "latency.parquet",
        "queue-depth": f / "qd.parquet", "seek-distance": f / "seek.parquet",
        "tracing-overhead-empty": a / "overhead_none.parquet", "miss-ratio-curve": f / "mrc.parquet",
        "metadata-vs-data": a / "metadata_vs_data.parquet", "io-map": f / "io_map.parquet",
        "latency-windows": f / "latency_windows.parquet", "request-sizes": f / "request_sizes.parquet",
        "arrivals": f / "arrivals.parquet", "request-size-over-time": f / "size_over_time.parquet",
        "miss-ratio-by-class": f / "mrc_by_class.parquet", "cache-sweep": a / "cache_sweep.parquet",
    }  # fmt: skip


def _chart(name: str, table: pl.DataFrame):
    return importlib.import_module(f"blkscope.figures.{FIGURES[name]}").chart(table)


def _check(chart, tmp: Path | None = None, space: float = TEXT_WIDTH_PT) -> str:
    """Valid spec (to_dict validates), every embedded dataset within Altair's row limit, SVG within the width
    `space` it is printed in (a column or both); with `tmp`, the PDF too: within that width and the height a figure
    has, and no two text labels overlapping."""
    spec = chart.to_dict()
    assert all(len(rows) <= 5000 for rows in spec.get("datasets", {}).values())
    svg = vlc.vegalite_to_svg(spec)
    width = float(re.search(r'<svg[^>]* width="([\d.]+)"', svg).group(1))
    assert width <= space + 0.5, width
    if tmp is not None:
        pdf = tmp / "figure.pdf"
        pdf.write_bytes(vlc.vegalite_to_pdf(spec))
        problems = check_figure_pdf(pdf, space, MAX_FIGURE_HEIGHT_PT)
        assert problems == [], problems[:5]
    return svg


def test_every_figure_has_a_caption_and_label():
    for name, mod in FIGURES.items():
        m = importlib.import_module(f"blkscope.figures.{mod}")
        if name in ("rank-frequency", "iostat-compare"):
            continue
        assert m.CAPTION and m.LABEL.startswith("fig:"), name


def test_captions_point_to_the_artifact_for_what_they_do_not_draw():
    # review-q5 N11: "the all_setups notebook" and "the characterisation table" are the artifact's (Appendix D),
    # not the paper's: every caption that names them says where they are
    import inspect

    for mod in FIGURES.values():
        src = inspect.getsource(importlib.import_module(f"blkscope.figures.{mod}"))
        assert "characterisation.csv" not in src, mod  # a file name: Appendix D's, not a caption's
        for m in re.finditer(r"all\\\\?_setups\}+ notebook", src):
            said = src[max(0, m.start() - 120):m.end() + 80]
            assert "artifact" in said and "app:data" in said, (mod, said)
        assert "in the characterisation table" not in src, mod


@pytest.mark.parametrize("name", list(FIGURES))
def test_figure_from_real_runs(tables, name, tmp_path):
    table = pl.read_parquet(tables[name])
    assert table.height, f"{name}: the real runs gave an empty table"
    svg = _check(_chart(name, table), tmp_path, figure_width(FIGURES[name]))
    assert "<svg" in svg and "no traced" not in svg and "no paired" not in svg
    _, sparse = check_panels(svg, name)  # a figure job's check (theme.save): an empty panel raises
    assert not sparse, f"{name}: a panel all but empty ({panel_marks(svg)} marks per panel)"
    assert "no setup revisits" not in svg  # the YCSB run has skew: rank-frequency draws it


@pytest.mark.parametrize("name", list(FIGURES))
def test_figure_from_an_empty_table(tables, name):
    _check(_chart(name, pl.read_parquet(tables[name]).clear()), space=COLUMN_WIDTH_PT)


def test_figure_data_of_several_tables_in_one_process_is_each_verbs_own(tables, tmp_path, capsys):
    """`blkscope figdata-views` (an imported run's figure data, one job: figures.smk) writes each table byte for
    byte as its verb alone does, checks each command's manifests as that verb does, and runs figdata verbs only."""
    from blkscope import datasets

    f = tables["frequency-of-frequency"].parent
    fof = [tmp_path / "proc" / r / "frequency" / "fof.cover.parquet" for r in (YCSB, FIO)]  # copies: one is changed
    for copy in fof:
        copy.parent.mkdir(parents=True)
        shutil.copy2(f.parent / copy.relative_to(tmp_path / "proc"), copy)
    datasets.record(manifest := tmp_path / "fof.tsv", fof)
    mrc = " ".join(str(f.parent / r / "characterise" / "mrc.parquet") for r in (YCSB, FIO))
    head, fofs = f"--runs {RUNS} -o {tmp_path}", f"{' '.join(map(str, fof))} --check-datasets {manifest}"
    lines = [f"blkscope figdata-fof {head}/fof.parquet {fofs}", f"blkscope figdata-rank {head}/rank.parquet {fofs}",
             f"blkscope figdata-mrc {head}/mrc_by_class.parquet --classes all,data,meta --of-record {mrc}"]
    assert main(["figdata-views", *lines]) == 0
    for name in ("fof", "rank", "mrc_by_class"):
        assert (tmp_path / f"{name}.parquet").read_bytes() == (f / f"{name}.parquet").read_bytes(), name
    with open(fof[0], "ab") as out:  # a table its manifest lists, changed since: refused, nothing written
        out.write(b"\0")
    (tmp_path / "fof.parquet").unlink()
    capsys.readouterr()
    assert main(["figdata-views", *lines[:1]]) == 2
    assert "fof.tsv" in capsys.readouterr().err and not (tmp_path / "fof.parquet").exists()
    assert main(["figdata-views", f"blkscope zipf {fofs}"]) == 2  # not a figure-data verb


def test_overhead_without_pairs_says_so(tables):
    empty = pl.read_parquet(tables["tracing-overhead-empty"])
    assert empty.is_empty()
    assert "no paired runs" in _check(_chart("tracing-overhead", empty))


def test_zipf_ccdf_draws_the_fitted_tail_from_xmin(tables):
    ccdf = pl.read_parquet(tables["zipf-ccdf"])
    zipf = pl.read_parquet(tables["zipf-ccdf"].parents[1] / "analysis" / "zipf.parquet")
    fitted = zipf.filter(pl.col("alpha").is_not_null())
    fit = ccdf.filter(pl.col("kind") == "fit")
    assert set(fit["run_id"]) <= set(fitted["run_id"])  # runs without a fit have no tail
    for (run, op), g in fit.group_by("run_id", "op"):
        xmin = fitted.filter((pl.col("run_id") == run) & (pl.col("op") == op))["xmin"][0]
        assert g["x"].min() == xmin
        assert (g.sort("x")["ccdf"].diff().drop_nulls() <= 0).all()


def test_series_holds_iostat_and_ycsb(tables):
    s = pl.read_parquet(tables["io-over-time"])
    assert {"writes/s", "write await (ms)", "ops/s"} <= set(s["metric"])
    assert set(s.filter(pl.col("source") == "ycsb")["run_id"]) == {YCSB}


@pytest.mark.parametrize("tie", [[226.0, 153.0], [153.0, 226.0]])
def test_series_keeps_the_log_order_of_samples_at_one_elapsed_second(tie):
    """YCSB's last status lines can share an elapsed second: the lines must go through them (ops/s and p99) in
    log order, the same on every run (a hand-made YCSB series, in the reader's columns, for the tie)."""
    from blkscope.figures.data import series_table
    from blkscope.runs import load_runs

    runs = load_runs(RUNS)
    rid = runs.filter(pl.col("workload") == "ycsb")["run_id"][0]
    p99 = [732.0, *tie, 140.0]
    handmade = pl.DataFrame({
        "phase": ["run"] * 8, "elapsed_s": [19.0, 20.0, 20.0, 21.0] * 2, "operations": [100, 200, 210, 220] * 2,
        "ops_per_s": [900.0, *tie, 10.0] * 2,
        "section": ["READ"] * 4 + [None] * 4, "stat": ["99"] * 4 + [None] * 4, "value": p99 + [None] * 4,
    })  # fmt: skip
    for _ in range(5):
        s = series_table({}, {rid: handmade}, runs)
        read = s.filter(pl.col("metric") == "read p99 (ms)")
        assert read["value"].to_list() == pytest.approx([v / 1000 for v in p99])
        ops = s.filter(pl.col("metric") == "ops/s")
        assert ops["elapsed_s"].to_list() == [19.0, 20.0, 20.0, 21.0] and ops["value"].to_list() == [900.0, *tie, 10.0]


def test_overhead_setups_with_mount_options_keep_the_width():
    """A setup label cut short (ext4 data=writeback runs have long ones) must not widen the figure."""
    import vl_convert as vlc
    from pypdf import PdfReader

    from blkscope.figures import tracing_overhead

    df = pl.DataFrame({"workload": ["sysbench", "sysbench"], "job": ["rndrw", "rndrw"], "filesystem": ["ext4", "ext4"],
                       "mount_options": ["noatime", "noatime,data=writeback"], "testbed": ["loop", "loop"],
                       "n_traced": [3, 3], "n_untraced": [3, 3], "overhead": [0.01, 0.02],
                       "overhead_lo": [0.0, 0.0], "overhead_hi": [0.05, 0.05]})  # fmt: skip
    spec = tracing_overhead.chart(df).to_json()
    assert "sysbench rndrw data=writeback" in spec
    pdf = vlc.vegalite_to_pdf(spec)
    import io

    assert float(PdfReader(io.BytesIO(pdf)).pages[0].mediabox.width) <= tracing_overhead.WIDTH + 0.5


def test_overhead_keeps_cassandras_commitlog_modes_apart():
    """Cassandra write with an uncompressed and an LZ4 commitlog on one filesystem are two rows, not one."""
    from blkscope.figures import tracing_overhead

    df = pl.DataFrame({"workload": ["cassandra"] * 2, "job": ["write"] * 2, "filesystem": ["ext4"] * 2,
                       "mount_options": ["noatime"] * 2, "testbed": ["loop"] * 2, "commitlog": ["none", "lz4"],
                       "n_traced": [3, 3], "n_untraced": [3, 3], "overhead": [0.01, 0.02],
                       "overhead_lo": [0.0, 0.0], "overhead_hi": [0.05, 0.05]})  # fmt: skip
    spec = tracing_overhead.chart(df).to_dict()
    setups = {r["setup"] for rows in spec["datasets"].values() for r in rows if "setup" in r}
    assert setups == {"cassandra write none", "cassandra write lz4"}



def test_overhead_draws_each_batch_with_both_arms_and_its_caption_counts_the_rest(tables):
    """From the real runs' overhead table: a second batch with both arms is a second point beside the first (not
    a pooled one), a batch with one arm is not drawn, and the caption counts both; the figure's copies of the
    analysis's configuration columns and `arms` value agree with it."""
    from blkscope.analysis.load import overhead as analysis
    from blkscope.analysis.summaries.run_groups import LIGHT
    from blkscope.figures import tracing_overhead as fig

    assert (fig.CONFIG, fig.BOTH, fig.LIGHT) == (analysis.CONFIG, analysis.BOTH, LIGHT)
    real = pl.read_parquet(tables["tracing-overhead"])
    assert real["arms"].to_list() == [analysis.BOTH] and "Every batch holds both arms" in fig.caption(real)
    row = real.row(0, named=True)
    later = pl.DataFrame([row | {"batch": "later", "overhead": row["overhead"] + 0.1},
                          row | {"batch": "alone", "arms": analysis.UNTRACED_ONLY, "n_traced": 0, "overhead": None,
                                 "overhead_lo": None, "overhead_hi": None}], schema=real.schema)  # fmt: skip
    table = pl.concat([real, later])
    spec = fig.chart(table).to_dict()
    drawn = [r for rows in spec["datasets"].values() for r in rows if "pct" in r]
    assert len(drawn) == 2 and len({r["slot"] for r in drawn}) == 2 and len({r["setup"] for r in drawn}) == 1
    cap = fig.caption(table)
    assert "Drawn: two points; one configuration is paired in more than one batch" in cap
    assert "Not drawn: one batch holding only the untraced runs of a configuration." in cap
    fixed = fig.caption(table.with_columns(load=pl.lit(LIGHT), overhead=pl.col("overhead") * 0 - 0.001))
    assert "two are rate-limited jobs, whose throughput tracing cannot change" in fixed, fixed
    assert "(at most 0.1\\,\\% either way)" in fixed, fixed
    # one light point: its noun in the singular; its overhead missing: no bound, no crash
    first = pl.int_range(pl.len()) == 0
    single = table.head(2).with_columns(load=pl.when(first).then(pl.lit(LIGHT)).otherwise(pl.lit("saturating")),
                                        overhead=pl.when(first).then(None).otherwise(pl.col("overhead")))  # fmt: skip
    assert "; one is a rate-limited job, whose throughput tracing cannot change." in fig.caption(single)

def test_figures_take_tables_beyond_altairs_row_guard():
    """Three repeats of every run gave the rank-frequency table 6,479 rows: more than altair's default 5,000."""
    from blkscope.figures import rank_frequency

    n = 6000
    rank = pl.DataFrame({"run_id": [f"r{i % 30}" for i in range(n)], "fs": "ext4", "setup": "ycsb a",
                         "workload": "ycsb", "job": "a", "testbed": "loop", "op": "all", "rank": list(range(1, n + 1)),
                         "count": [1 + n - i for i in range(n)]})  # fmt: skip
    spec = rank_frequency.chart(rank).to_dict()
    assert [len(v) for v in spec["datasets"].values()] == [n]


def _top(rows: list[tuple[str, str, str, str, int]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["setup", "workload", "job", "testbed", "top_count"], orient="row")


def test_skewed_setups_are_chosen_by_how_often_pages_are_revisited():
    from blkscope.figures import select

    top = _top([("fio randrw", "fio", "randrw", "loop", 2), ("fio randrw", "fio", "randrw", "loop", 1),
                ("ycsb a", "ycsb", "a", "loop", 300), ("ycsb a", "ycsb", "a", "loop", 250),
                ("fio randrw-sat", "fio", "randrw-sat", "loop", 40),
                ("fio randrw-sat", "fio", "randrw-sat", "loop", 90),
                ("sysbench rndrw", "sysbench", "rndrw", "loop", 5)])  # fmt: skip
    assert select.skewed(top) == ["ycsb a", "fio randrw-sat"]  # most skewed first; 5 and 2 accesses are not skew
    assert select.with_reference(top) == ["ycsb a", "fio randrw-sat", "fio randrw"]  # plus one flat, for contrast


def test_representative_setups_prefer_the_host_and_the_saturating_job():
    from blkscope.figures import select

    meta = _top([("fio append", "fio", "append", "loop", 0), ("fio randrw", "fio", "randrw", "loop", 0),
                 ("fio randrw-sat", "fio", "randrw-sat", "loop", 0), ("ycsb a (guest)", "ycsb", "a", "guest", 0),
                 ("sysbench rndrw", "sysbench", "rndrw", "loop", 0), ("sysbench rndrw-max", "sysbench", "rndrw-max",
                 "loop", 0), ("journal none", "journal", "none", "loop", 0)])  # fmt: skip
    assert select.representative(meta) == ["fio randrw-sat", "sysbench rndrw-max", "journal none", "ycsb a (guest)"]


def test_representative_cassandra_setup_is_its_write_load_not_the_first_name():
    """Cassandra has no saturating job: the figures show its write load (what the text quotes), though `mixed`
    sorts first by name and `write-n` has more runs."""
    from blkscope.figures import select

    meta = _top([("cassandra mixed", "cassandra", "mixed", "loop", 0), ("cassandra write-n", "cassandra", "write-n",
                 "loop", 0), ("cassandra write", "cassandra", "write", "loop", 0), ("fio randrw", "fio", "randrw",
                 "loop", 0)])  # fmt: skip
    assert select.representative(meta) == ["cassandra write", "fio randrw"]
    assert select.representative(meta.filter(pl.col("job") != "write"))[0] == "cassandra mixed"


def _run_dir(tables: dict[str, Path], run: str) -> Path:
    return tables["miss-ratio-curve"].parents[1] / run


def test_size_over_time_is_the_median_of_each_seconds_requests(tables):
    """The request-size-over-time data are, per run, action (Q, D), op, class and second with requests, the median
    size of that second's requests as the trace gives them (sizes from the events, median by polars)."""
    from polars.testing import assert_frame_equal

    from blkscope.analysis.characterise.io_map import requests

    t = pl.read_parquet(tables["request-size-over-time"])
    assert set(t["action"]) == {"Q", "D"} and set(t["run_id"]) == {YCSB, FIO} and (t["requests"] > 0).all()
    keys = ["action", "op", "class", "bin"]
    for run in (YCSB, FIO):
        ev = requests([_run_dir(tables, run) / "trace" / "events.parquet"], ["Q", "D"]).collect()
        want = ev.group_by("action", "op", "class", bin=pl.col("time_ns") // 1_000_000_000).agg(
            requests=pl.len(), median_kib=pl.col("nsectors").median() / 2)  # fmt: skip
        got = t.filter(pl.col("run_id") == run).select(want.columns)
        assert_frame_equal(got.sort(keys), want.sort(keys), check_dtypes=False)
    # fio randrw reads and writes 4 KiB blocks: every second's data requests are 4 KiB, queued and issued
    assert t.filter((pl.col("run_id") == FIO) & (pl.col("class") == "data"))["median_kib"].unique().to_list() == [4.0]


def test_mrc_by_class_draws_each_streams_profile_of_record(tables):
    """The by-class data hold, per run and class with accesses, the curve of the profile the run's reuse summary
    marks of record (exact below `--auto`'s limit: these traces are small) and no other."""
    t = pl.read_parquet(tables["miss-ratio-by-class"])
    assert t["of_record"].all() and set(t["method"]) == {"exact"} and {"all", "data"} <= set(t["class"])
    cols = ["class", "method", "cache_pages", "miss_ratio"]
    for run in (YCSB, FIO):
        c = _run_dir(tables, run) / "characterise"
        rec = pl.read_parquet(c / "reuse.parquet").filter((pl.col("op") == "all") & pl.col("of_record"))
        want = pl.read_parquet(c / "mrc.parquet").join(rec.select("op", "class", "method", "rate", "size_limit"),
                                                        on=["op", "class", "method", "rate", "size_limit"])  # fmt: skip
        got = t.filter(pl.col("run_id") == run).select(cols)
        assert got.height and got.sort(cols).equals(want.select(cols).sort(cols))


def test_mrc_captions_say_which_profile_is_of_record(tables, tmp_path):
    """Below `--auto`'s limit the exact curve is of record; the FIO run again with the limit at 0 (SHARDS alone, as
    a trace of more than 25 M page accesses) is drawn and captioned as SHARDS with no exact curve, a figure of both
    says how many of each, and the paper's figure environment carries the caption read from the data."""
    from blkscope.figures import miss_ratio_by_class, miss_ratio_curve

    exact = pl.read_parquet(tables["miss-ratio-curve"])
    assert ("Solid: the exact curve (Olken's stack distances), every run's profile of record; dashed: SHARDS at a "
            "fixed size of 8{,}192 sampled pages, drawn over it.") in miss_ratio_curve.caption(exact)  # fmt: skip
    c, runs = tmp_path / FIO / "characterise", ["--runs", str(RUNS)]
    assert main(["reuse", str(_run_dir(tables, FIO) / "trace" / "events.parquet"), "--shards-size", "8192", "--auto",
                 "--exact-max-accesses", "0", "--classes", "all,data,meta", "-o", str(c / "reuse.parquet"), "--mrc",
                 str(c / "mrc.parquet")]) == 0  # fmt: skip
    assert main(["figdata-mrc", *runs, str(c / "mrc.parquet"), "-o", str(tmp_path / "all.parquet")]) == 0
    assert main(["figdata-mrc", *runs, "--classes", "all,data,meta", "--of-record", str(c / "mrc.parquet"), "-o",
                 str(tmp_path / "class.parquet")]) == 0  # fmt: skip
    shards = pl.read_parquet(tmp_path / "all.parquet")
    assert set(shards["method"]) == {"shards-size"} and shards["of_record"].all()
    assert (shards["exact_max_accesses"] == 0).all()
    for mod, table in ((miss_ratio_curve, shards), (miss_ratio_by_class, pl.read_parquet(tmp_path / "class.parquet"))):
        cap = mod.caption(table)
        assert ("Dashed: SHARDS at a fixed size of 8{,}192 sampled pages, every run's profile of record (their "
                "traces have more than 0 page accesses, the exact profile's limit") in cap, cap  # fmt: skip
        assert "Solid" not in cap and "Olken" not in cap
        spec = mod.chart(table).to_dict()["spec"]
        assert spec["encoding"]["strokeDash"]["scale"]["domain"] == ["SHARDS"]  # the legend names no exact curve
    both = pl.concat([exact.filter(pl.col("run_id") == YCSB), shards])
    assert "exact curve for 1 of the 2 runs and SHARDS for the other 1" in miss_ratio_curve.caption(both)
    tex = tmp_path / "mrc.tex"
    assert main(["paper-figure", "miss_ratio_curve", "-o", str(tex), "--table",
                 f"miss_ratio_curve={tmp_path / 'all.parquet'}"]) == 0  # fmt: skip
    assert "every run's profile of record (their traces have more than 0" in tex.read_text()
    assert main(["paper-figure", "miss_ratio_curve", "-o", str(tex)]) == 2  # its caption needs its data
    assert "No curve is drawn" in miss_ratio_curve.caption(exact.clear())


def test_rank_frequency_caption_reads_the_setups_it_leaves_out_from_the_data(tables, tmp_path):
    """The fio run's pages are not revisited: the caption counts it among the setups not drawn and gives how often
    its hottest page is accessed, from the figure data (it once said, typed, "once or twice")."""
    from blkscope.figures import rank_frequency, select

    rank = pl.read_parquet(tables["rank-frequency"])
    fio = rank.filter((pl.col("run_id") == FIO) & (pl.col("op") == "all"))["count"].max()
    hottest = "once" if fio == 1 else f"{fio:,} times".replace(",", "{,}")
    cap = rank_frequency.caption(rank)
    assert cap.startswith(rank_frequency.CAPTION) and f"Not drawn here: one setup whose median run's hottest page is " \
        f"accessed {hottest};" in cap, cap
    tex = tmp_path / "rank.tex"
    assert main(["paper-figure", "rank_frequency", "-o", str(tex), "--table",
                 f"rank_frequency={tables['rank-frequency']}"]) == 0  # fmt: skip
    assert f"accessed {hottest};" in tex.read_text()
    assert rank_frequency.caption(rank.filter(pl.col("run_id") != FIO)).endswith("Every setup of the traced runs "
                                                                                "is drawn.")  # fmt: skip
    assert "nothing is drawn" in rank_frequency.caption(rank.clear())
    # more revisited setups than the figure draws: the others are counted apart
    many = pl.concat([rank.filter(pl.col("run_id") == YCSB).with_columns(setup=pl.lit(f"s{i}"), run_id=pl.lit(f"r{i}"))
                      for i in range(select.MAX_SETUPS + 2)] + [rank.filter(pl.col("run_id") == FIO)])
    assert f"Not drawn here: two other setups whose pages are revisited and one setup whose median run's hottest " \
        f"page is accessed {hottest};" in rank_frequency.caption(many)


def test_figure_command_renders_once_and_without_pandas(tables, tmp_path):
    """`blkscope figure` hands altair the polars table (no pandas import: ~0.4 s of each figure job) and converts
    the PDF and PNG from the one SVG it renders: the PNG is the SVG's size at 2x."""
    prefix = tmp_path / "queue_depth"
    code = ("import sys; from blkscope.cli import main; rc = main(sys.argv[1:]);"
            " print(rc, 'pandas' in sys.modules, 'pyarrow' in sys.modules)")
    args = ["figure", "queue-depth", str(tables["queue-depth"]), "-o", str(prefix), "--formats", "pdf,png,svg"]
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "False", "False"]
    svg = prefix.with_suffix(".svg").read_text()
    w, h = (float(re.search(rf'<svg[^>]* {k}="([\d.]+)"', svg).group(1)) for k in ("width", "height"))
    png = prefix.with_suffix(".png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and prefix.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-"
    assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (round(2 * w), round(2 * h))


def test_row_labels_print_plain_names_that_fit_whole_and_no_two_of_which_print_the_same():
    # review-q4 N15, Part 1 item 12: no run-config names ("ycsb A-zipf-buf-sat-long") and no label cut mid-word
    from blkscope.figures.names import JOBS, plain_setup, vega_lookup
    from blkscope.figures.theme import SETUP_AXIS_PT, fit_labels, label_chars

    guest = ["fio append", "fio randrw", "journal none", "journal prealloc", "sysbench rndrw",
             "ycsb workloada-zipfian-small", "cassandra-ycsb workloada-zipfian-small"]  # the jobs the guest ran
    setups = [f"{w} {j}" for (w, j) in JOBS] + [f"{g} (guest)" for g in guest]
    short = fit_labels(setups, SETUP_AXIS_PT)
    assert len(set(short.values())) == len(setups)
    assert all("\u2026" not in s and len(s) <= label_chars(SETUP_AXIS_PT) for s in short.values())
    assert short["ycsb workloada-zipfian-buffered-sat-long"] == "RocksDB capped, long"
    assert short["cassandra-ycsb workloada-zipfian-small (guest)"] == "Cassandra YCSB small (guest)"
    # the figures' suffixes (tracing_overhead: device cap, mount option, commitlog) in words
    assert plain_setup("cassandra write-n 2M lz4") == "Cassandra fixed writes 2 MiB/s LZ4"
    assert plain_setup("sysbench rndrw data=writeback") == "sysbench r/w writeback"
    assert plain_setup("cassandra mixed none") == "Cassandra mixed"
    assert plain_setup("fio newjob (guest)") == "fio newjob (guest)"  # unknown: the sheet's job after the workload
    assert '"ycsb workloada-zipfian-small (guest)": "RocksDB small (guest)"' in vega_lookup()


def test_the_strata_that_ran_in_the_guest_are_named_by_rule_in_plain_words():
    from blkscope.figures.names import guest_strata

    assert guest_strata(["guest ycsb workloada-zipfian-small"], 3) == (
        "one of the three strata (RocksDB small) ran in the guest")
    assert guest_strata(["ycsb workloada-zipfian-small", "cassandra-ycsb workloada-zipfian-small"], 2) == (
        "both strata (RocksDB small and Cassandra YCSB small) ran in the guest")
    assert guest_strata(["fio append"], 1) == "the stratum (fio appends) ran in the guest"


def test_tick_labels_are_formatted_each_alone_no_0k_beside_0k_no_milli_on_an_ms_axis():
    import altair as alt

    from blkscope.figures.theme import SI_LABELS

    df = pl.DataFrame({"x": [0.0, 0.2, 0.4, 1.0, 10000.0], "y": ["a"] * 5})
    c = alt.Chart(df).mark_point().encode(
        x=alt.X("x:Q", axis=alt.Axis(values=[0, 0.2, 1, 10000], format="~s", labelExpr=SI_LABELS)), y="y:N")
    svg = vlc.vegalite_to_svg(c.to_dict())
    labels = re.findall(r">([^<>]+)</text>", svg)
    assert {"0", "0.2", "1", "10k"} <= set(labels) and "0k" not in labels and "200m" not in labels


def test_the_per_setup_figures_leave_the_cache_sweeps_setups_to_the_notebook(tables):
    # a copy of one traced run's rows as a sweep point: the paper's figure draws neither its histogram nor its
    # sequential share (a row per sweep point would hold the main text a page too long); the notebook's call does
    seek = pl.read_parquet(tables["seek-distance"])
    one = seek.filter(pl.col("run_id") == seek["run_id"][0])
    sweep = one.with_columns(run_id=pl.lit("host-ext4-ycsb-sweep-point-r1"),
                             job=pl.lit("workloada-zipfian-buffered-sweep-4m"),
                             setup=pl.lit("RocksDB sweep 4M buffered"))  # fmt: skip
    both = pl.concat([seek, sweep])

    def drawn(chart) -> str:  # the rows the figure draws (its spec also maps every setup name to its label)
        return json.dumps(chart.to_dict()["datasets"])

    assert "host-ext4-ycsb-sweep-point-r1" not in drawn(_chart("seek-distance", both))
    assert seek["run_id"][0] in drawn(_chart("seek-distance", both))
    setups = sorted(both["setup"].unique().to_list())
    assert "host-ext4-ycsb-sweep-point-r1" in drawn(
        importlib.import_module("blkscope.figures.seek_distance").chart(both, setups))
    # iostat per run likewise
    io = pl.read_parquet(tables["iostat-compare"])
    run = io.filter(pl.col("testbed") == "loop")["run_id"][0]
    point = io.filter(pl.col("run_id") == run).with_columns(run_id=pl.lit("host-ext4-ycsb-sweep-point-r1"),
                                                            job=pl.lit("workloada-zipfian-buffered-sweep-4m"))
    assert "host-ext4-ycsb-sweep-point-r1" not in drawn(_chart("iostat-compare", pl.concat([io, point])))
    assert run in drawn(_chart("iostat-compare", pl.concat([io, point])))


def test_every_job_of_the_runs_sheet_has_a_plain_name():
    """A job added to config/runs.tsv without a plain name printed its id in the paper's tables (the Cassandra
    sweep's 70 k long-window job did): every (workload, job) the sheet holds is in names.JOBS."""
    from blkscope.figures.names import JOBS
    from blkscope.runs import load_runs

    pairs = load_runs(ROOT / "config/runs.tsv").select("workload", "job").unique().rows()
    assert pairs and [p for p in pairs if p not in JOBS] == []


def test_io_map_draws_the_setup_its_paragraph_quotes():
    """The text's sentence on the I/O map gives the reach of one setup's requests (Char Map macros): the figure must
    draw that setup, not the representative YCSB one (which the sentence does not describe)."""
    from blkscope.figures import io_map
    from blkscope.paper.latex import macro_name

    tex = (ROOT / "paper" / "sections" / "characterisation.tex").read_text()
    para = next(p for p in tex.split("\n\n") if r"\ref{fig:io-map}" in p)
    quoted = set(re.findall(r"\\blk\{CharMap(?:Gib|Fill)(\w+?)(?:ExtFour|Xfs|Btrfs)\}", para))
    assert quoted == {macro_name(*io_map.SETUP)}, quoted
    meta = {"fs": ["ext4", "xfs"], "testbed": ["loop"] * 2, "workload": ["ycsb"] * 2}
    jobs = ["workloada-zipfian-buffered-sat", io_map.SETUP[1]]  # both saturating: the old rule took the first
    t = pl.DataFrame({**meta, "setup": ["ycsb a-sat", "ycsb sat"], "job": jobs})
    assert io_map._setup(t) == "ycsb sat"


def _windows(workload: str, job: str, runs: int, full: int, windows: int = 20, per_run: int = 20) -> pl.DataFrame:
    """A latency-windows table of `runs` host runs of one setup, `full` of them with `per_run` windows of 500
    completions, the others' windows and the rest of theirs of 10."""
    rows = [{"run_id": f"{job}-r{r}", "fs": "ext4", "setup": f"{workload} {job}", "workload": workload, "job": job,
             "testbed": "loop", "stage": "d2c", "start_s": w * 0.1, "n": 500 if r < full and w < per_run else 10,
             "p99_us": 100.0 + w} for r in range(runs) for w in range(windows)]  # fmt: skip
    return pl.DataFrame(rows)


def test_latency_windows_leaves_out_a_setup_whose_runs_mostly_lack_windows_and_says_why(tmp_path):
    from blkscope.figures import latency_windows

    # as in the Q review's data: Cassandra's write load, one run of six with one full window; fio's, every run's
    table = pl.concat([_windows("cassandra", "write", 6, 1, per_run=1), _windows("fio", "randrw-sat", 3, 3)])
    svg = vlc.vegalite_to_svg(latency_windows.chart(table).to_dict())
    assert len(panel_marks(svg)) == 1 and not sparse_panels(svg), panel_marks(svg)
    old = vlc.vegalite_to_svg(latency_windows.chart(table, ["cassandra write", "fio randrw-sat"]).to_dict())
    assert sparse_panels(old), panel_marks(old)  # both drawn (the old rule): Cassandra's is all but empty
    cap = latency_windows.caption(table)
    assert "(Appendix~\\ref{app:data}). Not drawn, too few completions" in cap, cap
    assert "per window: Cassandra writes (median window 10; runs with a window of 100: 1 of 6)." in cap, cap


def test_zipf_ccdf_cuts_a_steep_fit_at_its_panels_lowest_point_and_leaves_out_setups_touched_once():
    from blkscope.figures import zipf_ccdf

    def rows(setup: str, kind: str, xs: list[float], ys: list[float]) -> pl.DataFrame:
        n = len(xs)
        return pl.DataFrame({"run_id": [setup] * n, "fs": ["ext4"] * n, "setup": [setup] * n,
                             "workload": [setup.split()[0]] * n, "job": [setup.split()[1]] * n, "testbed": ["loop"] * n,
                             "op": ["all"] * n, "kind": [kind] * n, "x": [float(x) for x in xs],
                             "ccdf": [float(y) for y in ys]})  # fmt: skip

    skewed = "ycsb sat"
    table = pl.concat([rows(skewed, "data", [1, 10, 100], [1, 1e-2, 1e-4]),
                       rows(skewed, "fit", [10, 100, 1000], [1e-2, 1e-6, 1e-15]),  # steeper than the data
                       rows("fio randrw", "data", [1], [1])])  # fmt: skip
    fit = zipf_ccdf._clip_fits(table).filter(pl.col("kind") == "fit").sort("x")
    assert fit["ccdf"].to_list() == [1e-2, 1e-4] and fit["x"][1] == pytest.approx(10**1.5)  # ends on the floor
    spec = zipf_ccdf.chart(table, [skewed]).to_dict()
    assert min(spec["spec"]["layer"][0]["encoding"]["y"]["scale"]["domain"]) == pytest.approx(1e-4)
    assert zipf_ccdf._setups(table.filter(pl.col("kind") == "data")) == ([skewed], ["fio randrw"])
    assert "without fio r/w (each page accessed once: a CCDF of one point)." in zipf_ccdf.caption(table)
    # every setup drawn: the caption is the constant text, ended; no traced run: said
    assert zipf_ccdf.caption(table.filter(pl.col("setup") == skewed)) == zipf_ccdf.CAPTION + "."
    assert zipf_ccdf.caption(table.clear()).endswith("}. No traced run: nothing is drawn.")


def test_request_sizes_fill_the_empty_classes_between_a_runs_sizes_with_zero():
    """A line must not bridge classes without requests (as seek_distance's buckets): 4 and 64 KiB writes give 0 at
    8, 16 and 32 KiB, and nothing outside the run's range or for an op it did not issue."""
    from blkscope.figures.request_sizes import shares

    t = pl.DataFrame({"run_id": ["r"] * 3, "fs": ["ext4"] * 3, "setup": ["s"] * 3, "op": ["write"] * 3,
                      "size_kib": [4.0, 6.0, 64.0], "requests": [2, 1, 1]})  # fmt: skip
    s = shares(t)
    assert s["size_class"].to_list() == [4.0, 8.0, 16.0, 32.0, 64.0]
    assert s["share"].to_list() == [0.75, 0.0, 0.0, 0.0, 0.25]


def test_cache_sweep_caption_names_each_configuration_whose_runs_kept_windows_of_different_lengths():
    from blkscope.figures import cache_sweep

    conf = {"cache_kind": "memory cap", "cache_bytes": 640.0 * 2**20, "database": "cassandra", "captured": True,
            "batch": "b", "hot1_read": 0.5}  # fmt: skip
    rows = [conf | {"recordcount": 70_000, "window_s": w} for w in (2.0, 120.0)]
    rows += [conf | {"recordcount": 7_000, "window_s": 2.0}] * 2  # one window: not named
    cap = cache_sweep.caption(pl.DataFrame(rows))
    assert "Runs of one configuration kept trace windows of different lengths, each drawn: Cassandra with " in cap
    assert "70{,}000 records under a 640\\,MiB cap (2\\,s and 120\\,s)." in cap and "7{,}000 records" not in cap, cap
    # a run that kept its whole trace (no window set: null) is said so, after the windows
    whole = cache_sweep.caption(pl.DataFrame([*rows, conf | {"recordcount": 70_000, "window_s": None}]))
    assert "640\\,MiB cap (2\\,s, 120\\,s and the whole run)." in whole and "--" not in whole, whole


def test_io_over_time_colours_only_the_filesystems_it_draws():
    """The legend is built from the lines drawn: a filesystem of a setup left out (ext4 wb under the journal) is not
    in it (Q review: "ext4 wb" listed with no line)."""
    from blkscope.figures import io_over_time

    def run(workload: str, job: str, fs: str) -> dict:
        return {"run_id": f"{fs}-{job}", "fs": fs, "setup": f"{workload} {job}", "workload": workload, "job": job,
                "testbed": "loop", "traced": True, "source": "iostat", "metric": "writes/s"}  # fmt: skip

    rows = [run(*w) | {"elapsed_s": float(t), "value": 1.0} for w in [("fio", "randrw-sat", "ext4"),
            ("journal", "none", "ext4 wb")] for t in range(3)]  # fmt: skip
    spec = io_over_time.chart(pl.DataFrame(rows), ["fio randrw-sat"]).to_dict()
    domains = re.findall(r'"domain": \[([^\]]*)\]', json.dumps(spec))
    assert any('"ext4"' in d for d in domains) and not any("ext4 wb" in d for d in domains), domains


def test_a_per_setup_caption_names_the_setups_drawn_and_the_workloads_left_out():
    """Q review: "one panel per workload" where the selection stops at four and leaves out the journal and Cassandra
    YCSB; the caption says one panel per setup (each named) and the workloads not drawn, from the figure data."""
    from blkscope.figures import request_sizes

    jobs = [("ycsb", "workloada-zipfian-sat"), ("cassandra", "write"), ("fio", "randrw-sat"),
            ("sysbench", "rndrw-max"), ("journal", "none"), ("cassandra-ycsb", "workloada-zipfian-small")]
    t = pl.DataFrame([{"run_id": j, "fs": "ext4", "setup": f"{w} {j}", "workload": w, "job": j, "testbed": "loop",
                       "op": "write", "size_kib": 4.0, "requests": 1} for w, j in jobs])  # fmt: skip
    cap = request_sizes.caption(t)
    assert cap.endswith("one panel per setup. Every setup is in the \\texttt{all\\_setups} notebook of the artifact "
                        "(Appendix~\\ref{app:data}). Workloads not drawn: journal and Cassandra YCSB."), cap
    assert "per workload. Every" not in cap
    one = request_sizes.caption(t.filter(pl.col("workload") != "journal"))
    assert one.endswith("Workload not drawn: Cassandra YCSB."), one


def test_zipf_ccdf_of_setups_whose_pages_are_each_accessed_once_says_so():
    from blkscope.figures import zipf_ccdf

    once = pl.DataFrame({"run_id": ["r"], "fs": ["ext4"], "setup": ["fio randrw"], "workload": ["fio"],
                         "job": ["randrw"], "testbed": ["loop"], "op": ["all"], "kind": ["data"], "x": [1.0],
                         "ccdf": [1.0]})  # fmt: skip
    assert "no setup revisits its pages" in json.dumps(zipf_ccdf.chart(once).to_dict())


def test_the_time_series_setup_labels_print_above_their_panels_not_over_the_lines():
    """Q review: Fig. 8's corner labels printed over the lines, which reach every corner of a time series: in
    io_over_time and queue_depth the setup's label sits just above its panel (its y above the cell's top edge)."""
    from blkscope.figures import io_over_time, queue_depth

    meta = {"fs": "ext4", "testbed": "loop", "traced": True}
    # lines up to the top-right corner: the last point is each series' largest; runs of 3 s beside runs of 60 s
    series = [meta | {"run_id": f"{job}-r1", "setup": f"{w} {job}", "workload": w, "job": job, "source": "iostat",
                      "metric": m, "elapsed_s": float(t), "value": float(t)}
              for w, job, n in [("fio", "randrw-sat", 3), ("ycsb", "workloada-zipfian-sat", 60)]
              for m in io_over_time.IOSTAT_METRICS for t in range(n + 1)]  # fmt: skip
    qd = [meta | {"run_id": f"{job}-r1", "setup": f"fio {job}", "workload": "fio", "job": job, "kind": kind,
                  "x": float(t), "y": float(t + 1)}
          for job, n in [("randrw", 20), ("append", 20)] for kind in ("series", "dist") for t in range(n)]  # fmt: skip
    setups = ["fio randrw-sat", "ycsb workloada-zipfian-sat"]
    charts = {"io_over_time": io_over_time.chart(pl.DataFrame(series), setups),
              "queue_depth": queue_depth.chart(pl.DataFrame(qd))}  # fmt: skip
    for name, chart in charts.items():
        svg = vlc.vegalite_to_svg(chart.to_dict())
        ys = [float(y) for y in re.findall(r'aria-label="plain_label: [^"]+"[^>]*translate\([\d.]+,(-?[\d.]+)\)', svg)]
        assert len(ys) == 2 and all(y < 0 for y in ys), (name, ys)
