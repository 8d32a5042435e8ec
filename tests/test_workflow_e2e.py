"""End to end: the whole workflow on a miniature copy of the embedded data, in a temporary directory.

The miniature is repeat 1 of every (filesystem, job) pair of the runs sheet. Expected numbers are
recomputed here straight from the raw trace text with a plain line loop, independent of the readers.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest
import zstandard

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

# tracefs blk_classic: "<maj>,<min> <cpu> <time> <pid> <action> <rwbs> <sector> + <n> [...]"
_C_LINE = re.compile(r"^\s*\d+,\d+\s+\d+\s+[\d.]+\s+\d+\s+C\s+(\S+)\s+(\d+)\s+\+\s+(\d+)")


def _completions(trace: Path) -> tuple[int, int]:
    """(C events with data, their sectors) counted from the raw text."""
    n = sectors = 0
    with open(trace, "rb") as f, zstandard.ZstdDecompressor().stream_reader(f) as z:
        for line in io.TextIOWrapper(z, encoding="utf-8", errors="replace"):
            m = _C_LINE.search(line)
            if m and int(m.group(3)) > 0 and ("R" in m.group(1) or "W" in m.group(1)):
                n += 1
                sectors += int(m.group(3))
    return n, sectors


@pytest.fixture(scope="module")
def mini(tmp_path_factory) -> tuple[Path, pl.DataFrame]:
    runs = pl.read_csv(ROOT / "config/runs.tsv", separator="\t", schema_overrides={"batch": pl.Utf8})
    have = runs.filter(pl.col("run_id").map_elements(lambda r: (ROOT / "data/raw" / r / "run.yaml").exists(),
                                                     return_dtype=pl.Boolean))
    assert have.height, "no embedded data in data/raw"
    # repeat 1 of the fio grid on the host, one run of each other workload on ext4 and xfs (traced and untraced),
    # and one guest run: every path of the workflow, in a few minutes
    host_fio = (pl.col("testbed") == "loop") & (pl.col("workload") == "fio") & pl.col("traced")
    other = (pl.col("testbed") == "loop") & (pl.col("workload") != "fio") & pl.col("filesystem").is_in(["ext4", "xfs"])
    other = other & pl.col("job").is_in(["rndrw", "none", "workloada-zipfian"])
    other = other & ~pl.col("mount_options").fill_null("").str.contains("data=writeback")
    guest = pl.col("run_id") == "guest-f2fs-fio-randrw-r1"
    light = pl.col("batch").fill_null("") == ""  # the saturating batch adds no path, only minutes
    sub = have.filter((pl.col("repeat") == 1) & light & (host_fio | other | guest))
    work = tmp_path_factory.mktemp("mini")
    for item in ["Snakefile", "workflow", "config", "profiles"]:
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, work / item)
    skip = shutil.ignore_patterns("generated", "main.pdf", "executed", ".ipynb_checkpoints")
    for item in ["paper", "notebooks"]:
        shutil.copytree(ROOT / item, work / item, ignore=skip)
    for r in sub["run_id"]:
        shutil.copytree(ROOT / "data/raw" / r, work / "data/raw" / r)
    sub.write_csv(work / "config/runs.tsv", separator="\t")
    proc = subprocess.run(["snakemake", "--cores", "2", "all"], cwd=work, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work, sub


def test_outputs_exist(mini):
    work, _ = mini
    for f in ["paper/main.pdf", "data/processed/analysis/run_summary.csv", "data/processed/analysis/rank_frequency.csv",
              "paper/generated/tables/runs.tex", "paper/generated/numbers/runs.tex",
              "notebooks/executed/access_patterns.ipynb",
              *[f"paper/generated/figures/rank_frequency.{e}" for e in ("pdf", "png", "svg")]]:
        assert (work / f).stat().st_size > 0, f


def test_figures_fit_the_text_width(mini):
    """Figures are included at their natural size, so none may be wider than the 345 pt text width."""
    from pypdf import PdfReader

    work, _ = mini
    pdfs = sorted((work / "paper/generated/figures").glob("*.pdf"))
    assert len(pdfs) >= 2
    for pdf in pdfs:
        assert float(PdfReader(pdf).pages[0].mediabox.width) <= 345.5, pdf.name
        for ext in ("png", "svg"):
            assert pdf.with_suffix(f".{ext}").stat().st_size > 0


def test_paper_and_figures_are_readable_from_the_pdf_geometry(mini, tmp_path):
    """No two text labels overlap and no figure leaves the space it is printed in: each figure's own PDF, and the
    built paper's figure pages (from the PDF's geometry, and rendered with pdftoppm for ink in the margins)."""
    from blkscope.figures.theme import MAX_FIGURE_HEIGHT_PT, TEXT_WIDTH_PT
    from blkscope.paper.pdf_geometry import check_figure_pdf, check_paper_pdf, check_rendered_pages, figure_pages

    work, _ = mini
    problems = []
    for pdf in sorted((work / "paper/generated/figures").glob("*.pdf")):
        problems += check_figure_pdf(pdf, TEXT_WIDTH_PT, MAX_FIGURE_HEIGHT_PT)
    paper = work / "paper/main.pdf"
    assert len(figure_pages(paper)) >= 5
    problems += check_paper_pdf(paper)
    problems += check_rendered_pages(paper, tmp_path / "pages")
    assert problems == [], problems[:10]


def test_tables_hold_counts_from_raw_text(mini):
    work, sub = mini
    summary = pl.read_parquet(work / "data/processed/analysis/run_summary.parquet")
    fio_host = sub.filter((pl.col("workload") == "fio") & (pl.col("testbed") == "loop") & pl.col("traced"))
    assert sorted(summary["run_id"]) == sorted(fio_host["run_id"])  # the access-frequency runs
    for r in summary.iter_rows(named=True):
        trace = work / "data/raw" / r["run_id"] / "trace.txt.zst"
        if not trace.exists():
            continue  # blktrace runs: their counts are checked against blkparse in the reader tests
        n, sectors = _completions(trace)
        assert n > 0
        assert r["sectors_completed"] == sectors, r["run_id"]


def test_pdf_holds_figure_and_generated_numbers(mini):
    from pypdf import PdfReader

    work, sub = mini
    text = " ".join(p.extract_text() for p in PdfReader(work / "paper/main.pdf").pages)
    text = re.sub(r"\s+", " ", text)
    assert "??" not in text
    # completions counted here are those with data; the macro counts every C event, so check the table instead
    summary = pl.read_parquet(work / "data/processed/analysis/run_summary.parquet")
    total = sum(_completions(work / "data/raw" / r / "trace.txt.zst")[0] for r in summary["run_id"])
    assert f"{summary['events'].sum():,}" in text
    # the method's dataset counts: every captured run of the miniature (each has workload metrics)
    metrics = pl.read_parquet(work / "data/processed/analysis/workload_metrics.parquet")
    runs = metrics.select("run_id", "traced").unique()
    assert runs.height == sub.height
    assert f"holds {runs.height:,} runs ({runs['traced'].sum():,} traced;" in text
    assert total <= summary["completions"].sum()
    for row in summary.iter_rows(named=True):
        assert f"{row['events']:,}" in text, row["run_id"]
    # the figure is embedded as a PDF form XObject on some page
    assert any("/XObject" in str(p.get("/Resources", {})) for p in PdfReader(work / "paper/main.pdf").pages)


def test_pdf_has_every_section_and_numbers_from_other_tables(mini):
    from pypdf import PdfReader

    work, _ = mini
    text = re.sub(r"\s+", " ", " ".join(p.extract_text() for p in PdfReader(work / "paper/main.pdf").pages))
    for title in ["Abstract", "Introduction", "Background: the five studies", "How skewed are block accesses",
                  "How deep is the device queue", "What does block tracing cost", "Databases on the filesystems",
                  "Claims re-tested", "Discussion", "Threats to validity", "Conclusion"]:
        assert title in text, title
    assert "skeleton" not in text.lower()
    qd = pl.read_parquet(work / "data/processed/analysis/queue_depth.parquet")
    assert f"at most {qd['max_depth'].max()} requests at once" in text
    claims = pl.read_parquet(work / "data/processed/analysis/claims.parquet")
    assert claims.height >= 5 and claims["verdict"].null_count() == 0
    for cid in claims["claim_id"]:
        assert cid in text, cid


def test_notebooks_executed_without_errors(mini):
    import json

    work, _ = mini
    executed = sorted((work / "notebooks/executed").glob("*.ipynb"))
    assert any(p.name.startswith("study_") for p in executed) and any(p.name.startswith("run_") for p in executed)
    for nb in executed:
        cells = json.loads(nb.read_text())["cells"]
        errors = [o for c in cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, nb.name
        assert any(c.get("outputs") for c in cells if c["cell_type"] == "code"), nb.name


def test_report_builds(mini):
    work, _ = mini
    proc = subprocess.run(["snakemake", "--report", "report.html"], cwd=work, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    html = (work / "report.html").read_text(errors="replace")
    assert "main.pdf" in html and "claims.csv" in html


def test_second_run_has_nothing_to_do(mini):
    work, _ = mini
    proc = subprocess.run(["snakemake", "--cores", "2", "-n", "all"], cwd=work, capture_output=True, text=True)
    assert proc.returncode == 0
    assert "Nothing to be done" in proc.stdout + proc.stderr
