"""What each workload reported, as one long table: run_id, metric, value, unit.

Every workload gives `ops_s` (its throughput, the number tracing overhead and cross-filesystem
comparisons use) plus its own latency metrics:
  fio      ops_s = read + write IOPS; {read,write}_lat_mean_us, {read,write}_clat_p99_us
  sysbench ops_s = reads/s + writes/s (fsyncs excluded, as the MySQL study's req/s); lat_avg_us, lat_p95_us
  journal  ops_s = writes per second of the run phase; write_{mean,p99,p9999,max}_us and the same for reads
  ycsb     ops_s = run-phase OVERALL throughput (warm-up included: analysis/summaries/ycsb_phases.py drops it);
           {read,update}_{mean,p99}_us; with the three-phase job (and on
           Cassandra, workload cassandra-ycsb) also ops_s_load and ops_s_read (the insert-only and read-only
           phases' OVERALL throughput) and read_only_read_{mean,p99}_us
  cassandra ops_s = cassandra-stress `Op rate` of the last round (the one at the run's thread count);
           lat_{mean,p50,p95,p99,p999,max}_us from its Results block; errors; a run of several rounds (the
           thread-count sweep) also gives each round's Op rate as ops_s_threads_<N>
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from blkscope.analysis.summaries.run_groups import with_groups

SCHEMA = {"run_id": pl.Utf8, "metric": pl.Utf8, "value": pl.Float64, "unit": pl.Utf8}

# workload -> (stage directory under <processed>/<run_id>/, table read)
SOURCES = {
    "fio": ("fio", "fio_jobs"),
    "sysbench": ("sysbench", "sysbench_fileio"),
    "journal": ("journal", "journal_summary"),
    "ycsb": ("ycsb", "ycsb_summary"),
    "cassandra-ycsb": ("ycsb", "ycsb_summary"),
    "cassandra": ("cstress", "cstress_summary"),
}


def _fio(df: pl.DataFrame) -> list[tuple[str, float, str]]:
    io = df.filter(pl.col("direction").is_in(["read", "write", "trim"]))
    if "groupid" in io.columns and io["groupid"].n_unique() > 1:
        # stonewalled groups run one after another (the ceiling job's phases): IOPS add up within a group only;
        # the run's ops_s is its I/Os over the groups' summed runtime, and each group's IOPS is kept as well
        g = io.group_by("groupid", maintain_order=True).agg(
            pl.col("jobname").first(), pl.col("iops").sum(), pl.col("total_ios").sum(), pl.col("runtime_ms").max())
        out = [("ops_s", float(g["total_ios"].sum() / (g["runtime_ms"].sum() / 1e3)), "ops/s")]
        out += [(f"ops_s_group_{r['jobname']}", float(r["iops"]), "ops/s") for r in g.iter_rows(named=True)]
    else:
        out = [("ops_s", float(io["iops"].sum()), "ops/s")]
    # what the application asked for, in total: write amplification and device writes per read divide by these
    if "io_kib" in df.columns:
        out.append(("write_kib", float(df.filter(pl.col("direction") == "write")["io_kib"].sum()), "KiB"))
    if "total_ios" in df.columns:
        out.append(("read_ios", float(df.filter(pl.col("direction") == "read")["total_ios"].sum()), "ops"))
    for d in ("read", "write"):
        g = df.filter((pl.col("direction") == d) & (pl.col("iops") > 0))
        if g.height:
            out.append((f"{d}_lat_mean_us", float(g["lat_mean_ns"].mean()) / 1e3, "us"))
            out.append((f"{d}_clat_p99_us", float(g["clat_p99_ns"].max()) / 1e3, "us"))
    return out


def _sysbench(df: pl.DataFrame) -> list[tuple[str, float, str]]:
    r = df.row(df.height - 1, named=True)  # the last run block of the file
    out = [("ops_s", (r["reads_s"] or 0.0) + (r["writes_s"] or 0.0), "ops/s")]
    if r.get("written_mib_s") is not None and r.get("total_time_s"):
        out.append(("write_kib", r["written_mib_s"] * r["total_time_s"] * 1024, "KiB"))
    for name, col in (("lat_avg_us", "lat_avg_ms"), ("lat_p95_us", "lat_p95_ms"), ("lat_max_us", "lat_max_ms")):
        if r.get(col) is not None:
            out.append((name, r[col] * 1e3, "us"))
    return out


def _journal(df: pl.DataFrame) -> list[tuple[str, float, str]]:
    out = []
    for r in df.iter_rows(named=True):
        op = r["op"]
        if op == "write" and r["elapsed_s"]:
            out.append(("ops_s", r["count"] / r["elapsed_s"], "ops/s"))
            if r.get("record"):
                out.append(("write_kib", r["count"] * r["record"] / 1024, "KiB"))
        for stat, col in (("mean", "mean_ns"), ("p99", "p99_ns"), ("p9999", "p9999_ns"), ("max", "max_ns")):
            if r.get(col) is not None:
                out.append((f"{op}_{stat}_us", float(r[col]) / 1e3, "us"))
    return out


def _ycsb(df: pl.DataFrame) -> list[tuple[str, float, str]]:
    out = []
    # phase -> (its throughput's metric, its operations' latency prefix); the load's insert latency is not kept
    for phase, (ops, prefix, sections) in {"run": ("ops_s", "", ("READ", "UPDATE")), "load": ("ops_s_load", "", ()),
                                           "read": ("ops_s_read", "read_only_", ("READ",))}.items():  # fmt: skip
        sel = df.filter(pl.col("phase") == phase)
        get = {(s, m): v for s, m, v in sel.select("section", "metric", "value").iter_rows()}
        if ("OVERALL", "Throughput(ops/sec)") in get:
            out.append((ops, get[("OVERALL", "Throughput(ops/sec)")], "ops/s"))
        for sec in sections:
            for stat, metric in (("mean", "AverageLatency(us)"), ("p99", "99thPercentileLatency(us)")):
                if (sec, metric) in get:
                    out.append((f"{prefix}{sec.lower()}_{stat}_us", get[(sec, metric)], "us"))
    return out


# cassandra-stress Results lines (lower case: 2.1/3.x print `op rate`, 4.x/5.x `Op rate`) -> metric, scale to us
_CSTRESS = {"op rate": ("ops_s", 1.0, "ops/s"), "latency mean": ("lat_mean_us", 1e3, "us"),
            "latency median": ("lat_p50_us", 1e3, "us"), "latency 95th percentile": ("lat_p95_us", 1e3, "us"),
            "latency 99th percentile": ("lat_p99_us", 1e3, "us"),
            "latency 99.9th percentile": ("lat_p999_us", 1e3, "us"), "latency max": ("lat_max_us", 1e3, "us"),
            "total errors": ("errors", 1.0, "")}  # fmt: skip


def _cassandra(df: pl.DataFrame) -> list[tuple[str, float, str]]:
    last = df.filter((pl.col("round") == pl.col("round").max()) & pl.col("op").is_null())
    out = []
    for metric, value, unit in last.select("metric", "value", "unit").iter_rows():
        name, scale, u = _CSTRESS.get(metric.lower(), (None, 1.0, ""))
        if name is None:
            continue
        if u == "us" and unit not in (None, "ms"):  # 5.0 prints ms; anything else would be a misread
            raise ValueError(f"cassandra-stress {metric!r} in {unit!r}, expected ms")
        out.append((name, value * scale, u))
    rates = df.filter(pl.col("op").is_null() & (pl.col("metric").str.to_lowercase() == "op rate"))
    if rates["round"].n_unique() > 1:
        rounds = rates.sort("round").select("threads", "value").iter_rows()
        out += [(f"ops_s_threads_{t}", v, "ops/s") for t, v in rounds]
    return out


_READERS = {"fio": _fio, "sysbench": _sysbench, "journal": _journal, "ycsb": _ycsb, "cassandra-ycsb": _ycsb,
            "cassandra": _cassandra}


def run_metrics(run_id: str, workload: str, table: pl.DataFrame) -> pl.DataFrame:
    rows = [(run_id, m, v, u) for m, v, u in _READERS[workload](table) if v is not None]
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def workload_metrics(runs: pl.DataFrame, processed: Path, run_ids: list[str]) -> pl.DataFrame:
    """Metrics of every listed run whose workload has a reader here; joined with its runs-sheet row."""
    parts = []
    meta = runs.filter(pl.col("run_id").is_in(run_ids))
    for r in meta.iter_rows(named=True):
        if r["workload"] not in SOURCES:
            continue
        stage, table = SOURCES[r["workload"]]
        path = processed / r["run_id"] / stage / f"{table}.parquet"
        parts.append(run_metrics(r["run_id"], r["workload"], pl.read_parquet(path)))
    df = pl.concat(parts) if parts else pl.DataFrame(schema=SCHEMA)
    cols = ["run_id", "workload", "job", "filesystem", "testbed", "traced", "repeat", "load", "commitlog"]
    out = with_groups(meta).select(cols).join(df, on="run_id", how="inner")
    return out.sort("workload", "job", "filesystem", "run_id", "metric")
