"""A tool of the tests, not of the package: the built paper's figure pages rendered with pdftoppm (poppler-utils)
and searched for ink outside the text block, beside the workflow's own check from the PDF's geometry
(blkscope.paper.pdf_geometry). test_figure_geometry.py and test_workflow_e2e.py use it."""

from __future__ import annotations

from pathlib import Path

from blkscope.paper.pdf_chars import text_page
from blkscope.paper.pdf_forms import form_boxes
from blkscope.paper.pdf_geometry import text_block
from blkscope.paper.pdf_labels import Box, labels


def figure_pages(pdf: Path) -> list[int]:
    """1-based numbers of the pages that draw a figure."""
    from pypdf import PdfReader

    return [i for i, p in enumerate(PdfReader(pdf).pages, start=1) if form_boxes(p)]


def ink_outside(png: Path, block: Box, page_w: float, page_h: float, allowed: list[Box], tol: float = 1.5) -> int:
    """Pixels of a rendered page (pdftoppm) that are not white, lie outside the text block and outside every
    `allowed` box (the page number): ink a reader sees in the margin. Coordinates of the boxes in bp."""
    import numpy as np
    from PIL import Image

    img = np.asarray(Image.open(png).convert("L"))
    sy, sx = img.shape[0] / page_h, img.shape[1] / page_w
    ink = img < 200
    yy, xx = np.nonzero(ink)
    x, y = xx / sx, yy / sy
    keep = ~((x >= block.x0 - tol) & (x <= block.x1 + tol) & (y >= block.top - tol) & (y <= block.bottom + tol))
    for b in allowed:
        keep &= ~((x >= b.x0 - tol) & (x <= b.x1 + tol) & (y >= b.top - tol) & (y <= b.bottom + tol))
    return int(keep.sum())


def check_rendered_pages(pdf: Path, outdir: Path, dpi: int = 50) -> list[str]:
    """Render every figure page with pdftoppm and report ink outside the text block (the page number aside)."""
    import subprocess

    import pdfplumber

    block = text_block(pdf)
    outdir.mkdir(parents=True, exist_ok=True)
    problems = []
    with pdfplumber.open(pdf) as doc:
        for n in figure_pages(pdf):
            page = text_page(doc.pages[n - 1])
            stem = outdir / f"page-{n}"
            subprocess.run(["pdftoppm", "-r", str(dpi), "-f", str(n), "-l", str(n), "-singlefile", "-png", str(pdf),
                            str(stem)], check=True, capture_output=True)  # fmt: skip
            footer = [lb.box for lb in labels(page.chars) if lb.text.isdigit() and lb.box.top >= block.bottom]
            stray = ink_outside(stem.with_suffix(".png"), block, float(page.width), float(page.height), footer)
            if stray:
                problems.append(f"page {n}: {stray} pixels of ink outside the text block (rendered at {dpi} dpi)")
    return problems
