"""Each change of a claim's measure or selection made after its estimate had been seen (from the git history of
claims.py, claim_measures.py and claim_verdict.py), recomputed on today's tables as it was before the change and as it
is after: the numbers of the claims plan's `deviations` list (config/claims_plan.yaml).

A change is undone either by a module constant of claim_measures (the workloads a claim reads, the batch as a
stratum, the shortest journal run, how S4-sparse-max picks its best pair), set back for the one evaluation, or by
the estimator the claim had before (an evaluator built from the same factories with the old arguments). The
estimates run on every run of the in-memory condition, exploratory batches included: the table the change was made
on. A secondary measure (claim_secondary) changes no measure: its row gives the planned estimate before and the
secondary one after (Change.after).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

import polars as pl

from blkscope.analysis.summaries.run_groups import CAPPED
from blkscope.paper import claim_measures as cm
from blkscope.paper import claim_rows as rw
from blkscope.paper import claim_verdict as vd
from blkscope.paper.claim_runs import Tables, canonical
from blkscope.paper.claim_secondary import SECONDARY
from blkscope.paper.claim_secondary import claim as secondary_claim
from blkscope.paper.claims import CLAIMS, Claim, all_runs_text
from blkscope.paper.claims_plan import Plan


@dataclass(frozen=True)
class Change:
    commit: str
    claim_id: str
    before: dict | Callable[[Claim], Claim]  # claim_measures constants as they were, or the claim as it was
    # a secondary measure (claim_secondary): `after` is the claim as it reads it, `before` the planned claim as it is
    after: Callable[[Claim], Claim] | None = None


def _evaluator(ev) -> Callable[[Claim], Claim]:
    return lambda c: replace(c, evaluate=ev)


def _band(size: vd.Size) -> Callable[[Claim], Claim]:
    return lambda c: replace(c, size=size)


S4_READER_STRATA = "d2b98c2"  # the commit that made S4-reader's reader modes strata
SATURATED_WINDOW = "8c3ade3"  # the commit that added S2-ops-cap's saturated-window secondary measure
NO_BATCH = {"BATCH": ["testbed"]}  # one stratum for every host run: batches pooled, as before 2f88df5
CHANGES = [
    Change("ebedc21", "S2-ops", _band(vd.comparable_ratio(4.0))),
    # every claim that took the batch as a stratum (S1-hot's strata name the testbed already)
    *[Change("2f88df5", cid, NO_BATCH) for cid in
      ("S1-trace", "S1-trace-cass", "S1-trace-ycsb-cass", "S1-trace-btrfs", "S2-ops", "S2-lz4", "S2-aqu",
       "S2-merge", "S2-ops-cap", "S2-lz4-cap", "S2-aqu-cap", "S2-merge-cap", "S2-aqu-fio", "S3-cow-ext4",
       "S3-cow-xfs", "S3-wb-sysbench", "S3-wb-journal", "S4-mean", "S4-p9999", "S4-reader", "S4-sparse-max",
       "S5-sysbench", "S5-volume", "S5-inode64")],
    Change("e5a7335", "S2-aqu-cap", _evaluator(cm.metric_ratio(
        "iostat_summary", lambda t: cm.cassandra(t, "write", "none"), "aqu_sz", ("ext4", "xfs"), False, False, "",
        digits=3, load=CAPPED))),
    Change("68531a6", "S1-cass-read", _evaluator(cm.cassandra_vs_rocksdb("read", whole=True))),
    Change("68531a6", "S1-trace-ycsb-cass", _evaluator(cm.overhead(
        lambda t: t.filter(pl.col("workload") == cm.YCSB_CASSANDRA)))),
    Change("04a2488", "S1-cass-write", _evaluator(cm.cassandra_vs_rocksdb("load"))),
    Change("3618dea", "S1-frag", {"FRAG_WORKLOADS": None}),
    Change("e0c2130", "S1-hot", {"HOT_WORKLOADS": None}),
    *[Change("e0c2130", cid, {"JOURNAL_MIN_S": 0}) for cid in ("S4-ms", "S4-mean", "S4-sparse-max", "S4-p9999")],
    Change("242e04b", "S4-sparse-max", {"BEST_IN_FULL_BATCHES": False}),
    # after the plan: the reader modes as strata, tested for agreement (claim_runs.pool), not pooled into one arm
    # after the plan: S1-cass-write's arms both untraced (the Cassandra arm held traced runs, the RocksDB arm none)
    Change("4819f6a", "S1-cass-write", _evaluator(cm.cassandra_vs_rocksdb("load", whole=True))),
    Change(S4_READER_STRATA, "S4-reader", _evaluator(cm.metric_ratio(
        "workload_metrics", lambda t: t.filter((pl.col("workload") == "journal") & pl.col("job").str.ends_with(
            "-reader")), "write_max_us", ("xfs", "ext4"), False, False, "us", digits=0))),
    # after the plan, no measure changed: S2-ops-cap's ops/s over the saturated part of each run beside the planned
    # whole-run ratio (its verdict stays the planned one)
    *[Change(SATURATED_WINDOW, s.claim_id, lambda c: c, after=lambda c, s=s: secondary_claim(s)) for s in SECONDARY],
]


@contextmanager
def constants(values: dict) -> Iterator[None]:
    old = {k: getattr(cm, k) for k in values}
    for k, v in values.items():
        setattr(cm, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(cm, k, v)


def _text(c: Claim, tb: Tables) -> dict:
    r = c.evaluate(tb, c.size)
    estimate, verdict = all_runs_text(r, c)  # as the claims table's ours_all: a range where the strata disagree
    return {"estimate": estimate, "n": r.n, "verdict": verdict}


def recompute(tb: Tables, plan: Plan | None = None, changes: list[Change] = CHANGES) -> pl.DataFrame:
    """Per change: the claim's estimate, n and verdict before it and today, and whether they differ (the plan
    lists a claim under a change that undid a stratum only where it moved something on today's runs). With the
    `plan`, on the runs of its in-memory condition as the claims table's `ours_all` reads them (not the scale and
    replication batches, judged on their own runs): the two columns are the same numbers."""
    tb, by_id = rw.in_memory(canonical(tb), plan, False), {c.claim_id: c for c in CLAIMS}
    rows = []
    for ch in changes:
        c = by_id[ch.claim_id]
        after = _text(ch.after(c) if ch.after else c, tb)
        if isinstance(ch.before, dict):
            with constants(ch.before):
                before = _text(c, tb)
        else:
            before = _text(ch.before(c), tb)
        rows.append({"commit": ch.commit, "claim_id": c.claim_id,
                     **{f"before_{k}": v for k, v in before.items()}, **{f"after_{k}": v for k, v in after.items()},
                     "moved": before != after})
    return pl.DataFrame(rows)
