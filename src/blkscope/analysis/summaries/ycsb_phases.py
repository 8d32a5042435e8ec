"""Each YCSB phase's throughput after its warm-up (issue L): the phase-by-phase comparison of Cassandra and
RocksDB (workloads cassandra-ycsb and ycsb, job workloada-c-zipfian-sat: load, workload A, workload C).

A phase starts cold and climbs for minutes here (the JVMs compiling on two shared cores); the capture records
the measured warm-up in run.yaml (`workload.options.warmup_s`, per phase). From the YCSB status lines' running
operation count: ops_s_steady = (operations at the last full second - operations at the first line at or past the
warm-up) / the seconds between them. The last line at which the count still grew covers the phase's partial
final second (and its shutdown), so the last full second is the line before it."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from blkscope import yamlio

RUN_COLUMNS = ["run_id", "database", "workload", "job", "filesystem", "traced", "repeat"]
SCHEMA = {"phase": pl.Utf8, "warmup_s": pl.Float64, "seconds": pl.Float64, "operations": pl.Int64,
          "ops_s_steady": pl.Float64}  # fmt: skip


def steady(series: pl.DataFrame, warmup_s: dict[str, float]) -> pl.DataFrame:
    """One run's ycsb_series -> one row per phase (see the module's docstring); null when nothing is left."""
    # YCSB's last status lines can share an elapsed second: the running count orders them as the log did (a sort
    # by the second alone left their order to `unique`, and the steady rate changed from one run to the next)
    lines = series.select("phase", "elapsed_s", "operations").unique().sort("phase", "elapsed_s", "operations")
    rows = []
    for phase in lines["phase"].unique(maintain_order=True).to_list():
        g = lines.filter(pl.col("phase") == phase)
        grew = g.filter(pl.col("operations") > pl.col("operations").shift(1))["elapsed_s"]
        w = float(warmup_s.get(phase, 0))
        start = g.filter(pl.col("elapsed_s") >= w).head(1)
        end = g.filter(pl.col("elapsed_s") == grew[-2]) if grew.len() >= 2 else g.clear()
        if start.is_empty() or end.is_empty() or end["elapsed_s"][0] <= start["elapsed_s"][0]:
            rows.append((phase, w, None, None, None))
            continue
        secs = end["elapsed_s"][0] - start["elapsed_s"][0]
        ops = int(end["operations"][0] - start["operations"][0])
        rows.append((phase, w, secs, ops, ops / secs))
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def ycsb_phases(series_files: list[Path], raw: Path, runs: pl.DataFrame, run_id_of) -> pl.DataFrame:
    """Every listed run's phases, with the warm-up its run.yaml records, joined with its runs-sheet row."""
    parts = []
    for f in series_files:
        run_id = run_id_of(f)
        meta = yamlio.load((Path(raw) / run_id / "run.yaml").read_text())
        warmup = meta["workload"]["options"].get("warmup_s") or {}
        parts.append(steady(pl.read_parquet(f), warmup).with_columns(run_id=pl.lit(run_id)))
    cols = [c for c in RUN_COLUMNS if c in runs.columns]
    if not parts:
        return pl.DataFrame(schema={**{c: runs.schema[c] for c in cols}, **SCHEMA})
    df = pl.concat(parts).join(runs.select(cols), on="run_id", how="inner")
    return df.select(*cols, *SCHEMA).sort("phase", "database", "filesystem", "run_id")
