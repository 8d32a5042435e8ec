"""The claims table as LaTeX builds it in the paper's class: a longtable in the one-column appendix that breaks
across pages, stays inside the text block, and prints every row with every column (found in the PDF by
blkscope.paper.pdf_text, as the paper rule finds them in the built paper). Rows: the claims of
blkscope.paper.claims with the estimates of the reference table of an earlier build (paper/reference), twice (the
second copy's ids marked), so that the table is long enough to break."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

from blkscope.paper.bookkeeping import internal_words
from blkscope.paper.claims import CLAIMS
from blkscope.paper.pdf_geometry import check_paper_pdf
from blkscope.paper.pdf_words import hyphen_signs, missing_claims, pages_text, pdf_pages, pdf_text
from blkscope.paper.tables import claims_columns, claims_parts, claims_table, printed_columns

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = sorted((ROOT / "paper/reference").glob("claims-*.csv"))[0]
DOC = r"""\documentclass[conference,letterpaper]{IEEEtran}
\usepackage[T1]{fontenc}
\usepackage{amsmath,graphicx,booktabs,array,longtable}
\AtBeginDocument{\pdfinfo{/BlkscopeTextBlock (\the\dimexpr1in+\hoffset+\oddsidemargin\relax\space
  \the\dimexpr1in+\voffset+\topmargin+\headheight+\headsep\relax\space\the\textwidth\space\the\textheight)}}
\begin{document}
\onecolumn
\appendices
\section{Every claim}\label{app:claims}
\input{claims.tex}
\end{document}
"""


def _claims() -> pl.DataFrame:
    ref = pl.read_csv(REFERENCE)
    rows = [{"claim_id": c.claim_id, "study": c.study, "claim": c.claim, "quantity": c.quantity,
             "band": f"{c.size.text} for '{c.claimed}'", "n_needed": "--", "reason": None} for c in CLAIMS]  # fmt: skip
    df = pl.DataFrame(rows).join(ref, on="claim_id", how="left").with_columns(pl.col("verdict").fill_null("not tested"))
    return pl.concat([df, df.with_columns(claim_id=pl.col("claim_id") + "-again")])


def _build(tmp: Path, claims: pl.DataFrame, tex: str | None = None) -> Path:
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed (deps/debian-main.txt: make setup installs TeX Live)")
    (tmp / "claims.tex").write_text(tex if tex is not None else claims_table(claims))
    (tmp / "p.tex").write_text(DOC)
    for _ in range(2):  # longtable settles its column widths on the second run
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "p.tex"], cwd=tmp, check=True,
                       capture_output=True)  # fmt: skip
    return tmp / "p.pdf"


def test_every_claim_with_every_column_is_in_the_pdf_inside_the_text_block(tmp_path):
    from pypdf import PdfReader

    claims = _claims()
    pdf = _build(tmp_path, claims)
    assert len(PdfReader(pdf).pages) >= 3  # the table broke across pages
    columns = printed_columns(claims_columns(claims))
    assert {"claim_id", "claim", "quantity", "band", "ours", "n", "load", "verdict"} <= set(columns)
    assert missing_claims(pdf_text(pdf), claims, columns) == []
    assert check_paper_pdf(pdf, every_page=True) == []
    # the reference's negative estimates ("-0.6 % [-3.8 %, ...]") print with a minus sign, not a hyphen
    assert claims["ours"].str.contains(r"(?:^|\[)-\d").any()
    typeset = pdf_text(pdf, typeset=True)
    assert hyphen_signs(typeset) == [] and "\u22120.6" in typeset
    # the paper rule's checks read their ranges from one pdftotext run: the text each range's own run gives
    pages = pdf_pages(pdf)
    n = len(PdfReader(pdf).pages)
    assert len(pages) == n
    for first, last in [(None, None), (1, 1), (2, None), (1, n - 1), (n, n)]:
        for typeset in (False, True):
            assert pages_text(pages, first, last, typeset) == pdf_text(pdf, first, last, typeset), (first, last)


def test_a_row_cut_from_the_table_is_reported(tmp_path):
    claims = _claims()
    tex = claims_table(claims)
    cut = "\n".join(line for line in tex.splitlines() if not line.startswith("S4-ms &"))
    cut = cut.replace(r"\ensuremath{-}", "-")  # and the signs set as hyphens, as they were
    pdf = _build(tmp_path, claims, cut)
    problems = missing_claims(pdf_text(pdf), claims, printed_columns(claims_columns(claims)))
    assert any(p.startswith("claim S4-ms:") for p in problems), problems
    assert any("'-0.6'" in p for p in hyphen_signs(pdf_text(pdf, typeset=True)))


def test_columns_the_claims_plan_adds_are_printed():
    claims = _claims().with_columns(verdict_unadjusted=pl.lit("replicates"), condition=pl.lit("in-memory"),
                                    runs_read=pl.lit("saturating, steady window"))  # fmt: skip
    columns = printed_columns(claims_columns(claims))
    assert columns.index("condition") < columns.index("runs_read") < columns.index("verdict_unadjusted")
    assert columns[-2:] == ["verdict_unadjusted", "verdict"]
    assert "& verdict, unadjusted & verdict, adjusted" in claims_table(claims)


def test_a_table_of_more_columns_than_a_page_holds_prints_in_two_parts_each_row_whole(tmp_path):
    claims = _claims().with_columns(verdict_unadjusted=pl.lit("inconclusive"), condition=pl.lit("replication"),
                                    runs_read=pl.lit("saturating, steady window"), window=pl.lit("whole run"),
                                    n_planned=pl.lit("3"), ours_all=pl.lit("1.10x [0.90x, 1.30x]"))  # fmt: skip
    parts = claims_parts(claims)
    assert len(parts) == 2 and all(p[0][0] == "claim_id" for p in parts)
    assert sorted(printed_columns(parts[0]) + printed_columns(parts[1])[2:]) == sorted(
        printed_columns(claims_columns(claims)))  # every column printed once, beside the id (and condition)
    pdf = _build(tmp_path, claims)
    text = pdf_text(pdf)
    for part in parts:
        assert missing_claims(text, claims, printed_columns(part)) == []
    assert check_paper_pdf(pdf, every_page=True) == []


def test_internal_words_are_found():
    text = "runs of round3-decide-2 (issue L) at commit 19e2942; Round 4 of the work; ext4 and f2fs on S1-zipf"
    found = internal_words(text)
    assert any("round3-decide-2" in f for f in found) and any("issue L" in f for f in found)
    assert any("19e2942" in f for f in found) and any("Round 4" in f for f in found)
    assert internal_words("(after an internal review, once the estimates had been seen)")  # the project's process
    assert internal_words("ext4, f2fs, S1-zipf, p99, inode64, 2026-11-27, 0.95x [0.83x, 1.10x]") == []


LAYOUT = r"""\documentclass[conference,letterpaper]{IEEEtran}
\usepackage{graphicx}
\AtBeginDocument{\pdfinfo{/BlkscopeTextBlock (\the\dimexpr1in+\hoffset+\oddsidemargin\relax\space
  \the\dimexpr1in+\voffset+\topmargin+\headheight+\headsep\relax\space\the\textwidth\space\the\textheight)}}
\begin{document}
Some text of the main part.
\begin{figure*}[p]\centering\includegraphics{fig.pdf}\caption{A small figure alone on a page of floats.}\end{figure*}
\clearpage
\pdfinfo{/BlkscopeReferencesPage (\thepage)}
References.
\clearpage
\onecolumn
\pdfinfo{/BlkscopeAppendixPage (\thepage)}
\appendices
\section{Every claim}
An appendix.
\begin{figure}[p]\centering\includegraphics{fig.pdf}\caption{An appendix figure alone on a page.}\end{figure}
\clearpage
\section{Data}
More text.
\begin{figure}[p]\centering\includegraphics{fig.pdf}\caption{The last page: left to the end.}\end{figure}
\end{document}
"""


# the last page ends on text: its figure above the document's last words (LAYOUT's ends on a lone figure)
ENDS_ON_TEXT = LAYOUT.replace(
    r"""More text.
\begin{figure}[p]\centering\includegraphics{fig.pdf}\caption{The last page: left to the end.}\end{figure}""",
    r"""\begin{figure}[t]\centering\includegraphics{fig.pdf}\caption{The last page's figure.}\end{figure}
More text, the document's last words.""")


# the last page a lone figure that draws nothing but its message (theme.no_data: a dataset without its runs)
ENDS_ON_PLACEHOLDER = LAYOUT.replace(r"\includegraphics{fig.pdf}\caption{The last page: left to the end.}",
                                     r"\includegraphics{none.pdf}\caption{The last page: no data.}")


# the appendix's float page holds a table below its figure, set smaller than body text, that fills the page: full
TABLE_ROWS = "\\\\\n".join(f"row {i} & {i * 7} & setup {i}" for i in range(40))
WITH_TABLE = LAYOUT.replace(
    r"\caption{An appendix figure alone on a page.}\end{figure}",
    r"\caption{An appendix figure alone on a page.}\end{figure}"
    "\n\\begin{table}[p]\\centering\\footnotesize\\caption{A table.}\\begin{tabular}{lrl}" + TABLE_ROWS
    + "\n\\end{tabular}\\end{table}")

# the appendix's float page holds two small figures: LaTeX spreads them over the page, which they leave half empty
TWO_SMALL = LAYOUT.replace(
    r"\caption{An appendix figure alone on a page.}\end{figure}",
    r"\caption{An appendix figure alone on a page.}\end{figure}"
    "\n\\begin{figure}[p]\\centering\\includegraphics{fig.pdf}\\caption{A second one.}\\end{figure}")


@pytest.mark.parametrize(("tex", "pages", "lone"), [(LAYOUT, 7, [2, 5, 7]), (ENDS_ON_TEXT, 6, [2, 5]),
                                                    (ENDS_ON_PLACEHOLDER, 7, [2, 5]), (WITH_TABLE, 7, [2, 7]),
                                                    (TWO_SMALL, 7, [2, 5, 7])])
def test_layout_counts_pages_and_finds_a_lone_half_empty_figure_page(tmp_path, tex, pages, lone):
    """A figure a third of a page high, alone on a float page: the length check reports that page, in the main text
    and in the appendices alike, and on the last page where the document ends on it; a last page that ends on text
    below its figure is not one (the floats the last words leave, where nothing after could share the page), nor a
    page of a placeholder alone (a figure that draws only its message: a dataset without the figure's runs)."""
    import altair as alt
    import vl_convert as vlc

    from blkscope.figures.theme import no_data
    from blkscope.paper.pdf_layout import layout

    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed (deps/debian-main.txt: make setup installs TeX Live)")
    chart = alt.Chart(pl.DataFrame({"x": [1, 2], "y": [1, 2]}), width=200, height=80).mark_line().encode(x="x", y="y")
    (tmp_path / "fig.pdf").write_bytes(vlc.vegalite_to_pdf(chart.to_dict()))
    (tmp_path / "none.pdf").write_bytes(vlc.vegalite_to_pdf(no_data("No data: no runs of this figure").to_dict()))
    (tmp_path / "p.tex").write_text(tex)
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "p.tex"], cwd=tmp_path, check=True,
                   capture_output=True)  # fmt: skip
    lay = layout(tmp_path / "p.pdf")
    assert (lay["pages"], lay["main_pages"], lay["reference_pages"], lay["appendix_pages"]) == (pages, 2, 1, pages - 3)
    assert lay["half_empty_figure_pages"] == lone and 0 < lay["figure_share_per_main_page"][1] < 0.5
    assert len(lay["figure_share_per_main_page"]) == 2  # the share is the main text's


def test_a_claim_under_two_conditions_needs_both_rows():
    rows = pl.DataFrame({"claim_id": ["S1-zipf", "S1-zipf"], "claim": ["Zipf", "Zipf"],
                         "condition": ["in-memory", "scale"], "verdict": ["does not", "inconclusive"]})  # fmt: skip
    cols = ["claim_id", "claim", "condition", "verdict"]
    both = "S1-zipf Zipf in-memory does not\nS1-zipf Zipf scale inconclusive"
    assert missing_claims(both, rows, cols) == []
    one = "S1-zipf Zipf in-memory does not\nS2-ops Zipf scale inconclusive"
    assert missing_claims(one, rows, cols) == ["claim S1-zipf: not in the PDF"]


def test_reasons_are_printed_without_pointers_to_the_projects_bookkeeping():
    from blkscope.paper.tables import public

    assert public("no `extents` table in the dataset (issue L item 4)") == "no `extents` table in the dataset"
    assert public("runs on two volume sizes (batch round3-claims).") == "runs on two volume sizes."
    kept = "f2fs runs exist only in the emulated guest (qemu TCG)"
    assert public(kept) == kept


def test_the_pdf_gives_one_count_of_captured_runs():
    from blkscope.paper.pdf_words import disagreeing_run_counts

    abstract = "We re-test the claims ... on 1,194\ncaptured runs (319 traced) of 6 workloads"
    appendix = "The dataset holds 1,184 captured runs, each in a directory of its own"
    assert disagreeing_run_counts(abstract + appendix.replace("1,184", "1,194")) == []
    said = disagreeing_run_counts(abstract + "\n" + appendix)
    assert said == ["the PDF gives 2 counts of captured runs: 1,184, 1,194"]


def test_a_cell_names_no_batch_and_no_issue():
    from blkscope.paper.tables import plain

    assert plain("batch round4-rocksdb-capped: traced YCSB") == "its own batch: traced YCSB"
    # the plan's names as its rows give them: two names, a name per filesystem, a confirmatory batch
    assert plain("batches round4-rocksdb-capped and round4-rocksdb-capped-2: traced") == "its own two batches: traced"
    assert plain("YCSB, saturating, round3-ycsb-cass-<fs>") == "YCSB, saturating, its own batch per filesystem"
    assert plain("write-n, confirmatory batches round3-capped, round3-capped-2m") == \
        "Cassandra fixed writes, its own two planned batches"  # fmt: skip
    # the plan's shorthand in words
    assert plain("traced, steady=true, data >= 10x cap") == "traced, steady runs only, data >= 10x cap"
    assert plain("3 s from 150 s (run.yaml tracer.window)") == "3 s from 150 s (the kept trace window)"
    # not twice where the words already say it
    assert plain("the trace's kept window of 3 s (run.yaml tracer.window), which") == \
        "the trace's kept window of 3 s, which"  # fmt: skip
    assert plain("light, confirmatory batches") == "light, planned batches"
    # a word that starts like a batch's name is a word ("saturated" was printed "a batch of its ownd")
    assert plain("aqu-sz from the first saturated report") == "aqu-sz from the first saturated report"
    assert plain("saturating (saturate-3) if judged") == "saturating if judged"
    assert plain("on Cassandra (a capped batch of issue P), steady") == "on Cassandra, steady"
    assert plain("whole run (2 s saturating)") == "whole run (2 s saturating)"  # a parenthesis of the study's stays
    assert internal_words(plain("replication batch round4-decide-hot: traced")) == []


def test_a_judged_row_without_its_window_or_condition_is_reported():
    from blkscope.paper.pdf_words import unstated_runs

    rows = pl.DataFrame({"claim_id": ["S1-a", "S1-b", "S1-c"], "verdict": ["replicates", "inconclusive", "not tested"],
                         "condition": ["scale", "in-memory", "scale"], "window": ["steady window", "--", None],
                         "n": ["3 vs 3", "2", "0"]})  # fmt: skip
    assert unstated_runs(rows) == ["claim S1-b: no window stated"]  # S1-c reads no runs: nothing to state
    assert unstated_runs(rows.drop("window")) == ["the claims table has no column 'window'"]


def test_the_conditions_table_stays_inside_the_text_block(tmp_path):
    """The runs appendix's conditions table (blkscope.paper.run_conditions) at the dataset's widest: the longest job
    names and every column, 60 conditions so that it breaks across pages."""
    from blkscope.paper.run_conditions import table

    jobs = ["workloada-zipfian-buffered-sat", "workloada-c-zipfian-sat", "write-lz4-capped", "rndrw-max"]
    n = 60
    st = pl.DataFrame({
        "run_id": [f"r{i}" for i in range(n)], "testbed": ["loop", "guest"] * (n // 2),
        "workload": ["cassandra-ycsb", "sysbench", "ycsb"] * (n // 3), "job": [f"{jobs[i % 4]}-{i}" for i in range(n)],
        "memory_cap": [None, "384M", "320M"] * (n // 3), "traced": [True, False] * (n // 2),
        "run_s": [242.0, 2.0] * (n // 2), "window_start_s": [30.0, 0.0] * (n // 2),
        "window_s": [212.0, 2.0] * (n // 2), "steady": [True, False] * (n // 2),
    })  # fmt: skip
    pdf = _build(tmp_path, pl.DataFrame(), table(st))
    assert check_paper_pdf(pdf, every_page=True) == []
    assert "workloada-zipfian-buffered-sat-0" in pdf_text(pdf).replace("\n", "")


def test_the_check_in_parallel_parts_finds_what_it_finds_in_one_process(tmp_path, monkeypatch):
    """check_all (the paper rule's check, in parts run by processes) gives check()'s problems, then
    check_figures()', in the same order, and the same layout: here a figure whose labels overlap, on a float page
    it leaves half empty, and claims the paper does not print. The figure the paper draws is checked in the part
    of the pages that draw it, the one it does not draw in a part of its own."""
    import altair as alt
    import vl_convert as vlc

    from blkscope.paper import pdf_text as pt

    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed (deps/debian-main.txt: make setup installs TeX Live)")
    labels = pl.DataFrame({"x": [f"setup number {i}" for i in range(12)], "y": range(12)})
    chart = alt.Chart(labels, width=200, height=80).mark_circle(opacity=0.5).encode(
        x=alt.X("x:N", axis=alt.Axis(labelAngle=0, labelOverlap=False)), y="y:Q")  # fmt: skip
    figs = [tmp_path / "rank_frequency.pdf", tmp_path / "queue_depth.pdf"]  # names the width check knows
    for f in figs:
        f.write_bytes(vlc.vegalite_to_pdf(chart.to_dict()))
    (tmp_path / "p.tex").write_text(LAYOUT.replace("fig.pdf", figs[0].name))
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "p.tex"], cwd=tmp_path, check=True,
                   capture_output=True)  # fmt: skip
    pdf, claims = tmp_path / "p.pdf", tmp_path / "claims.parquet"
    _claims().head(3).write_parquet(claims)
    problems, lay = pt.check(pdf, pl.read_parquet(claims))
    problems += pt.check_figures(figs)
    assert any("overlaps" in p for p in problems) and any("not in the PDF" in p for p in problems)
    assert any("half full" in p for p in problems)
    assert pt._drawn(pdf, figs) == {2: [figs[0]], 5: [figs[0]], 7: [figs[0]]}
    assert pt.check_all(pdf, claims, figs, jobs=2) == (problems, lay)
    monkeypatch.setattr(pt, "PAGES_PER_PART", 1)  # a part per page
    assert pt.check_all(pdf, claims, figs, jobs=2) == (problems, lay)


def test_a_cell_names_setups_in_plain_words_not_by_the_run_sheets_job_ids():
    from blkscope.paper.tables import plain

    # review-q5 N10/N15: the one mapping of plain names (blkscope.figures.names) for every setup the PDF shows;
    # words that are no job id stay ("cassandra-stress write ops/s", "write-back", "a job")
    said = {"host cassandra-stress write-n, uncompressed": "host Cassandra fixed writes, uncompressed",
            "untraced capped write-n uncompressed": "untraced capped Cassandra fixed writes uncompressed",
            "untraced sysbench rndrw-max-256m on 16 TiB": "untraced sysbench volume test on 16 TiB",
            "writer alone, job prealloc, ext4": "writer alone, the journal prefilled setup, ext4",
            "ext4/xfs cassandra-stress write ops/s; write-back of a job": None}
    assert {k: plain(k) for k in said} == {k: v or k for k, v in said.items()}


def test_the_unadjusted_verdict_prints_once_and_the_reason_once():
    from blkscope.paper.tables import AS_ADJUSTED, claims_table, unadjusted_cell

    ruled = "outside the study's condition: runs of 11 s, under the 60 s journal latency needs"
    assert unadjusted_cell({"verdict_unadjusted": ruled, "verdict": ruled}) == AS_ADJUSTED
    assert unadjusted_cell({"verdict_unadjusted": "does not", "verdict": "inconclusive"}) == "does not"
    assert unadjusted_cell({"verdict_unadjusted": None, "verdict": "inconclusive"}) is None
    claims = _claims().head(2).with_columns(verdict_unadjusted=pl.Series([ruled, "does not"]),
                                            verdict=pl.Series([ruled, "inconclusive"]))
    tex = claims_table(claims)
    assert tex.count("under the 60 s journal latency needs") == 1 and f"& {AS_ADJUSTED} &" in tex
    # the check looks for the cell as printed: the reason once, after "as adjusted"
    text = " ".join(f"{r['claim_id']} {AS_ADJUSTED if r['verdict'] == ruled else 'does not'} {r['verdict']}"
                    for r in claims.iter_rows(named=True))
    assert missing_claims(text, claims, ["claim_id", "verdict_unadjusted", "verdict"]) == []


def test_a_row_of_the_condition_rule_prints_its_planned_verdict_first_as_the_headline_counts_it():
    """Issue Q: the headline counts the planned (Holm) verdicts, the condition rule a caveat; the table printed
    the rule's "not testable here: X; planned: Y". The planned verdict leads, the condition after it, and the
    unadjusted cell is the planned verdict's before Holm."""
    from blkscope.paper.tables import AS_ADJUSTED, unadjusted_cell, verdict_cell

    ruled = {"claim_id": "S1-x", "verdict": "outside the study's condition: in memory", "verdict_unadjusted":
             "outside the study's condition: in memory", "verdict_planned": "inconclusive", "caveat": "in memory",
             "verdict_planned_unadjusted": "does not", "measure_changed": True}
    assert verdict_cell(ruled) == ("inconclusive; measure changed after the plan; outside the study's condition: "
                                   "in memory")
    assert unadjusted_cell(ruled) == "does not"
    assert unadjusted_cell({**ruled, "verdict_planned_unadjusted": "inconclusive"}) == AS_ADJUSTED
    # a narrowing after the estimate was seen, from the plan's deviations, beside every row that has one
    assert verdict_cell({**ruled, "narrowed": "to YCSB workload A"}) == (
        "inconclusive; measure changed after the plan; narrowed after its estimate was seen, to YCSB workload A; "
        "outside the study's condition: in memory")
    # the PDF check looks for the cell as printed, not the rule's verdict first
    claims = pl.DataFrame([ruled])
    cols = ["claim_id", "verdict_unadjusted", "verdict"]
    assert missing_claims(f"S1-x does not {verdict_cell(ruled)}", claims, cols) == []
    assert missing_claims("S1-x does not not testable here: in memory; planned: inconclusive", claims, cols) != []
