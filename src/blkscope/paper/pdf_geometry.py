"""Readability checks from PDF geometry: overlapping text, and figures or text that leave the paper's text block.

Text that overlaps other text (tick labels run into each other), and figures or captions that leave the text block
of the paper (a float taller than the page runs into the footer). Text is read with pdfplumber (character boxes,
also inside the figures' form XObjects: blkscope.paper.pdf_chars, grouped into labels by pdf_labels); figures are
found as the form XObjects a page draws (`Do`), their /BBox mapped through the current transformation matrix
(pdf_forms). The paper's text block is written into the PDF by main.tex (`/BlkscopeTextBlock` in the document info:
left, top, width, height in TeX points from the page's top-left corner), so the check does not guess the page
layout.
"""

from __future__ import annotations

from pathlib import Path

from blkscope.paper.pdf_chars import chars, plumber_pages, text_page
from blkscope.paper.pdf_forms import page_form_boxes, reader
from blkscope.paper.pdf_labels import TOL, Box, labels, overlapping_labels

INFO_KEY = "/BlkscopeTextBlock"


def text_block(pdf: Path) -> Box:
    """The text block main.tex records in the document info (left top width height, bp)."""
    info = reader(pdf).metadata or {}
    if INFO_KEY not in info:
        raise ValueError(f"{pdf}: no {INFO_KEY} in the document info (main.tex writes it)")
    # TeX points (1/72.27 in) -> PDF points (1/72 in)
    left, top, width, height = (float(v.removesuffix("pt")) * 72 / 72.27 for v in str(info[INFO_KEY]).split())
    return Box(left, top, left + width, top + height)


def check_figure_pdf(pdf: Path, max_width: float, max_height: float) -> list[str]:
    """Problems of one figure's own PDF: larger than the space it is printed in, or overlapping text."""
    import pdfplumber

    problems = []
    with pdfplumber.open(pdf) as doc:
        page = text_page(doc.pages[0])
        if page.width > max_width + TOL or page.height > max_height + TOL:
            problems.append(f"{pdf.name}: {page.width:.0f} x {page.height:.0f} bp exceeds "
                            f"{max_width:.0f} x {max_height:.0f} bp")  # fmt: skip
        for a, b in overlapping_labels(chars(page)):
            problems.append(f"{pdf.name}: text {a.text!r} overlaps {b.text!r} at x={a.box.x0:.0f}, y={a.box.top:.0f}")
    return problems


def check_paper_pdf(pdf: Path, every_page: bool = False, pages: range | None = None) -> list[str]:
    """Problems of the built paper, on every page that draws a figure (`every_page`: on every page, where a long
    table could run off the page): a figure outside the text block, text other than the page number outside it (a
    caption pushed into the footer, a table row below the block), or overlapping text. `pages` (1-based): only
    those, so that parts of the paper can be checked in parallel processes."""
    problems = []
    for ppage in plumber_pages(pdf, pages):
        problems += check_paper_page(pdf, ppage, every_page)
        ppage.close()  # its layout: the document stays open for the next part (plumber_pages)
    return problems


def check_paper_page(pdf: Path, ppage, every_page: bool = False) -> list[str]:
    """check_paper_pdf of one pdfplumber page of `pdf` (plumber_pages), left open: its layout (text_page) serves
    other checks of the page until it is closed."""
    block = text_block(pdf)
    problems = []
    i = ppage.page_number
    figs = page_form_boxes(pdf, i)
    if not figs and not every_page:
        return []
    for box in figs:
        if not box.inside(block):
            problems.append(f"page {i}: a figure at ({box.x0:.0f}, {box.top:.0f})-({box.x1:.0f}, "
                            f"{box.bottom:.0f}) leaves the text block ({block.x0:.0f}, {block.top:.0f})-"
                            f"({block.x1:.0f}, {block.bottom:.0f})")  # fmt: skip
    page_chars = chars(ppage)
    for lb in labels(page_chars):
        if lb.text.isdigit() and lb.baseline > block.bottom + TOL:
            continue  # the page number, in the footer
        # a line of text is inside when its glyphs are within the block's sides and top and its baseline
        # above the block's bottom (descenders of the last line hang below, as LaTeX sets them)
        text_box = Box(lb.box.x0, lb.box.top, lb.box.x1, lb.baseline)
        if not text_box.inside(block):
            problems.append(f"page {i}: text {lb.text!r} outside the text block")
    for a, b in overlapping_labels(page_chars):
        problems.append(f"page {i}: text {a.text!r} overlaps {b.text!r}")
    return problems
