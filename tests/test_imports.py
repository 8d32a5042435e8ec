"""The package's import graph runs one way (issue K4), and `blkscope ingest` stays light to start."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "src" / "blkscope"


def _graph() -> dict[str, set[str]]:
    files = {".".join(("blkscope", *p.relative_to(ROOT).with_suffix("").parts)).removesuffix(".__init__"): p
             for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for mod, path in files.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("blkscope"):
                deps |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names}
            elif (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module" and node.args
                  and isinstance(node.args[0], ast.Constant)):
                deps.add(str(node.args[0].value))
        graph[mod] = {d for d in deps if d in files and d != mod}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while (w := stack.pop()) != v:
                comp.append(w)
            if comp:
                out.append(sorted([v, *comp]))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    graph = _graph()
    assert {"blkscope.cli", "blkscope.cli.verbs", "blkscope.io", "blkscope.ingest"} <= graph.keys()
    assert not _cycles(graph)
    topics = [m for m in graph if m.startswith("blkscope.cli.") and m.rsplit(".", 1)[1] not in ("verbs", "__main__")]
    assert "blkscope.cli" not in set().union(*(graph[m] for m in topics))
    assert "blkscope.ingest" not in set().union(*(graph[m] for m in graph if m.startswith("blkscope.readers")))


# docs/ARCHITECTURE.md draws the layers: what a folder of the package must not import (a folder or a top module)
MUST_NOT_IMPORT = {
    "readers": ["cli", "figures", "paper", "analysis", "capture", "ingest", "importing"],
    "analysis": ["cli", "figures", "paper", "capture", "importing"],
    "capture": ["cli", "figures", "paper", "analysis", "readers", "ingest", "importing"],
    "figures": ["cli", "capture", "analysis"],
    "paper": ["cli", "capture"],
}
# the imports against the layers: a figure formats its numbers as the paper's macros do; the run groups read a job's
# load from its rate setting where the job defines it (capture's workloads: one definition, not a copy)
UPWARD = {("blkscope.figures.miss_ratio_curve", "blkscope.paper.latex"),
          ("blkscope.analysis.summaries.run_groups", "blkscope.capture.workloads")}


def _part(module: str) -> str:
    """The folder (or the top module) a module of the package belongs to."""
    return module.split(".")[1] if module.count(".") else module


def test_the_layers_import_one_way() -> None:
    graph = _graph()
    wrong = sorted((m, d) for m, deps in graph.items() for d in deps if m.count(".")
                   and _part(d) in MUST_NOT_IMPORT.get(_part(m), []) and (m, d) not in UPWARD)
    assert wrong == []
    assert {m for m, deps in graph.items() for d in deps if _part(d) == "cli" and _part(m) != "cli"} == {
        "blkscope.__main__"}  # the command line is the top: only `python -m blkscope` imports it
    assert all(d in graph[m] for m, d in UPWARD)  # an exception that is gone leaves the list


def test_a_layer_rule_finds_a_wrong_import() -> None:
    """The rules above would catch an analysis importing a figure (the check is not vacuous)."""
    graph = _graph() | {"blkscope.analysis.x": {"blkscope.figures.theme"}}
    wrong = [(m, d) for m, deps in graph.items() for d in deps if m.count(".")
             and _part(d) in MUST_NOT_IMPORT.get(_part(m), []) and (m, d) not in UPWARD]
    assert wrong == [("blkscope.analysis.x", "blkscope.figures.theme")]


def _only_paper_uses(graph: dict[str, set[str]]) -> list[str]:
    """Modules under analysis/ (not packages) that the package imports from paper/ alone."""
    users = {m: {x for x, deps in graph.items() if m in deps} for m in graph}
    package = lambda m: ROOT.joinpath(*m.split(".")[1:], "__init__.py").exists()  # noqa: E731
    return sorted(m for m in graph if _part(m) == "analysis" and not package(m) and users[m]
                  and all(_part(x) == "paper" for x in users[m]))


def test_what_serves_only_the_claims_lives_under_paper() -> None:
    """The claims' measures, run selection, verdicts and their statistics sit together under paper/ (claim_*.py): a
    module under analysis/ that only paper/ imports would be the claims' own, away from them."""
    graph = _graph()
    assert _only_paper_uses(graph) == []
    # the rule is not vacuous: an analysis module the claims alone read is found
    assert _only_paper_uses(graph | {"blkscope.analysis.stats.x": set(), "blkscope.paper.claims": {
        *graph["blkscope.paper.claims"], "blkscope.analysis.stats.x"}}) == ["blkscope.analysis.stats.x"]


CLI_SHARED = {"blkscope.cli", "blkscope.cli.common", "blkscope.cli.verbs"}


@pytest.mark.parametrize(("verb", "topic"), [("ingest", "logs"), ("reuse", "characterisation")])
def test_a_verb_imports_its_topic_alone_and_no_polars(verb, topic) -> None:
    """ingest and reuse start fast: their topic's module alone, no other topic compiled, no polars, and not yet
    blkscope.io (json: `reuse` launches its native pass first)."""
    code = (f"import sys; from blkscope.cli import build_parser; build_parser({verb!r}).parse_args([{verb!r}, 'x',"
            " '-o', 'y']); heavy = ('blkscope.cli', 'blkscope.io', 'polars', 'pyarrow');"
            " print(sorted(m for m in sys.modules if m.startswith(heavy)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = eval(out)  # a list of module names
    assert [m for m in loaded if m not in CLI_SHARED] == [f"blkscope.cli.{topic}"]


# what `blkscope ingest` of a trace does without, each costing its start (issue 43): typing (annotations only),
# tempfile and random (staging names), subprocess (one posix_spawn), textwrap (the help's epilog), glob, the
# sniffer (a stated kind), argparse (its plain form), pathlib and shutil (str paths; an outdir to replace would load
# shutil), signal's enums
NOT_ON_THE_TRACE_PATH = ["argparse", "blkscope.readers.detect", "glob", "pathlib", "polars", "pyarrow", "random",
                         "shutil", "signal", "subprocess", "tempfile", "textwrap", "typing"]


def test_a_trace_ingest_imports_only_what_it_uses(tmp_path) -> None:
    """The whole `blkscope ingest --kind blktrace` of a real set, through blkscope-native: the table is written, and
    none of NOT_ON_THE_TRACE_PATH was imported on the way."""
    import samples

    out = tmp_path / "out"
    code = ("import sys; from blkscope.cli import main; rc = main(['ingest', '--kind', 'blktrace', sys.argv[1], '-o',"
            f" sys.argv[2]]); print(rc, [m for m in {NOT_ON_THE_TRACE_PATH!r} if m in sys.modules])")
    sda = samples.SAMPLES / "blktrace-bin" / "centos7_notes_sda" / "sda"
    run = subprocess.run([sys.executable, "-c", code, str(sda), str(out)], capture_output=True, text=True, check=True)
    assert run.stdout.split(maxsplit=1) == ["0", "[]\n"], run.stdout
    assert "events=799" in run.stderr and sorted(p.name for p in out.iterdir()) == ["events.parquet", "ingest.json"]


def test_help_lists_the_verbs_by_topic_without_importing_a_topic() -> None:
    """`blkscope --help` reads the table of contents (blkscope.cli.verbs.TOPICS) alone."""
    code = ("import sys, contextlib, io; from blkscope.cli import main\n"
            "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()): main(['--help'])\n"
            "print(sorted(m for m in sys.modules if m.startswith(('blkscope', 'polars'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = eval(out)  # a list of module names
    assert [m for m in loaded if m.startswith("blkscope.cli")] == ["blkscope.cli", "blkscope.cli.verbs"]
    assert not [m for m in loaded if m.startswith("polars")]


def test_the_workflow_start_imports_no_polars() -> None:
    """Every Snakemake start, a no-op included, runs common.smk and the rule files: the package modules they import
    stay free of polars, pyarrow and pandas (bench/RESULTS.md, issue O1)."""
    smk = " ".join(p.read_text() for p in (ROOT.parents[1] / "workflow" / "rules").glob("*.smk"))
    used = sorted(set(re.findall(r"^from (blkscope[\w.]*) import", smk, re.M)))
    assert "blkscope.capture.targets" in used
    assert not re.search(r"^\s*(import|from) (polars|pyarrow|pandas)\b", smk, re.M)
    code = f"import sys, importlib; [importlib.import_module(m) for m in {used!r}];"
    code += " import blkscope.runs, blkscope.run_logs;"
    code += " print(sorted(m for m in sys.modules if m.split('.')[0] in ('polars', 'pyarrow', 'pandas')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_command_line_runs_numpy_with_one_openblas_thread_unless_told():
    """blkscope.cli sets OPENBLAS_NUM_THREADS=1 before any verb loads numpy (idle OpenBLAS threads spin on 2
    cores), and keeps a value the user set."""
    code = "import os, blkscope.cli, numpy; print(os.environ['OPENBLAS_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "1"
    out = subprocess.run([sys.executable, "-c", code], env=env | {"OPENBLAS_NUM_THREADS": "2"}, capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    assert out.strip() == "2"


def test_polars_keeps_to_the_jobs_thread_budget():
    """Under Snakemake (OMP_NUM_THREADS = the rule's threads) polars' pool has that many threads; without a budget
    it keeps its default (one per core), and a POLARS_MAX_THREADS the user set wins."""
    code = "import blkscope.cli, polars; print(polars.thread_pool_size())"
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "POLARS_MAX_THREADS")}

    def pool(**extra):
        return int(subprocess.run([sys.executable, "-c", code], env=env | extra, capture_output=True, text=True,
                                  check=True).stdout)  # fmt: skip

    assert pool(OMP_NUM_THREADS="1") == 1
    assert pool() == os.cpu_count() > 1  # the machine has 2 cores: the default differs from the budget
    assert pool(OMP_NUM_THREADS="1", POLARS_MAX_THREADS="2") == 2


def test_t_intervals_do_not_import_scipy_stats():
    """Importing scipy.stats costs ~1.1 CPU-s a process; the modules most verbs use compute t intervals with
    scipy.special alone (uncertainty.t_quantile) and import scipy.stats only where they need more of it."""
    mods = ["stats.uncertainty", "timing.queue_depth", "summaries.iostat_summary", "popularity.frequency",
            "load.overhead", "summaries.compare", "load.tracer_load"]
    code = f"import sys, importlib; [importlib.import_module('blkscope.analysis.' + m) for m in {mods!r}];"
    code += " from blkscope.analysis.stats.uncertainty import mean_ci; print(mean_ci([1.0, 2.0, 4.0])[1] < 1.0,"
    code += " 'scipy.stats' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False"]


def test_cli_freezes_the_objects_left_at_exit():
    """blkscope.cli's exit handler freezes what is left (the final collections skip polars' and numpy's objects,
    ~40 ms of wall per verb), after every handler registered later."""
    code = ("import atexit, gc, blkscope.cli; atexit.register(lambda: print(gc.get_freeze_count()))\n"
            "atexit._run_exitfuncs(); print(gc.get_freeze_count())")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "0" and int(out[1]) > 1000
