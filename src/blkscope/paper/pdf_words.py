"""The built PDF's text as pdftotext gives it, and what the text must say: the claims table, the abstract, advice.

Text comes from `pdftotext -raw` (content-stream order): TeX draws a table row cell after cell, so a cell's lines
come out together wherever the paragraph column broke them. Comparisons ignore whitespace, which is where line
breaks fall (table cells neither hyphenate nor break inside a word, blkscope.paper.tables).
"""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

from blkscope.paper.bookkeeping import internal_words
from blkscope.paper.pdf_layout import appendix_page

if TYPE_CHECKING:
    import polars as pl

# polars and blkscope.paper.tables (scipy.stats through the claims' measures: ~0.7 CPU-s) are imported where the
# text checks use them: the processes of check_all's geometry parts import this module and never need them


# pdftotext's Unicode for what TeX sets from ASCII: quotes, dashes (T1 ligatures), ligature glyphs (NFKC)
_TYPESET = str.maketrans({"\u2019": "'", "\u2018": "`", "\u201c": "``", "\u201d": "''", "\u2013": "--",
                          "\u2014": "---", "\u2212": "-", "\u00b1": "+-", "\u00a0": " ",
                          "\u00b5": "u", "\u03bc": "u"})  # fmt: skip  # the micro sign: claims.csv's "us"


def pdf_text(pdf: Path, first: int | None = None, last: int | None = None, typeset: bool = False) -> str:
    """The text of `pdf` (pages first..last, 1-based) in content-stream order, typeset characters mapped back
    to the ASCII TeX was given (typeset=True: as the PDF sets them, a minus as U+2212)."""
    args = ["pdftotext", "-raw", "-enc", "UTF-8"]
    args += ["-f", str(first)] if first else []
    args += ["-l", str(last)] if last else []
    out = unicodedata.normalize("NFKC", subprocess.run([*args, str(pdf), "-"], check=True, capture_output=True,
                                                       text=True).stdout)  # fmt: skip
    return out if typeset else out.translate(_TYPESET)


def pdf_pages(pdf: Path) -> list[str]:
    """pdftotext's text of every page of `pdf` from one run of it, each page with the form feed pdftotext ends it
    with, typeset (as pdf_text(typeset=True) gives it): pages_text() of a range is pdf_text() of that range."""
    out = subprocess.run(["pdftotext", "-raw", "-enc", "UTF-8", str(pdf), "-"], check=True, capture_output=True,
                         text=True).stdout  # fmt: skip
    return [p + "\f" for p in unicodedata.normalize("NFKC", out).split("\f")[:-1]]


def pages_text(pages: list[str], first: int | None = None, last: int | None = None, typeset: bool = False) -> str:
    """pdf_text(pdf, first, last, typeset) from pdf_pages(pdf): the checks read four ranges of the paper, and each
    pdftotext run parsed the whole 8 MB PDF again."""
    out = "".join(pages[(first or 1) - 1 : last])
    return out if typeset else out.translate(_TYPESET)


# a hyphen before a number that follows no letter, digit, point, dash or plus (blkscope.paper.latex.signed's rule)
_HYPHEN_SIGN = re.compile(r"(?<![\w.\-\u2010\u2013\u2014+])-\.?\d[\d.,]*")


def hyphen_signs(typeset: str) -> list[str]:
    """Negative numbers the PDF sets with a hyphen ("-0.5") where a minus sign belongs (U+2212, as
    blkscope.paper.latex sets every generated number), in the PDF's own characters (pdf_text typeset=True)."""
    out = []
    for m in _HYPHEN_SIGN.finditer(typeset):
        context = " ".join(typeset[max(0, m.start() - 30): m.end() + 10].split())
        out.append(f"a hyphen for a minus sign: {m.group()!r} in {context!r}")
    return out


def squash(text: str) -> str:
    """Without whitespace and typeset characters: where TeX broke a line does not matter; a range of two numbers
    with its en dash, as latex.escape sets a plain text's "2-242 s" (latex.ranged)."""
    from blkscope.paper.latex import ranged

    return re.sub(r"\s+", "", ranged(unicodedata.normalize("NFKC", str(text)).translate(_TYPESET)))


def squash_quotes(text: str) -> str:
    """squash, with quotes compared without their side: a cell's 'x' prints with an opening quote (latex.escape)."""
    return squash(text).replace("`", "'")


def missing_claims(text: str, claims: pl.DataFrame, columns: list[str]) -> list[str]:
    """Every claim whose row is not in `text` with each printed column's value, in order: the claim id, then its
    cells one after the other (a row may break across pages between rows, never inside one); the verdict before
    Holm's correction as the table prints it (blkscope.paper.tables.unadjusted_cell), and a row of the condition
    rule's verdict as its cell prints it (caveated)."""
    from blkscope.paper.tables import caveated, plain, printed_unadjusted

    claims = caveated(printed_unadjusted(claims), ruled_only=True)
    flat = squash_quotes(text)
    problems = []
    rest = [c for c in columns if c != "claim_id"]
    pos = 0  # rows in table order: a claim judged under two conditions has two rows with one id
    for row in claims.iter_rows(named=True):
        cid = row["claim_id"]
        # the id with the cell after it: S1-trace is also the start of S1-trace-cass
        anchor = squash_quotes(plain(cid)) + (squash_quotes(plain(row.get(rest[0]))) if rest else "")
        at = flat.find(anchor, pos)
        if at < 0:
            problems.append(f"claim {cid}: not in the PDF")
            continue
        at += len(squash_quotes(plain(cid)))
        for col in rest:
            value = row.get(col)
            want = squash_quotes(plain(value))
            found = flat.find(want, at)
            if found < 0:
                problems.append(f"claim {cid}: column {col} ({value!r}) not in the PDF after its id")
            else:
                at = found + len(want)
        pos = at
    return problems


def abstract_text(text_page1: str) -> str:
    """The abstract as pdftotext gives it: from `Abstract` to the first section heading (IEEEtran's small capitals
    come out as "I. I NTRODUCTION" or "I. INTRODUCTION"), or the rest of the page without one."""
    start = text_page1.find("Abstract")
    if start < 0:
        return ""
    end = re.search(r"\bI\.\s*I\s*NTRODUCTION", text_page1[start:], re.I)
    return text_page1[start: start + end.start()] if end else text_page1[start:]


def _unbroken(text: str) -> str:
    """Without whitespace and hyphens: body text hyphenates at line ends, where pdftotext keeps the hyphen."""
    return squash(text.replace("{,}", ",")).replace("-", "")  # a macro's thousands separator prints as a comma


RUNS_STATED = ("condition", "window", "n")  # what every judged row says of the runs it reads


def unstated_runs(claims: pl.DataFrame) -> list[str]:
    """Rows judged on runs (any verdict but `not tested`/`not testable here`: the condition rule's rows, `outside
    the study's condition`, are judged as planned) that do not state their condition, their window or their n per
    arm, or whose window is the whole run without its length: a reader could not tell which runs, over which time,
    a verdict reads."""
    import polars as pl

    from blkscope.paper.tables import plain

    cols = [c for c in RUNS_STATED if c in claims.columns]
    judged = claims.filter(~pl.col("verdict").fill_null("").str.starts_with("not test"))
    out = [f"the claims table has no column {c!r}" for c in RUNS_STATED if c not in cols]
    for r in judged.iter_rows(named=True):
        out += [f"claim {r['claim_id']}: no {c} stated" for c in cols if plain(r[c]) in ("--", "")]
        window = plain(r.get("window"))
        if window.startswith("whole run") and not re.search(r"\d", window):
            out.append(f"claim {r['claim_id']}: window {window!r} states no run length")
    return out


_CAPTURED = re.compile(r"(\d[\d,]*)\s+captured\s+runs")


def disagreeing_run_counts(text: str) -> list[str]:
    """Every place the PDF says how many runs were captured ("1,194 captured runs": the abstract, the data
    availability appendix) gives one number (the appendix once said 1,184 beside the abstract's 1,194: it had not
    been regenerated after a capture)."""
    said = sorted({m.group(1) for m in _CAPTURED.finditer(text)})
    return [f"the PDF gives {len(said)} counts of captured runs: {', '.join(said)}"] if len(said) > 1 else []


def missing_advice(main: str, claims: pl.DataFrame) -> list[str]:
    """Each piece of advice (blkscope.paper.advice) as the claims table gives it today, in the conclusion (its full
    evidence): words that follow the verdicts, never left behind by them. The abstract gives headline findings and
    the counts, not the advice."""
    from blkscope.paper.advice import phrases

    m = _unbroken(main)
    return [f"the conclusion does not give the advice {macro} as the claims table has it ({words!r})"
            for macro, words in phrases(claims).items() if _unbroken(words) not in m]


def _read_checks(pdf: Path, claims: pl.DataFrame, main_pages: int) -> tuple[list[str], list[str]]:
    """pdf_text._text_checks but the layout's: the problems of the text a reader reads, before the geometry's and
    after."""
    from blkscope.paper.advice import abstract_advice
    from blkscope.paper.headline import abstract_counts
    from blkscope.paper.tables import claims_parts, printed_columns

    problems = []
    pages = pdf_pages(pdf)  # one pdftotext run: each reads the whole PDF, whatever its range
    appendix = pages_text(pages, first=appendix_page(pdf))
    for part in claims_parts(claims):  # each part of the table: every row with every column it prints
        problems += missing_claims(appendix, claims, printed_columns(part))
    problems += unstated_runs(claims)
    typeset = pages_text(pages, typeset=True)
    problems += hyphen_signs(typeset)
    text = typeset.translate(_TYPESET)
    problems += internal_words(text)
    problems += disagreeing_run_counts(text)
    abstract = abstract_text(pages_text(pages, 1, 1))
    after = missing_advice(pages_text(pages, 1, main_pages), claims)
    if (n := abstract_words(abstract)) > ABSTRACT_WORDS:
        problems.append(f"the abstract has {n} words: more than {ABSTRACT_WORDS}")
    abstract = _unbroken(abstract)
    want = abstract_counts(claims)
    if _unbroken(want) not in abstract:
        after.append(f"the abstract does not give the claims table's counts ({want!r})")
    if _unbroken(advice := abstract_advice(claims)) not in abstract:  # what to choose, as the verdicts give it today
        after.append(f"the abstract does not give the advice as the claims table has it ({advice!r})")
    return problems, after


ABSTRACT_WORDS = 200  # the venue's limit on the abstract (IEEE: 150 to 250 words; ours the middle of it)


def abstract_words(abstract: str) -> int:
    """The abstract's words as pdftotext gives them (abstract_text), its heading not counted and a word hyphenated
    across a line end counted once."""
    body = re.sub(r"^Abstract\W*", "", abstract.strip())
    return len(re.sub(r"-\n", "", body).split())
