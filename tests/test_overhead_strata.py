"""Tracing overhead within capture batches, on the real runs sheet and the real cassandra-stress outputs.

The uncompressed-commitlog Cassandra writes on ext4 were captured traced and untraced in one batch, and untraced
again in four confirmatory batches at about half that batch's throughput; the capped write jobs ran under two
device caps in two batches, one of which added untraced repeats. Pooled across batches the first reads as tracing
nearly doubling throughput and the second as costing a fifth of it: these tests fail on a pooled overhead.
"""

from pathlib import Path

import polars as pl
import pytest

from blkscope.analysis.load.overhead import BOTH, UNTRACED_ONLY, tracing_overhead
from blkscope.analysis.summaries.workload_metrics import run_metrics
from blkscope.ingest import run_ingest
from blkscope.runs import load_runs

ROOT = Path(__file__).resolve().parents[1]
RAW = ROOT / "data" / "raw"


@pytest.fixture(scope="module")
def cassandra_ext4(tmp_path_factory):
    """The host runs of the uncompressed-commitlog Cassandra write jobs on ext4 (saturating and capped), and each
    run's ops/s as the pipeline computes it (ingest of cstress.txt, then workload_metrics)."""
    runs = load_runs(ROOT / "config" / "runs.tsv").filter(
        (pl.col("workload") == "cassandra") & pl.col("job").is_in(["write", "write-n"]) & (pl.col("testbed") == "loop")
        & (pl.col("filesystem") == "ext4") & (pl.col("commitlog_compression").fill_null("none") == "none")
        & pl.col("memory_cap").is_null())  # fmt: skip
    runs = runs.filter(pl.col("run_id").map_elements(lambda r: (RAW / r / "cstress.txt").exists(), pl.Boolean))
    tmp = tmp_path_factory.mktemp("cstress")
    ops = {}
    for run in runs["run_id"]:
        run_ingest("cassandra-stress", [RAW / run / "cstress.txt"], tmp / run)
        m = run_metrics(run, "cassandra", pl.read_parquet(tmp / run / "cstress_summary.parquet"))
        ops[run] = m.filter(pl.col("metric") == "ops_s")["value"].item()
    return runs, ops


def _own_batch(runs: pl.DataFrame, ops: dict, **where) -> float:
    """1 - traced/untraced mean ops/s over the runs of one job and batch, straight from the runs sheet."""
    sel = runs.filter(*[pl.col(k) == v for k, v in where.items()])
    mean = lambda t: sum(ops[r] for r in sel.filter(pl.col("traced") == t)["run_id"]) / sel.filter(  # noqa: E731
        pl.col("traced") == t).height
    return 1 - mean(True) / mean(False)


def test_saturating_writes_compare_within_their_batch_and_list_the_untraced_only_batches(cassandra_ext4):
    runs, ops = cassandra_ext4
    ov = tracing_overhead(runs, ops, n_boot=500).filter(pl.col("job") == "write")
    paired = ov.filter(pl.col("arms") == BOTH)
    # one batch with both arms: its 3 untraced runs, not the 37 of five batches
    assert paired.height == 1 and paired.select("n_traced", "n_untraced").row(0) == (3, 3)
    batch = paired["batch"].item()
    assert paired["overhead"].item() == pytest.approx(_own_batch(runs, ops, job="write", batch=batch))
    assert -0.2 < paired["overhead"].item() < 0.2  # pooled: -0.89 (tracing "speeding it up" 1.9x)
    # the confirmatory batches' untraced repeats: reported, counted, no overhead of their own
    alone = ov.filter(pl.col("arms") != BOTH)
    assert set(alone["arms"]) == {UNTRACED_ONLY} and alone["overhead"].is_null().all()
    assert alone.height == 4 and alone["n_traced"].sum() == 0
    # no run is dropped: every run of the configuration is in one row
    assert ov["n_traced"].sum() + ov["n_untraced"].sum() == runs.filter(pl.col("job") == "write").height
    # the untraced runs of the other batches are slower than those of the traced runs' batch (why pooling misleads)
    assert (alone["untraced_ops_s"] < 0.6 * paired["untraced_ops_s"].item()).all()


def test_capped_writes_keep_caps_and_batches_apart(cassandra_ext4):
    runs, ops = cassandra_ext4
    ov = tracing_overhead(runs, ops, n_boot=500).filter(pl.col("job") == "write-n")
    paired = ov.filter(pl.col("arms") == BOTH).sort("cap")
    # a configuration per device cap, each compared within its batch: 3 traced against 3 untraced
    assert paired["cap"].to_list() == ["2M", "4M"] and paired["n_untraced"].to_list() == [3, 3]
    for r in paired.iter_rows(named=True):
        assert r["overhead"] == pytest.approx(_own_batch(runs, ops, job="write-n", batch=r["batch"]))
    assert paired["overhead"].abs().max() < 0.1  # pooled over caps and batches: 0.19
    extra = ov.filter(pl.col("arms") != BOTH)
    assert extra.select("cap", "arms", "n_untraced").rows() == [("4M", UNTRACED_ONLY, 5)]
