"""Does a batch of extra repeats agree with the earlier repeats of the same configurations? Per configuration
(the run id without its `-r<k>`), the batch's runs against the others: ratio of geometric means (batch/earlier)
of a metric with its 95 % Welch interval on logs. The numbers data/raw/README.md quotes for `round3-repeats`.

    python scripts/batch_effect.py round3-repeats [--runs config/runs.tsv]
        [--metrics data/processed/analysis/workload_metrics.parquet] [--metric journal=write_mean_us ...]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.stats.estimates import log_ratio

# one metric per workload: the one the claims on these runs read
DEFAULT = {"journal": "write_mean_us", "fio": "ops_s", "sysbench": "ops_s"}


def effects(batch: str, runs: pl.DataFrame, metrics: pl.DataFrame, metric_of: dict[str, str]) -> pl.DataFrame:
    r = runs.select("run_id", "workload", "batch").with_columns(
        config=pl.col("run_id").str.replace(r"-r\d+$", ""), new=pl.col("batch").fill_null("") == batch)
    cfgs = r.filter(pl.col("new"))["config"].unique()
    m = metrics.select("run_id", "metric", "value").join(r.filter(pl.col("config").is_in(cfgs)), on="run_id")
    rows = []
    for (cfg, wl), g in m.group_by("config", "workload", maintain_order=True):
        g = g.filter(pl.col("metric") == metric_of.get(wl, "ops_s"))
        a = g.filter(pl.col("new"))["value"].to_numpy().astype(float)
        b = g.filter(~pl.col("new"))["value"].to_numpy().astype(float)
        ok = a.size > 1 and b.size > 1 and min(a.min(), b.min()) > 0
        e = log_ratio(a, b) if ok else None
        rows.append({"config": cfg, "metric": metric_of.get(wl, "ops_s"), "n_batch": a.size, "n_earlier": b.size,
                     "ratio": e.value if e else (a.mean() / b.mean() if a.size and b.size else np.nan),
                     "lo": e.lo if e else None, "hi": e.hi if e else None})
    return pl.DataFrame(rows).sort("config")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("batch")
    ap.add_argument("--runs", type=Path, default=Path("config/runs.tsv"))
    ap.add_argument("--metrics", type=Path, default=Path("data/processed/analysis/workload_metrics.parquet"))
    ap.add_argument("--metric", action="append", default=[], help="workload=metric (repeatable)")
    a = ap.parse_args()
    from blkscope.runs import load_runs

    metric_of = DEFAULT | dict(x.split("=", 1) for x in a.metric)
    t = effects(a.batch, load_runs(a.runs), pl.read_parquet(a.metrics), metric_of)
    with pl.Config(tbl_rows=-1, tbl_width_chars=140):
        print(t)
    shifted = t.filter((pl.col("lo") > 1) | (pl.col("hi") < 1))
    print(f"{shifted.height} of {t.filter(pl.col('lo').is_not_null()).height} configurations: the batch's interval"
          f" excludes 1 ({', '.join(shifted['config'])})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
