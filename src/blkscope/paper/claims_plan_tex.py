"""The claims plan in the paper: its date and rules as macros (claims_plan.tex), and the deviations from it with
the estimate before and after (deviations.tex, a longtable). Numbers come from the claims table and from the
recomputed deviations (blkscope.paper.claim_deviations); words from the plan. No batch ids or commit hashes: the
plan file in the repository carries them.

Macros of claims_plan.tex: \\ClaimsPlanDate, \\ClaimsPlanRows (rows of the claims table), \\ClaimsHolmFamily (rows
in the Holm family), \\ClaimsAlpha, \\ClaimsDecidedUnadjusted, \\ClaimsDecidedAdjusted, \\ClaimsMovedByHolm (ids
whose verdict Holm turned inconclusive, or `none`), \\ClaimsPooled (rows pooling strata), \\ClaimsHeterogeneous
(their ids whose strata disagree), \\ClaimsIsquaredMax (%), \\ClaimsExploratoryDiffer (ids whose verdict over
all runs, exploratory ones included, differs), \\ClaimsDeviations (changes listed), \\ClaimsIsquaredCut (%),
\\ClaimsPqCut, \\ClaimsExact (rows read off a value their runs all repeat: no interval, outside the family) and
\\ClaimsExactIds, \\ClaimsPostHoc (judged in-memory rows: their runs predate the plan),
\\ClaimsConfirmatory and \\ClaimsConfirmatoryIds (judged scale and replication rows: runs captured after it),
\\ClaimsExploratoryBatches (batches the plan sets aside as added after a look), \\ClaimsDeviationsBefore (changes
dated before the plan), \\ClaimsDeviationsAfter and \\ClaimsDeviationsAfterIds (deviations dated after it, and the
claims they changed, or `none`; \\ClaimsDeviationsAfterPhrase: that count and those ids in words);
\\JournalShortRunS (s: the length of the journal runs S4-reader and S3-wb-journal read, shorter than the journal
claims' JOURNAL_MIN_S).
"""

from __future__ import annotations

from datetime import datetime

import polars as pl

from blkscope.paper import claim_heterogeneity as hg
from blkscope.paper import claim_multiplicity as mt
from blkscope.paper.claim_measures import JOURNAL_MIN_S
from blkscope.paper.claims import DECIDED, EXACT
from blkscope.paper.claims_plan import Plan
from blkscope.paper.latex import counted, escape, fmt_int, macro_file

WORDS = r"^(replicates|does not|inconclusive|not tested|not testable)"  # a verdict's words, less its parentheses


def _ids(df: pl.DataFrame) -> str:
    return escape(", ".join(df["claim_id"].to_list())) if df.height else "none"


def _decided(column: str) -> pl.Expr:
    """A decided verdict, labelled or not ("does not (exact)")."""
    return pl.col(column).fill_null("").str.contains(f"^({'|'.join(DECIDED)})")


def _dated(d: str) -> datetime:
    return datetime.strptime(d, "%Y-%m-%dT%H:%MZ")


def _date_words(plan: Plan) -> str:
    return f"{_dated(plan.date):%-d %B %Y}, {_dated(plan.date):%H:%M} UTC"


def _before(plan: Plan) -> int:
    """The deviations dated before the plan: changes it absorbed, not departures from it."""
    return sum(_dated(d.date) < _dated(plan.date) for d in plan.deviations)


def _after_ids(plan: Plan) -> str:
    """The deviations dated after the plan, in the order of their dates ("none" when there is none): a measure's by
    the claims it changed, another by its short words ("the condition rule")."""
    late = sorted((d for d in plan.deviations if _dated(d.date) >= _dated(plan.date)), key=lambda d: d.date)
    ids = list(dict.fromkeys(x for d in late for x in (d.claims if d.measure or not d.short else (d.short,))))
    return escape(", ".join(ids)) if ids else "none"


def _after_phrase(plan: Plan) -> str:
    """ "one change came after the plan (S4-reader)", "no changes came after the plan": by rule, for any count."""
    after = len(plan.deviations) - _before(plan)
    came = f"{counted(after, 'change', 'changes')} came after the plan"
    return f"{came} ({_after_ids(plan)})" if after else came


# the claims that read the journal writer's runs shorter than claim_measures.JOURNAL_MIN_S (with a reader, and under
# data=writeback), the exception the paper states to the journal claims' rule
JOURNAL_SHORT = ("S4-reader", "S3-wb-journal")


def journal_short_run(claims: pl.DataFrame) -> str | None:
    """The length of the runs the JOURNAL_SHORT claims' in-memory rows read ("10", or "10--20" when they differ;
    None without their run lengths). A ValueError when one reads runs of JOURNAL_MIN_S or more: the paper's exception
    would no longer hold."""
    if "run_s_lo" not in claims.columns:
        return None
    rows = claims.filter(pl.col("claim_id").is_in(list(JOURNAL_SHORT)) & pl.col("run_s_hi").is_not_null())
    if rows.height == 0:
        return None
    long = rows.filter(pl.col("run_s_hi") >= JOURNAL_MIN_S)["claim_id"].to_list()
    if long:
        raise ValueError(f"{', '.join(long)}: runs of {JOURNAL_MIN_S} s or more, not the short journal runs")
    lo, hi = rows["run_s_lo"].min(), rows["run_s_hi"].max()
    return fmt_int(lo) if fmt_int(lo) == fmt_int(hi) else f"{fmt_int(lo)}--{fmt_int(hi)}"


def plan_macros(plan: Plan, claims: pl.DataFrame) -> dict[str, str]:
    family = claims.filter(pl.col("p_holm").is_not_nan() & pl.col("p_holm").is_not_null())
    pooled = claims.filter(pl.col("pooling").is_not_null())
    moved = claims.filter(_decided("verdict_unadjusted") & ~_decided("verdict"))
    # a row the condition rule made not testable is judged over all runs no more than over the planned ones
    judged = claims.filter(~pl.col("verdict").fill_null("").str.starts_with("not test"))
    differ = judged.filter(pl.col("condition") == "in-memory").filter(
        pl.col("verdict_all").str.extract(WORDS) != pl.col("verdict_unadjusted").str.extract(WORDS))
    planned = pl.col("verdict_planned") if "verdict_planned" in claims.columns else pl.lit(None, pl.Utf8)
    # the exact rows as planned (outside Holm's family as planned, whatever the condition rule made of them)
    exact = claims.filter(pl.coalesce(planned, pl.col("verdict")).fill_null("").str.contains(f"({EXACT})",
                                                                                               literal=True))
    if "same_as" in judged.columns:  # a row on another's runs and throughput counts with it (headline)
        judged = judged.filter(pl.col("same_as").is_null())
    confirmatory = judged.filter(pl.col("condition") != "in-memory")
    short = journal_short_run(claims)
    return ({"JournalShortRunS": short} if short else {}) | {
        "ClaimsPlanDate": _date_words(plan),
        "ClaimsPlanRows": fmt_int(claims.height),
        "ClaimsHolmFamily": fmt_int(family.height),
        "ClaimsAlpha": f"{mt.ALPHA:g}",
        "ClaimsDecidedUnadjusted": fmt_int(claims.filter(_decided("verdict_unadjusted")).height),
        "ClaimsDecidedAdjusted": fmt_int(claims.filter(_decided("verdict")).height),
        "ClaimsExact": fmt_int(exact.height),
        "ClaimsExactIds": _ids(exact),
        "ClaimsPostHoc": fmt_int(judged.height - confirmatory.height),
        "ClaimsConfirmatory": fmt_int(confirmatory.height),
        "ClaimsConfirmatoryIds": _ids(confirmatory),
        "ClaimsExploratoryBatches": fmt_int(len(plan.exploratory_batches)),
        "ClaimsDeviationsBefore": fmt_int(_before(plan)),
        "ClaimsDeviationsAfter": fmt_int(len(plan.deviations) - _before(plan)),
        "ClaimsDeviationsAfterIds": _after_ids(plan),
        "ClaimsDeviationsAfterPhrase": _after_phrase(plan),
        "ClaimsMovedByHolm": _ids(moved),
        "ClaimsPooled": fmt_int(pooled.height),
        "ClaimsHeterogeneous": _ids(pooled.filter(pl.col("pooling") == "random effects")),
        "ClaimsIsquaredMax": fmt_int(100 * pooled["i2"].max()) if pooled.height else "--",
        "ClaimsIsquaredCut": fmt_int(100 * hg.I2_MAX),
        "ClaimsPqCut": f"{hg.P_Q_MIN:g}",
        "ClaimsExploratoryDiffer": _ids(differ),
        "ClaimsDeviations": fmt_int(len(plan.deviations)),
    }


def render_plan(plan: Plan, claims: pl.DataFrame) -> str:
    return macro_file("% Generated by `blkscope claims-plan-tex`; do not edit.", plan_macros(plan, claims))


# the estimates are over all runs and unadjusted, unlike the claims table's verdicts; the title says when the
# changes were made against the plan's date, as the plan's dates give it
CAPTION_BEFORE = ("Changes made before the claims plan was fixed, after estimates were seen: each change to a "
                  "claim's measure or selection made once its estimate had been seen and before the plan of {date} "
                  "fixed it, why, ")
CAPTION_DEVIATIONS = ("Deviations from the claims plan: each change made to a claim's measure or selection after its "
                      "estimate had been seen ({before} of {n} before the plan of {date} was fixed), why, ")
CAPTION_ESTIMATES = (
    "and the claim's estimate and verdict before the change and today, both recomputed on today's runs of the "
    "in-memory condition, exploratory repeats included, before the correction for multiplicity (the claims table's "
    "column `all runs'). A change of no measure (a selection of runs, a rule on verdicts) gives the row's own "
    "estimate and planned verdict instead. A change of several claims says what and why on each row.")


def deviations_caption(plan: Plan) -> str:
    before = _before(plan)
    head = CAPTION_BEFORE if before == len(plan.deviations) else CAPTION_DEVIATIONS
    return head.format(date=_date_words(plan), before=fmt_int(before), n=fmt_int(len(plan.deviations))) + \
        CAPTION_ESTIMATES


SAME = "as the first row of this change"


def _planned(row: dict) -> str:
    """A claims-table row's estimate and planned verdict, as the deviations table prints a before or after."""
    ours = str(row.get("ours") or "--").replace(" (no spread between runs: no interval)", " in every run")
    verdict = str(row.get("verdict_planned") or row["verdict"]).replace(" (exact)", ", exact")  # no nesting
    return f"{ours} ({verdict})"


def rule_rows(d, claims: pl.DataFrame | None) -> list[tuple[str, str, str]]:
    """(row id, before, after) of a deviation that is no measure's: a selection's rows (`condition`), before as the
    plan's words say, after the row's planned estimate and verdict; the condition rule's rows (the claims table's
    rows with a planned verdict beside theirs), before their planned verdict, after the rule's."""
    if claims is None or "verdict_planned" not in claims.columns:
        return [(cid, escape(d.before), escape(d.after)) for cid in d.claims]
    by = {r["claim_id"]: r for r in claims.iter_rows(named=True)}
    if d.kind == "selection":
        ids = [cid if d.condition == "in-memory" else f"{cid}-{d.condition}" for cid in d.claims]
        return [(i, escape(d.before), escape(_planned(by[i]))) for i in ids if i in by]
    moved = claims.filter(pl.col("verdict_planned").is_not_null())
    return [(r["claim_id"], escape(_planned(r)), escape(str(r["verdict"]))) for r in moved.iter_rows(named=True)]


def render_deviations(plan: Plan, recomputed: pl.DataFrame, claims: pl.DataFrame | None = None) -> str:
    """One row per (change, claim): date, claim, what changed and why (the plan's words), the estimate and
    verdict before the change and today (recomputed; for a change of no measure, rule_rows from the claims
    table)."""
    by = {(r["commit"], r["claim_id"]): r for r in recomputed.iter_rows(named=True)}
    rows = []
    for d in sorted(plan.deviations, key=lambda d: d.date):
        date, what, why = d.date[:10], d.what, d.why
        if not d.measure:  # one change over many rows: what and why on its first row, the rest point up to it
            rows += [" & ".join([escape(date), escape(i), escape(what if k == 0 else SAME),
                                 escape(why if k == 0 else SAME), b, a]) + r" \\"
                     for k, (i, b, a) in enumerate(rule_rows(d, claims))]
            continue
        for cid in d.claims:  # a change of many claims says its date, what and why on each of its rows: a row
            r = by.get((d.commit, cid))  # continued on the next page still tells which change it belongs to
            before = f"{r['before_estimate']} ({r['before_verdict']})" if r else escape(d.before)
            after = f"{r['after_estimate']} ({r['after_verdict']})" if r else escape(d.after)
            rows.append(" & ".join([escape(date), escape(cid), escape(what), escape(why),
                                    escape(before) if r else before, escape(after) if r else after]) + r" \\")
    head = r"Date & Claim & What changed & Why & Before (all runs) & Today (all runs) \\"
    # 0.82 of the line, and 12 column gaps of 6 pt: within it
    cols = r"p{0.07\linewidth}p{0.09\linewidth}p{0.22\linewidth}p{0.22\linewidth}p{0.11\linewidth}p{0.11\linewidth}"
    return "\n".join([
        "% Generated by `blkscope claims-plan-tex`; do not edit.",
        r"\begin{longtable}{" + cols + "}",
        r"\caption{" + deviations_caption(plan) + r"}\label{tab:deviations}\\",
        r"\hline " + head + r" \hline\endfirsthead",
        r"\hline " + head + r" \hline\endhead",
        r"\hline\endfoot",
        *rows,
        r"\end{longtable}",
    ]) + "\n"
