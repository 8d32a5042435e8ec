"""What a reader of the built PDF sees, checked against the data: every claim of claims.csv with every column the
claims table prints, the abstract's verdict counts against the table's, the advice of the
conclusion as the verdicts give it (blkscope.paper.advice), one count of captured runs wherever one is given, no
internal word (batch ids, issue letters, commit hashes, round names), nothing outside the text block on any page
(blkscope.paper.pdf_geometry), and the paper's length (pages of main text, appendix pages, figure area).

Text comes from `pdftotext -raw` (content-stream order): TeX draws a table row cell after cell, so a cell's lines
come out together wherever the paragraph column broke them. Comparisons ignore whitespace, which is where line
breaks fall (table cells neither hyphenate nor break inside a word, blkscope.paper.tables).
"""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

from blkscope.paper.bookkeeping import INTERNAL, internal_words  # noqa: F401 (the check's words, re-exported)

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


def _info_page(pdf: Path, key: str) -> int:
    from blkscope.paper.pdf_forms import reader

    info = reader(pdf).metadata or {}
    if key not in info:
        raise ValueError(f"{pdf}: no {key} in the document info (main.tex writes it)")
    return int(str(info[key]))


def appendix_page(pdf: Path) -> int:
    """The first page of the appendices (1-based), as main.tex records it in the document info."""
    return _info_page(pdf, "/BlkscopeAppendixPage")


def references_page(pdf: Path) -> int:
    """The page the references start on (1-based), as main.tex records it after a \\clearpage (every figure
    placed): the main text is the pages before it."""
    return _info_page(pdf, "/BlkscopeReferencesPage")


MAX_MAIN_PAGES = 14  # the venue's limit: pages of main text, references and appendices apart


def layout(pdf: Path, lone: list[int] | None = None) -> dict:
    """The paper's length and layout, measured from the PDF: pages in all, of main text (before the page the
    references start on), of references, and of appendices; per page of main text, the share of
    the text block its figures cover; and the pages of figures only that they leave less than half full
    (half_empty), or `lone` when given (check_all finds them page by page as it checks each page's geometry)."""
    from blkscope.paper.pdf_chars import plumber_pages
    from blkscope.paper.pdf_forms import form_boxes, reader

    pages = reader(pdf).pages
    area = _area(pdf)
    refs, app = references_page(pdf), appendix_page(pdf)
    shares = [round(_covered(form_boxes(page)) / area, 3) for page in pages[: refs - 1]]
    if lone is None:
        lone = []
        for n in range(1, len(pages) + 1):
            if half_empty(pdf, n):
                lone.append(n)
            plumber_pages(pdf, [n])[0].close()  # its layout, if half_empty read it
    return {"pages": len(pages), "main_pages": refs - 1, "reference_pages": app - refs,
            "appendix_pages": len(pages) - app + 1, "figure_share_per_main_page": shares,
            "figure_share_main": round(sum(shares) / len(shares), 3) if shares else 0.0,
            "half_empty_figure_pages": lone}  # fmt: skip


def _area(pdf: Path) -> float:
    from blkscope.paper.pdf_geometry import text_block

    block = text_block(pdf)
    return (block.x1 - block.x0) * (block.bottom - block.top)


def _covered(boxes) -> float:
    return sum((b.x1 - b.x0) * (b.bottom - b.top) for b in boxes)


def half_empty(pdf: Path, n: int) -> bool:
    """Whether page `n` (1-based) is a page of figures only that they leave less than half full, in the main text
    and in the appendices alike (Q review: two appendix figures stood each alone on a half-empty page), but a last
    page that ends on text (below its figures). Lays the page out (text_page) when it has figures: the caller
    closes it."""
    from blkscope.paper.pdf_chars import plumber_pages, text_page
    from blkscope.paper.pdf_forms import form_boxes, forms, reader, strokes
    from blkscope.paper.pdf_geometry import text_block

    pages = reader(pdf).pages
    page, block = pages[n - 1], text_block(pdf)
    boxes = form_boxes(page)
    if not boxes or _covered(boxes) >= LONE_FIGURE_SHARE * _area(pdf):
        return False
    (ppage,) = plumber_pages(pdf, [n])
    tp = text_page(ppage)
    # each test in turn, the cheapest first (a page of text with a figure: the first), none changing the answer
    words = list(_body_words(tp))
    if _words_outside(words, boxes) >= FLOAT_WORDS:
        return False  # not a float page (captions only)
    # a float page whose tables (set smaller than body text) fill it below its figures is full: the
    # share is of everything it prints, figures, captions and tables alike (the e2e miniature's Fig. 18)
    if _content_share(tp, boxes, block) >= LONE_FIGURE_SHARE:
        return False
    # a last page that ends on text is not one: the floats the document's last words leave go above them, and
    # nothing after could share the page; a last page that ends on a figure is checked as any other (Q
    # review: an appendix closing on a lone half-empty figure passed)
    if n == len(pages) and _words_below(words, boxes, block) > 0:
        return False
    # a page of placeholders alone (figures that stroke no path: theme.no_data's message, sized to it)
    # is not one: only a dataset without the figure's runs draws them (the e2e miniature's cache sweep)
    return any(strokes(xo, page.pdf) for _, xo in forms(page))


LONE_FIGURE_SHARE = 0.5  # a page of figures only must be at least half figure
FLOAT_WORDS = 20  # fewer words of body text than this: a float page (figures and their captions)
BODY_PT = 9.5  # body text is set at 10 pt, captions at 8 pt (IEEEtran)


def _body_words(page):
    """The centres (x, y) of the words of body text (not captions: BODY_PT or larger) a pdfplumber page draws."""
    for w in page.extract_words(extra_attrs=["size"]):
        if w["size"] >= BODY_PT:
            yield (w["x0"] + w["x1"]) / 2, (w["top"] + w["bottom"]) / 2


def _words_outside(words, boxes) -> int:
    """Words of body text (_body_words of a page) outside the figures' boxes."""
    return sum(not any(b.x0 <= x <= b.x1 and b.top <= y <= b.bottom for b in boxes) for x, y in words)


def _words_below(words, boxes, block) -> int:
    """Words of body text (_body_words of a page) below the lowest of its figures and inside the text block (not a
    page number in the foot): a page that ends on text."""
    low = max(b.bottom for b in boxes)
    return sum(low < y <= block.bottom for _, y in words)


def _content_share(page, boxes, block) -> float:
    """The share of the text block's height a page's content fills: the union of its figures' and its glyphs'
    vertical extents (lines closer than LINE_GAP merged, so a table's or caption's leading counts as filled), the page
    number in the foot not counted. Not the span from the first item to the last: a float page spreads its floats
    over the page (IEEEtran's \\@fpsep ... plus 2fil), and two small figures would span it."""
    spans = sorted([(b.top, b.bottom) for b in boxes]
                   + [(c["top"], c["bottom"]) for c in page.chars if c["top"] < block.bottom])  # fmt: skip
    filled, (lo, hi) = 0.0, spans[0]
    for top, bottom in spans[1:]:
        if top > hi + LINE_GAP:
            filled, lo = filled + hi - lo, top
        hi = max(hi, bottom)
    return (filled + hi - lo) / (block.bottom - block.top)


LINE_GAP = 4.0  # pt: the leading between two lines of a caption or a table (8-pt type on 9.5-pt lines), not a gap


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


def check_figures(figures: list[Path]) -> list[str]:
    """Each figure's own PDF: within the width it is printed in (a column or both: its module's WIDTH) and the
    height a figure has, no two labels overlapping."""
    from blkscope.paper.pdf_geometry import check_figure_pdf

    return [p for f in figures for p in check_figure_pdf(f, *figure_space(f))]


def figure_space(figure: Path) -> tuple[float, float]:
    """The width and height (bp) a figure's PDF may take: its module's WIDTH, theme's MAX_FIGURE_HEIGHT_PT. Found
    by importing the figure's module (altair and all: ~0.5 CPU-s for the paper's figures), which check_all does
    once, not in each of its processes."""
    from blkscope.figures.theme import MAX_FIGURE_HEIGHT_PT
    from blkscope.paper.figure_tex import width

    return width(figure.stem), MAX_FIGURE_HEIGHT_PT


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


def check(pdf: Path, claims: pl.DataFrame) -> tuple[list[str], dict]:
    """Every problem a reader of the built PDF would find, and its layout."""
    from blkscope.paper.pdf_geometry import check_paper_pdf

    before, after, lay = _text_checks(pdf, claims)
    # every page: no figure, caption or table row outside the text block, no two labels overlapping
    return before + check_paper_pdf(pdf, every_page=True) + after, lay


def _text_checks(pdf: Path, claims: pl.DataFrame) -> tuple[list[str], list[str], dict]:
    """check() but the pages' geometry: the problems it reports before the geometry's and after them, and the
    layout."""
    lay = layout(pdf)
    before, after = _read_checks(pdf, claims, lay["main_pages"])
    return _length_problems(lay) + before, after, lay


def _length_problems(lay: dict) -> list[str]:
    """What layout() finds too long: the main text, and pages of figures left half empty."""
    problems = []
    if lay["main_pages"] > MAX_MAIN_PAGES:
        problems.append(f"{lay['main_pages']} pages of main text: more than {MAX_MAIN_PAGES}")
    for n in lay["half_empty_figure_pages"]:
        problems.append(f"page {n}: a page of figures less than half full")
    return problems


def _read_checks(pdf: Path, claims: pl.DataFrame, main_pages: int) -> tuple[list[str], list[str]]:
    """_text_checks but the layout's: the problems of the text a reader reads, before the geometry's and after."""
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


PAGES_PER_PART = 7  # the paper's geometry is checked in parts of this many pages, each opening the PDF once


def _part(part: tuple):
    """One part of check_all: ("text", paper, claims table), ("pages", paper, first, last, figures) or ("figure",
    figure): a figure is (its PDF, the width and height it may take: figure_space)."""
    if part[0] == "text":  # all of the layout but its half-empty pages, found with the geometry of each page
        import polars as pl

        lay = layout(part[1], lone=[])
        return lay, _read_checks(part[1], pl.read_parquet(part[2]), lay["main_pages"])
    from blkscope.paper.pdf_geometry import check_figure_pdf

    if part[0] == "pages":
        return _pages_part(*part[1:])
    return check_figure_pdf(*part[1])


def _pages_part(pdf: Path, first: int, last: int, figures: tuple) -> tuple[list[str], list[int], list]:
    """The geometry of pages first..last (1-based) of the paper, which of them are half empty (half_empty), and
    check_figures of each of `figures` (as _part's): checked first, the figures these pages draw are parsed once
    (the paper draws each as a form of the same bytes: pdf_chars._parsed)."""
    from blkscope.paper.pdf_chars import plumber_pages
    from blkscope.paper.pdf_geometry import check_figure_pdf, check_paper_page

    figs = [check_figure_pdf(*f) for f in figures]
    problems, lone = [], []
    for ppage in plumber_pages(pdf, range(first, last + 1)):
        problems += check_paper_page(pdf, ppage, every_page=True)
        if half_empty(pdf, ppage.page_number):
            lone.append(ppage.page_number)
        ppage.close()
    return problems, lone, figs


def _drawn(pdf: Path, figures: list[Path]) -> dict[int, list[Path]]:
    """The figures (of `figures`) each page of the paper draws, by the file name pdfTeX records in each included
    form (/PTEX.FileName): a page's resources only, none of its content read. Which part checks which figure is
    all it decides."""
    from blkscope.paper.pdf_forms import reader

    by_name = {f.name: f for f in figures}
    out: dict[int, list[Path]] = {}
    for n, page in enumerate(reader(pdf).pages, start=1):
        xobjects = (page.get("/Resources") or {}).get("/XObject") or {}
        for ref in xobjects.get_object().values() if hasattr(xobjects, "get_object") else xobjects.values():
            name = Path(str(ref.get_object().get("/PTEX.FileName", ""))).name
            if name in by_name:
                out.setdefault(n, []).append(by_name[name])
    return out


def check_all(pdf: Path, claims: Path, figures: list[Path], jobs: int = 1) -> tuple[list[str], dict]:
    """check() of the paper, then check_figures() of its figures, the same problems in the same order, done as
    parts in `jobs` processes: the text checks, the paper's pages a few at a time each with the figures they draw,
    each figure no page draws. The geometry (pdfminer interpreting every page and figure) is most of the work,
    and the paper rule ends the main job alone."""
    from blkscope.paper.pdf_forms import reader
    from blkscope.parallel import map_runs

    n = len(reader(pdf).pages)
    drawn, placed = _drawn(pdf, figures), set()
    space = {f: (f, *figure_space(f)) for f in figures}
    pages = []
    for first in range(1, n + 1, PAGES_PER_PART):
        last = min(n, first + PAGES_PER_PART - 1)
        figs = tuple(dict.fromkeys(f for i in range(first, last + 1) for f in drawn.get(i, []) if f not in placed))
        placed.update(figs)
        pages.append(("pages", pdf, first, last, tuple(space[f] for f in figs)))
    alone = [("figure", space[f]) for f in space if f not in placed]
    parts = [("text", pdf, claims), *pages, *alone]
    # the paper's parts first, then the figures largest first: no long part starts last
    cost = {p: p[1][0].stat().st_size if p[0] == "figure" else 2**62 for p in parts}
    (lay, (before, after)), *rest = map_runs(parts, _part, jobs=jobs, size=cost.__getitem__)
    done, rest = rest[: len(pages)], rest[len(pages) :]
    geometry = [p for problems, _, _ in done for p in problems]
    lay["half_empty_figure_pages"] = [i for _, lone, _ in done for i in lone]
    found = {f[0]: probs for part, (*_, figs) in zip(pages, done, strict=True)
             for f, probs in zip(part[4], figs, strict=True)}  # fmt: skip
    found |= {part[1][0]: probs for part, probs in zip(alone, rest, strict=True)}
    return _length_problems(lay) + before + geometry + after + [p for f in figures for p in found[f]], lay


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json

    p = argparse.ArgumentParser(prog="python -m blkscope.paper.pdf_text", description=__doc__)
    p.add_argument("pdf", type=Path, help="the built paper")
    p.add_argument("--claims", type=Path, required=True, help="the claims table (.parquet)")
    p.add_argument("--layout", type=Path, help="write the measured layout here (.json)")
    p.add_argument("--figures", type=Path, nargs="*", default=[], help="the figures' own PDFs")
    p.add_argument("-j", "--jobs", type=int, default=1, help="parts of the check run in this many processes")
    a = p.parse_args(argv)
    problems, lay = check_all(a.pdf, a.claims, a.figures, a.jobs)
    if a.layout:
        a.layout.write_text(json.dumps(lay, indent=1) + "\n")
    print(json.dumps({k: v for k, v in lay.items() if k != "figure_share_per_main_page"}), file=sys.stderr)
    for line in problems:
        print(f"{a.pdf}: {line}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
