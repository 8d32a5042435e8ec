"""Macros of the scale regime (runs' lengths, windows, memory caps), from the steady-state table
(data/processed/analysis/steady_state.parquet, blkscope.analysis.load.steady_state): the text about run lengths and
the memory-capped batches is written from these, so it stays true whichever batches and numbers arrive.

In-memory runs (no memory cap): how many, how long (median and longest run), how many have a window shorter than
the plan's steady window, and which are steady (by workload). Memory-capped batches, in the order the table lists
them (the runs sheet's, which is the order of capture), each as Memcap<Ordinal>...: its cap and data (MiB), the
data over the cap against the plan's 10x, the run length, the runs (traced), the steady runs and their windows,
the trace's kept window, and the role the plan gives it (scale rows read a batch at 10x or more; one short of it
is a condition of its own, reported and not judged).

How much the skew rows at scale can say (ScaleReuseSentence): over the traced steady runs with data >= 10x the cap
(the runs the scale rows read), from each run's frequency of frequency of read accesses in its kept trace window
(--fof) and its power-law fit (--zipf, op all): the median over runs of reads per distinct read page and of the
share of read pages read once, the span of distinct access counts, the runs without a fit; and, by rule, what that
leaves the skew rows to say (more than half of the read pages read once: little about skew).

    python -m blkscope.paper.scale_numbers --steady data/processed/analysis/steady_state.parquet \\
        [--fof <processed>/<run>/frequency/fof.ssd-study.parquet ...] [--zipf zipf_cover.parquet] \\
        [--plan config/claims_plan.yaml] -o scale.tex
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

from blkscope.analysis.load.steady_state import BATCH
from blkscope.paper import claims_plan, table_to_tex
from blkscope.paper.claim_rows import DATA_OVER_CAP, STEADY_MIN_S, not_descriptive
from blkscope.paper.claims_plan import Plan
from blkscope.paper.latex import count_word, counted, fmt_float, fmt_int, fmt_pct, join_and, macro_file, span
from blkscope.paper.phrases import against, k_of_n

GUARD = "BlkScaleNumbers"
ORDINALS = ["First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth"]
# workload -> how the text names its runs ({} takes "s" for more than one; others print the workload's own name)
WORKLOAD_NAMES = {"ycsb": "YCSB run{} on RocksDB", "cassandra-ycsb": "YCSB run{} on Cassandra",
                  "cassandra": "cassandra-stress run{}", "fio": "fio run{}", "sysbench": "sysbench run{}",
                  "journal": "journal-writer run{}"}  # fmt: skip
MIB = 2**20
DATABASES = {"ycsb": "RocksDB", "cassandra-ycsb": "Cassandra"}  # workload -> the database a capped batch ran


def _mib(x: pl.Series) -> str:
    x = x.drop_nulls()
    return fmt_float(x.median() / MIB, 0) if x.len() else "--"


HAS_CAP = pl.col("memory_cap").cast(pl.Utf8).fill_null("") != ""  # a run under a memory cap


def in_memory_runs(df: pl.DataFrame) -> pl.Expr:
    """The in-memory runs of `df` (the steady-state table or the runs sheet: memory_cap and batch): no memory cap,
    not in a descriptive batch. One selection for every count of them the text gives (InMemoryRuns here, the
    runs by load of load_numbers.runs_by_load)."""
    return ~HAS_CAP & not_descriptive(df)


def run_lengths(st: pl.DataFrame) -> dict[str, str]:
    """The shortest and longest run of the dataset as measured (run_s, rounded as InMemoryRunMaxS and Table IV's
    ranges are): RunMinS, RunMaxS."""
    r = st["run_s"].drop_nulls() if "run_s" in st.columns else pl.Series([], dtype=pl.Float64)
    return {"RunMinS": fmt_float(r.min(), 0), "RunMaxS": fmt_float(r.max(), 0)} if r.len() else {}


def _steady(st: pl.DataFrame) -> pl.Expr:
    """The claims' steady runs (blkscope.paper.claim_rows.steady_runs): steady and a window >= STEADY_MIN_S."""
    return pl.col("steady").fill_null(False) & (pl.col("window_s").fill_null(0) >= STEADY_MIN_S)


def in_memory(st: pl.DataFrame) -> dict[str, str]:
    """The runs without a memory cap: counts, lengths, and which are steady."""
    r = st.filter(in_memory_runs(st))
    if r.height == 0:
        return {}
    short = r.filter(pl.col("window_s").fill_null(0) < STEADY_MIN_S).height
    steady = r.filter(_steady(r))
    # the runs without a memory cap that are not in memory: a descriptive batch's (the cache sweep's O_DIRECT runs,
    # which RocksDB's block cache limits), which Table IV lists with the cap "none" beside the in-memory ones
    uncapped_sweep = st.filter(~HAS_CAP & ~not_descriptive(st)).height
    m = {"InMemoryRuns": fmt_int(r.height), "InMemoryRunMedianS": fmt_float(r["run_s"].median(), 0),
         "UncappedSweepRuns": fmt_int(uncapped_sweep),
         "InMemoryRunMaxS": fmt_float(r["run_s"].max(), 0), "InMemorySteady": fmt_int(steady.height),
         "InMemoryShortPhrase": k_of_n(short, r.height, "runs")}  # fmt: skip
    if steady.height == 0:
        m["InMemorySteadyPhrase"] = "none of them is steady"
    else:
        by = steady.group_by("workload", maintain_order=True).agg(pl.len(), pl.col("window_s").min().alias("lo"),
                                                                    pl.col("window_s").max().alias("hi"))
        parts = [f"{fmt_int(n)} {WORKLOAD_NAMES.get(w, w + ' run{}').format('' if n == 1 else 's')} (windows of "
                 f"{span(pl.Series([lo, hi]))}\\,s)" for w, n, lo, hi in by.iter_rows()]  # fmt: skip
        m["InMemorySteadyPhrase"] = "the steady ones are " + join_and(parts)
    return m


Waiting = dict[str, tuple[list[str], list[str], bool]]  # waiting_rows: batch -> (rows, batches they wait for, read now)


def role(meets: bool, steady: int, rows: list[str], missing: list[str], ready: bool) -> str:
    """What the claims table does with a capped batch: reads its steady runs, waits (the plan's one look: the
    batches waited for by count, since no batch name reaches the paper), or neither."""
    if not meets:
        return "it stays a condition of its own: reported here, not judged"
    if not steady:
        return "with no steady run, no claim reads it"
    if not missing:
        return "the scale rows of the claims table read its steady runs"
    wait = f"wait for {counted(len(missing), 'batch', 'batches')} not captured yet, the plan's one look"
    if not ready:
        return f"the scale rows that read it ({join_and(rows)}) {wait}"
    return f"the scale rows of the claims table read its steady runs ({join_and(rows)} {wait})"


def capped(st: pl.DataFrame, waiting: Waiting | None = None) -> dict[str, str]:
    """Each memory-capped batch (Memcap<Ordinal>...) and the batches as a whole; `waiting` (waiting_rows): a batch
    whose scale rows wait for batches not captured yet."""
    c = st.filter(HAS_CAP & not_descriptive(st))
    batches = c["batch"].unique(maintain_order=True).to_list()
    m = {"SteadyMinS": fmt_float(STEADY_MIN_S, 0), "MserBatchS": fmt_int(BATCH),
         "DataOverCapMin": fmt_int(DATA_OVER_CAP), "MemcapBatches": count_word(len(batches)),
         "MemcapBatchesPhrase": counted(len(batches), "batch", "batches"),
         "MemcapRuns": fmt_int(c.height)}  # fmt: skip
    judged, ratios = [], []
    for i, b in enumerate(batches[: len(ORDINALS)]):
        g = c.filter(pl.col("batch") == b)
        k = f"Memcap{ORDINALS[i]}"
        ratio = g["data_over_cap"].drop_nulls()
        steady = g.filter(_steady(g))
        m |= {f"{k}CapMiB": _mib(g["memory_cap_bytes"]), f"{k}DataMiB": _mib(g["data_bytes"]),
              f"{k}RunS": span(g["run_s"]), f"{k}Runs": fmt_int(g.height), f"{k}Traced": fmt_int(g["traced"].sum()),
              f"{k}Steady": fmt_int(steady.height), f"{k}SteadyPhrase": k_of_n(steady.height, g.height, "runs"),
              f"{k}WindowS": span(steady["window_s"]),
              f"{k}WindowStartS": span(steady["window_start_s"])}  # fmt: skip
        t = g.filter(pl.col("trace_start_s").is_not_null())
        if t.height:
            m[f"{k}TraceS"] = span(t["trace_end_s"] - t["trace_start_s"])
            m[f"{k}TraceStartS"] = span(t["trace_start_s"])
            m[f"{k}TraceInWindowPhrase"] = k_of_n(int(t["trace_in_window"].fill_null(False).sum()), t.height,
                                                  "traced runs")  # fmt: skip
        if ratio.len():
            printed, side = against(float(ratio.min()), DATA_OVER_CAP)
            m[f"{k}DataOverCap"], m[f"{k}RegimePhrase"] = printed, f"{side} the plan's {fmt_int(DATA_OVER_CAP)}"
            ratios.append(float(ratio.min()))
            meets = ratio.min() >= DATA_OVER_CAP
            judged.append(meets and steady.height > 0)
            m[f"{k}RolePhrase"] = role(meets, steady.height, *(waiting or {}).get(b, ([], [], True)))
        m[f"{k}Database"] = join_and(sorted({DATABASES.get(w, w) for w in g["workload"].to_list()}))
        prev = f"Memcap{ORDINALS[i - 1]}" if i else None
        m[f"{k}Sentence"] = (repeat_sentence(m, k, ORDINALS[i].lower(), ORDINALS[i - 1].lower())
                             if prev and same_setup(m, prev, k) else batch_sentence(m, k, ORDINALS[i].lower()))
    if batches:
        m["MemcapDatabasesPhrase"] = join_and(list(dict.fromkeys(
            DATABASES.get(w, w) for w in c.sort("workload", descending=True)["workload"].to_list())))
        m["MemcapSentences"] = " ".join(m[f"Memcap{o}Sentence"] for o in ORDINALS if f"Memcap{o}Sentence" in m)
    m |= limit(ratios, judged)
    return m


def batch_sentence(m: dict[str, str], k: str, ordinal: str) -> str:
    """One memory-capped batch in words, from its macros (capped()); a part whose numbers are missing is left out."""
    out = (f"The {ordinal} batch ({m[f'{k}Database']}) held {m[f'{k}DataMiB']}\\,MiB of records under a "
           f"{m[f'{k}CapMiB']}\\,MiB cap")
    if f"{k}DataOverCap" in m:
        out += f": {m[f'{k}DataOverCap']} times the cap, {m[f'{k}RegimePhrase']}"
    steady = int(m[f"{k}Steady"].replace(",", ""))
    out += f". Its runs last {m[f'{k}RunS']}\\,s; {m[f'{k}SteadyPhrase']} {'is' if steady == 1 else 'are'} steady"
    if steady:
        out += f", with windows of {m[f'{k}WindowS']}\\,s"  # the warm-ups are Table IV's (WindowStartS)
    if f"{k}TraceS" in m:
        out += (f"; a traced run keeps {m[f'{k}TraceS']}\\,s of its trace from {m[f'{k}TraceStartS']}\\,s on, "
                f"inside the steady window in {m[f'{k}TraceInWindowPhrase']}")
    return out + (f"; {m[f'{k}RolePhrase']}." if f"{k}RolePhrase" in m else ".")


# what a batch shares with the one before it when it repeats it (its runs' steadiness apart)
SETUP = ("Database", "DataMiB", "CapMiB", "DataOverCap", "RegimePhrase", "RunS", "TraceS", "TraceStartS",
         "RolePhrase")


def same_setup(m: dict[str, str], a: str, b: str) -> bool:
    """Batches `a` and `b` (macro prefixes) hold the same database, data, cap and run length, keep the same trace
    window and play the same role."""
    return all(m.get(f"{a}{f}") == m.get(f"{b}{f}") for f in SETUP)


def repeat_sentence(m: dict[str, str], k: str, ordinal: str, before: str) -> str:
    """A batch that repeats the one before it (same_setup) in words: what differs, its steady runs and their windows
    ("The fourth batch repeated the third: five of the six runs are steady, with windows of ...")."""
    steady = int(m[f"{k}Steady"].replace(",", ""))
    out = f"The {ordinal} batch repeated the {before}: {m[f'{k}SteadyPhrase']} {'is' if steady == 1 else 'are'} steady"
    if steady:
        out += f", with windows of {m[f'{k}WindowS']}\\,s"  # the warm-ups are Table IV's (WindowStartS)
    if f"{k}TraceInWindowPhrase" in m:
        out += f", the kept trace inside the steady window in {m[f'{k}TraceInWindowPhrase']}"
    return out + "."


def limit(ratios: list[float], judged: list[bool]) -> dict[str, str]:
    """What the study cannot say about data larger than memory (abstract, conclusion): the largest ratio a
    judged batch reached, or that none reached the plan's."""
    # the ratio is data over the cgroup's memory cap (not the host's memory): the phrase says so
    reached = [r for r, j in zip(ratios, judged, strict=True) if j]
    if reached:
        return {"ScaleLimitPhrase": f"data sets more than {fmt_float(max(reached), 1)} times the memory their "
                                    "database may use"}  # fmt: skip
    best = f" (ours reach {against(max(ratios), DATA_OVER_CAP)[0]} times a memory cap)" if ratios else ""
    return {"ScaleLimitPhrase": f"data sets {fmt_int(DATA_OVER_CAP)} or more times the memory their database may "
                                f"use{best}"}  # fmt: skip


SKEW_ROWS = ("S1-zipf-scale", "S1-hot-scale", "S1-hot-meta-scale")  # the scale rows that read block skew
FOF_COLUMNS = ("op", "count", "pages")


def read_fof(files: list[Path]) -> pl.DataFrame:
    """The read accesses of each run's kept window: run_id, count, pages (`pages` pages read `count` times each),
    from <processed>/<run_id>/frequency/fof.*.parquet files; a file that cannot be read is a ValueError naming it."""
    from blkscope.runs import run_id_of

    parts = [pl.DataFrame(schema={"run_id": pl.Utf8, "count": pl.Int64, "pages": pl.Int64})]
    for f in files:
        try:
            df = pl.read_parquet(f)
        except (OSError, pl.exceptions.PolarsError) as e:
            raise ValueError(f"{f}: {e}") from None
        missing = sorted(set(FOF_COLUMNS) - set(df.columns))
        if missing:
            raise ValueError(f"{f}: no column(s) {', '.join(missing)}")
        parts.append(df.filter(pl.col("op") == "read").select(
            run_id=pl.lit(run_id_of(f)), count=pl.col("count").cast(pl.Int64), pages=pl.col("pages").cast(pl.Int64)))
    return pl.concat(parts)


def waiting_rows(plan: Plan | None, st: pl.DataFrame) -> Waiting:
    """Per captured batch with a scale row that waits for a listed batch with no run in `st` yet (claim_rows'
    rule: one look, once every listed batch is captured): those rows, the batches they wait for, and whether
    another row reads the batch now."""
    if plan is None:
        return {}
    have = set(st["batch"].cast(pl.Utf8).fill_null("").to_list())
    entries = [e for e in plan.entries if e.batches]
    out: Waiting = {}
    for e in entries:
        missing = [b for b in e.batches if b not in have]
        for b in (b for b in e.batches if b in have and missing):
            ready = any(b in x.batches and all(y in have for y in x.batches) for x in entries)
            rows, gone, _ = out.get(b, ([], [], ready))
            out[b] = ([*rows, e.row_id], gone + [x for x in missing if x not in gone], ready)
    return out


def skew_batches(plan: Plan | None) -> tuple[str, ...] | None:
    """The batches the skew rows (SKEW_ROWS) read, from the claims plan; None without a plan (every batch)."""
    if plan is None:
        return None
    return tuple(b for e in plan.entries if e.row_id in SKEW_ROWS for b in e.batches)


def reuse(st: pl.DataFrame, fof: pl.DataFrame, zipf: pl.DataFrame | None,
          batches: tuple[str, ...] | None = None) -> dict[str, str]:
    """ScaleReuseSentence: how often the runs the scale rows read re-read a page in their kept window, and what
    that leaves the skew rows to say; nothing without such runs. `batches`: the skew rows' (a Cassandra capped
    batch is traced and at scale, but no skew row reads it)."""
    scale = st.filter(_steady(st) & (pl.col("data_over_cap").fill_null(0) >= DATA_OVER_CAP) & not_descriptive(st))
    if batches is not None:
        scale = scale.filter(pl.col("batch").is_in(list(batches)))
    per = (fof.filter(pl.col("run_id").is_in(scale["run_id"].to_list()))
           .group_by("run_id").agg(reads=(pl.col("count") * pl.col("pages")).sum(), pages=pl.col("pages").sum(),
                                   once=pl.col("pages").filter(pl.col("count") == 1).sum(), distinct=pl.len())
           .filter(pl.col("pages") > 0)
           .with_columns(per_page=pl.col("reads") / pl.col("pages"), once_share=pl.col("once") / pl.col("pages")))
    if per.height == 0:
        return {}
    n = per.height
    fits = (zipf.filter(pl.col("run_id").is_in(per["run_id"].to_list()) & (pl.col("op") == "all"))
            if zipf is not None else pl.DataFrame(schema={"run_id": pl.Utf8, "s": pl.Float64}))
    no_fit = fits.filter(pl.col("s").is_null()).height
    once, per_page = float(per["once_share"].median()), fmt_float(per["per_page"].median(), 2)
    distinct = span(per["distinct"].cast(pl.Float64))
    ids = ", ".join(SKEW_ROWS)
    said = (f"with more than half of the read pages read once, the skew rows ({ids}) say little about skew at scale"
            if once > 0.5 else f"read pages are re-read within the window, so the skew rows ({ids}) rest on reuse")
    fitted = (f", and {k_of_n(no_fit, fits.height, 'runs')} {'have' if no_fit > 1 else 'has'} no power-law fit"
              if fits.height else "")
    return {"ScaleReuseRuns": fmt_int(n), "ScaleReadsPerPage": per_page, "ScaleReadOncePct": fmt_pct(once, 0),
            "ScaleReadDistinct": distinct,
            "ScaleReuseSentence": (
                f"In the {counted(n, 'traced run', 'traced runs')} the scale rows read, a read page is read "
                f"{per_page} times in the kept trace window (median over runs; {fmt_pct(once, 0)} of the read pages "
                f"once; {distinct} distinct access counts in a run){fitted}: {said}")}  # fmt: skip


def traced_journal(st: pl.DataFrame) -> dict[str, str]:
    """How long the journal writer's traced host runs ran, as measured: the Databases section's write latencies
    per filesystem are means over them (study_numbers.workloads: the runs sheet's traced loop runs), and the text
    names them beside the claims' longer untraced runs (JournalTracedRunS: "11" or "10--11")."""
    if not {"workload", "testbed", "traced", "run_s"} <= set(st.columns):
        return {}
    r = st.filter((pl.col("workload") == "journal") & (pl.col("testbed") == "loop") & pl.col("traced"))
    return {"JournalTracedRunS": span(r["run_s"])} if r.height else {}


def macros(st: pl.DataFrame, fof: pl.DataFrame | None = None, zipf: pl.DataFrame | None = None,
           batches: tuple[str, ...] | None = None, waiting: Waiting | None = None) -> dict[str, str]:
    m = run_lengths(st) | in_memory(st) | capped(st, waiting) | traced_journal(st)
    return m | reuse(st, fof, zipf, batches) if fof is not None else m


def render(m: dict[str, str]) -> str:
    return macro_file(f"% Generated by `python -m blkscope.paper.scale_numbers`; do not edit.\n"
                      f"\\newcommand{{\\{GUARD}}}{{}}", m)  # fmt: skip


NEED = ("run_id", "workload", "batch", "memory_cap", "memory_cap_bytes", "data_bytes", "data_over_cap", "run_s",
        "window_s", "window_start_s", "steady", "traced", "trace_start_s", "trace_end_s", "trace_in_window")


def _options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--fof", type=Path, nargs="*", default=[],
                   help="frequency of frequency of the memory-capped traced runs (<processed>/<run>/frequency/...)")
    p.add_argument("--zipf", type=Path, help="the zipf table (run_id, op, s), for the runs without a fit")
    p.add_argument("--plan", type=Path, help="the claims plan (config/claims_plan.yaml): the skew rows' batches")


def _render(st: pl.DataFrame, a: argparse.Namespace) -> str:
    zipf = None
    if a.zipf:
        try:
            zipf = pl.read_parquet(a.zipf, columns=["run_id", "op", "s"])
        except (OSError, pl.exceptions.PolarsError) as e:
            raise ValueError(f"{a.zipf}: {e}") from None
    plan = claims_plan.load(a.plan) if a.plan else None  # read once: the skew rows' batches, the rows that wait
    return render(macros(st, read_fof(a.fof) if a.fof else None, zipf, skew_batches(plan), waiting_rows(plan, st)))


def main(argv: list[str] | None = None) -> int:
    return table_to_tex.main(argv, "blkscope.paper.scale_numbers", __doc__, "steady", NEED, _render, _options)


if __name__ == "__main__":
    sys.exit(main())
