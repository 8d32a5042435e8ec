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
    # claims.csv's verdict column described by what it holds (review: "(outside the study's condition and the
    # condition)")
    assert "and the condition)" not in tex and "then the condition our runs were in" in tex


def test_batches_of_one_day_are_numbered_by_their_first_runs_time(tmp_path):
    """Issue Q review: starts cut to the day numbered a day's 17:07 batch before its 06:36 one."""
    from blkscope.paper.data_availability import start_dates

    for r, t in (("e", "2026-11-28T17:07:01Z"), ("m", "2026-11-28T06:36:59Z"), ("n", "2026-11-28T06:40:00Z")):
        (tmp_path / r).mkdir()
        (tmp_path / r / "run.yaml").write_text(f"start_utc: '{t}'\nqemu_start_utc: '2026-01-01T00:00:00Z'\n")
    dates = start_dates(["e", "m", "n"], tmp_path)
    assert dates["date"].to_list() == ["2026-11-28 17:07", "2026-11-28 06:36", "2026-11-28 06:40"]
    runs = pl.DataFrame({"run_id": ["e", "m", "n"], "batch": ["a-evening", "z-morning", "z-morning"],
                         "testbed": ["loop"] * 3, "workload": ["fio"] * 3})
    by = batches(runs, dates)
    assert by.select("batch", "number", "first", "last").rows() == [
        ("z-morning", 1, "2026-11-28 06:36", "2026-11-28 06:40"), ("a-evening", 2, "2026-11-28 17:07",
                                                                   "2026-11-28 17:07")]
    assert "between 2026-11-28 and 2026-11-28 (UTC), numbered here in order of their first run's start" in render(
        by, 3)
    # no run records its start: said, not a crash on the missing date
    undated = by.with_columns(first=pl.lit(None, pl.Utf8), last=pl.lit(None, pl.Utf8))
    assert "2 batches (no run records its start), numbered here" in render(undated, 3)


def test_the_kernels_each_run_records_are_named_per_batch_and_for_the_method(tmp_path):
    """Review: run.yaml records the kernel but the paper never named it. A run's kernel is its run.yaml's top-level
    `kernel` (a guest run's is the guest's, its host's nested); builds of one release are said once."""
    from blkscope.paper.data_availability import kernel_macros, kernel_phrase, start_dates

    for r, k, host in (("h1", "6.18.44-fc-v657", ""), ("h2", "6.18.44-fc-v769", ""),
                       ("g1", "6.1.0-56-amd64", "host:\n  kernel: 6.18.44-fc-v769\n")):
        (tmp_path / r).mkdir()
        (tmp_path / r / "run.yaml").write_text(f"start_utc: '2026-11-28T06:36:59Z'\nkernel: {k}\n{host}")
    dates = start_dates(["h1", "h2", "g1"], tmp_path)
    assert dates["kernel"].to_list() == ["6.18.44-fc-v657", "6.18.44-fc-v769", "6.1.0-56-amd64"]
    assert kernel_phrase(["6.18.44-fc-v769", "6.18.44-fc-v657", "6.18.44-fc-v657"]) == (
        "6.18.44-fc (builds v657 and v769)")
    assert kernel_phrase(["6.1.0-56-amd64", "6.18.44-fc-v657"]) == "6.1.0-56-amd64 and 6.18.44-fc-v657"
    assert kernel_phrase([]) == "not recorded"
    runs = pl.DataFrame({"run_id": ["h1", "h2", "g1"], "batch": ["a", "b", "b"], "testbed": ["loop", "loop", "guest"],
                         "workload": ["fio"] * 3})
    assert kernel_macros(runs, dates) == {"KernelHost": "6.18.44-fc, two builds", "KernelGuest": "6.1.0-56-amd64"}
    tex = render(batches(runs, dates), 3)
    assert r"& kernel \\" in tex and r"& fio & 6.1.0-56-amd64 and 6.18.44-fc-v769 \\" in tex
