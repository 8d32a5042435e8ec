"""Small figure-ready tables: analysis results joined with the runs sheet and thinned for plotting.

Figures are drawn from small aggregated tables (Altair refuses more than 5,000 rows), so every function here
returns at most a few thousand rows whatever the size of the traces: log-spaced points of long distributions,
bin means of long series. Every table carries the run metadata the figures group by (`META`):
- `fs`: the filesystem as configured: the filesystem name, with " wb" for ext4 mounted data=writeback;
- `setup`: what ran: workload and job, with the testbed in parentheses when it is not the host loop device.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy.special import zeta

from blkscope.runs import META, run_meta

QD_COLUMNS = {"kind": pl.Utf8, "x": pl.Float64, "y": pl.Float64}


def _frame(parts: list[pl.DataFrame], schema: dict) -> pl.DataFrame:
    """Concatenate parts into exactly `schema` (an empty frame of it when there are none)."""
    if not parts:
        return pl.DataFrame(schema=schema)
    df = pl.concat(parts, how="diagonal_relaxed")
    return df.select([pl.col(c).cast(t) for c, t in schema.items()])


def with_meta(df: pl.DataFrame, runs: pl.DataFrame) -> pl.DataFrame:
    """META columns first, then the table's own (inner join on run_id: runs not in the sheet are dropped)."""
    meta = run_meta(runs)
    if df.is_empty() and "run_id" not in df.columns:
        return meta.clear()
    # the table's row order kept (a plain join keeps none): figures draw lines through rows in this order
    return meta.join(df, on="run_id", how="inner", maintain_order="right").select(*META, pl.exclude(META))


def log_thin(df: pl.DataFrame, x: str, points: int, by: list[str]) -> pl.DataFrame:
    """Keep at most ~`points` rows per group with log-spaced values of x (x >= 1): the first row of each of
    `points` equal-width bins of log(x), plus the group's last row, so the extremes stay. Drops, never merges."""
    if df.is_empty():
        return df
    lx = pl.col(x).cast(pl.Float64).log()
    lo, hi = lx.min().over(by), lx.max().over(by)
    b = ((lx - lo) / (hi - lo) * points).floor().fill_nan(0).cast(pl.Int64)
    df = df.sort(*by, x).with_columns(_bin=b, _last=pl.col(x) == pl.col(x).max().over(by))
    return df.filter(pl.col("_bin").is_first_distinct().over(by) | pl.col("_last")).drop("_bin", "_last")


def fof_table(fofs: dict[str, pl.DataFrame], runs: pl.DataFrame, points: int = 60) -> pl.DataFrame:
    """Frequency of frequency per run and op (pages accessed exactly `count` times), log-thinned counts."""
    schema = {"run_id": pl.Utf8, "op": pl.Utf8, "count": pl.Int64, "pages": pl.Int64}
    parts = [f.select("op", "count", "pages").with_columns(run_id=pl.lit(r)) for r, f in fofs.items()]
    df = _frame(parts, schema)
    df = log_thin(df.filter(pl.col("count") > 0), "count", points, ["run_id", "op"])
    return with_meta(df, runs).sort("run_id", "op", "count")


def rank_table(fofs: dict[str, pl.DataFrame], runs: pl.DataFrame, points: int = 80) -> pl.DataFrame:
    """Rank-frequency per run and op from its frequency of frequency: pages sorted by count, the pages accessed
    k times hold ranks cum-pages+1 .. cum, so each count gives a step from its first to its last rank (exact,
    whatever the trace size). At most `points` log-spaced counts are kept per run and op, each with both ends of
    its step, so a line through the points never cuts a corner across a long step. Columns: META, op, rank, count."""
    parts = []
    for rid, f in fofs.items():
        g = f.filter(pl.col("count") > 0).sort("op", "count", descending=[False, True])
        g = g.with_columns(hi=pl.col("pages").cum_sum().over("op"))
        g = g.with_columns(lo=pl.col("hi") - pl.col("pages") + 1, run_id=pl.lit(rid))
        g = log_thin(g, "count", points, ["run_id", "op"])
        steps = pl.concat([g.select("run_id", "op", "count", rank="lo"), g.select("run_id", "op", "count", rank="hi")])
        parts.append(steps.unique())
    df = _frame(parts, {"run_id": pl.Utf8, "op": pl.Utf8, "rank": pl.Int64, "count": pl.Int64})
    return with_meta(df, runs).sort("run_id", "op", "rank")


def ccdf_table(fofs: dict[str, pl.DataFrame], zipf: pl.DataFrame, runs: pl.DataFrame, points: int = 60) -> pl.DataFrame:
    """CCDF P(X >= x) of per-page counts (kind "data") and, where the zipf table has a fit, the fitted
    discrete power-law tail (kind "fit") from xmin to the largest count:
    P(X >= x) = n_tail / n * zeta(alpha, x) / zeta(alpha, xmin). Columns: META, op, kind, x, ccdf, alpha, xmin."""
    rows = []
    fits = {(r["run_id"], r["op"]): r for r in zipf.iter_rows(named=True)} if not zipf.is_empty() else {}
    for rid, f in fofs.items():
        for (op,), g in f.filter(pl.col("count") > 0).group_by("op", maintain_order=True):
            g = g.sort("count", descending=True)
            n = float(g["pages"].sum())
            x, ccdf = pl.col("count").cast(pl.Float64), pl.col("pages").cum_sum() / n
            data = g.select(op=pl.lit(op), kind=pl.lit("data"), x=x, ccdf=ccdf)
            rows.append(data.with_columns(run_id=pl.lit(rid)))
            fit = fits.get((rid, op))
            if fit and fit.get("alpha") is not None and fit.get("xmin") is not None:
                a, xmin, xmax = fit["alpha"], int(fit["xmin"]), int(g["count"].max())
                x = np.unique(np.round(np.geomspace(xmin, max(xmax, xmin), 40)))
                y = fit["n_tail"] / fit["n"] * zeta(a, x) / zeta(a, xmin)
                rows.append(pl.DataFrame({"op": op, "kind": "fit", "x": x, "ccdf": y, "run_id": rid}))
    schema = {"run_id": pl.Utf8, "op": pl.Utf8, "kind": pl.Utf8, "x": pl.Float64, "ccdf": pl.Float64}
    df = _frame(rows, schema)
    df = log_thin(df, "x", points, ["run_id", "op", "kind"])
    fit_cols = ["run_id", "op", "alpha", "xmin", "p_gof"]
    if zipf.is_empty() or "alpha" not in zipf.columns:
        fitted = pl.DataFrame(schema={"run_id": pl.Utf8, "op": pl.Utf8, "alpha": pl.Float64, "xmin": pl.Int64,
                                      "p_gof": pl.Float64})  # fmt: skip
    else:
        fitted = zipf.select(fit_cols)
    df = df.join(fitted, on=["run_id", "op"], how="left")
    return with_meta(df, runs).sort("run_id", "op", "kind", "x")


def _elapsed(df: pl.DataFrame) -> pl.Expr:
    if "timestamp" in df.columns and df["timestamp"].null_count() < df.height:
        return (pl.col("timestamp") - pl.col("timestamp").min()).dt.total_milliseconds() / 1000.0
    return (pl.col("sample") - pl.col("sample").min()).cast(pl.Float64)


IOSTAT_SHOWN = {"w_s": "writes/s", "w_await_ms": "write await (ms)"}


def series_table(
    iostat: dict[str, pl.DataFrame], ycsb: dict[str, pl.DataFrame], runs: pl.DataFrame, max_points: int = 120
) -> pl.DataFrame:
    """Per-sample series over elapsed seconds, long form (source, metric, elapsed_s, value):
    iostat w/s and w_await of each run's busiest device (the since-boot report dropped), and for YCSB runs the
    run phase's overall ops/s and the 99th percentile latency (ms) of each operation. Series longer than
    max_points are averaged in equal groups of consecutive samples."""
    parts = []
    for rid, io in iostat.items():
        if "since_boot" in io.columns:
            io = io.filter(~pl.col("since_boot").fill_null(False))
        if io.is_empty():
            continue
        busiest = io.group_by("device").agg(pl.col("w_s").fill_null(0).sum() + pl.col("r_s").fill_null(0).sum())
        dev = busiest.sort("w_s", "device", descending=[True, False])["device"][0]
        io = io.filter(pl.col("device") == dev)
        long = io.with_columns(elapsed_s=_elapsed(io)).unpivot(
            index="elapsed_s", on=[c for c in IOSTAT_SHOWN if c in io.columns], variable_name="metric"
        )  # fmt: skip
        parts.append(long.with_columns(run_id=pl.lit(rid), source=pl.lit("iostat"),
                                       metric=pl.col("metric").replace(IOSTAT_SHOWN)))  # fmt: skip
    for rid, y in ycsb.items():
        y = y.filter((pl.col("phase") == "run") & pl.col("ops_per_s").is_not_null()) if "phase" in y.columns else y
        if y.is_empty():
            continue
        # one point per status line (it repeats on its rows per operation and statistic), in log order
        line = [c for c in ("run", "elapsed_s", "operations", "ops_per_s", "time") if c in y.columns]
        ops = y.unique(line, keep="first", maintain_order=True).select(
            "elapsed_s", value=pl.col("ops_per_s"), metric=pl.lit("ops/s"))  # fmt: skip
        lat = y.filter((pl.col("stat") == "99") & pl.col("section").is_not_null()).select(
            "elapsed_s", value=pl.col("value") / 1000.0, metric=pl.col("section").str.to_lowercase() + " p99 (ms)"
        )  # fmt: skip
        parts.append(pl.concat([ops, lat]).with_columns(run_id=pl.lit(rid), source=pl.lit("ycsb")))
    schema = {"run_id": pl.Utf8, "source": pl.Utf8, "metric": pl.Utf8, "elapsed_s": pl.Float64, "value": pl.Float64}
    df = _frame(parts, schema)
    # stable sorts and groups: samples at the same elapsed second (YCSB's last status lines) stay in log order,
    # so a line is drawn through them the same way on every run
    df = df.drop_nulls("value").sort("run_id", "source", "metric", "elapsed_s", maintain_order=True)
    by = ["run_id", "source", "metric"]
    n = pl.len().over(by)
    group = pl.int_range(pl.len()).over(by) * max_points // n
    df = df.group_by(*by, group.alias("g"), maintain_order=True).agg(pl.col("elapsed_s").mean(), pl.col("value").mean())
    return with_meta(df.drop("g").select(list(schema)), runs).sort(*by, "elapsed_s", maintain_order=True)


def queue_depth_table(
    series: pl.DataFrame, dist: pl.DataFrame, runs: pl.DataFrame, max_bins: int = 120
) -> pl.DataFrame:
    """Queue depth over time (kind "series": x = bin start s, y = mean depth in the bin) and its distribution
    (kind "dist": x = depth, y = share of time). Long series are averaged over equal groups of bins."""
    s = series.select("run_id", x=pl.col("start_s"), y=pl.col("mean_depth")).sort("run_id", "x")
    g = pl.int_range(pl.len()).over("run_id") * max_bins // pl.len().over("run_id")
    s = s.group_by("run_id", g.alias("g")).agg(pl.col("x").min(), pl.col("y").mean()).drop("g")
    d = dist.select("run_id", x=pl.col("depth").cast(pl.Float64), y=pl.col("time_share"))
    df = pl.concat([s.with_columns(kind=pl.lit("series")), d.with_columns(kind=pl.lit("dist"))], how="diagonal_relaxed")
    return with_meta(df.select("run_id", *list(QD_COLUMNS)), runs).sort("run_id", "kind", "x")


def seek_table(seek: pl.DataFrame, hist: pl.DataFrame, runs: pl.DataFrame) -> pl.DataFrame:
    """Signed log2 seek-distance histogram as shares per run and op (kind "hist": bucket, share) and the share
    of sequential steps with its Wilson interval (kind "seq": share, lo, hi, n), of every request (class all; a
    table written before the class split has only those)."""
    seek, hist = (t.filter(pl.col("class") == "all") if "class" in t.columns else t for t in (seek, hist))
    h = hist.with_columns(share=pl.col("count") / pl.col("count").sum().over("run_id", "op")).select(
        "run_id", "op", "bucket", "share", n=pl.col("count"), kind=pl.lit("hist")
    )  # fmt: skip
    q = seek.select(
        "run_id", "op", "n", share=pl.col("sequential_share"), lo=pl.col("sequential_lo"),
        hi=pl.col("sequential_hi"), kind=pl.lit("seq"),
    )  # fmt: skip
    return with_meta(pl.concat([h, q], how="diagonal_relaxed"), runs).sort("run_id", "op", "kind", "bucket")


PROFILE = ["op", "class", "method", "rate", "size_limit"]  # a reuse profile's key in the summary and the MRC


def _records(summary: pl.DataFrame | None) -> pl.DataFrame | None:
    """Each profile's of_record and exact_max_accesses from a reuse summary (None: no summary, or one written
    before `--auto`, without of_record)."""
    cols = {"of_record": pl.Boolean, "exact_max_accesses": pl.Int64}
    if summary is None or "of_record" not in summary.columns:
        return None
    return summary.select(*PROFILE, *[pl.col(c).cast(t) for c, t in cols.items()])


def mrc_table(mrcs: dict[str, pl.DataFrame], runs: pl.DataFrame, summaries: dict[str, pl.DataFrame] | None = None,
              op: str = "all", classes: tuple[str, ...] = ("all",),
              of_record_only: bool = False) -> pl.DataFrame:  # fmt: skip
    """Miss-ratio curves per run (op `op`, each class of `classes`: a table written before the class split has
    class all only; the exact curve and any SHARDS ones, or with `of_record_only` each stream's profile of record
    alone), the grid of the reuse table (~160 cache sizes per curve), with run metadata and, from the run's reuse
    summary (`summaries`), of_record (the profile that stands for its stream: exact where it ran, else SHARDS)
    and exact_max_accesses (`reuse --auto`'s limit; null: exact wherever asked)."""
    schema = {"run_id": pl.Utf8, "class": pl.Utf8, "method": pl.Utf8, "size_limit": pl.Int64, "rate": pl.Float64,
              "cache_pages": pl.Int64, "cache_mib": pl.Float64, "miss_ratio": pl.Float64, "of_record": pl.Boolean,
              "exact_max_accesses": pl.Int64}  # fmt: skip
    parts = []
    for r, m in mrcs.items():
        m = m if "class" in m.columns else m.with_columns(**{"class": pl.lit("all")})
        m = m.filter((pl.col("op") == op) & pl.col("class").is_in(list(classes)))
        rec = _records((summaries or {}).get(r))
        if rec is not None:
            m = m.join(rec, on=PROFILE, how="left", nulls_equal=True)
        else:  # before --auto: the exact profile ran for every stream
            m = m.with_columns(of_record=pl.col("method") == "exact", exact_max_accesses=pl.lit(None, pl.Int64))
        parts.append(m.with_columns(run_id=pl.lit(r), of_record=pl.col("of_record").fill_null(False)))
    df = _frame(parts, schema)
    if of_record_only:
        df = df.filter(pl.col("of_record"))
    return with_meta(df, runs).sort("run_id", "class", "method", "cache_pages")


def io_map_table(maps: dict[str, pl.DataFrame], runs: pl.DataFrame, time_bins: int = 40,
                 address_bins: int = 32) -> pl.DataFrame:  # fmt: skip
    """Each run's I/O map (blkscope characterise --io-map: reads and writes, data and metadata together) coarsened
    to time_bins x address_bins equal cells over its own span (bins merged, counts summed: a cell is the sum of
    the finer cells whose start lies in it), with run metadata: run_id, t_lo_s, t_hi_s, gib_lo, gib_hi, requests."""
    schema = {"run_id": pl.Utf8, "t_lo_s": pl.Float64, "t_hi_s": pl.Float64, "gib_lo": pl.Float64,
              "gib_hi": pl.Float64, "requests": pl.Int64}  # fmt: skip
    parts = []
    for r, m in maps.items():
        if m.is_empty():
            continue
        t_end, s_end = float(m["t_hi_s"].max()), float(m["sector_hi"].max())
        dt, ds = t_end / time_bins, s_end / address_bins * 512 / 2**30
        cells = m.group_by(tb=(pl.col("t_lo_s") / t_end * time_bins).floor().clip(0, time_bins - 1),
                           sb=(pl.col("sector_lo") / s_end * address_bins).floor().clip(0, address_bins - 1)
                           ).agg(pl.col("requests").sum())  # fmt: skip
        tb, sb = pl.col("tb"), pl.col("sb")
        parts.append(cells.select(run_id=pl.lit(r), t_lo_s=tb * dt, t_hi_s=(tb + 1) * dt, gib_lo=sb * ds,
                                  gib_hi=(sb + 1) * ds, requests="requests"))  # fmt: skip
    return with_meta(_frame(parts, schema), runs).sort("run_id", "t_lo_s", "gib_lo")


def runs_table(tables: dict[str, pl.DataFrame], runs: pl.DataFrame, where: pl.Expr | None = None) -> pl.DataFrame:
    """Per-run tables of one kind stacked (the rows `where` keeps), each row with its run's metadata."""
    parts = [(t if where is None else t.filter(where)).with_columns(run_id=pl.lit(r)) for r, t in tables.items()]
    parts = [p for p in parts if p.height]
    if not parts:
        return with_meta(pl.DataFrame(schema={"run_id": pl.Utf8}), runs)
    return with_meta(pl.concat(parts, how="diagonal_relaxed"), runs)
