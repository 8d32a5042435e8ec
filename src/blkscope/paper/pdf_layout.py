"""The paper's length and what its pages show: main text, references, appendices, figures' share, half-empty pages."""

from __future__ import annotations

from pathlib import Path


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
    from blkscope.paper.pdf_forms import page_form_boxes, reader

    pages = reader(pdf).pages
    area = _area(pdf)
    refs, app = references_page(pdf), appendix_page(pdf)
    shares = [round(_covered(page_form_boxes(pdf, n)) / area, 3) for n in range(1, len(pages) + 1)[: refs - 1]]
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
    from blkscope.paper.pdf_forms import page_forms, reader, strokes
    from blkscope.paper.pdf_geometry import text_block

    pages = reader(pdf).pages
    page, block = pages[n - 1], text_block(pdf)
    found = page_forms(pdf, n)
    boxes = [b for b, _ in found]
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
    return any(strokes(xo, page.pdf) for _, xo in found)


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


def _length_problems(lay: dict) -> list[str]:
    """What layout() finds too long: the main text, and pages of figures left half empty."""
    problems = []
    if lay["main_pages"] > MAX_MAIN_PAGES:
        problems.append(f"{lay['main_pages']} pages of main text: more than {MAX_MAIN_PAGES}")
    for n in lay["half_empty_figure_pages"]:
        problems.append(f"page {n}: a page of figures less than half full")
    return problems
