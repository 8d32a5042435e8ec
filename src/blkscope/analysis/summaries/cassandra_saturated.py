"""cassandra-stress's throughput over the part of a capped run in which the device is saturated: from the first
iostat report of the onset S2-aqu-cap reads from (iostat_summary's `sat_onset_s`: the first of SUSTAIN reports in a
row at >= SATURATED % busy) to the run's end. A secondary measure of S2-ops-cap, added after its estimate had been
seen (config/claims_plan.yaml `deviations`): the planned measure reads the whole run, whose first seconds leave the
device idle while the page cache absorbs the writes.

The two logs keep different clocks. iostat stamps each 1-s report with the wall clock at its end (whole seconds,
UTC here: the capture sets S_TIME_FORMAT=ISO on a UTC host); cassandra-stress counts seconds from its own start
and prints no wall clock. Its clock is placed on the wall clock by the run's end: its last interval ends when the
workload ends (run.yaml `workload_end_utc`). The client then still prints its summary and stops its JVM, so the
placement is a little late (about 2 s in the runs checked against the node's garbage-collection log) and the
window starts up to that much before the onset: the estimate leans towards the whole run's, not away from it.

The rate is the operations cassandra-stress counted from the first interval boundary at or after the onset to its
last interval, over those seconds (its cumulative `total ops`), so that a short last interval weighs by its
length. Per run: run_id, onset_report (reports before the onset), onset_s (the onset on cassandra-stress's
clock), from_s and to_s (the window), window_s, ops_s_sat, and ops_s_intervals (the whole run by the same
arithmetic, beside the Results block's Op rate); a run whose device never stays saturated has no onset and nulls.

    python -m blkscope.analysis.summaries.cassandra_saturated --iostat-summary iostat_summary.parquet \
        --processed data/processed --raw data/raw -o cassandra_saturated.parquet RUN_ID ...
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import polars as pl

SCHEMA = {"run_id": pl.Utf8, "device": pl.Utf8, "onset_report": pl.Int64, "onset_utc": pl.Utf8,
          "stress_start_utc": pl.Utf8, "onset_s": pl.Float64, "from_s": pl.Float64, "to_s": pl.Float64,
          "window_s": pl.Float64, "ops_s_sat": pl.Float64, "ops_s_intervals": pl.Float64}  # fmt: skip
REPORT_S = 1.0  # iostat's interval in the captures (iostat -x -t -y 1)
CLOCKS_APART_S = 3600.0  # the reports and the run's start this far apart: not one clock (a local-time iostat)


def utc(x) -> datetime:
    """A timestamp as an aware UTC datetime (naive ones are UTC: the captures' hosts keep UTC)."""
    if isinstance(x, str):
        x = datetime.fromisoformat(x.replace("Z", "+00:00"))
    return x.replace(tzinfo=UTC) if x.tzinfo is None else x.astimezone(UTC)


def stress_totals(intervals: pl.DataFrame) -> pl.DataFrame:
    """cassandra-stress's `total` rows of its last round (the run's thread count), in order: time_s, total_ops."""
    t = intervals.filter(pl.col("type") == "total")
    if t.is_empty():
        return t.select("time_s", "total_ops")
    return t.filter(pl.col("round") == t["round"].max()).sort("time_s").select("time_s", "total_ops")


def onset_utc(reports: pl.DataFrame, onset: int) -> datetime | None:
    """The wall-clock start of report number `onset` (0-based, counted as iostat_summary counts them: the device's
    reports in order, the since-boot one dropped): its stamp less one report interval. None past the last report."""
    r = reports
    if "since_boot" in r.columns:
        r = r.filter(~pl.col("since_boot").fill_null(False))
    r = r.sort("sample")
    if onset < 0 or onset >= r.height or r["timestamp"][onset] is None:
        return None
    return utc(r["timestamp"][onset]) - timedelta(seconds=REPORT_S)


def saturated_rate(totals: pl.DataFrame, onset: datetime, end: datetime) -> dict:
    """The window and rate of one run (stress_totals' rows, the onset's and the workload's end's wall clock): the
    keys of SCHEMA from onset_s on; ops_s_sat None where no interval ends after the onset."""
    if totals.height == 0:
        return {"onset_s": None, "from_s": None, "to_s": None, "window_s": None, "ops_s_sat": None,
                "ops_s_intervals": None}
    t = totals["time_s"].to_list()
    ops = totals["total_ops"].to_list()
    to_s, last = float(t[-1]), float(ops[-1])
    start = end - timedelta(seconds=to_s)
    onset_s = (onset - start).total_seconds()
    # the first interval boundary at or after the onset (the stress's start, 0 ops, where the onset precedes it)
    bounds = [(0.0, 0.0)] + [(float(a), float(b)) for a, b in zip(t, ops, strict=True)]
    from_s, base = next(((a, b) for a, b in bounds if a >= onset_s), (to_s, last))
    window = to_s - from_s
    return {"stress_start_utc": start.isoformat().replace("+00:00", "Z"), "onset_s": onset_s, "from_s": from_s,
            "to_s": to_s, "window_s": window, "ops_s_sat": (last - base) / window if window > 0 else None,
            "ops_s_intervals": last / to_s if to_s > 0 else None}


def run_row(run_id: str, onset: int | None, device: str | None, reports: pl.DataFrame, intervals: pl.DataFrame,
            meta: dict) -> dict:
    """One run's row of SCHEMA. A ValueError where iostat's clock and the run's are not one (over
    CLOCKS_APART_S apart) or the run.yaml has no workload end."""
    row = dict.fromkeys(SCHEMA) | {"run_id": run_id, "device": device, "onset_report": onset}
    totals = stress_totals(intervals)
    if not meta.get("workload_end_utc"):
        raise ValueError(f"{run_id}: run.yaml has no workload_end_utc")
    end = utc(str(meta["workload_end_utc"]))
    if onset is None:  # the device never stayed saturated: the whole run's rate alone
        return row | {"ops_s_intervals": saturated_rate(totals, end, end)["ops_s_intervals"]}
    first = onset_utc(reports, 0)
    if first is not None and meta.get("workload_start_utc"):
        apart = abs((first - utc(str(meta["workload_start_utc"]))).total_seconds())
        if apart > CLOCKS_APART_S:
            raise ValueError(f"{run_id}: iostat's first report is {apart:.0f} s from the workload's start: its "
                             "timestamps are not UTC")
    at = onset_utc(reports, onset)
    if at is None:
        raise ValueError(f"{run_id}: onset at report {onset}, past the run's {reports.height} reports")
    row["onset_utc"] = at.isoformat().replace("+00:00", "Z")
    return row | saturated_rate(totals, at, end)


def onsets(iostat_summary: pl.DataFrame) -> dict[str, tuple[str, int]]:
    """run_id -> (device, reports before the onset), from iostat_summary's sat_onset_s (one device a run)."""
    o = iostat_summary.filter(pl.col("metric") == "sat_onset_s").select("run_id", "device", "mean")
    many = o.group_by("run_id").len().filter(pl.col("len") > 1)["run_id"].to_list()
    if many:
        raise ValueError(f"runs {', '.join(sorted(many))}: a saturation onset on more than one device")
    return {r["run_id"]: (r["device"], int(r["mean"])) for r in o.iter_rows(named=True)}


def table(run_ids: list[str], processed: Path, raw: Path, iostat_summary: pl.DataFrame) -> pl.DataFrame:
    from blkscope import yamlio

    on = onsets(iostat_summary)
    rows = []
    for run_id in run_ids:
        device, onset = on.get(run_id, (None, None))
        reports = pl.read_parquet(processed / run_id / "iostat" / "iostat.parquet")
        if device is not None and "device" in reports.columns:
            reports = reports.filter(pl.col("device") == device)
        intervals = pl.read_parquet(processed / run_id / "cstress" / "cstress_intervals.parquet")
        meta = yamlio.load((raw / run_id / "run.yaml").read_text()) or {}
        rows.append(run_row(run_id, onset, device, reports, intervals, meta))
    return pl.DataFrame(rows, schema=SCHEMA).sort("run_id")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m blkscope.analysis.summaries.cassandra_saturated",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--iostat-summary", type=Path, required=True, help="iostat_summary table (sat_onset_s)")
    p.add_argument("--processed", type=Path, required=True, help="<processed>/<run>/{iostat,cstress}/ tables")
    p.add_argument("--raw", type=Path, required=True, help="<raw>/<run>/run.yaml (the workload's end)")
    p.add_argument("-o", "--out", type=Path, required=True, help="the table (.parquet)")
    p.add_argument("--csv", type=Path, help="a CSV copy")
    p.add_argument("run_ids", nargs="*", metavar="RUN_ID", help="capped Cassandra runs")
    a = p.parse_args(argv)
    from blkscope.io import write_table

    try:  # one line naming what is wrong, no table: a run's tables or run.yaml missing or inconsistent
        out = table(a.run_ids, a.processed, a.raw, pl.read_parquet(a.iostat_summary))
    except (OSError, ValueError, pl.exceptions.PolarsError) as e:
        print(f"blkscope: cassandra_saturated: {e}", file=sys.stderr)
        return 1
    write_table(out, a.out, a.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
