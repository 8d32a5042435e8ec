"""The PDF geometry check (blkscope.paper.pdf_geometry) on PDFs made here: it must report overlapping tick labels
and a figure that runs off the text block, and pass readable labels and a figure that fits. The same check runs on
the built paper of the miniature dataset in test_workflow_e2e.py, and on every figure drawn from real runs in
test_figures.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import altair as alt
import pandas as pd
import vl_convert as vlc
from rendered_pages import check_rendered_pages
from requires import require

from blkscope.figures.theme import COLUMN_WIDTH_PT, MAX_FIGURE_HEIGHT_PT, TEXT_WIDTH_PT
from blkscope.paper.pdf_geometry import check_figure_pdf, check_paper_pdf
from blkscope.paper.pdf_labels import labels

LABELS = pd.DataFrame({"x": [f"setup number {i}" for i in range(12)], "y": range(12)})


def _figure(tmp: Path, name: str, angle: int, width: int = 200, height: int = 50) -> Path:
    chart = alt.Chart(LABELS, width=width, height=height).mark_bar().encode(
        x=alt.X("x:N", axis=alt.Axis(labelAngle=angle, labelOverlap=False)), y="y:Q"
    )
    pdf = tmp / f"{name}.pdf"
    pdf.write_bytes(vlc.vegalite_to_pdf(chart.to_dict()))
    return pdf


def test_horizontal_labels_that_run_into_each_other_are_reported(tmp_path):
    problems = check_figure_pdf(_figure(tmp_path, "flat", 0), TEXT_WIDTH_PT, MAX_FIGURE_HEIGHT_PT)
    assert problems and all("overlaps" in p for p in problems)
    assert any("'setup number 0' overlaps 'setup number 1'" in p for p in problems)


def test_rotated_labels_with_room_pass_and_crowded_ones_do_not(tmp_path):
    assert check_figure_pdf(_figure(tmp_path, "upright", -90), TEXT_WIDTH_PT, MAX_FIGURE_HEIGHT_PT) == []
    assert check_figure_pdf(_figure(tmp_path, "diagonal", -45), TEXT_WIDTH_PT, MAX_FIGURE_HEIGHT_PT) == []
    # twelve diagonal labels in 60 bp are 5 bp apart: less than a 10 bp font
    crowded = _figure(tmp_path, "crowded", -45, width=60)
    assert any("overlaps" in p for p in check_figure_pdf(crowded, TEXT_WIDTH_PT, MAX_FIGURE_HEIGHT_PT))


def test_labels_are_whole_strings_in_any_direction(tmp_path):
    import pdfplumber

    for angle in (0, -45, -90):
        with pdfplumber.open(_figure(tmp_path, f"a{-angle}", angle, width=320)) as doc:
            texts = [lb.text for lb in labels(doc.pages[0].chars)]
        assert [t for t in texts if t.startswith("setup")] == sorted(LABELS["x"]), angle


def test_a_figure_larger_than_its_space_is_reported(tmp_path):
    pdf = _figure(tmp_path, "wide", -90, width=400)  # drawn for both columns, printed in one
    assert any("exceeds" in p for p in check_figure_pdf(pdf, COLUMN_WIDTH_PT, MAX_FIGURE_HEIGHT_PT))
    assert not any("exceeds" in p for p in check_figure_pdf(pdf, TEXT_WIDTH_PT, MAX_FIGURE_HEIGHT_PT))


PAPER = r"""\documentclass[10pt]{article}
\usepackage[textwidth=345bp,textheight=660pt,centering]{geometry}
\usepackage{graphicx}
\AtBeginDocument{\pdfinfo{/BlkscopeTextBlock (\the\dimexpr1in+\hoffset+\oddsidemargin\relax\space
  \the\dimexpr1in+\voffset+\topmargin+\headheight+\headsep\relax\space\the\textwidth\space\the\textheight)}}
\begin{document}
Some text.
\begin{figure}[tbp]\centering\includegraphics{FIG}\caption{A figure and its caption.}\end{figure}
\end{document}
"""


def _paper(tmp: Path, fig: Path) -> Path:
    require("pdflatex")
    (tmp / "p.tex").write_text(PAPER.replace("FIG", str(fig)))
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "p.tex"], cwd=tmp, check=True,
                   capture_output=True)  # fmt: skip
    return tmp / "p.pdf"


def test_a_figure_that_fits_passes_on_the_page_and_rendered(tmp_path):
    pdf = _paper(tmp_path, _figure(tmp_path, "fits", -90, width=280, height=200))
    assert check_paper_pdf(pdf) == []
    assert check_rendered_pages(pdf, tmp_path / "png") == []


def test_a_figure_taller_than_the_text_block_is_reported_on_the_page_and_rendered(tmp_path):
    # LaTeX puts a float taller than the page on a page of its own and lets it run into the footer
    pdf = _paper(tmp_path, _figure(tmp_path, "tall", -90, width=280, height=760))
    problems = check_paper_pdf(pdf)
    assert any("leaves the text block" in p for p in problems), problems
    assert any("pixels of ink outside" in p for p in check_rendered_pages(pdf, tmp_path / "png"))


def test_a_pages_forms_are_parsed_once_while_the_file_is_unchanged(tmp_path, monkeypatch):
    """The check asks for a page's forms in several places (its geometry; whether it is a half-empty page of
    figures, and whether they stroke): pdf_forms.page_forms parses each page once per reader, the same boxes as a
    parse of its own, and again once the file has changed (a new reader)."""
    from pypdf import PdfReader

    from blkscope.paper import pdf_forms
    from blkscope.paper.pdf_layout import half_empty

    parsed = []
    forms = pdf_forms.forms
    monkeypatch.setattr(pdf_forms, "forms", lambda page: parsed.append(page) or forms(page))
    pdf = _paper(tmp_path, _figure(tmp_path, "fits", -90, width=280, height=200))
    n = len(PdfReader(pdf).pages)
    for _ in range(2):
        assert check_paper_pdf(pdf) == [] and not any(half_empty(pdf, i) for i in range(1, n + 1))
    assert len(parsed) == n
    first = [b for b, _ in forms(PdfReader(pdf).pages[0])]
    assert first and pdf_forms.page_form_boxes(pdf, 1) == first and len(parsed) == n
    pdf = _paper(tmp_path, _figure(tmp_path, "smaller", -90, width=200, height=100))  # the same file, rebuilt
    again = pdf_forms.page_form_boxes(pdf, 1)
    assert len(parsed) == n + 1 and again == [b for b, _ in forms(PdfReader(pdf).pages[0])] and again != first


def test_a_facet_panel_without_data_is_found():
    """complete_cells keeps a facet grid aligned by adding a cell without data: the panel check finds it."""
    import polars as pl

    from blkscope.figures.panels import panel_marks
    from blkscope.figures.theme import complete_cells

    df = pl.DataFrame({"setup": ["a", "a", "b"], "op": ["read", "write", "read"], "x": [1, 2, 3], "y": [1, 2, 3]})
    chart = (
        alt.Chart(complete_cells(df, "setup", "op"), width=60, height=30).mark_line().encode(x="x:Q", y="y:Q")
        .facet(row="setup:N", column="op:N")
    )  # fmt: skip
    marks = panel_marks(vlc.vegalite_to_svg(chart.to_dict()))
    assert len(marks) == 4 and marks.count(0) == 1  # b/write
    full = alt.Chart(df.filter(pl.col("op") == "read"), width=60, height=30).mark_point().encode(x="x:Q", y="y:Q")
    assert 0 not in panel_marks(vlc.vegalite_to_svg(full.facet(row="setup:N").to_dict()))


def _forms(pdf: Path) -> list[bytes]:
    """The content of every form XObject a PDF's pages draw, nested ones too."""
    from pypdf import PdfReader

    out, todo = [], [p.get("/Resources") for p in PdfReader(pdf).pages]
    while todo:
        res = todo.pop()
        xobjects = res.get_object().get("/XObject") if res is not None else None
        for ref in (xobjects.get_object() if xobjects is not None else {}).values():
            xo = ref.get_object()
            if xo.get("/Subtype") == "/Form":
                out.append(xo.get_data())
                todo.append(xo.get("/Resources"))
    return out


def test_the_checks_characters_are_pdfplumbers_without_the_marks_forms(tmp_path, monkeypatch):
    """text_page skips the form XObjects that cannot draw text (vl-convert draws each translucent mark as one):
    the characters the checks read are still exactly pdfplumber's, in the figure's own PDF and in a page of the
    paper that includes it (there the figure is a form that draws text, and its marks are forms inside it). The
    paper's figure is met again: its stream's parse and what its marks left of it are those of the figure's own
    PDF, remembered (pdf_chars._parsed, pdf_textless._stripped), and the characters are pdfplumber's all the same."""
    import pdfplumber

    from blkscope.paper import pdf_chars, pdf_textless
    from blkscope.paper.pdf_chars import _CHAR_KEYS, text_page
    from blkscope.paper.pdf_chars import chars as page_chars

    lexed = []
    # empty memos: what earlier tests remembered would hide a second lexing (and the first)
    monkeypatch.setattr(pdf_textless, "_STRIPPED", {})
    monkeypatch.setattr(pdf_chars, "_PARSED", {})
    strip = pdf_textless._without_textless_blocks
    monkeypatch.setattr(pdf_textless, "_without_textless_blocks",
                        lambda data, *a: lexed.append(data) or strip(data, *a))  # fmt: skip

    points = pd.DataFrame({"x": range(300), "y": [(i * 37) % 101 for i in range(300)]})
    chart = alt.Chart(points, width=280, height=200).mark_circle(opacity=0.4).encode(x="x:Q", y="y:Q")
    fig = tmp_path / "marks.pdf"
    fig.write_bytes(vlc.vegalite_to_pdf(chart.to_dict()))
    for pdf in (fig, _paper(tmp_path, fig)):
        forms = _forms(pdf)
        assert sum(b"BT" not in f and b"Do" not in f for f in forms) >= 300, pdf.name  # marks to skip
        with pdfplumber.open(pdf) as full, pdfplumber.open(pdf) as fast:
            for whole, skipped in zip(full.pages, fast.pages, strict=True):
                chars = whole.chars
                assert len(chars) > 20 and text_page(skipped).chars == chars, pdf.name
                # the checks' own reading of them (pdf_chars.chars): the keys they read, the same values
                assert page_chars(skipped) == [{k: c[k] for k in _CHAR_KEYS} for c in chars], pdf.name
                assert skipped.extract_words() == whole.extract_words()
                assert len(skipped.curves) < len(whole.curves)  # the marks were not interpreted
    assert lexed and len(lexed) == len(set(lexed))  # the figure's content, met in the paper, was not lexed again


def test_the_overlapping_labels_are_every_pair_whose_boxes_and_glyphs_overlap(monkeypatch):
    """overlapping_labels, which compares a label only with those that start left of its end, finds the pairs
    comparing every label with every other finds (Box.overlap, then the rectangles of their glyphs)."""
    import random

    from blkscope.paper import pdf_labels as g

    rng = random.Random(7)
    ls = []
    for i in range(400):
        x, y, w, h = rng.uniform(0, 300), rng.uniform(0, 300), rng.uniform(1, 40), rng.uniform(1, 10)
        corners = ((x, y), (x, y + h), (x + w, y), (x + w, y + h))
        ls.append(g.Label(str(i), g.Box(x, y, x + w, y + h), corners, y + h))
    monkeypatch.setattr(g, "labels", lambda chars: ls)
    every = {frozenset((a.text, b.text)) for i, a in enumerate(ls) for b in ls[i + 1 :]
             if a.box.overlap(b.box) and g._intersect(a, b, g.TOL)}  # fmt: skip
    found = [frozenset((a.text, b.text)) for a, b in g.overlapping_labels([])]
    assert len(every) > 20 and len(found) == len(set(found)) and set(found) == every
