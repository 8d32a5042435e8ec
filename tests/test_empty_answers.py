"""No silent empty answers: a real trace without completions (tests/fixtures/trace/README.md says how it was cut
from an embedded run) through the verbs, the figure data, a figure and the all_setups notebook. Each says on
stderr that it had nothing to compute and what to do, and the table it writes says why: the reason of an
empty table in its Parquet metadata (blkscope.io.table_note), a row that could not be computed in a note column.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import polars as pl
import pytest

from blkscope.figures import miss_ratio_by_class
from blkscope.io import table_note

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT / "tests/fixtures/trace/handmade_no_completions_host_ext4_fio_randrw.txt.zst"
RUN = "host-ext4-fio-randrw-r1"  # the embedded run it was cut from: its runs-sheet row names the setup


def blkscope(*args: object) -> str:
    """Run a verb as the workflow does; its stderr."""
    p = subprocess.run(["blkscope", *map(str, args)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stderr


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    proc = tmp_path_factory.mktemp("proc")
    blkscope("ingest", TRACE, "-o", proc / RUN / "trace")
    return proc / RUN


def test_trace_has_no_completions_but_other_events(run):
    actions = pl.read_parquet(run / "trace/events.parquet")["action"].value_counts()
    assert "C" not in actions["action"] and actions.filter(pl.col("action") == "D")["count"][0] > 1000


def test_access_frequency_says_why_and_what_to_do(run):
    f = run / "frequency"
    err = blkscope("access-frequency", run / "trace/events.parquet", "--pages", f / "pages.parquet",
                   "--rank", f / "rank.parquet", "--fof", f / "fof.parquet")  # fmt: skip
    assert "no C events" in err and "--action D" in err, err
    for name in ("pages", "rank", "fof"):
        assert pl.read_parquet(f / f"{name}.parquet").is_empty()
        note = table_note(f / f"{name}.parquet")
        assert note and "no C events among the trace's 9999 events" in note and "--action D" in note, note


def test_the_advice_works_and_a_fit_with_one_distinct_count_says_so(run, tmp_path):
    fof = tmp_path / RUN / "frequency/fof.parquet"
    assert blkscope("access-frequency", run / "trace/events.parquet", "--action", "D", "--fof", fof) == ""
    assert table_note(fof) is None and pl.read_parquet(fof)["pages"].sum() > 0
    err = blkscope("zipf", fof, "--n-boot", "0", "-o", tmp_path / "zipf.parquet")
    z = pl.read_parquet(tmp_path / "zipf.parquet")
    assert z["alpha"].is_null().all() and z["note"].str.contains("too few distinct counts").all()
    assert err.count("too few distinct counts") == z.height == 3, err


@pytest.fixture(scope="module")
def fof(run) -> Path:
    f = run / "frequency/fof.cover.parquet"
    blkscope("access-frequency", run / "trace/events.parquet", "--fof", f)
    return f


def test_zipf_of_no_pages_gives_noted_rows(fof, tmp_path):
    err = blkscope("zipf", fof, "--n-boot", "0", "-o", tmp_path / "zipf.parquet")
    z = pl.read_parquet(tmp_path / "zipf.parquet")
    assert sorted(z["op"]) == ["all", "read", "write"] and (z["n"] == 0).all() and z["alpha"].is_null().all()
    assert z["note"].str.contains("no page counts").all() and z["note"].str.contains("--action D").all()
    assert err.count("no fit: no page counts") == 3, err


def test_latency_and_queue_depth_say_there_is_no_completion(run, tmp_path):
    events = run / "trace/events.parquet"
    err = blkscope("latency", events, "-o", tmp_path / "lat.parquet")
    lat = pl.read_parquet(tmp_path / "lat.parquet")
    empty = lat.filter(pl.col("n") == 0)
    assert sorted(empty["stage"]) == ["d2c", "q2c"] and empty["note"].str.ends_with("C events in the trace").all()
    assert lat.filter(pl.col("n") > 0)["note"].is_null().all()
    assert "d2c: nothing to compute: no request has both its D and C events" in err
    err = blkscope("queue-depth", events, "-o", tmp_path / "qd.parquet", "--series", tmp_path / "s.parquet",
                   "--dist", tmp_path / "d.parquet")  # fmt: skip
    qd = pl.read_parquet(tmp_path / "qd.parquet").row(0, named=True)
    # without completions nothing leaves the queue: a "depth" would only grow, so none is given
    assert qd["completed"] == 0 and qd["mean_depth"] is None and "no request completes" in qd["note"]
    assert "no C events" in err and pl.read_parquet(tmp_path / "s.parquet").is_empty()
    assert RUN in table_note(tmp_path / "s.parquet")


def test_figure_data_figure_and_notebook_show_why(run, fof, tmp_path):
    figdata = tmp_path / "figures"
    sheet = ROOT / "config/runs.tsv"
    err = blkscope("figdata-rank", "--runs", sheet, "-o", figdata / "rank_frequency.parquet", fof)
    assert "is empty" in err and f"{RUN}: no C events" in table_note(figdata / "rank_frequency.parquet")
    blkscope("figdata-fof", "--runs", sheet, "-o", figdata / "frequency_of_frequency.parquet", fof)
    blkscope("zipf", fof, "--n-boot", "0", "-o", tmp_path / "zipf.parquet")
    blkscope("figdata-ccdf", "--runs", sheet, "--zipf", tmp_path / "zipf.parquet", "-o", figdata / "zipf_ccdf.parquet",
             fof)  # fmt: skip
    blkscope("figdata-series", "--runs", sheet, "-o", figdata / "io_over_time.parquet")
    events = run / "trace/events.parquet"
    blkscope("seek", events, "-o", tmp_path / "seek.parquet", "--hist", tmp_path / "hist.parquet")
    blkscope("figdata-seek", "--runs", sheet, "--seek", tmp_path / "seek.parquet", "--hist",
             tmp_path / "hist.parquet", "-o", figdata / "seek_distance.parquet")  # fmt: skip
    c = run / "characterise"  # no completions: no page accesses, no miss-ratio curve; its summary says why
    blkscope("reuse", events, "--auto", "--classes", "all,data,meta", "-o", c / "reuse.parquet", "--mrc",
             c / "mrc.parquet")  # fmt: skip
    by_class = figdata / "miss_ratio_by_class.parquet"
    err = blkscope("figdata-mrc", "--runs", sheet, "--classes", "all,data,meta", "--of-record", c / "mrc.parquet",
                   "-o", by_class)  # fmt: skip
    assert "is empty" in err and f"{RUN}: no C requests with data" in table_note(by_class)

    err = blkscope("figure", "rank-frequency", figdata / "rank_frequency.parquet", "-o", tmp_path / "rank",
                   "--formats", "svg")  # fmt: skip
    assert "nothing to draw" in err and "no C events" in err
    svg = (tmp_path / "rank.svg").read_text()
    assert "No data" in svg and "--action D" in svg  # the reason, drawn where the figure would be
    blkscope("figure", "miss-ratio-by-class", by_class, "-o", tmp_path / "mrc", "--formats", "svg")
    assert "No data" in (svg := (tmp_path / "mrc.svg").read_text()) and "no C requests with data" in svg
    # the paper's caption of it
    assert "No curve is drawn: the figure says why." in miss_ratio_by_class.caption(pl.read_parquet(by_class))

    blkscope("notebook", "--cwd", ROOT / "notebooks", ROOT / "notebooks/all_setups.py", tmp_path / "out.ipynb",
             "-p", "figures_dir", figdata)  # fmt: skip
    out = (tmp_path / "out.ipynb").read_text()
    assert f"rank_frequency.parquet: no rows: {RUN}: no C events" in out
    assert f"miss_ratio_by_class.parquet: no rows: {RUN}: no C requests with data" in out
    assert "no request_size_over_time table beside the figures" in out  # a table not made is said too
    assert "--action D" in out
