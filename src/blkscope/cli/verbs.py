"""The verb registry. TOPICS is the command line's table of contents: every verb under the topic a user thinks
in, with its one-line help; each topic's module (blkscope.cli.<topic>) registers its verbs' arguments and handlers
with `verb`. `blkscope --help` reads TOPICS alone and `blkscope VERB` imports VERB's topic module alone (`load`),
so no verb waits for the others' modules to compile (they compile on every start where no bytecode is cached:
bench/RESULTS.md, "Characterisation" 2026-11-27 (4)). Below blkscope.cli and the topic modules: neither imports
the other through it in a circle."""

from __future__ import annotations

import importlib
from collections.abc import Callable

TYPE_CHECKING = False  # typing's, without importing typing (blkscope.io says why)
if TYPE_CHECKING:
    import argparse

Handler = Callable[["argparse.Namespace"], int]  # argparse by name: a verb's plain form does without it (PLAIN)

# topic module: (heading in `blkscope --help`, {verb: its help})
TOPICS: dict[str, tuple[str, dict[str, str]]] = {
    "logs": ("logs and import: raw logs into tables, and logs made elsewhere as runs", {
        "ingest": "read raw logs into tidy Parquet tables (one per table) plus ingest.json",
        "ingest-runs": "ingest every raw log of captured runs: <raw>/<run>/* -> <processed>/<run>/<source>/",
        "import": (
            "register logs blkscope did not capture (blktrace, blkparse, iostat, YCSB, cassandra-stress ...) as a run "
            "under <raw>/<run_id>/ with their provenance, and a row of the runs sheet"),
    }),
    "traces": ("traces: split, export and the real blktrace tools", {
        "split": "plan the parts of a large trace (what `blkscope ingest --part K/N` reads) and print them as JSON",
        "gather-parts": "check the parts of one split trace and write parts.json (the dataset the analyses read)",
        "export-blktrace": "write events as per-CPU blktrace v7 files (PREFIX.blktrace.N) for blkparse/btt/iowatcher",
        "ingest-blkparse": "run the real blkparse (-f format) on binary traces and read its output into events",
        "btt": "run the real btt on a blktrace set, blkparse -d dump or events.parquet; its tables into OUTDIR",
    }),
    "analyses": ("analyses: per-run statistics and the tables across runs", {
        "frequency": "accesses per page from block events: per-page counts and rank-frequency tables",
        "access-frequency": "page access counts (modes cover | ssd-study), rank-frequency, frequency of frequency",
        "rank-frequency": "combine per-run rank-frequency tables (thinned to log-spaced ranks) with run metadata",
        "zipf": "discrete power-law fits (CSN: KS-chosen xmin, MLE alpha, bootstrap p, LR tests) of page access counts",
        "skew": "requested (YCSB zipfian constant) vs block-level rank-frequency exponent, per run and op",
        "latency": "per-request latency stages Q2G G2I Q2M I2D M2D Q2D D2C Q2C matched as btt does, with CIs",
        "queue-depth": "requests in flight from D/C pairs: time-weighted mean (CI), distribution, series, aqu-sz",
        "seek": (
            "seek distance and sequentiality of D (or Q) streams per op and class (meta: M in RWBS; data; all), with "
            "CIs, and a signed log2 histogram"),
        "overhead": ("throughput lost to tracing, traced against untraced runs of the same capture batch (bootstrap "
                     "CI, Welch t); a batch with one arm only is a row of its own"),
        "trace-cost": "trace volume: raw bytes per second and per event (run ids from the events paths)",
        "compare": "filesystems over repeats: means with t CIs, pairwise Welch t and exact permutation tests",
        "run-summary": "one row per run: events, completions, pages touched, fio IOPS, iostat means, overruns",
        "workload-metrics": "what each run's workload reported (ops/s and latencies), long form, one table",
        "iostat-summary": "per-run iostat means with CIs (since-boot report dropped), one row per device and metric",
        "extents-summary": "extents per MiB of each run's commitlog, sstable and other files (filefrag at its end)",
        "ycsb-phases": "each YCSB phase's ops/s past the warm-up its run.yaml records (load, workload A, read-only)",
        "cassandra-summary": "Cassandra per configuration: ops/s, latency percentiles, aqu-sz, merges (t CIs); vs xfs",
        "tracer-load": "the tracer's own cost per traced run (events/s, bytes/event, lost events) and per load level",
        "steady-state": "per run: warm-up end (MSER-5 on per-second throughput), window, clock, and whether steady",
        "cache-sweep": "per traced YCSB run: block skew, metadata and miss ratios against its cache-to-data ratio",
    }),
    "characterisation": ("characterisation: the views of btt, iowatcher, blkiomon and libCacheSim", {
        "characterise": (
            "I/O map, IOPS and bytes/s over time, request sizes, merges, per-process view, Q2Q and idle periods with "
            "burstiness, latency percentiles per window: the views of iowatcher, blkiomon and btt, each table on "
            "request"),
        "reuse": "reuse distance, LRU miss-ratio curve and working-set size of 4 KiB pages (exact and/or SHARDS)",
        "metadata": "metadata (M in RWBS) against data in the page access frequency: hot-page shares, rank-frequency",
        "metadata-vs-data": "every run's metadata-against-data table with its setup (filesystem, workload, ...)",
    }),
    "figures": ("figures: figure data and the figures drawn from it", {
        "figure": "draw one figure from an analysis table (PDF, PNG, SVG)",
        "figdata-fof": "figure data: frequency of frequency per run and op (log-thinned) with run metadata",
        "figdata-rank": (
            "figure data: rank-frequency per run and op, from its frequency of frequency, with run metadata"),
        "figdata-ccdf": "figure data: CCDF of per-page counts and the fitted power-law tail of the zipf table",
        "figdata-series": "figure data: iostat w/s and w_await per sample (and YCSB ops/s, p99) over elapsed time",
        "figdata-queue-depth": "figure data: queue depth series and distribution in one long table",
        "figdata-seek": "figure data: seek-distance histogram shares and sequential share per run and op",
        "figdata-join": "figure data: an analysis table with a run_id column, joined with the run metadata",
        "figdata-mrc": (
            "figure data: LRU miss-ratio curves of every run (op all) with run metadata and the profile of record"),
        "figdata-io-map": "figure data: every run's I/O map coarsened to 40 x 32 cells, with run metadata",
        "figdata-latency-windows": (
            "figure data: every run's D2C and Q2C percentiles per window (op and class all), with run metadata"),
        "figdata-request-sizes": (
            "figure data: every run's issued (D) request sizes per op and class, with run metadata"),
        "figdata-arrivals": "figure data: every run's Q2Q and idle-period summary, with run metadata",
        "figdata-request-size-over-time": (
            "figure data: every run's median request size per time bin, as queued (Q) and as issued (D), per op and "
            "class (the bins with requests), with run metadata"),
        "figdata-views": (
            "figure data of several tables in one process: each argument one `blkscope figdata-...` command line "
            "(with its --check-datasets), run in order"),
    }),
    "paper": ("paper: claims, macros and LaTeX tables", {
        "claims": "re-test the claims of the studies we build on: measurement, CI, n, verdict per claim",
        "claims-deviations": "each change of a claim's measure made after its estimate was seen: before and after",
        "claims-plan-tex": "the claims plan's macros (date, Holm, heterogeneity) and the deviations table (LaTeX)",
        "paper-numbers": "write the numbers quoted in the paper as \\newcommand macros",
        "load-numbers": "macros of the load, overhead, verdict, skew and Cassandra sections (\\newcommand file)",
        "characterise-numbers": (
            "per traced run and per setup (median over repeats): the characterisation's key metrics, and the "
            "Characterisation section's macros"),
        "paper-figure": "write the LaTeX figure environment of figures (caption and label from their modules)",
        "paper-table": "write one table of the paper as booktabs LaTeX",
    }),
    "capture": ("capture: hardware runs and the dataset's records", {
        "capture": "one hardware run from the runs sheet: testbed, mkfs, mount, tracer, iostat, workload, teardown",
        "capture-sweep": "undo what captures killed outright (SIGKILL, power loss) left set up, from their ledgers",
        "capture-order": "draw and record the random interleaved capture order of a batch of the runs sheet",
        "manifest": "list every raw file of the dataset with its run's configuration, size and sha256 (TSV)",
    }),
    "notebooks": ("notebooks", {
        "notebook": (
            "execute a jupytext notebook (.py) with papermill: parameters as papermill's -p; the executed notebook is "
            "written once, at the end, also when a cell fails (then the exit status is 1)"),
    }),
}
TOPIC_OF = {v: t for t, (_, verbs) in TOPICS.items() for v in verbs}
HELP = {v: h for _, verbs in TOPICS.values() for v, h in verbs.items()}
# verb -> what adds its arguments and handler to its parser; filled by the topic modules as they are imported
VERBS: dict[str, Callable[[argparse.ArgumentParser], None]] = {}
# verb -> what reads the verb's plain forms (its arguments after the verb) without argparse: a handler to run, or
# None for argparse to read them (and give any error). For a verb whose start is most of its time: `ingest` of a
# trace (blkscope.cli.logs) starts its reader ~20 ms sooner without argparse and pathlib (bench/RESULTS.md).
PLAIN: dict[str, Callable[[list[str]], Callable[[], int] | None]] = {}


def _known(name: str) -> None:
    if name not in TOPIC_OF:
        raise KeyError(f"verb {name!r} is not in blkscope.cli.verbs.TOPICS")


def verb(name: str):
    """Register a verb of TOPICS: the decorated function adds its arguments and returns the handler."""
    _known(name)

    def deco(add_args: Callable[[argparse.ArgumentParser], Handler]):
        def configure(p: argparse.ArgumentParser) -> None:
            p.set_defaults(_handler=add_args(p))

        VERBS[name] = configure
        return add_args

    return deco


def plain(name: str):
    """Register the plain-form reader of a verb of TOPICS (PLAIN)."""
    _known(name)

    def deco(read: Callable[[list[str]], Callable[[], int] | None]):
        PLAIN[name] = read
        return read

    return deco


def load(topic: str) -> None:
    """Import a topic's module: its verbs register themselves."""
    importlib.import_module(f"blkscope.cli.{topic}")
