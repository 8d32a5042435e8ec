"""A figure job refuses a figure with a panel (a facet cell, a concatenated view) that draws no data (issue Q,
Build 6): one error naming the figure's files and the panel, exit 2, and no file of it written, not even in part."""

from __future__ import annotations

import polars as pl
import pytest

from blkscope.cli import main
from blkscope.figures.panels import EmptyPanelError, check_panels, panels
from blkscope.figures.theme import save


def _fof(write_of_fio: bool) -> pl.DataFrame:
    """A frequency-of-frequency figure table of two setups, both revisited enough to be drawn (select.skewed);
    fio's runs with or without writes."""
    rows = []
    for workload, job, fs in (("ycsb", "workloada", "ext4"), ("fio", "randrw-sat", "xfs")):
        for op in ("read", "write", "all"):
            if op == "write" and workload == "fio" and not write_of_fio:
                continue
            for count, pages in ((1, 500), (4, 60), (20, 3)):
                rows.append({"run_id": f"host-{fs}-{workload}-{job}-r1", "fs": fs, "setup": f"{workload} {job}",
                             "workload": workload, "job": job, "testbed": "loop", "op": op, "count": count,
                             "pages": pages})  # fmt: skip
    return pl.DataFrame(rows)


def test_a_figure_whose_data_leave_a_facet_empty_is_refused_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "figures"
    out.mkdir()
    table = tmp_path / "fof.parquet"
    _fof(write_of_fio=False).write_parquet(table)
    rc = main(["figure", "frequency-of-frequency", str(table), "-o", str(out / "fof"), "--formats", "pdf,png,svg"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.count("error:") == 1 and "1 of 6 panels draw no data" in err, err
    assert f"{out / 'fof'}.{{pdf,png,svg}}" in err, err  # the figure's files, named
    assert "row 1, column 2 (write)" in err, err  # fio's row (as skewed as ycsb's: by name, first), writes
    assert list(out.iterdir()) == []  # nothing, no staging file either


def test_the_same_figure_with_every_facet_drawn_is_written_and_its_panels_logged(tmp_path, capsys):
    table = tmp_path / "table.parquet"
    _fof(write_of_fio=True).write_parquet(table)
    rc = main(["figure", "frequency-of-frequency", str(table), "-o", str(tmp_path / "fof"), "--formats", "svg,pdf"])
    assert rc == 0
    assert sorted(p.name for p in tmp_path.glob("fof.*")) == ["fof.pdf", "fof.svg"]
    assert "figure fof: 6 panels, none empty, 0 all but empty" in capsys.readouterr().err
    assert [p.marks > 0 for p in panels((tmp_path / "fof.svg").read_text())] == [True] * 6


def test_save_refuses_before_writing_and_the_error_is_a_value_error(tmp_path):
    import altair as alt

    from blkscope.figures.theme import complete_cells

    df = pl.DataFrame({"setup": ["a", "a", "b"], "op": ["read", "write", "read"], "x": [1, 2, 3], "y": [1, 2, 3]})
    chart = (
        alt.Chart(complete_cells(df, "setup", "op"), width=60, height=30).mark_line().encode(x="x:Q", y="y:Q")
        .facet(row="setup:N", column="op:N")
    )  # fmt: skip
    with pytest.raises(EmptyPanelError, match=r"row 2, column 2 \(b / write\)") as e:
        save(chart, tmp_path / "f", ["svg", "pdf"])
    assert isinstance(e.value, ValueError)  # the command line prints it as one line (cli.main)
    assert list(tmp_path.iterdir()) == []


def test_a_sparse_panel_is_counted_not_refused():
    # 1 mark beside 40: under SPARSE_SHARE of its grid's fullest, reported, the figure kept
    import altair as alt
    import vl_convert as vlc

    df = pl.DataFrame({"setup": ["a"] * 40 + ["b"], "x": list(range(40)) + [0], "y": list(range(40)) + [0]})
    svg = vlc.vegalite_to_svg(alt.Chart(df, width=60, height=30).mark_point().encode(x="x:Q", y="y:Q")
                              .facet(column="setup:N").to_dict())  # fmt: skip
    ps, sparse = check_panels(svg, "f.svg")
    assert [p.marks for p in ps] == [40, 1] and [p.labels for p in sparse] == [("b",)]


def test_request_sizes_over_time_draw_a_setup_that_reads_and_writes_over_a_write_only_one():
    # as the e2e miniature's data: fio's appends (saturating, so chosen first) only write; its read panel was empty
    import vl_convert as vlc

    from blkscope.figures import request_size_over_time as rsot

    rows = [{"run_id": f"host-ext4-fio-{job}-r1", "fs": "ext4", "setup": f"fio {job}", "workload": "fio", "job": job,
             "testbed": "loop", "class": "data", "action": a, "op": op, "start_s": float(s), "median_kib": 4.0}
            for job, ops in (("append-sat", ["write"]), ("randrw", ["read", "write"]))
            for op in ops for a in ("Q", "D") for s in range(3)]  # fmt: skip
    table = pl.DataFrame(rows)
    ps = panels(vlc.vegalite_to_svg(rsot.chart(table).to_dict()))
    assert [(p.labels, p.marks > 0) for p in ps] == [(("fio r/w", "read"), True), (("fio r/w", "write"), True)]
    writes = panels(vlc.vegalite_to_svg(rsot.chart(table.filter(pl.col("op") == "write")).to_dict()))
    assert writes and all(p.marks for p in writes), writes


def test_a_concatenated_view_without_data_is_refused_and_a_placeholder_saying_why_is_not():
    import altair as alt
    import vl_convert as vlc

    from blkscope.figures.theme import no_data

    df = pl.DataFrame({"x": [1.0, 2.0], "y": [1.0, 2.0]})
    view = alt.Chart(df, width=60, height=30).mark_point().encode(x="x:Q", y="y:Q")
    blank = alt.Chart(df.clear(), width=60, height=30, title="writes").mark_point().encode(x="x:Q", y="y:Q")
    with pytest.raises(EmptyPanelError, match=r"1 of 2 panels draw no data: view 2 of 2 \(writes\)"):
        check_panels(vlc.vegalite_to_svg(alt.hconcat(view, blank).to_dict()), "f.svg")
    ps, _ = check_panels(vlc.vegalite_to_svg(alt.hconcat(view, no_data("no writes")).to_dict()), "f.svg")
    assert [p.marks for p in ps] == [2]
