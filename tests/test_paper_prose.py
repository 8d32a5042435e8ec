"""The prose check (blkscope.paper.prose): a number typed in the paper's text or a range word is reported with its
file and line; macros, years, references, code and identifiers pass; and the paper's own sections pass."""

from __future__ import annotations

from pathlib import Path

from blkscope.paper.prose import check, main, range_words, typed_numbers

ROOT = Path(__file__).resolve().parents[1]


def test_typed_numbers_are_found_with_their_line():
    tex = "Intro.\nThe queue held 0.957 to 11.368 requests,\nabout 4x more (24--36\\,\\%) in 250{,}000 rows.\n"
    assert [(line, n) for line, n, _ in typed_numbers(tex)] == [(2, "0.957"), (2, "11.368"), (3, "4"), (3, "24"),
                                                                (3, "36"), (3, "250{,}000")]  # fmt: skip


def test_macros_years_references_code_and_identifiers_pass():
    tex = (r"In 2019 ext4, f2fs and S1-zipf (p99, Q2Q, inode64) ran \blk{RunsLight} runs; see Section~\ref{sec:x2},"
           r" Figure~\ref{fig:3}, \cite{ref2021}, \texttt{iostat -x 1} and \LitSsdOverheadCassandraLo\,\%."
           "\n% a comment with 42\n\\begin{figure*}[tbp]\\includegraphics{fig1.pdf}\\end{figure*}")
    assert typed_numbers(tex) == []


def test_only_a_year_in_a_dating_context_passes_as_a_year():
    """Review: any number from 1900 to 2099 passed as a year ("2048 requests"); now a four-digit token from 1990 to
    2030 after a word that dates it."""
    assert [n for _, n, _ in typed_numbers("Queues held 2048 requests; in 2048 too; it ran 2019 runs.")] == [
        "2048", "2048", "2019"]
    assert typed_numbers("Published in 2019, since 2021 and (2007); in May 2018 ext4 changed.") == []
    assert [n for _, n, _ in typed_numbers("A run of 1995 s.")] == ["1995"]


def test_the_preamble_is_not_prose():
    tex = "\\documentclass{article}\n\\setcounter{topnumber}{3}\n\\begin{document}\nIt ran 3 times.\n"
    assert [(line, n) for line, n, _ in typed_numbers(tex)] == [(4, "3")]


def test_range_words_are_found_outside_macros():
    tex = "The device rarely had more than\nabout one request; \\blk{QdLightAboveOnePhrase}."
    assert [(line, w) for line, w, _ in range_words(tex)] == [(1, "rarely"), (2, "about one")]


def test_the_check_fails_on_a_typed_number_and_names_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.tex"
    bad.write_text("Fine.\nThe tracer lost 0 events.\n")
    assert check([bad]) == [f"{bad}:2: the number '0' is typed, not a macro: The tracer lost 0 events."]
    assert main([str(bad)]) == 1 and "bad.tex:2" in capsys.readouterr().err


def test_the_papers_prose_passes():
    paths = [ROOT / "paper/main.tex", *sorted((ROOT / "paper/sections").glob("*.tex"))]
    assert check(paths) == []


def test_a_generated_macro_printed_nowhere_is_reported(tmp_path):
    from blkscope.paper.prose import unused_macros

    gen = tmp_path / "advice.tex"
    gen.write_text("\\newcommand{\\AdviceA}{a}\n\\newcommand{\\AdviceB}{b \\AdviceC}\n\\newcommand{\\AdviceC}{c}\n"
                   "\\newcommand{\\ClaimSTwoOpsSays}{d}\n\\newcommand{\\ClaimsDead}{e}\n")
    sec = tmp_path / "s.tex"
    sec.write_text("\\blk{AdviceA} and \\AdviceB.\n")
    # AdviceC inside another macro is used; a per-row clause may go unprinted; a count may not
    assert unused_macros([gen], [sec]) == ["advice.tex: ClaimsDead is printed nowhere"]


def test_generated_text_is_checked_for_range_words_alone(tmp_path, capsys):
    cap = tmp_path / "figure.tex"
    cap.write_text("\\caption{12 runs; most pages were read once.}\n")
    assert check([cap], words_only=True) == [
        f"{cap}:1: 'most' characterises a range without a macro: \\caption{{12 runs; most pages were read once.}}"]
    sec = tmp_path / "s.tex"
    sec.write_text("Fine.\n")
    assert main([str(sec), "--words-only", str(cap)]) == 1 and "figure.tex:1" in capsys.readouterr().err
    assert main([str(sec)]) == 0


def test_no_figure_caption_characterises_a_range_in_fixed_words():
    import importlib

    from blkscope.figures import FIGURES

    for module in FIGURES.values():
        mod = importlib.import_module(f"blkscope.figures.{module}")
        if hasattr(mod, "CAPTION"):  # a caption(table) is read from the data: the paper rule checks its output
            assert range_words(mod.CAPTION) == [], module


def test_the_figures_of_appendix_b_print_within_it_numbered_as_its_own():
    """Review: Appendix B's figures printed after Appendix D, and the main text cited them as Figures 15-18 with no
    word of where they were. Each figure input of Appendix B comes after its numbering as B1, B2, ... and before a
    \\clearpage that precedes the next appendix; none sits inside a paragraph (a float's line end left a run of
    spaces in the text)."""
    import re

    tex = (ROOT / "paper/sections/appendix.tex").read_text()
    part = tex[tex.index(r"\label{app:figures}"): tex.index(r"\section{The runs}")]
    inputs = [m.start() for m in re.finditer(r"\\input\{generated/figures/", part)]
    assert inputs and part.index(r"\appendixfigures{B}") < inputs[0]
    assert r"\clearpage" in part[inputs[-1]:]
    assert re.search(r"\n[ \t]*\n(?:%[^\n]*\n)*$", part[:inputs[0]])  # a blank line: between paragraphs
    assert r"\renewcommand{\theHfigure}" in (ROOT / "paper/main.tex").read_text()


def test_each_retested_study_is_cited_where_section_ii_introduces_it_and_its_entry_invents_nothing():
    """Review: the five re-tested write-ups were never cited. Each paragraph of Section II that introduces a study
    cites its entry; an entry records only what the project knows of it (a descriptive title, the kind of write-up,
    the software it states) and says that no author, date or address is recorded: no author, year or url field."""
    import re

    bib = (ROOT / "paper/refs.bib").read_text()
    studies = {m.group(1): m.group(2) for m in re.finditer(r"@misc\{(study-[a-z]+),(.*?)\n\}", bib, re.S)}
    assert len(studies) == 5
    for key, body in studies.items():
        assert not re.search(r"^\s*(author|year|url|howpublished\s*=\s*\{\\url)", body, re.M | re.I), key
        assert "no author, date or stable address recorded" in body
    background = (ROOT / "paper/sections/background.tex").read_text()
    paragraphs = re.split(r"\\paragraph\{", background)[1:6]
    assert [re.findall(r"\\cite\{(study-[a-z]+)\}", p) for p in paragraphs] == [[k] for k in studies]
