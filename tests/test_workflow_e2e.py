"""End to end: the whole workflow on a miniature copy of the embedded data, in a temporary directory.

The miniature is repeat 1 of every (filesystem, job) pair of the runs sheet. Expected numbers are
recomputed here straight from the raw trace text with a plain line loop, independent of the readers.
Beside them, users' own logs (../shared/samples; without it the tests of the imports fail) are registered
with `blkscope import`, one run per source, and the same workflow run analyses them, each in tables of its own;
importing one more afterwards plans that run's jobs alone.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import samples
import zstandard
from modes import off_umask
from plans import planned
from test_code_hash import package_copy

ROOT = Path(__file__).resolve().parents[1]
UMASK = 0o002
pytestmark = pytest.mark.slow
SAMPLES = samples.SAMPLES
# users' own logs, one run per source (SAMPLES/SOURCES.md: where each comes from), with what a user would state:
# one of each kind the importer takes, each a path of the workflow no embedded run takes (bench/RESULTS.md,
# "The e2e miniature"): a blktrace binary set (8 CPU files, discards), a blkparse text (remaps, flushes without
# length), an iostat text log alone, a YCSB log alone, a cassandra-stress log. A traced import is a scope of ~20
# jobs of its own (common.smk Scope): a second blktrace set (CentOS 7's 2-CPU sda set, until 2026-11-29) took
# the same paths as the first, for ~9 % of the module's CPU; its reader is tested in test_readers_trace_blktrace.
IMPORTS = {
    "imported-keks": ["--filesystem", "ext4", "--workload", "other", "--job", "keks", "--origin",
                      "github.com/isotopp/blktrace_to_influx tests/testdata", "--trace",
                      *[f"blktrace-bin/influx_keks/keks.blktrace.{i}" for i in range(8)]],
    "imported-nvme-dmcrypt": ["--filesystem", "ext4", "--workload", "other", "--job", "nvme-dmcrypt", "--trace",
                              "blkparse/nvme_dmcrypt_flush_barriers_with_summary.txt"],
    "imported-iostatplot": ["--filesystem", "ext4", "--workload", "other", "--job", "iostatplot", "--iostat",
                            "iostat/iostatplot_ubuntu1404_sysstat10_xmt.txt"],
    "imported-redis-ycsb": ["--filesystem", "ext4", "--job", "workloada", "--database", "redis", "--log",
                            "ycsb/ycsb0170_redis_workloada_run.txt"],
    "imported-cstress-ru": ["--filesystem", "ext4", "--job", "user-profile", "--database", "cassandra", "--log",
                            "cassandra-stress/cs311_user_profile_ru_locale_autothreads.txt"],
}  # fmt: skip
TRACE_ARGS = ("--trace", "--iostat", "--log")


def _sample_files(args: list[str]) -> list[Path]:
    """The sample files among an import's arguments (those after --trace, --iostat or --log)."""
    files, taking = [], False
    for a in args:
        taking = a in TRACE_ARGS or (taking and not a.startswith("--"))
        if taking and a not in TRACE_ARGS:
            files.append(SAMPLES / a)
    return files


# `blkscope import` once per argv, in one process (the CLI's main, as the blkscope script calls it): one Python
# start-up instead of six, ~2 s each
_IMPORT_ALL = """import json, sys
from blkscope.cli import main
for argv in json.loads(sys.argv[1]):
    if main(argv) != 0:
        sys.exit(f"blkscope {' '.join(argv)} failed")
"""


def _import_samples(work: Path) -> list[str]:
    """`blkscope import` of IMPORTS into the miniature (none when ../shared/samples is absent: the tests of the
    imports then fail, the rest of the workflow is still checked)."""
    if not SAMPLES.is_dir():
        return []
    argvs = []
    for run, args in IMPORTS.items():
        argv = [str(SAMPLES / a) if (SAMPLES / a).is_file() else a for a in args]
        argvs.append(["import", run, *argv, "--raw", "data/raw", "--sheet", "config/runs.tsv"])
    subprocess.run([sys.executable, "-c", _IMPORT_ALL, json.dumps(argvs)], cwd=work, check=True, capture_output=True,
                   umask=UMASK)  # fmt: skip
    return list(IMPORTS)


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
    captured = [r for r in runs["run_id"] if (ROOT / "data/raw" / r / "run.yaml").exists()]
    have = runs.filter(pl.col("run_id").is_in(captured))
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
    _import_samples(work)
    # umask 002 (a lab group's): the outputs must be 0664 / 0775, not mkstemp's 0600 nor a fixed 0644
    proc = subprocess.run(["snakemake", "--cores", "2", "all"], cwd=work, capture_output=True, text=True,
                          umask=UMASK)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work, sub


def test_outputs_follow_the_umask(mini):
    work, _ = mini
    outputs = [work / p for p in ("data/processed", "paper/generated", "paper/main.pdf", "notebooks/executed")]
    outputs += sorted((work / "data/raw").glob("imported-*"))  # `blkscope import` writes through a staging directory
    assert off_umask(outputs, UMASK) == []


def test_outputs_exist(mini):
    work, _ = mini
    expected = [
        "paper/main.pdf",
        "data/processed/analysis/run_summary.csv",
        "data/processed/analysis/rank_frequency.csv",
        "paper/generated/tables/runs.tex",
        "paper/generated/numbers/runs.tex",
        "notebooks/executed/access_patterns.ipynb",
        *[f"paper/generated/figures/rank_frequency.{e}" for e in ("pdf", "png", "svg")],
    ]
    for f in expected:
        assert (work / f).stat().st_size > 0, f


def test_every_figure_job_checked_its_panels(mini):
    """Each figure job checks the figure it draws for panels without data before writing it (figures.theme.save):
    its log says so, and the figures written have none (the miniature's choice of setups once left two empty)."""
    from blkscope.figures.panels import panels

    work, _ = mini
    svgs = sorted((work / "paper/generated/figures").glob("*.svg"))
    assert len(svgs) >= 19, [s.name for s in svgs]
    for svg in svgs:
        log = (work / "logs/figures" / f"{svg.stem}.log").read_text()
        assert re.search(rf"^figure {svg.stem}: \d+ panels?, none empty", log, re.M), (svg.name, log[-500:])
        assert all(p.marks for p in panels(svg.read_text())), svg.name


def test_figures_fit_the_text_width(mini):
    """Figures are included at their natural size, so none may be wider than the space it is printed in: a column
    or, as a figure*, both (its module's WIDTH)."""
    from pypdf import PdfReader

    from blkscope.paper.figure_tex import width

    work, _ = mini
    pdfs = sorted((work / "paper/generated/figures").glob("*.pdf"))
    assert len(pdfs) >= 2
    for pdf in pdfs:
        assert float(PdfReader(pdf).pages[0].mediabox.width) <= width(pdf.stem) + 0.5, pdf.name
        for ext in ("png", "svg"):
            assert pdf.with_suffix(f".{ext}").stat().st_size > 0


def test_paper_and_figures_are_readable_from_the_pdf_geometry(mini, tmp_path):
    """No two text labels overlap and no figure leaves the space it is printed in: each figure's own PDF, and the
    built paper's figure pages (from the PDF's geometry, and rendered with pdftoppm for ink in the margins)."""
    from rendered_pages import check_rendered_pages, figure_pages

    from blkscope.figures.theme import MAX_FIGURE_HEIGHT_PT
    from blkscope.paper.figure_tex import width
    from blkscope.paper.pdf_geometry import check_figure_pdf, check_paper_pdf

    work, _ = mini
    problems = []
    for pdf in sorted((work / "paper/generated/figures").glob("*.pdf")):
        problems += check_figure_pdf(pdf, width(pdf.stem), MAX_FIGURE_HEIGHT_PT)
    paper = work / "paper/main.pdf"
    assert len(figure_pages(paper)) >= 5
    problems += check_paper_pdf(paper, every_page=True)  # a long table must not run off a page either
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


@pytest.fixture(scope="module")
def paper_text(mini) -> str:
    """pypdf's text of the miniature's paper, every page, whitespace runs as one space (read once for the tests
    below: each read of the whole paper is seconds of pypdf)."""
    from pypdf import PdfReader

    work, _ = mini
    return re.sub(r"\s+", " ", " ".join(p.extract_text() for p in PdfReader(work / "paper/main.pdf").pages))


def test_pdf_holds_figure_and_generated_numbers(mini, paper_text):
    from pypdf import PdfReader

    work, sub = mini
    text = paper_text
    assert "??" not in text
    # completions counted here are those with data; the macro counts every C event, so check the table instead
    summary = pl.read_parquet(work / "data/processed/analysis/run_summary.parquet")
    total = sum(_completions(work / "data/raw" / r / "trace.txt.zst")[0] for r in summary["run_id"])
    assert f"{summary['events'].sum():,}" in text
    # the method's dataset counts: every captured run of the miniature (each has workload metrics), not the
    # imported ones (testbed external), which the workflow analyses but the paper does not describe
    metrics = pl.read_parquet(work / "data/processed/analysis/workload_metrics.parquet")
    runs = metrics.filter(pl.col("testbed") != "external").select("run_id", "traced").unique()
    assert runs.height == sub.height
    assert f"holds {runs.height:,} runs ({runs['traced'].sum():,} traced;" in text
    assert total <= summary["completions"].sum()
    for row in summary.iter_rows(named=True):
        assert f"{row['events']:,}" in text, row["run_id"]
    # the figure is embedded as a PDF form XObject on some page
    assert any("/XObject" in str(p.get("/Resources", {})) for p in PdfReader(work / "paper/main.pdf").pages)


def test_pdf_has_every_section_and_numbers_from_other_tables(mini, paper_text):
    work, _ = mini
    text = paper_text
    titles = [
        "Abstract",
        "Introduction",
        "Background: the studies we re-test",
        "How skewed are block accesses",
        "How deep is the device queue",
        "What does block tracing cost",
        "Databases on the filesystems",
        "Claims re-tested",
        "Discussion",
        "Threats to validity",
        "Conclusion",
    ]
    for title in titles:  # IEEEtran sets section titles in small capitals: pdftotext gives them in capitals
        assert title.lower() in text.lower(), title
    assert "skeleton" not in text.lower()
    qd = pl.read_parquet(work / "data/processed/analysis/queue_depth.parquet")
    qd = qd.filter(~pl.col("run_id").is_in(list(IMPORTS)))  # the paper's numbers are the embedded dataset's
    assert f"at most {qd['max_depth'].max()} requests at once" in text
    claims = pl.read_parquet(work / "data/processed/analysis/claims.parquet")
    assert claims.height >= 5 and claims["verdict"].null_count() == 0
    flat = text.replace(" ", "")  # an id in the claims table's narrow column breaks after a hyphen
    for cid in claims["claim_id"]:
        assert cid in flat, cid
    # and every claim with every column the table prints, in table order, as the paper rule checks it
    from blkscope.paper.pdf_words import missing_claims, pdf_text
    from blkscope.paper.tables import claims_parts, printed_columns

    for part in claims_parts(claims):  # the table's parts, each row whole
        assert missing_claims(pdf_text(work / "paper/main.pdf"), claims, printed_columns(part)) == []


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
    # a run's page shows what its job reads, not the analyses' tables other jobs write beside them (which it listed
    # when they happened to be there first: the page then depended on the order Snakemake ran the jobs in)
    pages = [p for p in executed if p.name.startswith("run_")]
    assert not [p.name for p in pages if "characterise/" in p.read_text() or "frequency/" in p.read_text()]


def test_report_builds(mini):
    work, _ = mini
    proc = subprocess.run(["snakemake", "--report", "report.html"], cwd=work, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    html = (work / "report.html").read_text(errors="replace")
    assert "main.pdf" in html and "claims.csv" in html


def test_every_composed_macro_of_the_paper_is_printed(mini):
    """review-q5: the abstract's advice and the brief phrases were generated and tested but printed nowhere."""
    from blkscope.paper.prose import COMPOSED, unused_macros

    work, _ = mini
    gen = work / "paper/generated"
    composed = [p for p in sorted(gen.rglob("*.tex")) if p.name in COMPOSED]
    assert len(composed) == len(COMPOSED), composed
    sources = [work / "paper/main.tex", *sorted((work / "paper/sections").glob("*.tex")),
               *[p for p in sorted(gen.rglob("*.tex")) if p.name not in COMPOSED]]  # fmt: skip
    assert unused_macros(composed, sources) == []


def test_second_run_has_nothing_to_do(mini):
    work, _ = mini
    proc = subprocess.run(["snakemake", "--cores", "2", "-n", "all"], cwd=work, capture_output=True, text=True)
    assert proc.returncode == 0
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_imported_logs_are_runs_with_their_provenance(mini):
    work, _ = mini
    assert SAMPLES.is_dir(), f"{SAMPLES} is absent: nothing was imported (tests/samples.py)"
    sheet = pl.read_csv(work / "config/imported.tsv", separator="\t", infer_schema_length=None)
    rows = sheet.filter(pl.col("run_id").is_in(list(IMPORTS)))
    assert not set(IMPORTS) & set(pl.read_csv(work / "config/runs.tsv", separator="\t")["run_id"])
    assert sorted(rows["run_id"]) == sorted(IMPORTS) and set(rows["testbed"]) == {"external"}
    assert rows.filter(pl.col("run_id") == "imported-redis-ycsb")["workload"].to_list() == ["ycsb"]  # from its log
    for run, args in IMPORTS.items():
        meta = __import__("yaml").safe_load((work / "data/raw" / run / "run.yaml").read_text())["imported"]
        assert meta["statements"]["filesystem"] == args[args.index("--filesystem") + 1] and meta["date"]
        sources = [f.resolve() for f in _sample_files(args)]  # the importer records real paths (../shared may link)
        assert [Path(f["source"]) for f in meta["files"]] == (sorted(sources) if "--trace" in args else sources)
        for f in meta["files"]:
            stored = work / "data/raw" / run / f["stored"]
            digest = hashlib.sha256(Path(f["source"]).read_bytes()).hexdigest()
            assert f["sha256"] == digest == hashlib.sha256(stored.read_bytes()).hexdigest(), f


def test_imported_runs_are_analysed_in_tables_of_their_own(mini):
    work, sub = mini
    assert SAMPLES.is_dir(), f"{SAMPLES} is absent: nothing was imported (tests/samples.py)"
    proc = work / "data/processed"
    traced = ["imported-keks", "imported-nvme-dmcrypt"]
    for run in traced:
        events = pl.read_parquet(proc / run / "trace/events.parquet")
        assert events.filter(pl.col("action") == "C").height > 0, run
        # each run's analyses by the verbs that analyse ours, in its own scope (common.smk, Scope)
        for table in ("zipf_cover", "latency", "seek", "metadata_vs_data"):
            assert set(pl.read_parquet(proc / "imported" / run / "analysis" / f"{table}.parquet")["run_id"]) == {run}
        figs = pl.read_parquet(proc / "imported" / run / "figures/rank_frequency.parquet")
        assert set(figs["run_id"]) == {run}
        # its page: every per-run view of it (the all_setups notebook on its tables), and its run explorer
        page = (work / f"notebooks/executed/imported_{run}.ipynb").read_text()
        assert f"other {IMPORTS[run][IMPORTS[run].index('--job') + 1]} (external)" in page, run
        assert json.loads((work / f"notebooks/executed/run_{run}.ipynb").read_text())["cells"]
    # the study's tables are the embedded runs' alone
    for table in ("zipf_cover", "zipf_ssd-study", "latency", "seek", "workload_metrics"):
        runs = set(pl.read_parquet(proc / "analysis" / f"{table}.parquet")["run_id"])
        assert runs and runs <= set(sub["run_id"]), table
    assert not set(IMPORTS) & set(pl.read_parquet(proc / "figures/io_over_time.parquet")["run_id"])
    io = pl.read_parquet(proc / "imported/imported-iostatplot/figures/io_over_time.parquet")
    assert set(io["run_id"]) == {"imported-iostatplot"} and io.height > 0
    assert "other iostatplot (external)" in (work / "notebooks/executed/imported_imported-iostatplot.ipynb").read_text()
    # a workload log alone: its tables in its run explorer
    assert "ycsb_summary" in (work / "notebooks/executed/run_imported-redis-ycsb.ipynb").read_text()


def test_an_edit_of_the_code_reruns_the_rules_that_run_it(mini, tmp_path, monkeypatch):
    """Snakemake reads the package's copy (PYTHONPATH): the same source plans nothing; an edited figure module
    plans the figures (their verb imports every figure's module) and what shows them, no analysis. Needs the
    records of a real run (`snakemake --touch` records no params), hence here (blkscope.code_hash)."""
    work, _ = mini
    src = package_copy(tmp_path) / "src"
    monkeypatch.setenv("PYTHONPATH", str(src))
    assert planned(work) == {}
    f = src / "blkscope/figures/rank_frequency.py"
    f.write_text(f.read_text() + "\n# an edit\n")
    plan = planned(work)
    assert {"figure_rank_frequency", "figure_io_map", "paper_figure", "paper"} <= set(plan), sorted(plan)
    assert not [r for r in plan if r.startswith(("ingest", "access_frequency", "zipf", "latency", "figdata"))], plan


def test_importing_a_run_plans_its_jobs_alone(mini, tmp_path):
    """One more imported traced run (issue T1): `snakemake -n all` plans its ingest, its analyses, its figure data
    and its pages, and no job of the study (its tables, claims, figures, notebooks) nor of the paper."""
    work, _ = mini
    assert SAMPLES.is_dir(), f"{SAMPLES} is absent: nothing to import (tests/samples.py)"
    copy = tmp_path / "mini"
    shutil.copytree(work, copy, symlinks=True)  # copy2: the mtimes too, so the copy is as up to date as the mini
    assert planned(copy) == {}
    run, args = "imported-keks-again", IMPORTS["imported-keks"]
    argv = [str(SAMPLES / a) if (SAMPLES / a).is_file() else a for a in args]
    subprocess.run([sys.executable, "-c", _IMPORT_ALL, json.dumps([["import", run, *argv]])], cwd=copy, check=True,
                   capture_output=True)  # fmt: skip
    plan = planned(copy)
    own = "_imported_imported_keks_again"
    assert {r for r in plan if not r.endswith(own)} == {"all", "notebook_run_explorer"}, plan
    assert {f"ingest{own}", f"access_frequency{own}", f"reuse{own}", f"characterise_views{own}",
            f"figdata_views{own}", f"notebook_all_setups{own}"} <= set(plan), plan  # fmt: skip
    assert "data/processed/imported/imported-keks-again/figures/miss_ratio_curve.parquet" in plan[f"figdata_views{own}"]
    assert planned(copy, "paper/main.pdf") == {}
