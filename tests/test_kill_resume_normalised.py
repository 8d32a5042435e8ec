"""bench/normalised.py: the outputs two clean runs write with different bytes (a PDF's dates, a notebook's timestamps,
a manifest's mtimes, latexmk's record) compare equal without those, and a damaged one does not. The pairs are real
outputs of the real tools, each made twice as two runs make them (pdflatex, latexmk, blkscope.datasets, vl-convert's
svg2pdf, `blkscope notebook`)."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from blkscope import datasets

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("normalised", ROOT / "bench/normalised.py")
nm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nm)

def _kill_resume():
    """bench/kill_resume.py as a module (it imports bench/normalised.py by its bare name)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("kill_resume", ROOT / "bench/kill_resume.py")
        kr = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(kr)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return kr


TEX = r"""\documentclass{article}
\usepackage{graphicx}
\begin{document}
Section one: 42 requests in flight.
\end{document}
"""


def test_kinds_by_path():
    assert nm.kind("benchmarks/stats/seek.tsv") == nm.NOT_COMPARABLE
    assert nm.kind("logs/notebooks/study_guide.log") == nm.kind("paper/generated/build/main.log") == nm.NOT_COMPARABLE
    assert nm.kind("data/processed/datasets/frequency.tsv") == "manifest"
    assert nm.kind("data/processed/analysis/claims.csv") == "bytes"
    assert nm.kind("notebooks/executed/study_ssd.ipynb") == "notebook"
    assert nm.kind("paper/main.pdf") == nm.kind("paper/generated/figures/io_map.pdf") == "pdf"
    assert nm.kind("paper/generated/build/main.fdb_latexmk") == "latexmk"
    assert nm.same("benchmarks/x.tsv", b"1.0\n", b"2.0\n") == (None, "")


def test_a_manifest_compares_without_mtimes_and_not_without_its_hashes(tmp_path):
    table = tmp_path / "t.parquet"
    table.write_bytes(b"PAR1 real enough: the manifest hashes bytes")
    datasets.record(tmp_path / "a.tsv", [table])
    os.utime(table, ns=(1, 1))  # a second run writes the same table at another moment
    datasets.record(tmp_path / "b.tsv", [table])
    a, b = ((tmp_path / n).read_bytes() for n in ("a.tsv", "b.tsv"))
    assert a != b and nm.same("data/processed/datasets/t.tsv", a, b) == (True, "")
    table.write_bytes(b"PAR1 another table of the same length......")
    datasets.record(tmp_path / "c.tsv", [table])
    ok, why = nm.same("data/processed/datasets/t.tsv", a, (tmp_path / "c.tsv").read_bytes())
    assert ok is False and "manifest" in why
    ok, why = nm.same("data/processed/datasets/t.tsv", a, a[: len(a) - 30])  # cut mid-row
    assert ok is False and "column" in why


NOTEBOOK = """# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# A notebook as the workflow's are: jupytext percent format, a parameters cell, papermill.

# %% tags=["parameters"]
n = 3

# %%
print("sum", sum(range(n)))

# %% two charts, as the workflow's notebooks draw them (blkscope's theme: their divs numbered, not uuid4-named)
import altair as alt
from blkscope.figures import theme

for k in range(2):
    display(alt.Chart(alt.Data(values=[{"x": k}])).mark_point().encode(x="x:Q"))
"""


def test_an_executed_notebook_compares_without_its_timestamps_and_cell_ids(tmp_path):
    """`blkscope notebook` (jupytext and papermill, as the workflow runs the notebooks) twice on one notebook."""
    def execute(run: str, n: int = 3) -> bytes:  # each run in a directory of its own, as kill_resume's rounds
        d = tmp_path / run
        d.mkdir()
        (d / "nb.py").write_text(NOTEBOOK)
        subprocess.run([sys.executable, "-m", "blkscope", "notebook", "nb.py", "x.ipynb", "-p", "n", str(n)],
                       cwd=d, check=True, capture_output=True)
        return (d / "x.ipynb").read_bytes()

    a, b = execute("a"), execute("b")
    assert a != b and nm.same("notebooks/executed/x.ipynb", a, b) == (True, "")
    assert a.count(b"altair-viz-1") and a.count(b"altair-viz-2") and not a.count(b"altair-viz-3")
    assert b"sum 3" in a and nm.same("notebooks/executed/x.ipynb", a, execute("c", 4))[0] is False
    failed = json.loads(b)
    failed["cells"][-1]["metadata"]["papermill"]["status"] = "failed"  # a cell's status is compared
    assert nm.same("x.ipynb", a, json.dumps(failed).encode())[0] is False
    ok, why = nm.same("x.ipynb", a, b[: len(b) // 2])  # cut mid-JSON
    assert ok is False and "notebook" in why


@pytest.mark.requires("pdflatex")
def test_a_pdf_compares_without_its_dates_and_id_and_not_without_its_pages(tmp_path):
    def build(name: str, epoch: str, tex: str = TEX) -> bytes:
        d = tmp_path / name
        d.mkdir()
        (d / "doc.tex").write_text(tex)
        env = {**os.environ, "SOURCE_DATE_EPOCH": epoch, "FORCE_SOURCE_DATE": "1"}
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "doc.tex"], cwd=d, env=env, check=True,
                       capture_output=True)
        return (d / "doc.pdf").read_bytes()

    a, b = build("a", "1000000000"), build("b", "1800000000")  # 2001 and 2027: another date, another /ID
    assert a != b and nm.same("paper/main.pdf", a, b) == (True, "")
    other = build("c", "1000000000", TEX.replace("42", "43"))
    assert nm.same("paper/main.pdf", a, other)[0] is False
    ok, why = nm.same("paper/main.pdf", a, a[: len(a) - 200])  # cut: no xref, no trailer
    assert ok is False and "pdf" in why


@pytest.mark.requires("latexmk", "pdflatex")
def test_latexmks_record_compares_without_mtimes(tmp_path):
    """With a figure PDF as input, made with another date each time (as the figures are): its md5 is not
    compared (the PDF is, as a PDF), the .tex's is."""
    def build(name: str) -> bytes:
        d = tmp_path / name
        d.mkdir()
        (d / "fig.tex").write_text(TEX)
        env = {**os.environ, "SOURCE_DATE_EPOCH": str(10**9 * len(name)), "FORCE_SOURCE_DATE": "1"}
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "fig.tex"], cwd=d, env=env, check=True,
                       capture_output=True)  # fmt: skip
        (d / "doc.tex").write_text(TEX.replace(r"\end{document}", "\\includegraphics{fig.pdf}\n\\end{document}"))
        os.utime(d / "doc.tex", ns=(len(name) * 10**18, len(name) * 10**18))
        subprocess.run(["latexmk", "-pdf", "-interaction=nonstopmode", "doc.tex"], cwd=d, check=True,
                       capture_output=True)
        return (d / "doc.fdb_latexmk").read_bytes()

    a, b = build("a"), build("bb")
    assert a != b and nm.same("paper/generated/build/main.fdb_latexmk", a, b) == (True, "")
    assert nm.latexmk(a).count(b" - ") >= 3  # the run's times and the files' mtimes gone
    line = next(x for x in a.decode().splitlines() if x.strip().startswith('"doc.tex"'))
    size = line.split()[2]
    damaged = a.replace(line.encode(), line.replace(f" {size} ", f" {int(size) + 1} ").encode())
    assert nm.same("paper/generated/build/main.fdb_latexmk", a, damaged)[0] is False  # sizes and md5 compared
    fig = [x for x in (a.decode(), b.decode()) for x in x.splitlines() if x.strip().startswith('"fig.pdf"')]
    assert len(fig) == 2 and fig[0].split()[3] != fig[1].split()[3], fig  # the figure's bytes did differ
    md5 = line.split()[3]
    assert nm.same("paper/generated/build/main.fdb_latexmk", a, a.replace(md5.encode(), b"0" * 32))[0] is False
    aux = next(x for x in a.decode().splitlines() if x.strip().startswith('"doc.aux"'))
    stale = a.replace(aux.encode(), aux.replace(aux.split()[3], "0" * 32).encode())
    assert stale != a and nm.same("paper/generated/build/main.fdb_latexmk", a, stale) == (True, "")  # latexmk's cache


def test_a_figure_pdf_from_the_same_svg_in_two_processes_compares_equal(tmp_path):
    """vl-convert's svg2pdf, as blkscope.figures.theme.save calls it, in two processes (a Rust HashMap's order is
    per process), and from an SVG with another label."""
    text = ('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><text x="4" y="20" '
            'font-family="Liberation Sans" font-weight="bold">ext4 42</text><text x="4" y="36" '
            'font-family="Liberation Sans">xfs 7</text></svg>')
    code = "import sys, vl_convert as v; sys.stdout.buffer.write(v.svg_to_pdf(sys.argv[1]))"

    def pdf(svg: str) -> bytes:
        return subprocess.run([sys.executable, "-c", code, svg], check=True, capture_output=True).stdout

    a, b = pdf(text), pdf(text)
    assert nm.same("paper/generated/figures/f.pdf", a, b) == (True, "")
    assert nm.same("paper/generated/figures/f.pdf", a, pdf(text.replace("42", "43")))[0] is False


def test_kill_resume_lists_real_differences_and_the_not_comparable_apart(tmp_path):
    """bench/kill_resume.differences on two trees: timings listed apart, a manifest's mtime no difference, a
    changed table, a missing file and a mode are."""
    kr = _kill_resume()
    trees = [tmp_path / "ref", tmp_path / "got"]
    for i, t in enumerate(trees):
        (t / "benchmarks").mkdir(parents=True)
        (t / "benchmarks/x.tsv").write_text(f"s\n{1.5 + i}\n")
        (t / "data/processed/datasets").mkdir(parents=True)
        table = t / "data/processed/t.parquet"
        table.write_bytes(b"the same table")
        os.utime(table, ns=(i + 1, i + 1))
        datasets.record(t / "data/processed/datasets/t.tsv", [table])
        (t / "claims.csv").write_text(f"estimate\n0.{i}\n")
        (t / "only_ref.txt").write_text("x") if i == 0 else None
        (t / "mode.txt").write_text("m")
        (t / "mode.txt").chmod(0o644 if i == 0 else 0o600)
    lines, other = kr.differences(*trees)
    assert other == ["not comparable benchmarks/x.tsv"]
    assert lines == ["missing only_ref.txt", "bytes claims.csv (differs)", "mode mode.txt 644 600"]


def test_kill_rounds_count_only_kills_of_a_running_job():
    """bench/kill_resume.py's progress: a round whose moment came after the job's end (0 processes killed) is recorded
    but not counted, the next round takes the next number, and round 0's time bounds the moments."""
    kr = _kill_resume()
    head = "# abc seed 1 cores 2; ref run 540.8 s, 10 files\nround\tkill_at_s\tkilled_processes\trerun_exit\trerun_s\n"
    rows = ["0\t0.0\t0\t0\t381.3", "1\t392.8\t0\t0\t8.6", "2\t260.0\t5\t0\t57.1"]
    assert kr.progress(head) == (0, 0, None)
    assert kr.progress(head + "\n".join(rows) + "\n") == (3, 1, 381.3)
