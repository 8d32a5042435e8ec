"""The run-conditions table of the runs appendix: per condition (testbed, workload, job, memory cap; the setup
printed in plain words, blkscope.figures.names), the runs, how
long they ran and the measured window (blkscope.analysis.load.steady_state: the warm-up's end, the window after it,
and how many runs the plan calls steady: steady with a window of at least claim_rows.STEADY_MIN_S), so that every
run a claim reads has its length and window in the paper.

    python -m blkscope.paper.run_conditions --steady data/processed/analysis/steady_state.parquet -o conditions.tex
"""

from __future__ import annotations

import sys

import polars as pl

from blkscope.figures.names import NOTE, plain
from blkscope.paper import table_to_tex
from blkscope.paper.claim_rows import STEADY_MIN_S, not_descriptive
from blkscope.paper.latex import fmt_float, fmt_int
from blkscope.paper.tables import Column, cell, longtable

KEYS = ["testbed", "workload", "job", "memory_cap"]
SWEEP_NO_CAP = "none (block cache)"  # a descriptive batch's run without a memory cap: RocksDB's block cache its cache


def _span(lo: float | None, hi: float | None) -> str:
    if lo is None:
        return "--"
    a, b = fmt_float(lo, 0), fmt_float(hi, 0)
    return a if a == b else f"{a}--{b}"


def conditions(st: pl.DataFrame) -> pl.DataFrame:
    """One row per condition, in the order of the table's first run of each (the sheet's, the capture's)."""
    steady = pl.col("steady").fill_null(False) & (pl.col("window_s").fill_null(0) >= STEADY_MIN_S)
    st = st.with_columns(pl.col("memory_cap").cast(pl.Utf8).fill_null(""), _steady=steady,
                         _descriptive=~not_descriptive(st))
    by = st.group_by(KEYS, maintain_order=True).agg(
        descriptive=pl.col("_descriptive").all(), runs=pl.len(), traced=pl.col("traced").sum(),
        run_lo=pl.col("run_s").min(), run_hi=pl.col("run_s").max(),
        start_lo=pl.col("window_start_s").min(), start_hi=pl.col("window_start_s").max(),
        win_lo=pl.col("window_s").min(), win_hi=pl.col("window_s").max(), steady=pl.col("_steady").sum())
    return by.with_columns(
        setup=pl.struct("workload", "job").map_elements(lambda s: plain(s["workload"], s["job"]), pl.Utf8),
        run=pl.struct("run_lo", "run_hi").map_elements(lambda s: _span(s["run_lo"], s["run_hi"]), pl.Utf8),
        start=pl.struct("start_lo", "start_hi").map_elements(lambda s: _span(s["start_lo"], s["start_hi"]), pl.Utf8),
        window=pl.struct("win_lo", "win_hi").map_elements(lambda s: _span(s["win_lo"], s["win_hi"]), pl.Utf8),
        # the cache sweep's O_DIRECT runs have no memory cap, yet are not in memory: RocksDB's block cache limits
        # them (the text's in-memory runs leave them out, scale_numbers.in_memory_runs)
        memory_cap=pl.when((pl.col("memory_cap") == "") & pl.col("descriptive")).then(pl.lit(SWEEP_NO_CAP))
        .when(pl.col("memory_cap") == "").then(pl.lit("none")).otherwise(pl.col("memory_cap")),
    )  # fmt: skip


# every column a paragraph column of its share of the line: ten natural-width columns beside a job column would
# overrun the one-column appendix (tables._spec counts an `l` column as about 3 % of the line)
COLUMNS: list[Column] = [
    ("testbed", "testbed", 0.8, cell),
    ("setup", "setup", 4.3, cell),
    ("memory_cap", "memory cap", 0.9, cell),
    ("runs", "runs", 0.6, fmt_int),
    ("traced", "traced", 0.7, fmt_int),
    ("run", "run (s)", 0.8, cell),
    ("start", "warm-up (s)", 0.9, cell),
    ("window", "window (s)", 0.9, cell),
    ("steady", "steady", 0.7, fmt_int),
]


def table(st: pl.DataFrame) -> str:
    return longtable(
        conditions(st), COLUMNS,
        caption="Every condition of the dataset (testbed, setup, the memory cap of the workload's cgroup; "
        f"``{SWEEP_NO_CAP}'': the cache sweep's O\\_DIRECT runs, limited by RocksDB's block cache, not in memory): "
        "its runs (traced), how long they ran (the measured phase, as the workload's log times it; a trace can span "
        "less), where the warm-up ended and how long the measured window after it "
        "is (the steady-state rule of Section~\\ref{sec:method}; ranges over the runs), and how many runs are "
        f"steady (a window of at least {fmt_float(STEADY_MIN_S, 0)}\\,s). Only steady runs enter a scale claim. "
        f"Setups in plain words ({NOTE}); the runs sheet names each by workload and job.",
        label="tab:conditions", size=r"\footnotesize")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    need = [*KEYS, "traced", "run_s", "window_start_s", "window_s", "steady"]
    return table_to_tex.main(argv, "blkscope.paper.run_conditions", __doc__, "steady", need, table)


if __name__ == "__main__":
    sys.exit(main())
