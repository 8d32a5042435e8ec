"""The data-availability appendix (blkscope.paper.data_availability): batches numbered in order of capture, the
runs counted from the batches, and a command a reader can copy."""

from __future__ import annotations

import polars as pl

from blkscope.paper.data_availability import batches, render


def test_batches_in_order_of_capture_and_a_command_that_survives_the_typewriter_font():
    runs = pl.DataFrame({"run_id": ["a", "b", "c", "x"], "batch": [None, "round9-late", "round9-late", None],
                         "testbed": ["loop", "loop", "guest", "external"], "workload": ["fio", "ycsb", "ycsb", "fio"]})
    dates = pl.DataFrame({"run_id": ["a", "b", "c", "x"],
                          "date": ["2026-11-22", "2026-11-28", "2026-11-27", "2026-11-20"]})
    by = batches(runs, dates)
    assert by["runs"].to_list() == [1, 2] and by["number"].to_list() == [1, 2]  # an imported run is not ours
    tex = render(by, int(by["runs"].sum()))
    assert "holds 3 captured runs" in tex and "captured in 2 batches between 2026-11-22 and 2026-11-28" in tex
    # "--" in \texttt prints as one dash: the command is written so that its two hyphens print
    assert r"\texttt{snakemake -{}-cores 8 all}" in tex and "round9" not in tex
    assert r"\texttt{notebooks/all\_setups.py}" in tex  # the notebook the figures' captions name
