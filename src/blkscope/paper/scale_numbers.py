"""Macros of the scale regime (runs' lengths, windows, memory caps), from the steady-state table
(data/processed/analysis/steady_state.parquet, blkscope.analysis.load.steady_state): the text about run lengths and
the memory-capped batches is written from these, so it stays true whichever batches and numbers arrive.

In-memory runs (no memory cap): how many, how long (median and longest run), how many have a window shorter than
the plan's steady window, and which are steady (by workload). Memory-capped batches, in the order the table lists
them (the runs sheet's, which is the order of capture), each as Memcap<Ordinal>...: its cap and data (MiB), the
data over the cap against the plan's 10x, the run length, the runs (traced), the steady runs and their windows,
the trace's kept window, and the role the plan gives it (scale rows read a batch at 10x or more; one short of it
is a condition of its own, reported and not judged).

    python -m blkscope.paper.scale_numbers --steady data/processed/analysis/steady_state.parquet -o scale.tex
"""

from __future__ import annotations

import sys

import polars as pl

from blkscope.analysis.load.steady_state import BATCH
from blkscope.paper import table_to_tex
from blkscope.paper.claim_rows import DATA_OVER_CAP, STEADY_MIN_S
from blkscope.paper.latex import count_word, counted, fmt_float, fmt_int, macro_file
from blkscope.paper.phrases import against, k_of_n

GUARD = "BlkScaleNumbers"
ORDINALS = ["First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth"]
# workload -> how the text names its runs ({} takes "s" for more than one; others print the workload's own name)
WORKLOAD_NAMES = {"ycsb": "YCSB run{} on RocksDB", "cassandra-ycsb": "YCSB run{} on Cassandra",
                  "cassandra": "cassandra-stress run{}", "fio": "fio run{}", "sysbench": "sysbench run{}",
                  "journal": "journal-writer run{}"}  # fmt: skip
MIB = 2**20


def _span(x: pl.Series, digits: int = 0) -> str:
    """"120" or "95--115": a range, one number when it has one value."""
    x = x.drop_nulls()
    if x.len() == 0:
        return "--"
    lo, hi = fmt_float(x.min(), digits), fmt_float(x.max(), digits)
    return lo if lo == hi else f"{lo}--{hi}"


def _mib(x: pl.Series) -> str:
    x = x.drop_nulls()
    return fmt_float(x.median() / MIB, 0) if x.len() else "--"


def _steady(st: pl.DataFrame) -> pl.Expr:
    """The claims' steady runs (blkscope.paper.claim_rows.steady_runs): steady and a window >= STEADY_MIN_S."""
    return pl.col("steady").fill_null(False) & (pl.col("window_s").fill_null(0) >= STEADY_MIN_S)


def in_memory(st: pl.DataFrame) -> dict[str, str]:
    """The runs without a memory cap: counts, lengths, and which are steady."""
    r = st.filter(pl.col("memory_cap").is_null() | (pl.col("memory_cap").cast(pl.Utf8) == ""))
    if r.height == 0:
        return {}
    short = r.filter(pl.col("window_s").fill_null(0) < STEADY_MIN_S).height
    steady = r.filter(_steady(r))
    m = {"InMemoryRuns": fmt_int(r.height), "InMemoryRunMedianS": fmt_float(r["run_s"].median(), 0),
         "InMemoryRunMaxS": fmt_float(r["run_s"].max(), 0), "InMemorySteady": fmt_int(steady.height),
         "InMemoryShortPhrase": k_of_n(short, r.height, "runs")}  # fmt: skip
    if steady.height == 0:
        m["InMemorySteadyPhrase"] = "none of them is steady"
    else:
        by = steady.group_by("workload", maintain_order=True).agg(pl.len(), pl.col("window_s").min().alias("lo"),
                                                                    pl.col("window_s").max().alias("hi"))
        parts = [f"{fmt_int(n)} {WORKLOAD_NAMES.get(w, w + ' run{}').format('' if n == 1 else 's')} (windows of "
                 f"{_span(pl.Series([lo, hi]))}\\,s)" for w, n, lo, hi in by.iter_rows()]  # fmt: skip
        m["InMemorySteadyPhrase"] = "the steady ones are " + (
            parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1])
    return m


def capped(st: pl.DataFrame) -> dict[str, str]:
    """Each memory-capped batch (Memcap<Ordinal>...) and the batches as a whole."""
    c = st.filter(pl.col("memory_cap").is_not_null() & (pl.col("memory_cap").cast(pl.Utf8) != ""))
    batches = c["batch"].unique(maintain_order=True).to_list()
    m = {"SteadyMinS": fmt_float(STEADY_MIN_S, 0), "MserBatchS": fmt_int(BATCH),
         "DataOverCapMin": fmt_int(DATA_OVER_CAP), "MemcapBatches": count_word(len(batches)),
         "MemcapBatchesPhrase": counted(len(batches), "batch", "batches"),
         "MemcapRuns": fmt_int(c.height)}  # fmt: skip
    judged, ratios = [], []
    for i, b in enumerate(batches[: len(ORDINALS)]):
        g = c.filter(pl.col("batch") == b)
        k = f"Memcap{ORDINALS[i]}"
        ratio = g["data_over_cap"].drop_nulls()
        steady = g.filter(_steady(g))
        m |= {f"{k}CapMiB": _mib(g["memory_cap_bytes"]), f"{k}DataMiB": _mib(g["data_bytes"]),
              f"{k}RunS": _span(g["run_s"]), f"{k}Runs": fmt_int(g.height), f"{k}Traced": fmt_int(g["traced"].sum()),
              f"{k}Steady": fmt_int(steady.height), f"{k}SteadyPhrase": k_of_n(steady.height, g.height, "runs"),
              f"{k}WindowS": _span(steady["window_s"]),
              f"{k}WindowStartS": _span(steady["window_start_s"])}  # fmt: skip
        t = g.filter(pl.col("trace_start_s").is_not_null())
        if t.height:
            m[f"{k}TraceS"] = _span(t["trace_end_s"] - t["trace_start_s"])
            m[f"{k}TraceStartS"] = _span(t["trace_start_s"])
            m[f"{k}TraceInWindowPhrase"] = k_of_n(int(t["trace_in_window"].fill_null(False).sum()), t.height,
                                                  "traced runs")  # fmt: skip
        if ratio.len():
            printed, side = against(float(ratio.min()), DATA_OVER_CAP)
            m[f"{k}DataOverCap"], m[f"{k}RegimePhrase"] = printed, f"{side} the plan's {fmt_int(DATA_OVER_CAP)}"
            ratios.append(float(ratio.min()))
            meets = ratio.min() >= DATA_OVER_CAP
            judged.append(meets and steady.height > 0)
            m[f"{k}RolePhrase"] = (
                "the scale rows of the claims table read its steady runs" if meets and steady.height
                else "with no steady run, no claim reads it" if meets
                else "it stays a condition of its own: reported here, not judged")  # fmt: skip
    m |= limit(ratios, judged)
    return m


def limit(ratios: list[float], judged: list[bool]) -> dict[str, str]:
    """What the study cannot say about data larger than memory (abstract, conclusion): the largest ratio a
    judged batch reached, or that none reached the plan's."""
    reached = [r for r, j in zip(ratios, judged, strict=True) if j]
    if reached:
        return {"ScaleLimitPhrase": f"data sets more than {fmt_float(max(reached), 1)} times larger than memory"}
    best = f" (ours reach {against(max(ratios), DATA_OVER_CAP)[0]} times a memory cap)" if ratios else ""
    return {"ScaleLimitPhrase": f"data sets {fmt_int(DATA_OVER_CAP)} or more times larger than memory{best}"}


def macros(st: pl.DataFrame) -> dict[str, str]:
    return in_memory(st) | capped(st)


def render(m: dict[str, str]) -> str:
    return macro_file(f"% Generated by `python -m blkscope.paper.scale_numbers`; do not edit.\n"
                      f"\\newcommand{{\\{GUARD}}}{{}}", m)  # fmt: skip


NEED = ("run_id", "workload", "batch", "memory_cap", "memory_cap_bytes", "data_bytes", "data_over_cap", "run_s",
        "window_s", "window_start_s", "steady", "traced", "trace_start_s", "trace_end_s", "trace_in_window")


def main(argv: list[str] | None = None) -> int:
    return table_to_tex.main(argv, "blkscope.paper.scale_numbers", __doc__, "steady", NEED,
                             lambda st: render(macros(st)))  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
