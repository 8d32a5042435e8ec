"""The machine's load beside the claims: a diagnostic, not a claim, added after the estimates were seen (issue Q
review: traced saturating runs started at a median load of about 8 on 2 cores, and no claim looked at it).

Per judged row of the claims table (its planned verdict judged, headline.as_planned; a row read with another's
runs, `same_as`, counted with it), the runs its verdict read by arm (claims.evaluate's arms: claim_id, run_id, arm)
and each run's 1-minute load average just before its workload (blkscope.analysis.load.machine_load: the value
`after` counts the workload's own threads, so it is not read). Per arm, the median; two arms are compared by the
difference of their medians with a percentile bootstrap interval at LEVEL (arms resampled apart, pooled over the
row's strata), and `differs` where that interval leaves out zero. A row of more than two arms (S5-volume's four
cells) compares the two whose medians lie furthest apart. A row whose estimator recorded one arm or none (a
one-sample measure, an estimator that filters its arrays itself) has its arms' medians and no comparison.

    python -m blkscope.paper.claim_load --claims claims.parquet --arms claims_arms.parquet --raw data/raw \\
        -o claims_load.tex [--table claims_load.parquet] [--csv claims_load.csv]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

from blkscope.analysis.load.machine_load import before
from blkscope.analysis.stats.uncertainty import LEVEL, bootstrap_ci
from blkscope.figures.names import DATABASES
from blkscope.paper.headline import as_planned, judged_with_verdicts
from blkscope.paper.latex import count_word, escape, fmt_float, fmt_int, join_and, macro_file

SCHEMA = {"claim_id": pl.Utf8, "arm_a": pl.Utf8, "arm_b": pl.Utf8, "n_a": pl.Int64, "n_b": pl.Int64,
          "load_a": pl.Float64, "load_b": pl.Float64, "diff": pl.Float64, "lo": pl.Float64, "hi": pl.Float64,
          "differs": pl.Boolean, "arms": pl.Utf8, "n_arms": pl.Int64, "unrecorded": pl.Int64,
          "unrecorded_runs": pl.Utf8, "unrecorded_early": pl.Boolean}  # fmt: skip


def judged(claims: pl.DataFrame) -> list[str]:
    """The claims table's judged rows, as the headline counts them: a planned verdict that is not `not test...`,
    and not read with another row's runs (same_as)."""
    rows = list(claims.iter_rows(named=True))
    return [r["claim_id"] for r, _ in judged_with_verdicts(rows, [as_planned(r) for r in rows])]


def _median_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.median(a, axis=-1) - np.median(b, axis=-1)


def compare(row_id: str, arms: pl.DataFrame, first: str | None = None) -> dict:
    """One row's diagnostic from its runs' (arm, loadavg_1m[, start_utc]): medians per arm, and two arms compared
    (above); `unrecorded_early` where every run without a load started before `first`, the first run with one."""
    have = arms.filter(pl.col("loadavg_1m").is_not_null())
    per = have.group_by("arm").agg(pl.col("loadavg_1m").sort(), med=pl.col("loadavg_1m").median()).sort("med", "arm")
    gone = arms.filter(pl.col("loadavg_1m").is_null())
    missing = gone["run_id"].unique().sort().to_list()
    starts = gone["start_utc"].to_list() if "start_utc" in gone.columns else [None]
    early = bool(first) and all(s is not None and s < first for s in starts) if missing else None
    out = dict.fromkeys(SCHEMA) | {"claim_id": row_id, "unrecorded": arms.height - have.height,
                                   "unrecorded_runs": " ".join(missing) or None, "n_arms": arms["arm"].n_unique(),
                                   "unrecorded_early": early}
    out["arms"] = "; ".join(f"{a} {m:.2f} (n {len(v)})" for a, v, m in per.iter_rows()) or None
    if per.height < 2:
        if per.height == 1:
            out |= {"arm_a": per["arm"][0], "n_a": len(per["loadavg_1m"][0]), "load_a": per["med"][0]}
        return out
    hi, lo = per.row(-1), per.row(0)  # the arm of the highest median first: diff >= 0
    a, b = np.asarray(hi[1], float), np.asarray(lo[1], float)
    d, d_lo, d_hi = bootstrap_ci(_median_diff, [a, b], seed=0, level=LEVEL)
    return out | {"arm_a": hi[0], "arm_b": lo[0], "n_a": a.size, "n_b": b.size, "load_a": hi[2], "load_b": lo[2],
                  "diff": d, "lo": d_lo, "hi": d_hi, "differs": bool(d_lo > 0 or d_hi < 0)}


def table(claims: pl.DataFrame, arms: pl.DataFrame, loads: pl.DataFrame) -> pl.DataFrame:
    """Per judged row (in the claims table's order), its arms' load (SCHEMA)."""
    arms = arms.join(loads, on="run_id", how="left")
    recorded = loads.filter(pl.col("loadavg_1m").is_not_null())
    first = recorded["start_utc"].min() if "start_utc" in recorded.columns else None
    rows = [compare(r, arms.filter(pl.col("claim_id") == r), first) for r in judged(claims)]
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def _split(t: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame, Callable[[int], str]]:
    """The rows that compare two arms, those of them whose arms' load differs, and how a count of them prints
    (words, or digits throughout once one is above nine)."""
    two = t.filter(pl.col("differs").is_not_null())
    return two, two.filter(pl.col("differs")), fmt_int if two.height > 9 else count_word


def _which(t: pl.DataFrame) -> str:
    """"1 of the 32 judged rows with two recorded arms" (or "the one judged row ...": one only)."""
    two, differ, n = _split(t)
    rows = f"judged row{'' if two.height == 1 else 's'} with two recorded arms"
    return f"the one {rows}" if two.height == 1 else f"{n(differ.height)} of the {n(two.height)} {rows}"


def _by(differ: pl.DataFrame) -> str:
    """How much the arms' load differs: "by 3.39" for one row, "by at most 3.39" over several (review: a maximum over
    one value)."""
    return f"by {'' if differ.height == 1 else 'at most '}{fmt_float(differ['diff'].max(), 2)}"


def _arm(name: str) -> str:
    """An arm as the text names it: a database capitalised as its makers write it ("rocksdb" -> "RocksDB")."""
    return escape(DATABASES.get(name, name))


def short(t: pl.DataFrame) -> str:
    """The threats section's clause, by rule: "the arms of 1 of the 32 judged rows with two recorded arms differ in
    it, by 3.39 (S1-cass-read-scale)" ("by at most" over several rows); "... of none of the 32 ... differ in it"; "no
    judged row has two arms with a record of it"."""
    two, differ, n = _split(t)
    if two.height == 0:
        return "no judged row has two arms with a record of it"
    if differ.height == 0:
        return ("the arms of the one judged row with two recorded arms do not differ in it" if two.height == 1 else
                f"the arms of none of the {n(two.height)} judged rows with two recorded arms differ in it")
    ids = join_and([escape(x) for x in differ["claim_id"]])
    return f"the arms of {_which(t)} differ in it, {_by(differ)} ({ids})"


def sentence(t: pl.DataFrame) -> str:
    """Appendix A's sentence, by rule: what was compared and how, in how many judged rows the arms' load differs, by
    how much at most and where; the runs without a load record, and the rows left without a comparison (no two arms
    recorded by their estimator, or none of their runs with a load record)."""
    two, differ, n = _split(t)
    pct = f"{100 * LEVEL:.0f}"
    head = (f"Added after the estimates were seen, as a diagnostic and not a claim: the one-minute load average just "
            f"before each run's workload (the one just after it counts the workload's own threads), its median per "
            f"arm, the arms compared by the difference of their medians with a {pct}\\,\\% bootstrap interval")
    if t.height == 0:
        return head + ", has no judged row to read."
    if two.height == 0:
        said = "; no judged row has two arms with a load record"
    elif differ.height == 0:
        said = f"; {short(t)}"
    else:
        each = [f"{escape(r['claim_id'])} ({_arm(r['arm_a'])} {fmt_float(r['load_a'], 2)} against "
                f"{_arm(r['arm_b'])} {fmt_float(r['load_b'], 2)})" for r in differ.iter_rows(named=True)]
        said = f"; in {_which(t)} the arms' load differs, {_by(differ)}: {join_and(each)}"
    # a run read by two rows (the tracing rows share runs) is one run: counted by its id, not per row
    unrecorded = len({r for ids in t["unrecorded_runs"].drop_nulls() for r in ids.split()})
    if unrecorded:
        # rows none of whose runs has a record (a row with one arm recorded has its medians: not "every run")
        none = t.filter(pl.col("load_a").is_null() & (pl.col("n_arms") >= 2))["claim_id"].to_list()
        # "captured before ...": only where every such run started before the first run with a record (a user's
        # imported run may lack it for another reason)
        early = t.filter(pl.col("unrecorded") > 0)["unrecorded_early"].fill_null(False).all()
        why = ("captured before run.yaml recorded the load" if early else
               f"without a load in {'its' if unrecorded == 1 else 'their'} run.yaml")
        said += (f". Of the runs these rows read, {count_word(unrecorded)} {'was' if unrecorded == 1 else 'were'} "
                 f"{why} and enter no median" + (f", among them every run of {join_and([escape(x) for x in none])}"
                                                 if none else ""))
    one = t.filter(pl.col("n_arms") < 2)["claim_id"].to_list()
    if one:
        said += (f". {_rows(one)} no two arms that the estimator records (a one-sample measure, or arms the "
                 "estimator filters itself)")
    return head + said + "."


def _rows(ids: list[str]) -> str:
    """"S1-zipf has", "S1-zipf and S4-ms have"."""
    return f"{join_and([escape(x) for x in ids])} {'has' if len(ids) == 1 else 'have'}"


def macros(t: pl.DataFrame) -> dict[str, str]:
    two, differ, n = _split(t)
    return {"ClaimLoadJudged": n(t.height), "ClaimLoadCompared": n(two.height), "ClaimLoadDiffer": n(differ.height),
            "ClaimLoadMaxDiff": fmt_float(differ["diff"].max(), 2) if differ.height else "--",
            "ClaimLoadShort": short(t), "ClaimLoadSentence": sentence(t)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m blkscope.paper.claim_load", description=__doc__)
    p.add_argument("--claims", type=Path, required=True, help="the claims table (.parquet)")
    p.add_argument("--arms", type=Path, required=True, help="each row's runs by arm (blkscope claims --arms)")
    p.add_argument("--raw", type=Path, required=True, help="data/raw: each run's run.yaml")
    p.add_argument("-o", "--out", type=Path, required=True, help="output .tex (macros)")
    p.add_argument("--table", type=Path, help="the diagnostic per row (.parquet)")
    p.add_argument("--csv", type=Path, help="the same as .csv")
    a = p.parse_args(argv)
    from blkscope.io import write_text_atomic

    claims, arms = pl.read_parquet(a.claims), pl.read_parquet(a.arms)
    t = table(claims, arms, before(sorted(set(arms["run_id"].to_list())), a.raw))
    if a.table:
        t.write_parquet(a.table)
    if a.csv:
        t.write_csv(a.csv)
    write_text_atomic(macro_file("% Generated by `python -m blkscope.paper.claim_load`; do not edit.", macros(t)),
                      a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
