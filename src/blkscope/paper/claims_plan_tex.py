"""The claims plan in the paper: its date and rules as macros (claims_plan.tex), and the deviations from it with
the estimate before and after (deviations.tex, a longtable). Numbers come from the claims table and from the
recomputed deviations (blkscope.paper.claim_deviations); words from the plan. No batch ids or commit hashes: the
plan file in the repository carries them.

Macros of claims_plan.tex: \\ClaimsPlanDate, \\ClaimsPlanRows (rows of the claims table), \\ClaimsHolmFamily (rows
in the Holm family), \\ClaimsAlpha, \\ClaimsMovedByHolm (ids
whose verdict Holm turned inconclusive, or `none`), \\ClaimsPooled (rows pooling strata), \\ClaimsHeterogeneous
(how many rows' strata disagree, the range of their I squared, and which are inconclusive by it or decide in
every stratum), \\ClaimsExploratoryDiffer (ids whose verdict over all runs,
exploratory ones included, differs), \\ClaimsDeviations (changes listed), \\ClaimsIsquaredCut (%),
\\ClaimsPqCut, \\ClaimsExact (rows read off a value their runs all repeat: no interval, outside the family) and
\\ClaimsExactIds, \\ClaimsPostHoc (judged in-memory rows: their runs predate the plan),
\\ClaimsConfirmatory and \\ClaimsConfirmatoryIds (judged scale and replication rows: runs captured after it),
\\ClaimsExploratoryBatches (batches the plan sets aside as added after a look), \\ClaimsDeviationsBefore (changes
dated before the plan), \\ClaimsDeviationsAfter and \\ClaimsDeviationsAfterIds (deviations dated after it, and the
claims they changed, or `none`); \\ClaimsAmendments (the plan's amendments not listed with a change, each made
before the runs it concerns were captured) and \\ClaimsAmendedPhrase ("amended four times, each time before ...; one
of them withdrew ...");
\\ClaimsFamilyDecidedUnadjusted and \\ClaimsFamilyDecidedAdjusted (decided rows of Holm's family before and
after the correction), \\ClaimsConditionRule (the condition rule per study, as applied);
\\JournalShortRunS (s: the length of the journal runs S4-reader and S3-wb-journal read, shorter than the journal
claims' JOURNAL_MIN_S).
"""

from __future__ import annotations

import re
from datetime import datetime

import polars as pl

from blkscope.paper import claim_heterogeneity as hg
from blkscope.paper import claim_multiplicity as mt
from blkscope.paper.claim_heterogeneity import i2_text
from blkscope.paper.claim_measures import JOURNAL_MIN_S
from blkscope.paper.claim_verdict import OUTSIDE, STRATA_DISAGREE
from blkscope.paper.claims import BAND_END, DECIDED, EXACT, PER_STRATUM, condition_rule_words
from blkscope.paper.claims_plan import AMENDMENT, Plan
from blkscope.paper.headline import counted_alone, planned_verdicts
from blkscope.paper.latex import (
    count_word,
    counted,
    escape,
    fmt_int,
    join_and,
    macro_file,
    macro_name,
    seconds_unbroken,
    tidy,
)

WORDS = r"^(replicates|does not|inconclusive|not tested|not testable)"  # a verdict's words, less its parentheses


def _ids(df: pl.DataFrame) -> str:
    return escape(", ".join(df["claim_id"].to_list())) if df.height else "none"


def _decided(column: str | pl.Expr) -> pl.Expr:
    """A decided verdict, labelled or not ("does not (exact)")."""
    col = pl.col(column) if isinstance(column, str) else column
    return col.fill_null("").str.contains(f"^({'|'.join(DECIDED)})")


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


TIMES = {1: "once", 2: "twice"}


def amended_phrase(plan: Plan) -> str:
    """How often the plan was amended, and what its withdrawals withdrew: "amended four times, each time before the
    runs the amendment concerns were captured; one amendment withdrew S1-hot-replication before its runs were
    captured" ("never amended" when it never was)."""
    n = len(plan.amendments)
    if n == 0:
        return "never amended"
    times = TIMES.get(n, f"{count_word(n)} times")
    out = f"amended {times}, " + ("before the runs the amendment concerns were captured" if n == 1 else
                                  "each time before the runs the amendment concerns were captured")
    gone = [x for a in plan.amendments if a.withdrawn for x in a.claims]
    if gone:
        k = sum(a.withdrawn for a in plan.amendments)
        who = "the amendment" if n == 1 else ("one amendment" if k == 1 else f"{count_word(k)} amendments")
        out += f"; {who} withdrew {', '.join(gone)} before {'its' if len(gone) == 1 else 'their'} runs were captured"
    # before the runs it concerns, but not before every run of its rows: what had been captured and seen is said
    seen = [a.seen for a in plan.amendments if a.seen]
    if seen:
        who = "the amendment" if n == 1 else ("each" if len(seen) == n else
                                             "one" if len(seen) == 1 else count_word(len(seen)))
        out += f"; {who} followed earlier runs of the same rows: {'; '.join(seen)}"
    return escape(out)


def heterogeneous_split(claims: pl.DataFrame) -> str:
    """The rows whose strata disagree (`pooling` per stratum), counted as the headline counts rows (a row on
    another's runs with it: headline.counted_alone) and split by rule on their planned verdict before Holm
    (planned_verdicts), with the range of their I squared: "in seven rows ($I$ squared from 55 % to over 99 %;
    S1-cass-write-scale counts with S1-cass-read-scale): five are inconclusive because of it (S1-hot, ...); two
    decide in every stratum (S1-cass-read does not, inconclusive after Holm; S2-merge-cap replicates)" (review: six
    here beside the headline's five; the maximum alone read as the I squared of the rows beside it). LaTeX."""
    after, before = planned_verdicts(claims)
    every = list(claims.filter(pl.col("pooling") == PER_STRATUM).with_columns(_after=after, _before=before)
                 .iter_rows(named=True))
    if not every:
        return "in no row"
    rows = [r for r in every if counted_alone(r)]
    undecided = [r["claim_id"] for r in rows if r["_before"] == STRATA_DISAGREE]
    decided = [f"{r['claim_id']} {r['_before']}" + ("" if r["_after"] == r["_before"] else f", {r['_after']} after "
                                                     "Holm") for r in rows if r["_before"] != STRATA_DISAGREE]
    parts = []
    if undecided:
        parts.append(f"{count_word(len(undecided))} {'is' if len(undecided) == 1 else 'are'} inconclusive because "
                     f"of it ({', '.join(undecided)})")
    if decided:
        parts.append(f"{count_word(len(decided))} {'decides' if len(decided) == 1 else 'decide'} in every stratum "
                     f"({'; '.join(decided)})")
    i2 = sorted(float(r["i2"]) for r in every if r.get("i2") is not None)
    beside = [escape(f"{i2_text(i2[0])} %") if len(i2) == 1 or i2_text(i2[0]) == i2_text(i2[-1]) else
              escape(f"from {i2_text(i2[0])} % to {i2_text(i2[-1])} %")] if i2 else []
    beside = [f"$I$ squared {beside[0]}"] if beside else []
    beside += [escape(f"{r['claim_id']} counts with {r['same_as']}") for r in every if not counted_alone(r)]
    n = len(rows)
    head = escape(f"in {counted(n, 'row', 'rows')}") + (f" ({'; '.join(beside)})" if beside else "")
    return f"{head}: {escape('; '.join(parts))}"


def plan_macros(plan: Plan, claims: pl.DataFrame) -> dict[str, str]:
    family = claims.filter(pl.col("p_holm").is_not_nan() & pl.col("p_holm").is_not_null())
    pooled = claims.filter(pl.col("pooling").is_not_null())
    after, before = planned_verdicts(claims)
    moved = claims.filter(_decided(before) & ~_decided(after))
    # over all runs against the planned verdict before the correction, the condition rule's rows included
    differ = claims.filter((pl.col("condition") == "in-memory") & ~after.fill_null("").str.starts_with("not test")
                           & (pl.col("verdict_all").str.extract(WORDS) != before.str.extract(WORDS)))
    # judged: given a verdict by its planned measure (replicates, does not, inconclusive), the condition rule's rows
    # by their planned verdicts, as the headline counts them (issue Q review: "judged" meant three things)
    judged = claims.filter(~after.fill_null("").str.starts_with("not test"))
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
        # within Holm's family alone (the exact rows and S4-ms's rule are outside it)
        "ClaimsFamilyDecidedUnadjusted": fmt_int(family.filter(_decided(before)).height),
        "ClaimsFamilyDecidedAdjusted": fmt_int(family.filter(_decided(after)).height),
        "ClaimsConditionRule": seconds_unbroken(escape(condition_rule_words())),
        "ClaimsBandEndPct": fmt_int(100 * BAND_END),
        "ClaimsExact": fmt_int(exact.height),
        "ClaimsExactIds": _ids(exact),
        "ClaimsPostHoc": fmt_int(judged.height - confirmatory.height),
        "ClaimsConfirmatory": fmt_int(confirmatory.height),
        "ClaimsConfirmatoryIds": _ids(confirmatory),
        "ClaimsExploratoryBatches": fmt_int(len(plan.exploratory_batches)),
        "ClaimsDeviationsBefore": fmt_int(_before(plan)),
        "ClaimsDeviationsAfter": fmt_int(len(plan.deviations) - _before(plan)),
        "ClaimsDeviationsAfterIds": _after_ids(plan),
        "ClaimsMovedByHolm": _ids(moved),
        "ClaimsPooled": fmt_int(pooled.height),
        # with the range of the rows' I squared, "over 99" where the largest rounds to 100 but is not (review:
        # 99.99996 % printed as 100)
        "ClaimsHeterogeneous": heterogeneous_split(claims),
        "ClaimsIsquaredCut": fmt_int(100 * hg.I2_MAX),
        "ClaimsPqCut": f"{hg.P_Q_MIN:g}",
        "ClaimsExploratoryDiffer": _ids(differ),
        "ClaimsDeviations": fmt_int(len(plan.deviations)),
        # an amendment listed with a deviation is that deviation's row (render_deviations): counted once
        "ClaimsAmendments": _amendments_apart(plan),
        "ClaimsAmendedPhrase": amended_phrase(plan),
    }


def _amendments_apart(plan: Plan) -> str:
    """The plan's amendments as the text counts them beside the changes, all of them as amended_phrase counts them
    (review: "4 further amendments" beside "amended five times"), one listed with a deviation said to be among those
    changes (its row is that deviation's): "five amendments, one of them among those changes"."""
    n, listed = len(plan.amendments), sum(bool(a.listed) for a in plan.amendments)
    out = counted(n, "amendment", "amendments")
    if listed:
        out += (", it among those changes" if n == 1 else ", all among those changes" if listed == n else
                f", {count_word(listed)} of them among those changes")
    return out


def _estimates_before(steps: list[dict]) -> str:
    """The recomputed estimates before each change, their shared verdict said once ("1.71x [...] and 2.13x [...], both
    inconclusive"); a verdict of strata that disagree less what the estimate says already (beside_range)."""
    ests = [tidy(str(r["before_estimate"])) for r in steps]
    verdicts = [beside_range(r["before_estimate"], r["before_verdict"]) for r in steps]
    if len(set(verdicts)) == 1:
        both = "" if len(ests) == 1 else "both " if len(ests) == 2 else "all "
        return join_and(ests) + f", {both}{verdicts[0]}"
    return join_and([f"{e}, {v}" for e, v in zip(ests, verdicts, strict=True)])


def narrowed(plan: Plan, recomputed: pl.DataFrame) -> dict[str, str]:
    """Claim<Id>Narrowed for each claim that a measure deviation with `short` words (a narrowing of its runs after
    its estimate was seen) lists, for the sentence that prints the claim's number (inside its parenthesis, so none of
    its own): "narrowed twice after its estimate was seen, to runs of at least 60 s and to the best pair ...; with
    each alone undone: 1.71x [...] and 2.13x [...], both inconclusive; Table~\\ref{tab:deviations}", in the order of
    the changes' dates, from the deviations table's recomputed estimates (the table gives the estimate after)."""
    by = {(r["commit"], r["claim_id"]): r for r in recomputed.iter_rows(named=True)}
    devs = plan.narrowings
    out = {}
    for cid in dict.fromkeys(c for d in devs for c in d.claims):
        steps = [(d, by[(d.commit, cid)]) for d in devs if cid in d.claims and (d.commit, cid) in by]
        if not steps:
            continue
        n = len(steps)
        # a deviation's `before` undoes that change alone (a later narrowing's is still inside the earlier ones)
        times, undone = ("", "with it undone") if n == 1 else (" " + TIMES.get(n, f"{count_word(n)} times"),
                                                                "with each alone undone")  # fmt: skip
        text = (f"narrowed{times} after its estimate was seen, {join_and([d.short for d, _ in steps])}; "
                f"{undone}: {_estimates_before([r for _, r in steps])}; ")
        out[macro_name("claim", cid) + "Narrowed"] = seconds_unbroken(escape(text)) + r"Table~\ref{tab:deviations}"
    return out


def render_plan(plan: Plan, claims: pl.DataFrame, secondary: pl.DataFrame | None = None,
                recomputed: pl.DataFrame | None = None) -> str:
    """The plan's macros, with the secondary measures' (claim_secondary.macros) where their table is given, and the
    narrowed claims' (narrowed) where the recomputed deviations are."""
    from blkscope.paper.claim_secondary import macros as secondary_macros

    extra = secondary_macros(secondary, claims) if secondary is not None else {}
    extra |= narrowed(plan, recomputed) if recomputed is not None else {}
    return macro_file("% Generated by `blkscope claims-plan-tex`; do not edit.", plan_macros(plan, claims) | extra)


# the estimates are over all runs and unadjusted, unlike the claims table's verdicts; the title says when the
# changes were made against the plan's date, as the plan's dates give it
CAPTION_BEFORE = ("Changes made before the claims plan was fixed, after estimates were seen: each change to a "
                  "claim's measure or selection made once its estimate had been seen and before the plan of {date} "
                  "fixed it, why, ")
CAPTION_DEVIATIONS = ("Deviations from the claims plan: each change made to a claim's measure or selection after its "
                      "estimate had been seen ({before} of {n} before the plan of {date} was fixed), why, ")
CAPTION_ESTIMATES = (
    "and the claims' estimates and verdicts before the change and after it, both recomputed on the current runs of "
    "the in-memory condition, exploratory repeats included, before the correction for multiplicity (the claims "
    "table's column `all runs'). A change of no measure (a selection of runs, a rule on verdicts) gives the rows' "
    "own estimates and planned verdicts instead; a secondary measure, added beside a planned one whose verdict stays, "
    "the planned estimate before and the secondary one after, each on the runs the planned verdict reads and on all "
    "runs; a correction of how runs were labelled, the rows' "
    "values before and after it; a change of what the headline counts, its counts before and as they are now. "
    "Each amendment of the plan, made before the runs it concerns were captured, is a "
    "row too, with the plan's words before and after in place of estimates. One row per change, its claims listed.")


def deviations_caption(plan: Plan) -> str:
    before = _before(plan)
    head = CAPTION_BEFORE if before == len(plan.deviations) else CAPTION_DEVIATIONS
    return head.format(date=_date_words(plan), before=fmt_int(before), n=fmt_int(len(plan.deviations))) + \
        CAPTION_ESTIMATES


def beside_range(estimate: object, verdict: object) -> str:
    """A verdict as printed beside its estimate: where the estimate is the range of strata that disagree ("per
    stratum 1.03x to 5.41x, 14 strata disagree"), each judged on its own (claims.all_runs_text), without the words
    the range says already: "inconclusive" for `inconclusive: strata disagree`, "does not in every stratum"."""
    v = str(verdict)
    if not str(estimate).startswith("per stratum"):
        return v
    if v == STRATA_DISAGREE:
        return "inconclusive"
    return f"{v} in every stratum" if v.startswith(DECIDED) else v


def with_verdict(estimate: object, verdict: object) -> str:
    """An estimate and its verdict in parentheses, a verdict of strata that disagree as beside_range gives it
    ("per stratum 1.03x to 5.41x, 14 strata disagree (inconclusive)")."""
    return f"{estimate} ({beside_range(estimate, verdict)})"


def _planned(row: dict, planned: bool = True) -> str:
    """A claims-table row's estimate and planned verdict, as the deviations table prints a before or after;
    `planned` False: its verdict as it stands (a correction's after)."""
    ours = str(row.get("ours") or "--").replace(" (no spread between runs: no interval)", " in every run")
    verdict = str((planned and row.get("verdict_planned")) or row["verdict"]).replace(" (exact)", ", exact")
    return f"{ours} ({verdict})"  # (", exact": no nesting)


_ROW_BEFORE = re.compile(r"(S\d-[\w-]+): (.+?) \((.+?)\)(?:; |$)")  # "S1-hot: 1.01x [0.88x, 1.16x] (inconclusive)"


def pooling_cells(d, by: dict[str, dict]) -> tuple[list[str], str, str]:
    """The pooling rule's (claims, before, after): every row it names (row ids, d.claims) and every row whose strata
    disagree now, each before and after (the longtable breaks across pages): before, the plan's words (each row's
    random-effects estimate and the verdict it gave), after, as the claims table has it, each with its own verdict
    as the headline counts it (Holm's, its own beside where Holm moved it), never a fixed one (review)."""
    ids = [i for i, r in by.items() if i in d.claims or r.get("pooling") == PER_STRATUM]
    was = {m[1]: (m[2], m[3]) for m in _ROW_BEFORE.finditer(d.before)}
    before = [(i, escape(f"{was[i][0]} ({was[i][1]})" if i in was else "--")) for i in ids]
    after = [(i, escape(f"{str(by[i]['ours']).split(', ')[0]} ({_counted(by[i])})")) for i in ids]
    return ids or list(d.claims), *("; ".join(f"{escape(i)}: {x}" for i, x in p) for p in (before, after))


def _counted(r: dict) -> str:
    """A row's verdict as the headline counts it (its planned one where the condition rule labelled it), and its
    own before Holm where Holm moved it: "inconclusive; does not before Holm"."""
    now = str(r.get("verdict_planned") or r["verdict"])
    own = str(r.get("verdict_planned_unadjusted") or r.get("verdict_unadjusted") or now)
    return now if own == now else f"{now}; {own} before Holm"


MANY = 4  # a change of more claims prints those whose verdict it moved, and counts the rest


def _named(pairs: list[tuple[str, str]]) -> str:
    """One cell for a change of several claims: "S2-ops: 0.83x (...); S2-lz4: ..."; a claim's alone, unnamed."""
    if not pairs:
        return ""
    if len(pairs) == 1:
        return pairs[0][1]
    return "; ".join(f"{escape(i)}: {x}" for i, x in pairs)


def rule_cells(d, claims: pl.DataFrame | None) -> tuple[list[str], str, str]:
    """(claims, before, after) of a deviation that is no measure's, in one row: a selection's rows (`condition`),
    before as the plan's words say, after each row's planned estimate and verdict; the condition rule's rows (the
    claims table's rows with a planned verdict beside theirs), before their planned verdicts counted (each is in
    the claims table), after the rule's label (`outside the study's condition`), as the claims table prints it
    today (the plan's own words, dated, keep the label of their day)."""
    if claims is None or "verdict_planned" not in claims.columns or d.kind == AMENDMENT:
        return list(d.claims), escape(d.before), escape(d.after)
    by = {r["claim_id"]: r for r in claims.iter_rows(named=True)}
    if d.kind in ("correction", "headline"):  # before: the plan's words (as they were); after: as they are now
        ids = [i for i in (cid if d.condition == "in-memory" else f"{cid}-{d.condition}" for cid in d.claims)
               if i in by]
        # named: the before names them
        now = "; ".join(f"{escape(i)}: {escape(_planned(by[i], planned=False))}" for i in ids)
        if d.kind == "headline":  # the headline's counts as the abstract prints them today, before the rows
            from blkscope.paper.headline import abstract_counts

            now = "; ".join(x for x in (escape(f"the headline: {abstract_counts(claims)}"), now) if x)
        return ids or list(d.claims), escape(d.before), "; ".join(x for x in (now, escape(d.after)) if x)
    if d.kind == "pooling":
        return pooling_cells(d, by)
    if d.kind == "selection":
        ids = [cid if d.condition == "in-memory" else f"{cid}-{d.condition}" for cid in d.claims]
        ids = [i for i in ids if i in by]
        return ids, escape(d.before), _named([(i, escape(_planned(by[i]))) for i in ids])
    from blkscope.paper.headline import planned_tally

    moved = claims.filter(pl.col("verdict_planned").is_not_null())
    planned = planned_tally(claims)
    return (moved["claim_id"].to_list(), escape(planned),
            escape(f"{OUTSIDE}: the claims table names each row's condition beside its planned verdict"))


def secondary_cells(d, secondary: pl.DataFrame | None) -> tuple[str, str] | None:
    """A secondary measure's (before, after): the planned estimate and the secondary one, each on the runs the
    planned verdict reads and on all runs, labelled (the text prints the planned runs'); None without its table."""
    if secondary is None or d.kind != "secondary" or len(d.claims) != 1:
        return None
    rows = {r["runs"]: r for r in secondary.filter(pl.col("claim_id") == d.claims[0]).iter_rows(named=True)}
    if set(rows) != {"planned", "all"}:
        return None

    def cell(est: str, verdict: str) -> str:
        return "; ".join(f"{label}: {with_verdict(rows[k][est], rows[k][verdict])}"
                         for k, label in (("planned", "the planned runs"), ("all", "all runs")))
    return escape(cell("planned", "planned_verdict")), escape(cell("secondary", "secondary_verdict"))


def render_deviations(plan: Plan, recomputed: pl.DataFrame, claims: pl.DataFrame | None = None,
                      secondary: pl.DataFrame | None = None) -> str:
    """One row per change: date, the claims it changed, what changed and why (the plan's words), the estimates and
    verdicts before the change and after it (recomputed, each claim named where there are several; for a change of
    no measure, rule_cells from the claims table; a secondary measure's on the planned runs and on all runs, labelled,
    from the `secondary` table where given)."""
    by = {(r["commit"], r["claim_id"]): r for r in recomputed.iter_rows(named=True)}
    rows = []
    amendments = [a for a in plan.amendments if not a.listed]  # a listed one's row is its deviation's
    for d in sorted([*plan.deviations, *amendments], key=lambda d: d.date):
        if cells := secondary_cells(d, secondary):
            ids, (before, after) = list(d.claims), cells
        elif not d.recomputed:
            ids, before, after = rule_cells(d, claims)
        else:
            ids, b, a = list(d.claims), [], []
            kept = 0  # of a change of more than MANY claims, those whose verdict it left as it was
            for cid in d.claims:
                r = by.get((d.commit, cid))
                if r and len(d.claims) > MANY and r["before_verdict"] == r["after_verdict"]:
                    kept += 1
                    continue
                b.append((cid, escape(with_verdict(r["before_estimate"], r["before_verdict"])) if r else
                          escape(d.before)))
                a.append((cid, escape(with_verdict(r["after_estimate"], r["after_verdict"])) if r else
                          escape(d.after)))
            before, after = _named(b), _named(a)
            if kept:
                rest = f"the other {count_word(kept)} keep their verdict"
                before, after = (f"{x}; {rest}" if x else rest for x in (before, after))
        # two table rows in one source line (a change's cells stay one line to read): what and why, then under them
        # the estimates before and after, as wide as the words (in two narrow columns of their own, the table ran to
        # seven pages); \\* keeps the pair on one page
        rows.append(" & ".join([escape(d.date[:10]), escape(", ".join(ids)), escape(d.what), escape(d.why)])
                    + r" \\* {} & {} & " + f"{before} & {after}" + r" \\")
    head = r"Date & Claims & What changed & Why \\* & & Before (all runs) & After (all runs) \\"
    # 0.90 of the line, and 8 column gaps of 6 pt: within it
    cols = r"p{0.07\linewidth}p{0.13\linewidth}p{0.35\linewidth}p{0.35\linewidth}"
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
