"""The paper's headline count of verdicts, split by whether the claims plan came before the runs a row reads
(confirmatory: the scale and replication conditions) or after them (post hoc: the in-memory condition), over the
published claims they test (the abstract, the introduction, Section X and the conclusion print it; the PDF check,
blkscope.paper.pdf_text, finds it in the abstract).

A published claim is one of the studies' statements: the claims table's claim sentences, counted once where they
differ only in a closing parenthesis that names our condition or workload ("(device the limit)", "(sysbench)").
"""

from __future__ import annotations

import re

import polars as pl

from blkscope.paper.latex import count_word, fmt_int, join_and
from blkscope.paper.phrases import plan_status

_CLOSING = re.compile(r"\s*\([^()]*\)$")
JUDGED = (("replicates", "replicates", "replicate"), ("does not", "does not", "do not"),
          ("inconclusive", "is inconclusive", "are inconclusive"))
NONE = {"does not": "none fails to replicate"}  # "none does not" reads as a double negative
UNJUDGED = (("not tested", "waits for runs", "wait for runs"),
            ("not testable", "is not testable here", "are not testable here"))


def published(claims: pl.DataFrame) -> int:
    """How many published statements the rows test (the module's rule)."""
    said = {(r.get("study"), _CLOSING.sub("", str(r["claim"])).strip()) for r in claims.iter_rows(named=True)}
    return len(said)


def _n(n: int, digits: bool) -> str:
    return fmt_int(n) if digits else count_word(n)


def _counts(verdicts: list[str], kinds: tuple, digits: bool, zeros: bool) -> list[str]:
    out = []
    for key, one, many in kinds:
        n = sum(v.startswith(key) for v in verdicts)
        if n or zeros:
            out.append(NONE.get(key, f"none {one}") if n == 0 else f"{_n(n, digits)} {one if n == 1 else many}")
    return out


def condition_rule(verdict: str) -> bool:
    """A verdict the condition rule gave ("not testable here: light load", blkscope.paper.claims.by_condition)."""
    return verdict.startswith("not testable here: ")


def split_sentence(claims: pl.DataFrame, column: str = "verdict") -> str:
    """"47 rows on 30 published claims: of the 3 confirmatory rows, none replicates, none fails to replicate and 3 are
    inconclusive; of the 20 post hoc rows, ...; 2 wait for runs and 21 are not testable here, 19 of them read
    outside their claim's condition; one row that reads another's runs counted with it"
    (digits throughout once a count is above nine; a group without rows left out). A row that reads the runs and
    throughput of another (claims.csv `same_as`) is counted once, with it."""
    rows = list(claims.iter_rows(named=True))
    v = [str(r.get(column) or "") for r in rows]
    judged = [(plan_status(r), x) for r, x in zip(rows, v, strict=True)
              if not x.startswith("not test") and not r.get("same_as")]
    digits = len(rows) > 9
    head = (f"{_n(len(rows), digits)} {'row' if len(rows) == 1 else 'rows'} on "
            f"{_n(published(claims), digits)} published claim{'' if published(claims) == 1 else 's'}")
    parts = []
    for status in ("confirmatory", "post hoc"):
        these = [x for s, x in judged if s == status]
        if these:
            noun = "row" if len(these) == 1 else "rows"
            parts.append(f"of the {_n(len(these), digits)} {status} {noun}, "
                         f"{join_and(_counts(these, JUDGED, digits, True))}")
    rest = _counts(v, UNJUDGED, digits, False)
    by_rule = sum(condition_rule(x) for x in v)
    if rest and by_rule:
        n = sum(x.startswith("not test") for x in v)
        rest[-1] += (", read outside its claim's condition" if n == 1 else
                     f", {'all' if by_rule == n else _n(by_rule, digits)} of them read outside their claim's condition")
    if rest:
        parts.append(join_and(rest))
    same = sum(bool(r.get("same_as")) and not x.startswith("not test") for r, x in zip(rows, v, strict=True))
    if same:  # ids stay out of the abstract: the claims table names the pair
        parts.append(f"{_n(same, digits)} " + ("row that reads another's runs counted with it" if same == 1 else
                                               "rows that read others' runs counted with them"))
    return f"{head}: {'; '.join(parts)}" if parts else head


def moved(claims: pl.DataFrame) -> str:
    """The rows the multiplicity correction moved, by plan status: "5 post hoc rows (S1-cass-read, S2-ops, ...):
    2 replicate and 3 do not" each interval alone; "no row" where it moved none."""
    rows = [r for r in claims.iter_rows(named=True) if str(r.get("verdict_unadjusted") or "") != str(r["verdict"])
            and not str(r["verdict"]).startswith("not test")]
    if not rows:
        return "no row"
    parts = []
    for status in ("confirmatory", "post hoc"):
        these = [r for r in rows if plan_status(r) == status]
        if these:
            ids = join_and([str(r["claim_id"]) for r in these])
            v = [str(r["verdict_unadjusted"]) for r in these]
            counts = join_and(_counts(v, JUDGED, len(these) > 9, False))
            parts.append(f"{_n(len(these), len(these) > 9)} {status} {'row' if len(these) == 1 else 'rows'} "
                         f"({ids}: {counts})")
    return join_and(parts)


def macros(claims: pl.DataFrame) -> dict[str, str]:
    """ClaimsSplitSentence (after Holm's correction), ClaimsSplitSentenceUnadjusted (each interval alone, where
    claims.csv has verdict_unadjusted; and the rows Holm's correction moved, ClaimsHolmMoved), ClaimsPublished and
    its head alone, ClaimsRowsOnPublished."""
    m = {"ClaimsSplitSentence": split_sentence(claims), "ClaimsPublished": fmt_int(published(claims)),
         "ClaimsRowsOnPublished": split_sentence(claims).split(": ", 1)[0]}  # "47 rows on 30 published claims"
    if "verdict_unadjusted" in claims.columns:
        m["ClaimsSplitSentenceUnadjusted"] = split_sentence(claims, "verdict_unadjusted")
        m["ClaimsHolmMoved"] = moved(claims)
    return m
