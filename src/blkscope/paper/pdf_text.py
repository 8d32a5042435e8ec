"""The paper rule's PDF check: what a reader of the built PDF sees, checked against the data.

Every claim of claims.csv with every column the claims table prints, the abstract's verdict counts against the
table's, the advice of the conclusion as the verdicts give it (blkscope.paper.advice), one count of captured runs
wherever one is given, no internal word (batch ids, issue letters, commit hashes, round names): the text
(blkscope.paper.pdf_words); nothing outside the text block on any page (blkscope.paper.pdf_geometry); and the
paper's length (pages of main text, appendix pages, figure area: blkscope.paper.pdf_layout).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from blkscope.paper.pdf_layout import _length_problems, half_empty, layout
from blkscope.paper.pdf_words import _read_checks

if TYPE_CHECKING:
    import polars as pl


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
