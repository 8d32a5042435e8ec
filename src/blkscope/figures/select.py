"""Which setups a paper figure shows: a figure printed at 345 bp carries at most MAX_SETUPS rows of small
multiples; the others are drawn by the `all_setups` notebook (every figure, every setup).

Selections are made from the data and the run metadata (workload, job, testbed), never from run ids:
- `skewed`: setups whose pages are revisited (the rank-frequency curve has a tail to see), most skewed first;
- `representative`: one setup per workload on the host, the saturating variant (job ending `-sat` or `-max`, the
  runs sheet's names for the unthrottled jobs) where the dataset has one, else the workload's PREFERRED_JOB, in
  WORKLOAD_ORDER.
Runs a user imported (testbed `external`, `blkscope import`) are never chosen for the paper: it is about the
embedded dataset. The workflow keeps them out of the study's tables (they are rows of config/imported.tsv, each
drawn on a page of its own, notebooks/executed/imported_<run_id>.ipynb); a runs sheet that holds such rows (an
import made before that sheet existed) still has them filtered out here.
"""

from __future__ import annotations

import polars as pl

MAX_SETUPS = 4
WORKLOAD_ORDER = ["ycsb", "cassandra", "fio", "sysbench", "journal"]
# a setup has skew when, in the median run, the hottest page is accessed at least this often (fio's light random
# jobs touch every page once or twice; pages a database revisits reach hundreds)
SKEW_MIN_TOP_COUNT = 8
SATURATING = r"-(sat|max)$"
# without a saturating job: Cassandra's uncapped write load (cassandra-stress write), which the studies ran and the
# paper's text quotes, rather than the mixed one that sorts first by name
PREFERRED_JOB = {"cassandra": "write"}
EXTERNAL = "external"  # the testbed of imported runs

SWEEP_JOB = r"-sweep-"  # the cache sweeps' jobs (without_sweeps)


def _order(workload: str) -> int:
    return WORKLOAD_ORDER.index(workload) if workload in WORKLOAD_ORDER else len(WORKLOAD_ORDER)


def skewed(top: pl.DataFrame, limit: int = MAX_SETUPS) -> list[str]:
    """`top`: one row per run with setup and top_count (accesses of the run's hottest page, all operations).
    The setups whose median run reaches SKEW_MIN_TOP_COUNT, most skewed first."""
    top = ours(top)
    if top.is_empty():
        return []
    by = top.group_by("setup").agg(pl.col("top_count").median()).filter(pl.col("top_count") >= SKEW_MIN_TOP_COUNT)
    return by.sort("top_count", "setup", descending=[True, False])["setup"].head(limit).to_list()


def representative(meta: pl.DataFrame, limit: int = MAX_SETUPS) -> list[str]:
    """`meta`: rows with setup, workload, job, testbed. One host setup per workload (saturating first, then the
    PREFERRED_JOB), then guest setups if room is left."""
    m = ours(meta.select("setup", "workload", "job", "testbed").unique())
    if m.is_empty():
        return []
    m = m.with_columns(
        host=pl.col("testbed") == "loop",
        sat=pl.col("job").str.contains(SATURATING),
        rank=pl.col("workload").map_elements(_order, return_dtype=pl.Int64),
        preferred=pl.col("job") == pl.col("workload").replace_strict(PREFERRED_JOB, default=None),
    ).sort(["host", "rank", "sat", "preferred", "setup"], descending=[True, False, True, True, False], nulls_last=True)
    first = m.unique(subset=["workload", "host"], keep="first", maintain_order=True)
    return first["setup"].head(limit).to_list()


def ours(df: pl.DataFrame) -> pl.DataFrame:
    """The rows of the embedded dataset: without the runs a user imported (what a paper figure draws)."""
    return df.filter(pl.col("testbed") != EXTERNAL) if "testbed" in df.columns else df


def without_sweeps(df: pl.DataFrame) -> pl.DataFrame:
    """The rows of every setup but the descriptive cache sweeps' (jobs `*-sweep-*`: capture.workloads ycsb.SWEEP_JOBS,
    cassandra_ycsb.SWEEP_RECORDS): their own figure (cache_sweep) draws them, and the main text's per-setup panels
    would grow a row per sweep point (the all_setups notebook shows them)."""
    return df.filter(~pl.col("job").str.contains(SWEEP_JOB)) if "job" in df.columns else df


def keep(df: pl.DataFrame, setups: list[str] | None) -> pl.DataFrame:
    """Rows of the chosen setups (all rows when `setups` is None)."""
    return df if setups is None else df.filter(pl.col("setup").is_in(setups))


def top_counts(freq: pl.DataFrame, count: str = "count") -> pl.DataFrame:
    """Accesses of each run's hottest page (op `all`) from a per-run table of `count` values (figdata-rank,
    figdata-fof): one row per run with setup, workload, job, testbed and top_count."""
    cols = ["run_id", "setup", "workload", "job", "testbed"]
    return freq.filter(pl.col("op") == "all").group_by(cols).agg(top_count=pl.col(count).max())


def with_reference(top: pl.DataFrame, limit: int = MAX_SETUPS) -> list[str]:
    """The skewed setups and, as the contrast a reader needs, the flattest host setup (lowest median top count;
    ties by WORKLOAD_ORDER, then name)."""
    chosen = skewed(top, limit - 1)
    rest = top.filter(~pl.col("setup").is_in(chosen) & (pl.col("testbed") == "loop"))
    if rest.is_empty():
        return chosen
    flat = (
        rest.group_by("setup", "workload")
        .agg(pl.col("top_count").median())
        .with_columns(rank=pl.col("workload").map_elements(_order, return_dtype=pl.Int64))
    )
    return chosen + [flat.sort("top_count", "rank", "setup")["setup"][0]]


def shown(setups: list[str], meta: pl.DataFrame | None = None) -> str:
    """A caption's sentence on what a per-setup figure (`representative`: one setup per workload, at most MAX_SETUPS,
    each panel named) leaves out: the host workloads of `meta` (rows with setup, workload, testbed) it draws no setup
    of; "" when it draws every one."""
    from blkscope.figures.names import WORKLOADS
    from blkscope.paper.latex import join_and

    if not setups:
        return "No setup is drawn."
    if meta is None or meta.is_empty():
        return ""
    host = ours(meta).filter(pl.col("testbed") == "loop") if "testbed" in meta.columns else meta
    done = set(host.filter(pl.col("setup").is_in(setups))["workload"])
    left = sorted(set(host["workload"]) - done, key=lambda w: (_order(w), w))
    names = [WORKLOADS.get(w, w) for w in left]
    return f"{'Workload' if len(names) == 1 else 'Workloads'} not drawn: {join_and(names)}." if names else ""
