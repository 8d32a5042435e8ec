"""Macros of the cache sweep (issue P item 3), from its table (data/processed/analysis/cache_sweep.parquet,
blkscope.analysis.characterise.cache_sweep) restricted to the sweep's batch: the Scale paragraph points at its
figure (appendix) with these, and no claim reads it.

Sweep...: the captured runs and their configurations (cache kind, cache size, records) with the runs of each, the
kept trace window, the cache-to-data range, the records range; the hottest pages' share of reads (the fraction of
pages: metadata.TOP_FRACTION) and the LRU miss ratios at caches of 1 % and 10 % of the touched pages, each as a
min--max range over the runs (...Min, ...Max, and ...Span: "a to b", or "a" where every run gives a); and, by
rule, three phrases:

- SweepHotFewPhrase (few_pages_phrase): the runs without a hot share (their window read fewer than
  cache_sweep.MIN_HOT_PAGES pages, too few for a hottest 1 %), as " (not in k of the n runs: ...)"; empty when
  every run has one.

- SweepSkewPhrase (skew_phrase): the hot pages' share of reads as a multiple of the share a uniform spread gives
  them (the fraction itself), min to max over the runs: under NEAR_UNIFORM times it in every run is "near
  uniform", at least SKEWED times it in every run "skewed"; else the range, and how many runs are either.
- SweepReusePhrase (reuse_phrase): the miss ratio at the larger cache: at least NEAR_ONE in every run is "near 1:
  the window limits what reuse can show"; at most FAR_BELOW in every run says pages are re-read within the
  window; else the spread.
- SweepMissPhrase (miss_phrase): the miss ratios at the two caches, one value said once where both give it.

A sweep may be several batches (`--batch A+B=PREFIX`): a configuration a later batch ran again (Cassandra's 70 k
point, whose 2-s windows held too few events, with its whole steady window kept: config/claims_plan.yaml
`amendments`, 2026-11-30) is read from the later batch's runs; the earlier runs of it stay in the table, out of the
macros above, and both sets are given beside each other (read_and_aside): ...Redone... (the runs read) and
...Aside... (the runs set aside), each with its Runs, WindowS, EventsSpan, OpsSpan (YCSB's operations/s),
RecordsSpan, SSpan (the fitted rank
exponent), HotReadSpan with its HotFewPhrase, MissOneSpan and MissTenSpan; ...RedoneKernelPhrase says whether the
runs read ran on the kernel build of those set aside (kernel_phrase).

    python -m blkscope.paper.sweep_numbers --sweep data/processed/analysis/cache_sweep.parquet \\
        --batch round4-sweep --batch round4-sweep-cassandra+round4-sweep-cassandra-2=SweepCass -o sweep.tex
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import polars as pl

from blkscope.analysis.characterise.cache_sweep import CONFIGURATION, MIN_HOT_PAGES, MISS_FRACTIONS, configurations
from blkscope.analysis.characterise.metadata import TOP_FRACTION
from blkscope.paper import table_to_tex
from blkscope.paper.latex import count_word, fmt_float, fmt_int, fmt_pct, join_and, macro_file, span
from blkscope.paper.phrases import k_of_n

GUARD = "BlkSweepNumbers"
NEAR_UNIFORM = 1.5  # the hot pages take under this many times their uniform share of reads: "near uniform"
SKEWED = 10.0  # at least this many times it: "skewed" (the hottest 1 % of pages take 10 % of the reads or more)
NEAR_ONE = 0.9  # a miss ratio at least this at the larger cache: nearly every access misses
FAR_BELOW = 0.5  # at most this: the cache serves at least half of the accesses


def sig(x: float, digits: int = 2) -> str:
    """`x` with `digits` significant digits: 0.0786 -> 0.079, 8.39 -> 8.4, 0.4027 -> 0.40."""
    return fmt_float(x, max(0, digits - 1 - math.floor(math.log10(abs(x))))) if x else "0"


def skew_phrase(shares: pl.Series, fraction: float = TOP_FRACTION) -> str:
    """What the hottest `fraction` of pages' shares of reads (one per run) say against a uniform spread (where
    they take `fraction`), as a multiple of that share: "at most 4.3 times the 1 % a uniform spread gives them";
    "near uniform" only for the runs under NEAR_UNIFORM times it, "skewed" only for those at SKEWED times or more
    (review-q5 N13: 4.3 times a uniform share is not near uniform)."""
    s = shares.drop_nulls()
    if s.len() == 0:
        return "no run to compare with a uniform spread"
    r = s / fraction
    uniform = f"the {fmt_pct(fraction, 0)} a uniform spread gives them"
    near, skewed = int((r < NEAR_UNIFORM).sum()), int((r >= SKEWED).sum())
    # runs without a share (few_pages_phrase) leave some points unmeasured: then "every" is every run that has one
    every = "at every cache-to-data ratio and record count" if not shares.null_count() else "in every run that has one"
    if near == s.len():  # a largest multiple that rounds to one: the uniform share itself, no multiple printed
        most = f"no more than {uniform}" if float(sig(r.max())) <= 1 else f"at most {sig(r.max())} times {uniform}"
        return f"{most}: near uniform {every}"
    if skewed == s.len():
        return f"at least {sig(r.min())} times {uniform}: skewed {every}"
    parts = [f"under {fmt_float(NEAR_UNIFORM, 1)} times it, near uniform, in {k_of_n(near, s.len(), 'runs')}"] \
        if near else []  # fmt: skip
    if skewed:
        parts.append(f"{fmt_float(SKEWED, 0)} times it or more, skewed, in {k_of_n(skewed, s.len(), 'runs')}")
    return f"at most {sig(r.max())} times {uniform}" + (f" ({' and '.join(parts)})" if parts else "")


def few_pages_phrase(shares: pl.Series) -> str:
    """The runs whose hot share is null (cache_sweep: fewer than MIN_HOT_PAGES read pages in the window), said
    after the hot share's range; empty when there is none."""
    k = shares.null_count()
    if not k:
        return ""
    return (f" (not in {k_of_n(k, shares.len(), 'runs')}: their windows read fewer than {fmt_int(MIN_HOT_PAGES)} "
            f"pages, too few for a hottest {fmt_pct(TOP_FRACTION, 0)})")


def reuse_phrase(miss: pl.Series, cache: float, window: str) -> str:
    """What the LRU miss ratios at a cache of `cache` of the touched pages (one per run) say about reuse within a
    kept trace window of `window` seconds."""
    m = miss.drop_nulls()
    at = f"a cache of {fmt_pct(cache, 0)} of the touched pages"
    if m.len() and m.min() >= NEAR_ONE:
        return f"near 1 even at {at}: the {window}\\,s window, not only the cache, limits the reuse these runs show"
    if m.len() and m.max() <= FAR_BELOW:
        return f"{at} serves at least half of the accesses in every run: pages are re-accessed within the window"
    return f"{at} serves a share of the accesses that differs between runs within the {window}\\,s window"


def miss_phrase(one: str, ten: str) -> str:
    """The two caches' miss ratios (each a run's value or a span), said once where they are the same: "miss 0.41
    and 0.12 of the accesses", "each miss 1.00 of the accesses"."""
    return f"each miss {one} of the accesses" if one == ten else f"miss {one} and {ten} of the accesses"


def _range(x: pl.Series, fmt) -> tuple[str, str]:
    x = x.drop_nulls()
    return (fmt(x.min()), fmt(x.max())) if x.len() else ("--", "--")


ONE, TEN = MISS_FRACTIONS
# the ranges each set of runs gets (...Min, ...Max, ...Span): macro key, table column, format
RANGES = (("CacheToData", "cache_to_data", sig), ("Records", "recordcount", fmt_int),
          ("Events", "events", fmt_int), ("Ops", "ops_s", fmt_int), ("S", "s", lambda x: fmt_float(x, 2)),
          ("HotRead", "hot1_read", lambda x: fmt_pct(x, 1)),
          ("MissOne", f"miss_{round(ONE * 100)}pct", lambda x: fmt_float(x, 2)),
          ("MissTen", f"miss_{round(TEN * 100)}pct", lambda x: fmt_float(x, 2)))  # fmt: skip
SIDE = ("Runs", "WindowS", "EventsSpan", "OpsSpan", "RecordsSpan", "SSpan", "HotReadSpan", "HotFewPhrase",
        "MissOneSpan", "MissTenSpan")  # a redone point's macros, for its runs read and its runs set aside


def kernel_phrase(redone: pl.DataFrame, aside: pl.DataFrame) -> str:
    """Whether a redone point's runs ran on the kernel build of the runs set aside (cache_sweep `kernel`): "on another
    kernel build (6.18.44-fc-v857 against 6.18.44-fc-v782)", "on the same kernel build", or, where a run did not
    record it, "on a kernel build not recorded for every run"."""
    if "kernel" not in redone.columns or redone["kernel"].null_count() or aside["kernel"].null_count():
        return "on a kernel build not recorded for every run"
    a, b = (sorted(set(x["kernel"].to_list())) for x in (redone, aside))
    if a == b:
        return "on the same kernel build"
    if set(a) & set(b):
        return f"partly on another kernel build ({join_and(a)} against {join_and(b)})"
    return f"on another kernel build ({join_and(a)} against {join_and(b)})"


def kept_phrase(runs: pl.DataFrame, steady: pl.DataFrame) -> str:
    """Where the kept trace of a redone point's `runs` lies against the steady window the detector found in each
    (steady_state.parquet: trace_start_s, window_start_s, trace_in_window, rule): "keeping 120 s of trace from 60 s
    on, the end of the fixed warm-up; the steady window (MSER-5 on YCSB ops/s) starts 15 to 25 s later, so the kept
    trace's first 15 to 25 s precede it" (issue Q review: "the 120 s after the warm-up" read as the steady window's);
    "..., inside the steady window in every run" where it is."""
    st = steady.join(runs.select("run_id"), on="run_id", how="semi")
    window = f"keeping {span(runs['window_s'])}\\,s of trace"
    if st.height == 0 or st["trace_start_s"].null_count() == st.height:
        return window
    start = span(st["trace_start_s"].round(0))
    head = f"{window} from {start}\\,s on, the end of the fixed warm-up"
    if st["trace_in_window"].fill_null(False).all():
        return f"{head}, inside the steady window in every run"
    # the lead over the runs whose kept trace starts before their window (a run inside it has none to say)
    out = st.filter(~pl.col("trace_in_window").fill_null(False))
    lead = span((out["window_start_s"] - out["trace_start_s"]).clip(lower_bound=0).round(0))
    where = "" if out.height == st.height else f" in {k_of_n(out.height, st.height, 'runs')}"
    rule = str(st["rule"].drop_nulls()[0]).split(" (")[0] if st["rule"].drop_nulls().len() else "the detector"
    return (f"{head}; the steady window ({rule}) starts {lead}\\,s later{where}, so the kept trace's first "
            f"{lead}\\,s precede it")


MEASURES = (("SSpan", "s", "rank exponent"), ("HotReadSpan", "hot1_read", "hottest share"),
            ("MissOneSpan", f"miss_{round(ONE * 100)}pct", "miss ratio at the smaller cache"),
            ("MissTenSpan", f"miss_{round(TEN * 100)}pct", "miss ratio at the larger cache"))  # fmt: skip


def measures_phrase(runs: pl.DataFrame, m: dict[str, str], key: str) -> str:
    """What a set of runs gives of the sweep's measures (their spans in `m`), a measure none of them has said as
    missing, not as a dash (issue Q review: "a rank exponent of --"), one some lack with the runs that have it:
    "give a miss ratio at the larger cache of 1.00 (in one of the three runs), and no rank exponent, hottest share or
    miss ratio at the smaller cache: too few pages for them"."""
    have, lack = [], []
    for k, col, name in MEASURES:
        x = runs[col] if col in runs.columns else pl.Series([None] * runs.height, dtype=pl.Float64)
        n = x.len() - x.null_count()
        if n == 0:
            lack.append(name)
            continue
        some = f" (in {k_of_n(n, x.len(), 'runs')})" if n < x.len() else ""
        have.append(f"a {name} of {m[f'{key}{k}']}{some}")
    out = f"give {join_and(have)}" if have else "give"
    if lack:
        them = "them" if len(lack) > 1 else "it"
        out += f"{', and' if have else ''} no {join_and(lack, 'or')}: too few pages for {them}"
    return out


def _ranges(s: pl.DataFrame, key: str) -> dict[str, str]:
    m = {}
    for name, col, fmt in RANGES:
        lo, hi = m[f"{key}{name}Min"], m[f"{key}{name}Max"] = _range(s[col], fmt) if col in s.columns else ("--",) * 2
        m[f"{key}{name}Span"] = lo if lo == hi else f"{lo} to {hi}"  # one value when every run gives it
    return m | {f"{key}Runs": fmt_int(s.height), f"{key}WindowS": span(s["window_s"]),
                f"{key}HotFewPhrase": few_pages_phrase(s["hot1_read"])}  # fmt: skip


def read_and_aside(table: pl.DataFrame, batches: str | tuple[str, ...]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The captured runs of a sweep's `batches` that its macros read, and those set aside: a configuration
    (CONFIGURATION) a later batch ran again is read from that batch's runs alone."""
    batches = (batches,) if isinstance(batches, str) else tuple(batches)
    s = table.filter(pl.col("batch").is_in(list(batches)) & pl.col("captured").fill_null(False))
    aside = s.clear()
    for i, later in enumerate(batches[1:], 1):
        redone = s.filter(pl.col("batch") == later).select(CONFIGURATION).unique()
        earlier = s.filter(pl.col("batch").is_in(list(batches[:i]))).join(redone, on=CONFIGURATION, how="semi")
        aside = pl.concat([aside, earlier])
    aside = aside.unique("run_id", maintain_order=True)  # a configuration two later batches reran: its runs once
    return s.filter(~pl.col("run_id").is_in(aside["run_id"].to_list())), aside


def macros(table: pl.DataFrame, batches: str | tuple[str, ...], prefix: str = "Sweep",
           steady: pl.DataFrame | None = None) -> dict[str, str]:
    """`prefix`... macros (Sweep...) of the captured runs of `batches` (read_and_aside); none when they have no
    captured run (the text is guarded). With `steady` (steady_state.parquet), the redone runs' kept trace against
    their steady window (kept_phrase: ...RedoneKeptPhrase); each side's measures in words (...MeasuresPhrase)."""
    s, aside = read_and_aside(table, batches)
    if s.height == 0:
        return {}
    conf = configurations(s)
    window = span(s["window_s"])
    m = {"SweepRuns": fmt_int(s.height), "SweepConfigs": count_word(conf.height),
         "SweepRepeats": span(conf["runs"].cast(pl.Float64)), "SweepWindowS": window,
         "SweepHotPct": fmt_pct(TOP_FRACTION, 0), "SweepOnePct": fmt_pct(ONE, 0), "SweepTenPct": fmt_pct(TEN, 0),
         "SweepSkewPhrase": skew_phrase(s["hot1_read"]), "SweepHotFewPhrase": few_pages_phrase(s["hot1_read"]),
         "SweepReusePhrase": reuse_phrase(s[f"miss_{round(TEN * 100)}pct"], TEN, window)}  # fmt: skip
    m |= {k: v for k, v in _ranges(s, "Sweep").items() if not k.endswith(("Runs", "WindowS", "HotFewPhrase"))}
    m["SweepMissPhrase"] = miss_phrase(m["SweepMissOneSpan"], m["SweepMissTenSpan"])
    if aside.height:  # the redone point: its runs read and those set aside, beside each other
        redone = s.join(aside.select(CONFIGURATION).unique(), on=CONFIGURATION, how="semi")
        for key, runs in (("SweepRedone", redone), ("SweepAside", aside)):
            m |= {k: v for k, v in _ranges(runs, key).items() if k.removeprefix(key) in SIDE}
        m["SweepAsideMeasuresPhrase"] = measures_phrase(aside, m, "SweepAside")
        m["SweepRedoneKernelPhrase"] = kernel_phrase(redone, aside)
        if steady is not None:
            m["SweepRedoneKeptPhrase"] = kept_phrase(redone, steady)
    return {prefix + k.removeprefix("Sweep"): v for k, v in m.items()}


def render(m: dict[str, str]) -> str:
    return macro_file(f"% Generated by `python -m blkscope.paper.sweep_numbers`; do not edit.\n"
                      f"\\newcommand{{\\{GUARD}}}{{}}", m)  # fmt: skip


NEED = ("batch", "captured", "cache_kind", "cache_bytes", "recordcount", "window_s", "cache_to_data", "hot1_read",
        "miss_1pct", "miss_10pct")  # fmt: skip


def _options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--steady", type=Path, help="steady_state.parquet: where a redone point's kept trace lies")
    p.add_argument("--batch", action="append", required=True, metavar="BATCH[+BATCH...][=PREFIX]",
                   help="a sweep's batches (runs-sheet batch; a later one's configurations replace the earlier "
                        "ones') and its macros' prefix (default Sweep); repeatable")


def _batches(specs: list[str]) -> dict[tuple[str, ...], str]:
    """`round4-sweep`, `round4-sweep-cassandra+round4-sweep-cassandra-2=SweepCass` -> {(batch, ...): prefix} (a
    sweep's batches in the order they ran: a later one's configurations replace the earlier ones'); two sweeps on one
    prefix refused."""
    pairs = [spec.split("=", 1) if "=" in spec else (spec, "Sweep") for spec in specs]
    out = {tuple(b.split("+")): p for b, p in pairs}
    prefixes = list(out.values())
    if len(set(prefixes)) < len(prefixes) or not all(p.isalpha() for p in prefixes):
        raise ValueError(f"--batch {' '.join(specs)}: each batch needs a prefix of its own, in letters")
    return out


def _render(table: pl.DataFrame, a: argparse.Namespace) -> str:
    m: dict[str, str] = {}
    steady = pl.read_parquet(a.steady) if a.steady else None
    for batch, prefix in _batches(a.batch).items():
        m |= macros(table, batch, prefix, steady)
    return render(m)


def main(argv: list[str] | None = None) -> int:
    return table_to_tex.main(argv, "blkscope.paper.sweep_numbers", __doc__, "sweep", NEED, _render, _options)


if __name__ == "__main__":
    sys.exit(main())
