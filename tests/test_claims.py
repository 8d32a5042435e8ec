"""Claim verdicts: the direction, the interval and the number of repeats decide, never the data's absence."""

import numpy as np
import polars as pl
import pytest
from scipy import stats

from blkscope.paper.claims import CLAIMS, compare, evaluate


def test_compare_replicates_does_not_and_inconclusive():
    a, b = np.array([10.0, 10.2, 9.9]), np.array([5.0, 5.1, 4.8])
    assert compare(a, b, ("a", "b"), "x", +1)[3] == "replicates"
    assert compare(a, b, ("a", "b"), "x", -1)[3] == "does not"
    assert compare(a, a + 0.01 * np.array([1, -1, 0]), ("a", "b"), "x", +1)[3] == "inconclusive"
    assert compare(a[:1], b, ("a", "b"), "x", +1)[3].startswith("inconclusive (fewer than 2")
    assert compare(a[:0], b, ("a", "b"), "x", +1)[3] == "not tested (no runs)"


def test_compare_interval_is_welch():
    a, b = np.array([3.0, 4.0, 5.0, 6.0]), np.array([1.0, 1.5, 2.5])
    m = compare(a, b, ("a", "b"), "", +1, digits=4)[0]
    lo, hi = (float(x) for x in m.split("[")[1].split("]")[0].split(","))
    r = stats.ttest_ind(a, b, equal_var=False)
    ci = r.confidence_interval(0.95)
    assert (lo, hi) == (pytest.approx(ci.low, abs=1e-4), pytest.approx(ci.high, abs=1e-4))


def _tables(metrics: pl.DataFrame) -> dict:
    runs = metrics.select("run_id", "workload").unique().with_columns(mount_options=pl.lit("noatime"))
    empty_iostat = pl.DataFrame(schema={"run_id": pl.Utf8, "testbed": pl.Utf8, "traced": pl.Boolean,
                                        "job": pl.Utf8, "workload": pl.Utf8, "metric": pl.Utf8,
                                        "filesystem": pl.Utf8, "mean": pl.Float64})
    return {"runs": runs, "workload_metrics": metrics, "iostat_summary": empty_iostat,
            "overhead": pl.DataFrame(), "zipf": pl.DataFrame(schema={"run_id": pl.Utf8, "op": pl.Utf8,
                                                                     "alpha": pl.Float64, "p_gof": pl.Float64,
                                                                     "s": pl.Float64})}


def test_sysbench_claim_on_made_up_metrics_and_every_claim_evaluates():
    rows = [(f"{fs}-{r}", "sysbench", "rndrw", fs, "loop", True, r, "ops_s", v)
            for fs, vals in (("xfs", [4000, 4100, 4050]), ("ext4", [3700, 3750, 3760])) for r, v in enumerate(vals)]
    cols = ["run_id", "workload", "job", "filesystem", "testbed", "traced", "repeat", "metric", "value"]
    metrics = pl.DataFrame(rows, schema=cols, orient="row")
    out = evaluate(_tables(metrics))
    assert out.height == len(CLAIMS)
    assert out.filter(pl.col("claim_id") == "S5-sysbench")["verdict"].item() == "replicates"
    assert out.filter(pl.col("claim_id") == "S1-trace")["verdict"].item().startswith("not tested")
