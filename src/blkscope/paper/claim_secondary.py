"""Secondary measures: a claim's quantity read another way, chosen after its planned estimate had been seen, and
printed beside the planned estimate, never in its place (the planned verdict stays the verdict). The claims plan
lists each among its deviations (kind `secondary`), with both estimates over every run (blkscope.paper.
claim_deviations); `estimates` gives both on the runs the planned verdict reads and on every run, for the text.

S2-ops-cap (ext4/xfs cassandra-stress write ops/s, uncompressed commitlog, device capped) reads whole runs, whose
first seconds leave the device idle while the page cache absorbs the writes; S2-aqu-cap reads from the first
saturated iostat report on. Its secondary measure reads the ops/s over that same part of each run (the table
blkscope.analysis.summaries.cassandra_saturated writes: from S2-aqu-cap's onset to the run's end), by the planned
estimator (the ratio within each capture batch, pooled as planned).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import polars as pl

from blkscope.analysis.summaries.run_groups import CAPPED
from blkscope.paper import claim_measures as cm
from blkscope.paper import claim_rows as rw
from blkscope.paper.claim_runs import Result, Tables, canonical, reads
from blkscope.paper.claim_verdict import Size
from blkscope.paper.claims import CLAIMS, Claim, disagrees, ours_of, verdict_of
from blkscope.paper.claims_plan import Plan
from blkscope.paper.latex import escape, fmt_int, macro_name, tidy

SATURATED = "cassandra_saturated"  # the Tables key of cassandra_saturated's table (run_id, ops_s_sat, window_s)
SAT_METRIC = "ops_s_sat"


@dataclass(frozen=True)
class Secondary:
    claim_id: str
    what: str  # the measure in words, for the text and the table
    evaluate: cm.Evaluate


def with_saturated(tb: Tables) -> Tables:
    """The tables with each capped Cassandra run's saturated-window rate as workload metric SAT_METRIC (runs with no
    onset left out)."""
    sat = tb.get(SATURATED)
    if sat is None or sat.height == 0:
        return tb
    wm = tb["workload_metrics"]
    # each run's ops_s row (with the run's columns the table carries) as the new metric's, its value replaced
    rate = sat.filter(pl.col(SAT_METRIC).is_not_null()).select("run_id", SAT_METRIC)
    rows = wm.filter(pl.col("metric") == "ops_s").join(rate, on="run_id", how="inner", maintain_order="left")
    rows = rows.with_columns(metric=pl.lit(SAT_METRIC), value=pl.col(SAT_METRIC)).select(wm.columns)
    return tb | {"workload_metrics": pl.concat([wm, rows])}


_SAT_RATIO = cm.metric_ratio("workload_metrics", lambda t: cm.cassandra(t, "write", "none"), SAT_METRIC,
                             ("ext4", "xfs"), False, False, "ops/s", digits=0, load=CAPPED)


def saturated_ops(tb: Tables, size: Size) -> Result:
    """S2-ops-cap's estimator on the saturated-window rate: the same strata, runs and interval as the planned one."""
    return _SAT_RATIO(with_saturated(tb), size)


SECONDARY = (Secondary("S2-ops-cap", "ops/s from the first saturated iostat report to the run's end", saturated_ops),)
RUNS = {"planned": True, "all": False}  # the runs the planned verdict reads (confirmatory) and every run


def claim(s: Secondary) -> Claim:
    """The claim as the secondary measure reads it (its band and format the planned one's)."""
    return replace(next(c for c in CLAIMS if c.claim_id == s.claim_id), evaluate=s.evaluate)


def _windows(tb: Tables, ids: set[str]) -> dict:
    sat = tb.get(SATURATED)
    if sat is None or not ids:
        return {"window_s_min": None, "window_s_max": None, "onset_s_min": None, "onset_s_max": None}
    w = sat.filter(pl.col("run_id").is_in(sorted(ids)) & pl.col(SAT_METRIC).is_not_null())
    return {"window_s_min": w["window_s"].min(), "window_s_max": w["window_s"].max(),
            "onset_s_min": w["onset_s"].min(), "onset_s_max": w["onset_s"].max()}


def estimates(tables: Tables, plan: Plan | None) -> pl.DataFrame:
    """Per secondary measure and set of runs (RUNS): the planned estimate and the secondary one, each with its
    interval, n and verdict before any correction (for the secondary one, what its interval would say: no verdict
    of the claim), and the windows the secondary one read (s)."""
    tables = canonical(tables)
    rows = []
    for s in SECONDARY:
        planned, second = next(c for c in CLAIMS if c.claim_id == s.claim_id), claim(s)
        for runs, confirmatory in RUNS.items():
            tb = rw.in_memory(tables, plan, confirmatory)
            p = planned.evaluate(tb, planned.size)
            with reads() as ids:
                r = second.evaluate(tb, second.size)
            # where strata disagree, no pooled (random-effects) figure: their range, as the claims table (review)
            pe, e = (None if disagrees(x) else x.estimate for x in (p, r))
            rows.append({"claim_id": s.claim_id, "runs": runs, "measure": s.what,
                         "planned": ours_of(p, planned.fmt), "planned_n": p.n,
                         "planned_verdict": verdict_of(p, planned.size),
                         "planned_estimate": pe.value if pe else None, "planned_lo": pe.lo if pe else None,
                         "planned_hi": pe.hi if pe else None,
                         "secondary": ours_of(r, second.fmt), "secondary_n": r.n,
                         "secondary_verdict": verdict_of(r, second.size),
                         "estimate": e.value if e else None, "lo": e.lo if e else None, "hi": e.hi if e else None,
                         **_windows(tables, set(ids))})
    return pl.DataFrame(rows, schema=SCHEMA)


SCHEMA = {"claim_id": pl.Utf8, "runs": pl.Utf8, "measure": pl.Utf8, "planned": pl.Utf8, "planned_n": pl.Utf8,
          "planned_verdict": pl.Utf8, "planned_estimate": pl.Float64, "planned_lo": pl.Float64,
          "planned_hi": pl.Float64, "secondary": pl.Utf8, "secondary_n": pl.Utf8, "secondary_verdict": pl.Utf8,
          "estimate": pl.Float64, "lo": pl.Float64, "hi": pl.Float64, "window_s_min": pl.Float64,
          "window_s_max": pl.Float64, "onset_s_min": pl.Float64, "onset_s_max": pl.Float64}  # fmt: skip


def macros(secondary: pl.DataFrame, claims: pl.DataFrame | None = None) -> dict[str, str]:
    """Per secondary measure, on the runs the planned verdict reads: Secondary<Claim>Ours (its estimate [interval]),
    WindowMin and WindowMax (the shortest and longest window it read, s) and Where (where its interval lies against
    the claimed size: phrases.where's short words, with the claims row's band). Every one is printed (the paper's
    check of claims_plan.tex: prose.unused_macros); the estimates over every run are the deviations table's."""
    from blkscope.paper.phrases import where

    m: dict[str, str] = {}
    by = {r["claim_id"]: r for r in claims.iter_rows(named=True)} if claims is not None else {}
    for r in secondary.filter(pl.col("runs") == "planned").iter_rows(named=True):
        k = macro_name("secondary", r["claim_id"])
        m[f"{k}Ours"] = escape(tidy(r["secondary"]))
        if r["window_s_min"] is not None:
            m[f"{k}WindowMin"], m[f"{k}WindowMax"] = fmt_int(r["window_s_min"]), fmt_int(r["window_s_max"])
        row = by.get(r["claim_id"])
        if row is not None and (w := where(row | {x: r[x] for x in ("estimate", "lo", "hi")}, short=True)):
            m[f"{k}Where"] = escape(w)
    return m
