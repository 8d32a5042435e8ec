"""The paper's headline count of verdicts, split by whether the claims plan came before the runs a row reads
(confirmatory: the scale and replication conditions) or after them (post hoc: the in-memory condition), over the
published claims they test (the abstract, the introduction, Section X and the conclusion print it; the PDF check,
blkscope.paper.pdf_text, finds it in the abstract).

A published claim is one of the studies' statements as Section II gives them: the rows of one claim (its in-memory,
scale and replication rows) and the claims we split from one statement (blkscope.paper.claims.SAME_STATEMENT: by
comparator, workload, condition, proxy or mount option) count once.
"""

from __future__ import annotations

import re

import polars as pl

from blkscope.paper.claim_runs import WITHDRAWN
from blkscope.paper.claim_verdict import STRATA_DISAGREE
from blkscope.paper.claims import claim_of, statement_of
from blkscope.paper.latex import count_word, fmt_int, join_and
from blkscope.paper.phrases import plan_status, pooled_otherwise

# a claim's closing parenthesis: ours, naming its condition, workload or statistic ("(device the limit)", "(max)"),
# not the study's words, so a quotation of the claim leaves it out (advice.quoted)
CLOSING = re.compile(r"\s*\([^()]*\)$")
JUDGED = (("replicates", "replicates", "replicate"), ("does not", "does not", "do not"),
          ("inconclusive", "is inconclusive", "are inconclusive"))
NONE = {"does not": "none fails to replicate"}  # "none does not" reads as a double negative
UNJUDGED = (("not tested", "waits for runs", "wait for runs"),
            ("not testable", "is not testable here", "are not testable here"))


def published(claims: pl.DataFrame) -> int:
    """How many published statements the rows test (the module's rule)."""
    return len({statement_of(str(r["claim_id"])) for r in claims.iter_rows(named=True)})


def published_map(claims: pl.DataFrame) -> str:
    """How the rows map onto the studies' statements: "23 published claims, 9 of them split into 21 claims by
    comparator, workload, condition, proxy or mount option (35 in all), with 12 more rows at scale or in a
    replication" (claims.SAME_STATEMENT, claims.claim_of)."""
    ids = [str(i) for i in claims["claim_id"]]
    ours = sorted(set(map(claim_of, ids)))
    by: dict[str, list[str]] = {}
    for c in ours:
        by.setdefault(statement_of(c), []).append(c)
    split = [v for v in by.values() if len(v) > 1]
    digits = len(ids) > 9
    out = f"{_n(len(by), digits)} published claim{'' if len(by) == 1 else 's'}"
    if split:
        out += (f", {_n(len(split), digits)} of them split into {_n(sum(len(v) for v in split), digits)} claims by "
                f"comparator, workload, condition, proxy or mount option ({_n(len(ours), digits)} in all)")
    more = len(ids) - len(ours)
    if more:
        out += f", with {_n(more, digits)} more {'row' if more == 1 else 'rows'} at scale or in a replication"
    return out


def _n(n: int, digits: bool) -> str:
    return fmt_int(n) if digits else count_word(n)


def _counts(verdicts: list[str], kinds: tuple, digits: bool, zeros: bool) -> list[str]:
    out = []
    for key, one, many in kinds:
        n = sum(v.startswith(key) for v in verdicts)
        if n or zeros:
            out.append(NONE.get(key, f"none {one}") if n == 0 else f"{_n(n, digits)} {one if n == 1 else many}")
    return out


def _all_of(these: list[str], noun: str, digits: bool) -> str:
    """A group's verdicts after "among them": "all three confirmatory rows among them are inconclusive", "the one
    confirmatory row among them replicates", "of the three confirmatory rows among them, one replicates and two are
    inconclusive"."""
    n = len(these)
    kinds = [(key, one, many) for key, one, many in JUDGED if any(v.startswith(key) for v in these)]
    if len(kinds) == 1:
        _, one, many = kinds[0]
        return (f"the one {noun} row among them {one}" if n == 1 else f"both {noun} rows among them {many}" if n == 2
                else f"all {_n(n, digits)} {noun} rows among them {many}")
    return f"of the {_n(n, digits)} {noun} rows among them, {join_and(_counts(these, JUDGED, digits, False))}"


def strata_clause(verdicts: list[str], digits: bool) -> str:
    """How many of the inconclusive verdicts are so because their strata disagree (claim_verdict.STRATA_DISAGREE:
    each stratum judged alone, not every one alike), after the counts: ", 5 of the 28 because their strata
    disagree", ", one of the 28 because its strata disagree", ", all 5 because ...", ", that one because its
    strata disagree" (the only inconclusive row); "" where none is."""
    k = sum(v.startswith(STRATA_DISAGREE) for v in verdicts)
    n = sum(v.startswith("inconclusive") for v in verdicts)
    if not k:
        return ""
    which = "that one" if n == 1 else "both" if k == n == 2 else f"all {_n(k, digits)}" if k == n else \
        f"{_n(k, digits)} of the {_n(n, digits)}"
    return f", {which} because {'its' if k == 1 else 'their'} strata disagree"


def changed_after_look(r: dict, verdict: str) -> bool:
    """Whether a row's verdict as counted (`verdict`) rests on a change made once estimates had been seen: its
    measure changed or its runs narrowed (claims.csv `measure_changed`, `narrowed`), or the plan's pooling rule
    (`verdict_pooled_plan`) would give another kind of verdict (pooled_otherwise)."""
    return r.get("measure_changed") in (True, "true") or bool(r.get("narrowed")) or bool(pooled_otherwise(r, verdict))


def replicated_note(rows: list[dict], verdicts: list[str], digits: bool) -> str:
    """Beside the count of rows that replicate (the abstract): how many are post hoc and how many rest on a change
    made once estimates had been seen (changed_after_look): " (all post hoc, 2 after changes made once estimates
    were seen)" (review: the abstract's "4 replicate" read as confirmed); "" where none replicates."""
    reps = [(r, x) for r, x in zip(rows, verdicts, strict=True) if x.startswith("replicates")]
    if not reps:
        return ""
    post = sum(plan_status(r) == "post hoc" for r, _ in reps)
    changed = sum(changed_after_look(r, x) for r, x in reps)
    every = "all post hoc" if len(reps) > 1 else "post hoc"
    said = ([every if post == len(reps) else f"{_n(post, digits)} post hoc"] if post else []) + (
        [f"{_n(changed, digits)} after changes made once estimates were seen"] if changed else [])
    return f" ({', '.join(said)})" if said else ""


def pooling_clause(rows: list[dict], verdicts: list[str], digits: bool) -> str:
    """The judged rows (`verdicts`, as counted, in the order of `rows`) by the plan's pooling rule (claims.csv
    `verdict_pooled_plan`: a random-effects interval where strata disagree), which was replaced by judging each
    stratum alone once the estimates had been seen (the plan's deviation of kind pooling): "; under the plan's
    pooling rule, replaced once the estimates were seen, 3 replicate, 12 do not and 28 are inconclusive (S1-trace
    does not, ...)"; "" where it moves no row. The abstract says instead which replicating rows rest on a change
    (replicated_note), within its word limit."""
    moved = [pooled_otherwise(r, x) for r, x in zip(rows, verdicts, strict=True)]
    if not any(moved):
        return ""
    pooled = [y or x for x, y in zip(verdicts, moved, strict=True)]
    which = " (" + ", ".join(f"{r['claim_id']} {y}" for r, y in zip(rows, moved, strict=True) if y) + ")"
    return (f"; under the plan's pooling rule, replaced once the estimates were seen, "
            f"{join_and(_counts(pooled, JUDGED, digits, True))}{which}")


def as_planned(r: dict, column: str = "verdict") -> str:
    """A row's verdict as the plan judges it (Holm-adjusted): its planned verdict where the condition rule labelled
    it outside the study's condition (claims.csv `verdict_planned`), else its own. The headline counts these
    (issue Q review: the rule came after the estimates were seen), the rule's rows counted beside them as a caveat."""
    return str(r.get("verdict_planned") or r.get(column) or "")


def planned_verdicts(claims: pl.DataFrame) -> tuple[pl.Expr, pl.Expr]:
    """Each row's verdict after and before Holm's correction as planned: the condition rule's rows by their planned
    verdicts (verdict_planned, verdict_planned_unadjusted), the others by their own (as_planned, as expressions), so
    that the lists of what Holm moved or what all runs change omit none of the rule's rows (issue Q review:
    S1-cass-read, S1-frag, S4-reader were left out). Here, below claims_plan_tex, which reads it: no import cycle."""
    cols = set(claims.columns)
    planned = pl.col("verdict_planned") if "verdict_planned" in cols else pl.lit(None, pl.Utf8)
    before = pl.col("verdict_planned_unadjusted") if "verdict_planned_unadjusted" in cols else planned
    return pl.coalesce(planned, pl.col("verdict")), pl.coalesce(before, planned, pl.col("verdict_unadjusted"))


def _ruled(rows: list[dict], n_judged: int, digits: bool, brief: bool = False) -> str:
    """The caveat beside the planned counts: "a rule set after the estimates were seen finds 18 of the 43 outside
    their study's condition: 16 as run in another condition, 2 as journal latency read from runs under 60 s" (one
    reason alone said without its count; "" where it found none so); `brief` (the abstract, within its word limit):
    without the reasons (Section X gives them)."""
    from blkscope.paper.claim_measures import JOURNAL_MIN_S
    from blkscope.paper.claims import JOURNAL_SHORT

    ruled = [r for r in rows if r.get("verdict_planned") and not r.get("same_as")]
    if not ruled:
        return ""
    n = len(ruled)
    short = sum(JOURNAL_SHORT in str(r.get("verdict") or "") for r in ruled)
    which = "the one" if n_judged == 1 else f"all {_n(n, digits)}" if n == n_judged else \
        f"{_n(n, digits)} of the {_n(n_judged, digits)}"
    whys = [(n - short, "as run in another condition"),
            (short, f"as journal latency read from runs under {JOURNAL_MIN_S} s")]
    whys = [(k, w) for k, w in whys if k]
    said = "" if brief else ", " + whys[0][1] if len(whys) == 1 else \
        ": " + ", ".join(f"{_n(k, digits)} {w}" for k, w in whys)
    return f"a rule set after the estimates were seen finds {which} outside their study's condition{said}"


# both headline forms of an empty claims table (every row is judged, not testable, waits or reads another's, so
# the counts say nothing only where there is no row): said, not "of zero rows, "
NO_ROWS = "no claim is judged, as the claims table holds no rows"


def within(rows: list[dict], n_judged: int, digits: bool, column: str = "verdict") -> str:
    """The judged rows the condition rule left alone (no `verdict_planned`: read within their study's condition),
    by their own verdict, counted from the same rows as the headline's: "of the other 25, 2 replicate, 3 do not and
    20 are inconclusive" (after the rule's count, "other" says what they are); issue Q review: most of the
    headline's "do not" were the rule's rows. "" where the rule found none outside (the headline's counts are these
    already) or left none."""
    ruled = [r for r in rows if r.get("verdict_planned") and not r.get("same_as")]
    kept = [str(r.get(column) or "") for r in rows if not r.get("verdict_planned") and not r.get("same_as")
            and not str(r.get(column) or "").startswith("not test")]
    if not ruled or not kept:
        return ""
    n = len(kept)
    head = "of the other one" if n == 1 and n_judged > 1 else f"of the other {_n(n, digits)}"
    return f"{head}, {join_and(_counts(kept, JUDGED, digits, False))}"


def counted_alone(r: dict) -> bool:
    """Whether a row counts on its own: a row that reads the runs and throughput of another (claims.csv `same_as`)
    counts once, with it, in the headline and wherever rows are counted beside it (claims_plan_tex)."""
    return not r.get("same_as")


def _tally(claims: pl.DataFrame, column: str = "verdict") -> tuple[list[dict], list[str], list[tuple], bool]:
    """What both headline forms count: the rows, each row's planned verdict (as_planned), the judged ones as
    (plan status, verdict) but those counted with another, and whether counts are digits (above nine rows)."""
    rows = list(claims.iter_rows(named=True))
    v = [as_planned(r, column) for r in rows]
    return rows, v, [(plan_status(r), x) for r, x in judged_with_verdicts(rows, v)], len(rows) > 9


def _waiting(v: list[str]) -> tuple[int, int]:
    """How many rows await runs (`not tested`) and how many were withdrawn before capture (claim_runs.WITHDRAWN:
    a plan amendment, no limit of this machine and no run to wait for)."""
    gone = sum(x.startswith(WITHDRAWN) for x in v)
    return sum(x.startswith("not tested") for x in v) - gone, gone


def _withdrawn(n: int, digits: bool) -> str:
    """"one was withdrawn": before capture, by a plan amendment (Table III and the claims table say so)."""
    return f"{_n(n, digits)} {'was' if n == 1 else 'were'} withdrawn"


def judged_with_verdicts(rows: list[dict], v: list[str]) -> list[tuple[dict, str]]:
    """The rows judged, each with its verdict as counted (`v`): those not awaiting runs or untestable, and not
    counted with another (the headline's counts; claim_load reads them too)."""
    return [(r, x) for r, x in zip(rows, v, strict=True) if not x.startswith("not test") and counted_alone(r)]


def _judged_rows(rows: list[dict], v: list[str]) -> list[dict]:
    """The rows _tally judges, in its order."""
    return [r for r, _ in judged_with_verdicts(rows, v)]


def split_sentence(claims: pl.DataFrame, column: str = "verdict") -> str:
    """"of the 47 rows, 43 are judged as planned: 4 replicate, 11 do not and 28 are inconclusive (confirmatory: 4 do
    not and 5 are inconclusive; the other 34 are post hoc), 5 of the 28 because their strata disagree (strata_clause);
    under the plan's pooling rule, ... (pooling_clause); a rule set after the estimates were seen finds 18 of the 43
    outside their study's condition, as run in another condition; of the other 25, 3 replicate, 3 do not and 19 are
    inconclusive; 2 are not testable here, 2 await runs and 1 was withdrawn; 1 more row reads
    another's runs and counts with it" (digits throughout once a count is above nine; a group without rows left
    out): each row by its planned verdict (as_planned). A row that reads the runs and throughput of another
    (claims.csv `same_as`) is counted once, with it."""
    rows, v, judged, digits = _tally(claims, column)
    if not rows:
        return NO_ROWS
    parts = []
    if judged:
        verdicts = [x for _, x in judged]
        confirmatory = [x for s, x in judged if s == "confirmatory"]
        post_hoc = len(judged) - len(confirmatory)
        split = ""
        if confirmatory:
            split = f" (confirmatory: {join_and(_counts(confirmatory, JUDGED, digits, False))}"
            split += f"; the other {_n(post_hoc, digits)} {'is' if post_hoc == 1 else 'are'} post hoc)" if post_hoc \
                else ")"
        elif post_hoc:
            split = " (all post hoc)"
        could = f"{_n(len(judged), digits)} {'is' if len(judged) == 1 else 'are'} judged as planned"
        parts.append(f"{could}: {join_and(_counts(verdicts, JUDGED, digits, True))}{split}"
                     f"{strata_clause(verdicts, digits)}{pooling_clause(_judged_rows(rows, v), verdicts, digits)}")
        if ruled := _ruled(rows, len(judged), digits):
            parts.append(ruled)
            if kept := within(rows, len(judged), digits, column):
                parts.append(kept)
    waits, gone = _waiting(v)
    untestable = sum(x.startswith("not testable") for x in v)
    rest = []
    if untestable:
        rest.append(f"{_n(untestable, digits)} {'is' if untestable == 1 else 'are'} not testable here")
    if waits:
        rest.append(f"{_n(waits, digits)} {'awaits' if waits == 1 else 'await'} runs")
    if gone:
        rest.append(_withdrawn(gone, digits))
    if rest:
        parts.append(join_and(rest))
    same = sum(bool(r.get("same_as")) and not x.startswith("not test") for r, x in zip(rows, v, strict=True))
    if same:  # ids stay out of the abstract: the claims table names the pair
        parts.append(f"{_n(same, digits)} more " + ("row reads another's runs and counts with it" if same == 1 else
                                                    "rows read others' runs and count with them"))
    head = f"of the {_n(len(rows), digits)} {'row' if len(rows) == 1 else 'rows'}"
    return f"{head}, {'; '.join(parts)}" if parts else head


def abstract_counts(claims: pl.DataFrame) -> str:
    """The abstract's counts, shorter than split_sentence, each row by its planned verdict (as_planned) and the
    condition rule's rows as the caveat beside them: "of 47 rows, 43 are judged as planned: 4 replicate (all post
    hoc, 2 after changes made once estimates were seen: replicated_note), 11 do not and 28 are inconclusive
    (confirmatory: 4 do not and 5 are inconclusive), 5 of the 28 because their strata disagree; 2 could not be tested
    here and 1 was withdrawn; 1 more reads another's runs. A rule set after the estimates were seen finds 18 of
    the 43 outside their study's condition; of the other 25, 3 replicate, 3 do not and 19 are inconclusive"
    (within)."""
    rows, v, judged, digits = _tally(claims)
    if not rows:
        return NO_ROWS
    parts = []
    if judged:
        conf = [x for s, x in judged if s == "confirmatory"]
        among = f" (confirmatory: {join_and(_counts(conf, JUDGED, digits, False))})" if conf else ""
        verdicts = [x for _, x in judged]
        counts = _counts(verdicts, JUDGED, digits, True)
        counts[0] += replicated_note(_judged_rows(rows, v), verdicts, digits)
        parts.append(f"{_n(len(judged), digits)} {'is' if len(judged) == 1 else 'are'} judged as planned: "
                     f"{join_and(counts)}{among}{strata_clause(verdicts, digits)}")
    untestable = sum(x.startswith("not testable") for x in v)
    waits, gone = _waiting(v)
    rest = ([f"{_n(untestable, digits)} could not be tested here"] if untestable else []) + (
        [f"{_n(waits, digits)} {'awaits' if waits == 1 else 'await'} runs"] if waits else []) + (
        [_withdrawn(gone, digits)] if gone else [])
    if rest:
        parts.append(join_and(rest))
    same = sum(bool(r.get("same_as")) and not x.startswith("not test") for r, x in zip(rows, v, strict=True))
    if same:
        parts.append(f"{_n(same, digits)} more " + ("reads another's runs" if same == 1 else "read others' runs"))
    out = f"of {_n(len(rows), digits)} {'row' if len(rows) == 1 else 'rows'}, {'; '.join(parts)}"
    if ruled := _ruled(rows, len(judged), digits, brief=True):
        out += f". {ruled[0].upper()}{ruled[1:]}"
        if kept := within(rows, len(judged), digits):
            out += f"; {kept}"
    return out


def rows_on_published(claims: pl.DataFrame) -> str:
    """"47 rows on 30 published claims"."""
    n, k = claims.height, published(claims)
    digits = n > 9
    return f"{_n(n, digits)} {'row' if n == 1 else 'rows'} on {_n(k, digits)} published claim{'' if k == 1 else 's'}"


def planned_tally(claims: pl.DataFrame) -> str:
    """The condition rule's rows by planned verdict (claims.csv `verdict_planned`), in short: "as planned, 1
    replicates, 10 do not and 8 are inconclusive (confirmatory: 4 do not and 1 is inconclusive)"; "" for none."""
    rows = [r for r in claims.iter_rows(named=True) if r.get("verdict_planned")] \
        if "verdict_planned" in claims.columns else []
    if not rows:
        return ""
    digits = len(rows) > 9 or claims.height > 9
    conf = [str(r["verdict_planned"]) for r in rows if plan_status(r) == "confirmatory"]
    c = f" (confirmatory: {join_and(_counts(conf, JUDGED, digits, False))})" if conf else ""
    return f"as planned, {join_and(_counts([str(r['verdict_planned']) for r in rows], JUDGED, digits, False))}{c}"


def rule_moved(claims: pl.DataFrame) -> str:
    """The condition rule's rows (claims.csv `verdict_planned`) and their verdicts as planned: "as planned, of these 19
    rows, 1 replicates, 10 do not and 8 are inconclusive; of the 5 confirmatory rows among them, 4 do not and
    1 is inconclusive". "" where the rule moved no row."""
    if "verdict_planned" not in claims.columns:
        return ""
    rows = [r for r in claims.iter_rows(named=True) if r.get("verdict_planned")]
    if not rows:
        return ""
    digits = len(rows) > 9 or claims.height > 9
    planned = [str(r["verdict_planned"]) for r in rows]
    conf = [str(r["verdict_planned"]) for r in rows if plan_status(r) == "confirmatory"]
    counts = join_and(_counts(planned, JUDGED, digits, False))
    rows_word, these = ("row", "this") if len(rows) == 1 else ("rows", "these")
    c = f"; {_all_of(conf, 'confirmatory', digits)}" if conf else ""
    return f"as planned, of {these} {_n(len(rows), digits)} {rows_word}, {counts}{c}"


def moved(claims: pl.DataFrame) -> str:
    """The rows the multiplicity correction moved, by plan status: "5 post hoc rows (S1-cass-read, S2-ops, ...):
    2 replicate and 3 do not" each interval alone, one row by its verdict ("one confirmatory row (S2-lz4-cap-
    replication, which replicates)"); "no row" where it moved none. Each row as planned (the condition
    rule's rows by their planned verdicts, planned_verdicts), so that none of them is left out."""
    after, before = planned_verdicts(claims)
    pairs = claims.with_columns(_after=after, _before=before)
    rows = [r for r in pairs.iter_rows(named=True) if str(r["_before"] or "") != str(r["_after"] or "")
            and not str(r["_after"] or "").startswith("not test")]
    if not rows:
        return "no row"
    parts = []
    for status in ("confirmatory", "post hoc"):
        these = [r for r in rows if plan_status(r) == status]
        if these:
            ids = join_and([str(r["claim_id"]) for r in these])
            v = [str(r["_before"]) for r in these]
            counts = join_and(_counts(v, JUDGED, len(these) > 9, False))
            # one row: its verdict, not a count of one ("(S2-lz4-cap-replication, which replicates)")
            lone = next((one for k, one, _ in JUDGED if v[0].startswith(k)), v[0])
            said = f"{ids}, which {lone}" if len(these) == 1 else f"{ids}: {counts}"
            parts.append(f"{_n(len(these), len(these) > 9)} {status} {'row' if len(these) == 1 else 'rows'} "
                         f"({said})")
    return join_and(parts)


def macros(claims: pl.DataFrame) -> dict[str, str]:
    """ClaimsSplitSentence (after Holm's correction), ClaimsAbstractCounts (the abstract's, abstract_counts),
    ClaimsRuleMovedPlanned (the rows the condition rule found outside their study's condition, by planned
    verdict), ClaimsHolmMoved (the rows Holm's correction moved, where claims.csv has verdict_unadjusted),
    ClaimsRowsOnPublished and ClaimsPublishedMap (how the rows map onto the studies' claims)."""
    m = {"ClaimsSplitSentence": split_sentence(claims), "ClaimsAbstractCounts": abstract_counts(claims),
         "ClaimsRowsOnPublished": rows_on_published(claims),  # "47 rows on 23 published claims"
         "ClaimsPublishedMap": published_map(claims)}
    if rule_moved(claims):  # the condition rule's rows as planned (Sec. X, Appendix A)
        m["ClaimsRuleMovedPlanned"] = rule_moved(claims)
    if "verdict_unadjusted" in claims.columns:
        m["ClaimsHolmMoved"] = moved(claims)
    return m
