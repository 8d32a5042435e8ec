# Helpers for the workflow files: the runs sheet, paths, target lists.
# No polars here: every Snakemake start, a no-op included, runs these files (bench/RESULTS.md, "issue O1").
import re
import sys
from pathlib import Path
from types import SimpleNamespace

from blkscope import run_logs
from blkscope.runs import rows as sheet_rows
from blkscope.capture.targets import pattern
from blkscope.errors import InputError
from snakemake.exceptions import WorkflowError

RAW = config["raw_dir"]
PROC = config["processed_dir"]
ANALYSIS = f"{PROC}/analysis"
FIGS = "paper/generated/figures"
FORMATS = config["figure_formats"]

# The runs sheet, one dict per row, each row checked against its schema (src/blkscope/runs.schema.yaml; a bad
# row stops the workflow with the file, line and run: blkscope.runs). Cells are typed by the schema: traced is a bool,
# repeat an int, an empty cell None; the empty batch is "" (the schema's default).
# Runs a user imported (`blkscope import`) are rows of a sheet of their own, config `imported` (same columns and
# schema; absent until the first import): the study's tables, figures and paper read the embedded runs sheet alone,
# so importing a run never reruns them (issue T1). Each imported run is analysed in a scope of its own (SCOPES).
IMPORTED_SHEET = config["imported"]
try:
    ROWS = sheet_rows(config["runs"])
    IMPORTED_ROWS = sheet_rows(IMPORTED_SHEET) if Path(IMPORTED_SHEET).exists() else []
except InputError as e:  # one line: the file, the line, the run and what is wrong
    raise WorkflowError(str(e)) from None
RUN_IDS = [r["run_id"] for r in ROWS]
_twice = sorted(set(RUN_IDS) & {r["run_id"] for r in IMPORTED_ROWS})
if _twice:
    raise WorkflowError(f"{IMPORTED_SHEET}: run(s) {', '.join(_twice)} are also in {config['runs']}")
_row = {r["run_id"]: r for r in ROWS + IMPORTED_ROWS}
# The `run` wildcard: exactly the sheets' run ids (Snakefile), as a trie-shaped regex that compiles in a fraction
# of a flat alternation's time (blkscope.capture.targets.pattern).
RUN_PATTERN = pattern(list(_row))

# Analyses read the runs that have raw data; a run in the sheet that was never captured is
# left out with a note instead of making `all` start a hardware run.
CAPTURED = [r for r in RUN_IDS if Path(RAW, r, "run.yaml").exists()]
_missing = sorted(set(RUN_IDS) - set(CAPTURED))
if _missing:
    print(f"blkscope: {len(_missing)} run(s) in {config['runs']} have no raw data yet "
          f"(run `snakemake experiments` as root): {', '.join(_missing[:5])}", file=sys.stderr)


def runs_where(**equal):
    """Captured run ids (in sheet order) whose runs-sheet row has each of these values, e.g.
    runs_where(traced=True, testbed="loop")."""
    return [r for r in CAPTURED if all(_row[r].get(k) == v for k, v in equal.items())]


TRACED = runs_where(traced=True)
# imported runs with their raw data, in sheet order (a row without is said and left out, as above)
IMPORTED = [r["run_id"] for r in IMPORTED_ROWS if Path(RAW, r["run_id"], "run.yaml").exists()]
if len(IMPORTED) < len(IMPORTED_ROWS):
    print(f"blkscope: {len(IMPORTED_ROWS) - len(IMPORTED)} run(s) in {IMPORTED_SHEET} have no raw data in {RAW}: "
          f"{', '.join(sorted({r['run_id'] for r in IMPORTED_ROWS} - set(IMPORTED))[:5])}", file=sys.stderr)
# The first study question (access frequency of fio jobs) reads host runs traced by tracefs.
FIO_TRACED = runs_where(traced=True, workload="fio", testbed="loop")
HOST_RUNS = runs_where(testbed="loop")
# Runs that recorded their files' extents at the end (filefrag.txt: Cassandra runs since issue L)
EXTENT_RUNS = [r for r in CAPTURED if Path(RAW, r, run_logs.EXTENTS[2]).exists()]
# YCSB runs with the three phases (load, workload A, read-only): Cassandra's and RocksDB's comparison job
PHASE_RUNS = [r for r in CAPTURED if Path(RAW, r, "ycsb-read.txt").exists()]


def raw(run, name):
    """A raw file of a run; ancient() so a fresh clone's mtimes never trigger re-captures."""
    return ancient(f"{RAW}/{run}/{name}")


# Split traces (workflow/rules/parts.smk): runs whose raw trace is at least trace_parts.min_bytes.
PARTS_N = config["trace_parts"]["parts"]
PARTS_MIN_BYTES = config["trace_parts"]["min_bytes"]


def _raw_trace_bytes(run):
    d = Path(RAW, run)
    files = [d / "trace.txt.zst"] if (d / "trace.txt.zst").exists() else list(d.glob("blktrace/*.blktrace.*"))
    return sum(f.stat().st_size for f in files)


_TRACED_ANY = TRACED + [r for r in IMPORTED if _row[r]["traced"]]  # imported traces split as ours do
SPLIT_RUNS = [r for r in _TRACED_ANY if PARTS_N > 1 and _raw_trace_bytes(r) >= PARTS_MIN_BYTES]


# Ingest batches: one job per testbed x filesystem reads every log of its runs in one process (a Python process
# costs more to start than most of these logs take to read; bench/RESULTS.md, "The main job"). A new run joins
# its batch; a new testbed or filesystem makes a new batch.
# An imported run is a batch of its own (its sheet, config `imported`): importing one more reruns no other batch.
# a split run's trace is ingested in parts (parts.smk), its other logs here
RUN_SOURCES = {
    r: [s for s in run_logs.sources(Path(RAW), r, _row[r]["workload"]) if not (s[0] == "trace" and r in SPLIT_RUNS)]
    for r in CAPTURED + IMPORTED
}
INGEST_BATCHES = {}
for _r in CAPTURED:
    INGEST_BATCHES.setdefault(f"{_row[_r]['testbed']}_{_row[_r]['filesystem']}", []).append(_r)
BATCH_SHEET = {b: config["runs"] for b in INGEST_BATCHES}


def imported_name(run):
    """An imported run's name in rule and batch names (a run id may hold - and .)."""
    name = re.sub(r"\W", "_", run)
    return f"imported_{name}"


# an imported run's tables live under {PROC}/imported/<run> (Scope): no run may be named `imported`, and no two
# imported runs may share a name in rules
_clash = {}
for _r in IMPORTED:
    _clash.setdefault(imported_name(_r), []).append(_r)
_clash = [" and ".join(rs) for rs in _clash.values() if len(rs) > 1] + ["imported"] * ("imported" in _row)
if _clash:
    raise WorkflowError(f"{IMPORTED_SHEET}: run ids that clash in the names of rules or directories: {', '.join(_clash)}")
for _r in IMPORTED:
    INGEST_BATCHES[imported_name(_r)] = [_r]
    BATCH_SHEET[imported_name(_r)] = IMPORTED_SHEET


def trace_files(wildcards):
    """A run's raw trace files (for rules that read the raw trace, e.g. split-trace ingest)."""
    return [ancient(str(f)) for f in run_logs.trace_source(Path(RAW, wildcards.run))[1]]


def trace_kind(wildcards):
    return run_logs.trace_source(Path(RAW, wildcards.run))[0]


def ingest_inputs(runs):
    return [ancient(str(f)) for r in runs for _, _, files in RUN_SOURCES[r] for f in files]


def ingest_outputs(runs):
    """The tables an ingest batch writes and lists in its dataset manifest."""
    return [f for r in runs for f in run_logs.output_paths(PROC, r, RUN_SOURCES[r])]


# Datasets (blkscope.datasets): a job that writes a table per run (an ingest batch, a per-run analysis run with
# --each) declares one manifest, {DATASETS}/<name>.tsv, listing its tables with their sizes and sha256; the jobs
# that read the tables take the manifests as inputs (`--check-datasets`: verified before reading) and the
# per-run paths as params. The tables stay at {PROC}/<run>/<source>/; the DAG declares a few hundred files
# instead of thousands (bench/RESULTS.md, "The main job").
DATASETS = f"{PROC}/datasets"
BATCH_OF = {r: b for b, rs in INGEST_BATCHES.items() for r in rs}
# A job that reads per-run tables names their manifests input.datasets and passes `--check-datasets
# {input.datasets}`; one that writes them names its manifest output.dataset, the tables params.files, and passes
# `--record-dataset {output.dataset} --dataset-files {params.files}`.


def ingest_dataset(batch):
    return f"{DATASETS}/ingest_{batch}.tsv"


def ingested(runs):
    """The manifests of the ingest batches that hold `runs`' tables."""
    return sorted({ingest_dataset(BATCH_OF[r]) for r in runs})


def split_parts(runs):
    """parts.json of `runs` whose trace is ingested in parts (parts.smk): declared one by one, read beside the
    ingest manifests by whatever reads those runs' events."""
    return [trace_events(r) for r in runs if r in SPLIT_RUNS]


def raw_dir_of(files):
    """data/raw, from raw files: the parent of the run directory (the one with run.yaml) that holds the first
    (snakemake --lint: no hard-coded path prefixes)."""
    return next(p.parent for p in Path(files[0]).parents if (p / "run.yaml").exists())


def analysis_outputs():
    return expand(f"{ANALYSIS}/{{name}}.{{ext}}", name=["rank_frequency", "run_summary", "iostat_summary", "workload_metrics", "extents_summary", "ycsb_phases", "claims"], ext=["parquet", "csv"])




def figure_outputs():
    """FIGURE_NAMES is defined in figures.smk, next to the figure rules."""
    return expand(f"{FIGS}/{{name}}.{{ext}}", name=FIGURE_NAMES, ext=FORMATS)


def paper_sections():
    return sorted(str(p) for p in Path("paper/sections").glob("*.tex"))


# studies we build on, by the name the claims table gives them
# (the commitlog study has its own notebook, notebooks/study_commitlog.py: rule in load_claims.smk)
STUDY_NOTEBOOKS = {"ssd": "SSD study", "guide": "Cassandra guide", "journal": "journal study", "mysql": "MySQL study"}
EXPLORE = [r for r in config["explore_runs"] if r in CAPTURED]


def notebook_outputs():
    return [
        "notebooks/executed/access_patterns.ipynb",
        "notebooks/executed/all_setups.ipynb",
        *expand("notebooks/executed/study_{study}.ipynb", study=STUDY_NOTEBOOKS),
        *expand("notebooks/executed/run_{run}.ipynb", run=EXPLORE),
    ]


def table_templates(tables, stage="characterise"):
    """A verb's per-run output options, one {run} template a table: --<table> '<PROC>/{run}/<stage>/<table>.parquet'
    (for a params lambda: Snakemake formats params strings with the job's wildcards)."""
    return " ".join(f"--{t.replace('_', '-')} '{PROC}/{{run}}/{stage}/{t}.parquet'" for t in tables)


def trace_events(run):
    """The events of a run as the analyses take them: events.parquet, or parts.json of a split trace."""
    if run in SPLIT_RUNS:
        return f"{PROC}/{run}/trace_parts/parts.json"
    return f"{PROC}/{run}/trace/events.parquet"


def part_inputs(wildcards):
    """What every part job reads: the blktrace set (each job picks its CPU files) or the decompressed text."""
    if trace_kind(wildcards) == "blktrace":
        return trace_files(wildcards)
    return [f"{PROC}/{wildcards.run}/trace_parts/trace.txt"]


def run_metas(wildcards):
    """Every run's run.yaml (the experiments rules), as an input function: only a plan that holds those rules
    builds the list of ~1,000 files, not every Snakemake start."""
    return expand(f"{RAW}/{{run}}/run.yaml", run=RUN_IDS)


# the notebook jobs: `blkscope notebook NB.py OUT.ipynb -p NAME VALUE ...` reads the jupytext notebook and runs
# papermill in one process (jupytext's own process was ~0.5 CPU-s of each job). The executed notebook is written
# once, at the end (also when a cell fails), not after each cell: all_setups' grows to ~50 MB of charts, and its
# per-cell saves were half of its 16 CPU-s, on the main job's last chain.
NOTEBOOK = "blkscope notebook --cwd notebooks"


class Scope:
    """Runs analysed together into tables of their own: the rules behind the per-run views (access frequency, Zipf
    fits, seeks, latency windows, reuse, metadata, the characterisation views and their figure data) are defined
    once per scope, in loops (the figure data: a job per table for the study, one for an imported run's page;
    figures.smk). The study (run=None): the embedded runs sheet's runs, its tables at {PROC}/datasets,
    {PROC}/analysis and {PROC}/figures, which the claims, the paper and the study notebooks read. An imported run:
    its own tables at {PROC}/imported/<run>/..., drawn by its own page (notebooks/executed/imported_<run>.ipynb),
    its sheet an ancient() input: importing one more run adds that run's jobs and reruns nothing else."""

    def __init__(self, run=None):
        self.run = run
        root = f"{PROC}/imported/{run}" if run else PROC
        self.datasets, self.analysis, self.figdata = f"{root}/datasets", f"{root}/analysis", f"{root}/figures"
        self.sheet = ancient(IMPORTED_SHEET) if run else config["runs"]
        self.suffix = f"_{imported_name(run)}" if run else ""  # of rule names
        self.logs = f"logs/imported/{run}" if run else "logs"
        self.benchmarks = f"benchmarks/imported/{run}" if run else "benchmarks"
        has = {s[0] for s in RUN_SOURCES[run]} if run else set()
        self.traced = ([run] if _row[run]["traced"] else []) if run else TRACED
        # the io_over_time figure's iostat and YCSB series: the study's host runs; an imported run's iostat
        self.iostat = ([run] if "iostat" in has else []) if run else HOST_RUNS
        self.ycsb = [] if run else runs_where(workload="ycsb", testbed="loop")


STUDY = Scope()
SCOPES = [STUDY, *(Scope(r) for r in IMPORTED)]


# for rules defined in a loop (SCOPES): a lambda there that read the loop's variable would see its last scope; a
# function made by this one keeps the runs it was given
def mode_paths(path, runs, **more):
    """A params function of the {mode} wildcard: `path` (with {run}, {mode}) expanded over `runs`."""
    return lambda wildcards: expand(path, run=runs, mode=wildcards.mode, **more)


# the notebooks' pages (notebooks.smk): which figure tables a scope's page draws, and where the page goes. Every
# figure of the per-run views for every run of a scope: the study's (all_setups.ipynb), and each imported run's
# page of its own (imported_<run>.ipynb), from its own tables
VIEW_TABLES_TRACED = ["rank_frequency", "frequency_of_frequency", "zipf_ccdf", "seek_distance", "miss_ratio_curve",
                      "io_map", "latency_windows", "request_sizes", "arrivals", "request_size_over_time",
                      "miss_ratio_by_class"]  # fmt: skip


def view_tables(scope):
    """The figure tables a scope's page draws: io_over_time where it has iostat, the others where it is traced."""
    return (["io_over_time"] if scope.iostat else []) + (VIEW_TABLES_TRACED if scope.traced else [])


def page(scope):
    return f"notebooks/executed/imported_{scope.run}.ipynb" if scope.run else "notebooks/executed/all_setups.ipynb"


# The figure data of a scope's per-run views: the study's a job per table (its figures are drawn one by one), an
# imported run's one job for its page (figures.smk)
def figdata_view(s, short, table, args, datasets, inputs=(), verb=None):
    """One figure-data table of scope `s`: its rule (figdata_<short>), its path, the tables it reads beside its
    manifests, and the `blkscope figdata-<verb or short>` command that writes it, paths filled in, its manifests
    checked (no log: the rule adds it)."""
    out = f"{s.figdata}/{table}.parquet"
    cmd = ["blkscope", f"figdata-{(verb or short).replace('_', '-')}", "--runs", str(s.sheet), "-o", out, *args]
    cmd += ["--check-datasets", *datasets] if datasets else []
    return SimpleNamespace(rule=f"figdata_{short}{s.suffix}", table=table, out=out, datasets=list(datasets),
                           inputs=list(inputs), cmd=" ".join(cmd))  # fmt: skip


def figdata_views(s):
    """The figure data of scope `s`'s per-run views, one table each (figdata_view); figures.smk defines their rules
    (and FIG_MODE, FIG_FOF: called there)."""
    fof = expand(FIG_FOF, run=s.traced)
    char = lambda table: expand(f"{PROC}/{{run}}/characterise/{table}.parquet", run=s.traced)
    cover, reuse = f"{s.datasets}/access_frequency.{FIG_MODE}.tsv", f"{s.datasets}/reuse.tsv"
    views = f"{s.datasets}/characterise_views.tsv"
    zipf, seek, hist = (f"{s.analysis}/{t}.parquet" for t in (f"zipf_{FIG_MODE}", "seek", "seek_hist"))
    iostat = expand(f"{PROC}/{{run}}/iostat/iostat.parquet", run=s.iostat)
    ycsb = expand(f"{PROC}/{{run}}/ycsb/ycsb_series.parquet", run=s.ycsb)
    return [
        figdata_view(s, "fof", "frequency_of_frequency", fof, [cover]),
        figdata_view(s, "rank", "rank_frequency", fof, [cover]),
        figdata_view(s, "ccdf", "zipf_ccdf", ["--zipf", zipf, *fof], [cover], [zipf]),
        figdata_view(s, "series", "io_over_time", [*iostat, "--ycsb", *ycsb], ingested(s.iostat + s.ycsb)),
        figdata_view(s, "seek", "seek_distance", ["--seek", seek, "--hist", hist], [], [seek, hist]),
        # exact and SHARDS curves of every request; the summary beside each says which is of record
        figdata_view(s, "mrc", "miss_ratio_curve", ["--classes", "all", *char("mrc")], [reuse]),
        figdata_view(s, "io_map", "io_map", char("io_map"), [views]),
        figdata_view(s, "latency_windows", "latency_windows", char("latency_windows"),
                     [f"{s.datasets}/latency_windows.tsv"]),
        figdata_view(s, "request_sizes", "request_sizes", char("sizes"), [views]),
        figdata_view(s, "arrivals", "arrivals", char("arrivals"), [views]),
        figdata_view(s, "request_size_over_time", "request_size_over_time", char("throughput"), [views]),
        # each run's miss-ratio curve of record (exact, or SHARDS above --auto's limit) of every class, op all
        figdata_view(s, "mrc_by_class", "miss_ratio_by_class",
                     ["--classes", "all,data,meta", "--of-record", *char("mrc")], [reuse], verb="mrc"),
    ]
