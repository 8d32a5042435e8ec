"""Which runs a row of the claims table reads, under the claims plan (blkscope.paper.claims_plan), and the verdict
after Holm's adjustment across rows.

A claim has a row per plan entry: `in-memory` (the runs of rounds 1-3), `scale` (steady-state runs with data >= 10x
a memory cap: the entry's batches, steady=true with a window >= STEADY_MIN_S in the steady_state table) and
`replication` (a new batch judged on its own runs). The verdict reads the confirmatory runs: an in-memory row leaves
out the plan's exploratory batches (repeats added after a look) and every batch another condition names; beside it,
the estimate over all its runs with the exploratory ones (`ours_all`, `verdict_all`), unadjusted.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from blkscope.paper import claim_multiplicity as mt
from blkscope.paper import claim_verdict as vd
from blkscope.paper.claim_runs import NO_RUNS, WITHDRAWN, Result, Tables, not_testable
from blkscope.paper.claims_plan import Entry, Plan

DATA_OVER_CAP = 10  # the scale regime: data at least 10x the cgroup's memory cap (steady_state data_over_cap)
STEADY_MIN_S = 90.0  # >= 60 s and >= 3x the longest periodic clock (30 s: the flusher's expiry, xfs's log worker)
# the in-memory condition is the runs of rounds 1-3 (the plan's words): a batch of a later round (a cache sweep,
# say) is its own condition, never read by an in-memory row, planned or not
LATER_ROUNDS = r"^round([4-9]|\d\d)-"
# a descriptive batch (the plan's `descriptive` entries: issue P's cache sweep) is no claim's condition: neither an
# in-memory run (its O_DIRECT runs have no cap), nor a memory-capped batch of the scale rows, nor a run they read
DESCRIPTIVE = r"^round\d+-sweep"


def not_descriptive(df: pl.DataFrame) -> pl.Expr:
    """Rows of `df` not in a descriptive batch (a frame without batches has none)."""
    if "batch" not in df.columns:
        return pl.lit(True)
    return ~pl.col("batch").cast(pl.Utf8).fill_null("").str.contains(DESCRIPTIVE)


def with_runs(tb: Tables, keep: pl.Expr) -> Tables:
    return tb | {"runs": tb["runs"].filter(keep)}


def _batch() -> pl.Expr:
    return pl.col("batch").cast(pl.Utf8).fill_null("")


def in_memory(tb: Tables, plan: Plan | None, confirmatory: bool) -> Tables:
    if plan is None:
        return tb
    other = [b for e in plan.entries if e.condition != "in-memory" for b in e.batches]
    drop = other + (list(plan.exploratory_batches) if confirmatory else [])
    return with_runs(tb, ~_batch().is_in(drop) & ~_batch().str.contains(LATER_ROUNDS))


def steady_runs(tb: Tables) -> pl.DataFrame | None:
    """run_id of the runs the steady_state table calls steady with a window of at least STEADY_MIN_S (columns
    steady, and window_s or window_start_s/window_end_s); None without the table."""
    st = tb.get("steady_state")
    if st is None:
        return None
    w = pl.col("window_s") if "window_s" in st.columns else pl.col("window_end_s") - pl.col("window_start_s")
    return st.filter(pl.col("steady").cast(pl.Boolean) & (w >= STEADY_MIN_S)).select("run_id")


def uncaptured(tb: Tables, batches: tuple[str, ...]) -> list[str]:
    """The `batches` with a runs-sheet row that the steady_state table (a row per captured run) lacks: not captured
    yet, or not wholly."""
    have = set(tb["steady_state"]["run_id"].to_list())
    sheet = tb["runs"].select("run_id", b=_batch())
    listed = {b: set(sheet.filter(pl.col("b") == b)["run_id"].to_list()) for b in batches}
    return [b for b, ids in listed.items() if not ids or not ids <= have]


def in_regime(tb: Tables, run_ids: list[str]) -> tuple[list[str], str]:
    """The runs of `run_ids` in the scale regime by the plan's data measure (records x record size over the memory
    cap, the steady_state table's data_over_cap >= DATA_OVER_CAP), run by run; and why none is, when none is."""
    st = tb.get("steady_state")
    if st is None or "data_over_cap" not in st.columns or not run_ids:
        return run_ids, ""  # no steady run: the evaluation says there is nothing to judge
    mine = st.filter(pl.col("run_id").is_in(run_ids))
    big = mine.filter(pl.col("data_over_cap") >= DATA_OVER_CAP)["run_id"].to_list()
    if big:
        return big, ""
    ratio = mine["data_over_cap"]
    lo, hi = ratio.min(), ratio.max()
    span = f"{lo:.2f}x" if lo == hi else f"{lo:.2f}-{hi:.2f}x"
    return [], f"data {span} the memory cap (records x record size), under the plan's {DATA_OVER_CAP}x"


WITHDRAWN_STOP = "withdrawn"  # an entry's stopping rule where an amendment withdrew it before capture


def other_condition(tb: Tables, e: Entry, evaluate, size) -> Result:
    """A scale or replication row: the entry's batches alone (scale: steady runs only)."""
    if e.n_per_arm == 0:  # none planned: a condition this machine cannot make, or withdrawn before capture (a
        # plan amendment, no limit of the machine); the plan's words say why
        gone = e.stopping.startswith(WITHDRAWN_STOP)
        return Result(None, "--", "0", None, WITHDRAWN, e.runs) if gone else not_testable(e.runs)
    mine = with_runs(tb, _batch().is_in(list(e.batches)))
    if mine["runs"].height == 0:
        return Result(None, "--", "0", None, NO_RUNS, f"batch {', '.join(e.batches)} not captured yet")
    if tb.get("steady_state") is not None:
        missing = uncaptured(tb, e.batches)
        if missing:  # one planned look: the row waits for every run of every batch it lists, not for the first
            what = f"batch {missing[0]} is" if len(missing) == 1 else f"batches {', '.join(missing)} are"
            ids = mine["runs"]["run_id"]
            have = tb["steady_state"]["run_id"].is_in(ids.implode()).sum()
            return Result(None, "--", "0", None, NO_RUNS, f"{what} not captured yet ({have} of the {ids.len()} runs "
                          "the row lists are in; the plan judges it once, when every one is)")  # fmt: skip
    if e.condition == "scale":
        steady = steady_runs(tb)
        if steady is None:
            return Result(None, "--", "0", None, NO_RUNS, "no steady_state table: no run's window is known")
        mine = with_runs(mine, pl.col("run_id").is_in(steady["run_id"].to_list()))
        big, small = in_regime(tb, mine["runs"]["run_id"].to_list())
        if small:
            return Result(None, "--", "0", None, NO_RUNS, small)
        mine = with_runs(mine, pl.col("run_id").is_in(big))
    return evaluate(mine, size)


def holm_columns(rows: list[dict], sizes: list) -> None:
    """Adds p_decide, p_holm and verdict_unadjusted to each row, and sets `verdict` to the Holm-adjusted one
    (family: the rows whose verdict an interval gives)."""
    dec, pooled = [], []
    for r, size in zip(rows, sizes, strict=True):
        est, interval, split = r.pop("_estimate"), r.pop("_from_interval"), r.pop("_decision", None)
        # strata that disagree: their intersection-union decision (claims._row), else the row's interval's
        d = split if split is not None else vd.decision(est, size) if interval else mt.Decision(math.nan, "")
        dec.append(d)
        pooled.append(r.pop("_pooled", None) or (d, r["verdict"]))
    adj = mt.holm(np.array([d.p for d in dec]))
    # the plan's pooling rule (a random-effects interval where strata disagree; changed after the estimates were
    # seen): the same family, each such row's random-effects p in it, so that its verdicts can be counted beside
    adj_plan = mt.holm(np.array([d.p for d, _ in pooled]))
    for r, (d, v), pa in zip(rows, pooled, adj_plan, strict=True):
        r["verdict_pooled_plan"] = mt.adjusted_verdict(float(pa), d.kind, v)
    for r, d, pa in zip(rows, dec, adj, strict=True):
        r["verdict_unadjusted"], r["p_decide"], r["p_holm"] = r["verdict"], d.p, float(pa)
        v = mt.adjusted_verdict(float(pa), d.kind, r["verdict"])
        if v != r["verdict"]:
            r["reason"] = (f"Holm across {int(np.isfinite(adj).sum())} claims: adjusted p {pa:.2g} >= "
                           f"{mt.ALPHA} (unadjusted: {r['verdict']}, p {d.p:.2g})")
        r["verdict"] = v
