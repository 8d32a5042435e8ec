"""Numbers of the question sections (queue depth, tracing cost and overhead, Zipf, workloads), as macros.

Sections read them through \\blk{Name}, which prints `n/a` for a number the dataset cannot give (a
workload never captured, no paired runs), so the paper builds from any subset of the runs.
"""

from __future__ import annotations

import math

import polars as pl

from blkscope.analysis.load.overhead import BOTH, CONFIG
from blkscope.analysis.summaries.run_groups import LIGHT, SATURATING, with_groups
from blkscope.paper.claim_measures import VOLUME_JOB  # the volume-size runs: devices of their own
from blkscope.paper.claim_rows import not_descriptive
from blkscope.paper.claim_runs import WITHDRAWN
from blkscope.paper.claim_verdict import OUTSIDE
from blkscope.paper.latex import counted, enumerate_counts, fmt_depth, fmt_float, fmt_int, fmt_pct, macro_name
from blkscope.paper.phrases import k_of_n, says, shown

LOADS = (LIGHT, SATURATING)


def _host_traced(df: pl.DataFrame, runs: pl.DataFrame) -> pl.DataFrame:
    ids = runs.filter((pl.col("testbed") == "loop") & pl.col("traced"))["run_id"]
    return df.filter(pl.col("run_id").is_in(ids.to_list()))


def _with_load(df: pl.DataFrame, runs: pl.DataFrame) -> pl.DataFrame:
    """Rows with their run's load level (light | saturating | ceiling, from the runs sheet)."""
    return df.drop("load", strict=False).join(with_groups(runs).select("run_id", "load"), on="run_id", how="left")


def by_load(df: pl.DataFrame, runs: pl.DataFrame, prefix: str, col: str, fmt, stats=("min", "max")) -> dict:
    """The range of `col` at each load level apart (PrefixLightMin, PrefixSaturatingMax, ...; and the runs
    behind each, PrefixLightRuns): a range over light and saturating runs together would say neither."""
    m: dict[str, str] = {}
    d = _with_load(df, runs).filter(pl.col(col).is_not_null())
    for load in LOADS:
        x = d.filter(pl.col("load") == load)[col]
        if x.len() == 0:
            continue
        k = macro_name(prefix, load)
        m[f"{k}Runs"] = fmt_int(x.len())
        m |= {f"{k}{stat.capitalize()}": fmt(getattr(x, stat)()) for stat in stats}
    return m


def queue_depth(qd: pl.DataFrame, runs: pl.DataFrame) -> dict[str, str]:
    q = _host_traced(qd, runs)
    if q.height == 0:
        return {}
    rel = ((q["little_depth"] - q["mean_depth"]).abs() / q["mean_depth"]).max()
    m = {
        "QdRuns": fmt_int(q.height),
        "QdMaxDepth": fmt_int(q["max_depth"].max()),
        "QdLittleMaxRelErr": _bound_pct(rel),
        "QdLittlePhrase": little_phrase(rel),
    }
    m |= by_load(q, runs, "qd mean", "mean_depth", fmt_depth)
    # aqu-sz below the traced depth at saturation: iostat's whole-second samples outlast a run of a few seconds
    for prefix, col, fmt in (("qd seconds", "duration_s", lambda x: fmt_float(x, 1)),
                             ("qd aqu samples", "iostat_samples", fmt_int)):  # fmt: skip
        m |= by_load(q, runs, prefix, col, fmt) if col in q.columns else {}
    light = _with_load(q, runs).filter(pl.col("load") == LIGHT)["mean_depth"].drop_nulls()
    if light.len():
        m["QdLightAboveOnePhrase"] = above_one_phrase(int((light > 1).sum()), light.len(), light.max())
    return m | by_load(q, runs, "qd aqu", "iostat_aqu_sz", fmt_depth)


def little_phrase(rel: float) -> str:
    """How Little's law (completions/s x mean D2C) compares with the traced mean depth. With every request issued
    and completed inside the trace the two are one sum divided two ways, equal to rounding: said as the identity it
    is (a check of the D/C pairing), not as "within 0.00 %", which reads as a measured agreement."""
    if rel < 1e-9:
        return ("equals the traced mean to rounding, as it must when every request completes inside the trace: "
                "a check of the D/C pairing, not a second estimate")
    return f"reproduces the traced mean to within {_bound_pct(rel)}"


def _bound_pct(rel: float) -> str:
    """A relative error as a bound ("within"): rounded up, so that an error under 0.005 % prints 0.01 %."""
    return fmt_pct(math.ceil(round(rel * 1e4, 6)) / 1e4, 2)


def above_one_phrase(above: int, n: int, most: float | None = None) -> str:
    """How many light runs kept more than one request in flight on average, in words chosen by the count (the
    sentence was once "no filesystem keeps more than about one request in flight", beside depths of up to 11); with
    none above one and the largest mean depth `most`, that depth ("the 27 runs kept at most 0.17 requests in flight
    on average": "none kept more than one" undersold a bound six times lower)."""
    if above == 0:
        if most is not None:
            return f"the {fmt_int(n)} runs kept at most {fmt_depth(most)} requests in flight on average"
        return f"none of the {fmt_int(n)} runs kept more than one request in flight on average"
    if above == n:
        return f"all {fmt_int(n)} runs kept more than one request in flight on average"
    return f"{fmt_int(above)} of the {fmt_int(n)} runs kept more than one request in flight on average"


def trace_cost(tc: pl.DataFrame, runs: pl.DataFrame) -> dict[str, str]:
    t = _host_traced(tc, runs)
    if t.height == 0:
        return {}
    return {
        "TraceRuns": fmt_int(t.height),
        "TraceBytesPerEvent": fmt_float(t["raw_bytes_per_event"].median(), 1),
        "TraceStoredBytesPerEvent": fmt_float((t["stored_bytes"] / t["events"]).median(), 1),
        "TraceCompression": fmt_float((t["raw_bytes"].sum() / t["stored_bytes"].sum()), 1),
        "TraceEventsPerSecondMax": fmt_int(t["events_per_s"].max()),
    }


def overhead(ov: pl.DataFrame) -> dict[str, str]:
    """How many host configurations have traced and untraced runs in one capture batch (the analysis's strata with
    both arms); their ranges per load are load_numbers'."""
    if ov.height == 0 or "overhead" not in ov.columns:
        return {"OverheadConfigs": "0"}
    host = ov.filter(pl.col("testbed") == "loop")
    paired = host.filter(pl.col("arms") == BOTH) if "arms" in host.columns else host
    return {"OverheadConfigs": fmt_int(paired.select(c for c in CONFIG if c in paired.columns).n_unique())}


def zipf(z: pl.DataFrame, runs: pl.DataFrame | None = None) -> dict[str, str]:
    """Power-law fits over all traced runs (op all); the exponents' range per load level (with the runs sheet)."""
    a = z.filter(pl.col("op") == "all")
    fitted = a.filter(pl.col("alpha").is_not_null())
    m = {"ZipfRuns": fmt_int(a.height), "ZipfRunsFitted": fmt_int(fitted.height),
         "ZipfMaxDistinct": fmt_int(a["distinct"].max()) if "distinct" in a.columns else "n/a"}  # fmt: skip
    if fitted.height and runs is not None and "run_id" in fitted.columns:
        m |= by_load(fitted, runs, "zipf s", "s", lambda x: fmt_float(x, 2))
    return m


def workloads(metrics: pl.DataFrame, runs: pl.DataFrame) -> dict[str, str]:
    """Mean ops/s (and journal write latencies) over repeats per workload, job and filesystem (host, traced)."""
    # ext4 mounted data=writeback is its own configuration, not more repeats of ext4
    wb = runs.filter(pl.col("mount_options").fill_null("").str.contains("data=writeback"))["run_id"]
    t = _host_traced(metrics, runs).with_columns(
        filesystem=pl.when(pl.col("run_id").is_in(wb.to_list())).then(pl.col("filesystem") + " writeback")
        .otherwise(pl.col("filesystem"))
    )
    m: dict[str, str] = {}
    wanted = {"ops_s": ("ops", 0, 1.0), "write_mean_us": ("write mean us", 1, 1.0),
              "write_max_us": ("write max ms", 2, 1e-3), "write_p9999_us": ("write p9999 us", 0, 1.0)}  # fmt: skip
    by = t.filter(pl.col("metric").is_in(list(wanted))).group_by("workload", "job", "filesystem", "metric").agg(
        pl.col("value").mean(), pl.len().alias("n"))
    for r in by.iter_rows(named=True):
        label, digits, scale = wanted[r["metric"]]
        key = macro_name(label, r["workload"], r["job"], r["filesystem"])
        m[key] = fmt_float(r["value"] * scale, digits)
    # the runs beside each measure are the rows it averages: per workload and job (RunsSysbenchRndrw beside
    # OpsSysbenchRndrw...), over the filesystems it prints (not the data=writeback configuration)
    ops = t.filter((pl.col("metric") == "ops_s") & ~pl.col("filesystem").str.ends_with(" writeback"))
    for (w, j), g in ops.group_by("workload", "job"):
        m[macro_name("runs", w, j)] = fmt_int(g.height)
    return m


def guest(latency: pl.DataFrame, metrics: pl.DataFrame, runs: pl.DataFrame) -> dict[str, str]:
    """The emulated guest's traced runs: mean completed read and write requests per run (D2C pairs of the
    latency table; a run without any has none) and mean ops/s, per workload, job and filesystem."""
    # captured runs only (the sheet may list runs not captured yet): those with workload metrics
    captured = metrics["run_id"].unique().to_list()
    guest = runs.filter((pl.col("testbed") == "guest") & pl.col("run_id").is_in(captured))
    g = guest.filter(pl.col("traced")).select("run_id", "workload", "job", "filesystem")
    if g.height == 0:
        return {}
    m = {"GuestRuns": fmt_int(g.height), "GuestRunsUntraced": fmt_int(guest.height - g.height)}
    d2c = latency.filter((pl.col("stage") == "d2c") & pl.col("rw").is_in(["R", "W"]))
    for rw, label in (("R", "guest reads"), ("W", "guest writes")):
        n = d2c.filter(pl.col("rw") == rw).select("run_id", "n")
        per_run = g.join(n, on="run_id", how="left").with_columns(pl.col("n").fill_null(0))
        noun = label.split()[1][:-1]  # "read", "write"
        for r in per_run.group_by("workload", "job", "filesystem").agg(pl.col("n").mean()).iter_rows(named=True):
            name = macro_name(label, r["workload"], r["job"], r["filesystem"])
            m[name] = fmt_int(r["n"])
            # "no read requests", "one read request": a count in words where the text says it
            m[f"{name}Phrase"] = counted(round(r["n"]), f"{noun} request", f"{noun} requests")
    ops = metrics.filter(pl.col("metric") == "ops_s").join(g.select("run_id"), on="run_id")
    for r in ops.group_by("workload", "job", "filesystem").agg(pl.col("value").mean()).iter_rows(named=True):
        m[macro_name("guest ops", r["workload"], r["job"], r["filesystem"])] = fmt_float(r["value"], 0)
    return m


def dataset(metrics: pl.DataFrame) -> dict[str, str]:
    """The captured dataset as a whole (every captured run has workload metrics). The paper describes what we
    captured: runs a user imported (testbed external) are analysed beside them but not counted here."""
    r = metrics.select("run_id", "testbed", "traced", "filesystem", "workload").unique()
    r = r.filter(pl.col("testbed") != "external")
    return {
        "DatasetRuns": fmt_int(r.height),
        "DatasetRunsTraced": fmt_int(r["traced"].sum()),
        "DatasetRunsHost": fmt_int(r.filter(pl.col("testbed") != "guest").height),
        "DatasetRunsGuest": fmt_int(r.filter(pl.col("testbed") == "guest").height),
        "DatasetFilesystems": fmt_int(r["filesystem"].n_unique()),
        "DatasetWorkloads": fmt_int(r["workload"].n_unique()),
    }


# verdict (by its first words) -> (macro, predicate for one claim, for several)
VERDICT_WORDS = {
    "replicates": ("ClaimsReplicated", "replicates", "replicate"),
    "does not": ("ClaimsNotReplicated", "does not", "do not"),
    "inconclusive": ("ClaimsInconclusive", "is inconclusive", "are inconclusive"),
    WITHDRAWN: ("ClaimsWithdrawn", "was withdrawn before capture", "were withdrawn before capture"),
    "not tested": ("ClaimsUntested", "waits for runs", "wait for runs"),
    "not testable": ("ClaimsNotTestable", "is not testable here", "are not testable here"),
    OUTSIDE: ("ClaimsOutside", "is outside its study's condition", "are outside their study's condition"),
}


def verdict_counts(verdicts: pl.Series) -> dict[str, int]:
    """How many claims each verdict got (by its first words: a verdict may carry a reason in parentheses)."""
    v = verdicts.fill_null("")
    n = {k: int(v.str.starts_with(k).sum()) for k in VERDICT_WORDS}
    return n | {"not tested": n["not tested"] - n[WITHDRAWN]}  # a withdrawn row waits for no runs


def verdict_sentence(verdicts: pl.Series, ids: pl.Series | None = None) -> str:
    """"35 claims: 12 replicate, 8 do not and one is inconclusive": the counts of the claims table in words, the
    verdicts no claim got left out (the abstract and conclusion print it; a test finds it in the PDF). With `ids`
    (a claim judged under several conditions has a row each): "40 verdicts on 35 claims: ..."."""
    counts = verdict_counts(verdicts)
    parts = [(counts[k], one, many) for k, (_, one, many) in VERDICT_WORDS.items()]
    head = counted(verdicts.len(), "claim", "claims")
    if ids is not None and ids.n_unique() < verdicts.len():
        head = f"{counted(verdicts.len(), 'verdict', 'verdicts')} on {counted(ids.n_unique(), 'claim', 'claims')}"
    return f"{head}: {enumerate_counts(parts)}"


def claim_ids(claims: pl.DataFrame) -> pl.Series:
    """The claim each row judges: its id less the condition the claims plan appended ("S1-zipf-scale" ->
    "S1-zipf"), so that a claim judged under several conditions counts once; without a condition column, the ids."""
    if "condition" not in claims.columns:
        return claims["claim_id"]
    rows = zip(claims["claim_id"].to_list(), claims["condition"].fill_null("in-memory").to_list(), strict=True)
    return pl.Series("claim", [i if c == "in-memory" else i.removesuffix(f"-{c}") for i, c in rows])


def claims_sentence(claims: pl.DataFrame, column: str = "verdict") -> str:
    """verdict_sentence over the claims table's rows, the claims they judge counted once: "46 verdicts on 35
    claims: ..." (the abstract, the introduction and the conclusion print it; the PDF check finds it)."""
    return verdict_sentence(claims[column], claim_ids(claims))


def verdicts(claims: pl.DataFrame) -> dict[str, str]:
    """How many claims each verdict got, as numbers and as one sentence (ClaimsSentence); where claims.csv has the
    verdicts before the multiplicity adjustment beside the adjusted ones, those too (ClaimsSentenceUnadjusted)."""
    counts = verdict_counts(claims["verdict"])
    m = {"ClaimsTested": fmt_int(claims.height),
         "ClaimsSentence": claims_sentence(claims)}
    m |= {VERDICT_WORDS[k][0]: fmt_int(n) for k, n in counts.items()}
    if "verdict_unadjusted" in claims.columns:  # `verdict` is then the multiplicity-adjusted one
        m["ClaimsSentenceUnadjusted"] = claims_sentence(claims, "verdict_unadjusted")
    if "condition" in claims.columns and claims.filter(pl.col("condition") == "scale").height:
        m["ScaleClaimsSentence"] = condition_sentence(claims.filter(pl.col("condition") == "scale"))
    return m


# a claim's quantity as a clause around its estimate (claims.csv's `quantity` is a table label: "1 - traced/untraced
# ops/s, all host workloads 23.9 %" printed in prose read as a formula); keyed by the claim less its condition
CLAUSES = {
    "S1-zipf": "the block accesses' rank exponent is {}",
    "S1-hot": "btrfs's share of read accesses to the hottest 1\\,\\% of read pages is {} ext4's",
    "S1-hot-meta": "a share of {} of hot-page read accesses carries REQ\\_META",
    "S1-trace": "tracing costs {} of throughput",
    "S1-trace-ycsb-cass": "tracing Cassandra under YCSB costs {} of throughput",
    "S1-cass-read": "Cassandra's read throughput is {} RocksDB's",
    "S1-cass-write": "Cassandra's update throughput is {} RocksDB's",
}
# a tracing cost whose whole interval lies below zero, said in words
TRACING_COSTS = ("S1-trace", "S1-trace-ycsb-cass")
BELOW_ZERO = " (below zero: the traced runs were the faster)"
# an estimate of exactly zero with no spread: said in words ("0.0 %" reads as a rounded small share)
ZERO_CLAUSES = {"S1-hot-meta": "no hot-page read access carries REQ\\_META in any of the {}"}


def estimate_clause(r: dict, base: str) -> str:
    """One row with an estimate as a clause: CLAUSES's words for its claim, else its quantity label beside it."""
    from blkscope.paper.latex import escape, tidy

    spread = [r.get(k) for k in ("estimate", "lo", "hi")]
    if base in ZERO_CLAUSES and all(v is not None and v == 0 for v in spread):
        n = str(r.get("n") or "")
        return ZERO_CLAUSES[base].format(counted(int(n), "run", "runs") if n.isdigit() else f"runs ({escape(n)})")
    if base in CLAUSES:  # a verdict of the condition rule names the confound itself (phrases.says)
        # a caveat (a traced arm faster: a confound) says it beside the verdict (phrases.says)
        below = BELOW_ZERO if base in TRACING_COSTS and r.get("hi") is not None and r["hi"] < 0 and not \
            r.get("caveat") else ""
        return CLAUSES[base].format(escape(tidy(shown(r)))) + below
    return f"{escape(r['quantity'])} {escape(tidy(shown(r)))}"


def condition_sentence(rows: pl.DataFrame) -> str:
    """The rows of one condition in a sentence: each row with an estimate as a clause, then its id, verdict and
    where its interval lies against the claimed size in one clause (phrases.says: "tracing costs 23.9 % [19.0 %,
    28.2 %] of throughput (S1-trace-scale: inconclusive; overlaps the low end of the claimed 24-36 %)"; an exact
    verdict "does not, exact", no parenthesis inside the parenthesis), the rows without one by
    their verdict ("S1-cass-read-scale and S1-cass-write-scale wait for runs"), a row not testable here with why
    ("S1-hot-f2fs-scale is not testable here: ..."); never a bare "--"."""
    from blkscope.paper.latex import escape, tidy
    from blkscope.paper.tables import why_not

    est = rows.filter(pl.col("ours").fill_null("--") != "--")
    bases = claim_ids(est).to_list()
    parts = [f"{estimate_clause(r, b)} ({escape(r['claim_id'])}: {escape(tidy(says(r)))})"
             for r, b in zip(est.iter_rows(named=True), bases, strict=True)]  # fmt: skip
    rest = rows.filter(pl.col("ours").fill_null("--") == "--")
    for key, (_, one, many) in VERDICT_WORDS.items():
        v = pl.col("verdict").fill_null("")
        these = rest.filter(v.str.starts_with(key) & ~(v.str.starts_with(WITHDRAWN) & (key != WITHDRAWN)))
        if key == "not testable":  # each with why, not counted together
            parts += [f"{escape(r['claim_id'])} {one}" + (f": {escape(why_not(r))}" if r.get("reason") else "")
                      for r in these.iter_rows(named=True)]
            continue
        ids = [escape(i) for i in these["claim_id"]]
        if ids:
            parts.append(f"{ids[0] if len(ids) == 1 else ', '.join(ids[:-1]) + ' and ' + ids[-1]} "
                         f"{one if len(ids) == 1 else many}")  # fmt: skip
    return "; ".join(parts) if parts else "none"


def skew(sk: pl.DataFrame, runs: pl.DataFrame) -> dict[str, str]:
    """Requested (YCSB zipfian constant) against block-level rank exponent s of the traced host YCSB runs on
    RocksDB (all operations): the range of s over the runs that have a fit, and how many runs that is; Cassandra
    under the same keys apart (cassandra_skew)."""
    if sk.is_empty() or "s_requested" not in sk.columns:
        return {}
    m = cassandra_skew(sk, runs)
    sk = sk.filter(pl.col("workload") == "ycsb") if "workload" in sk.columns else sk
    # the in-memory condition: a memory-capped run is the scale regime's (blkscope.paper.scale_numbers), and its
    # exponent would join a range (and a count) of the 2-s saturating runs beside it
    sk = sk.join(in_memory_runs(runs), on="run_id", how="semi")
    y = _host_traced(sk, runs).filter((pl.col("op") == "all") & pl.col("s_requested").is_not_null())
    fitted = y.filter(pl.col("s").is_not_null()) if "s" in y.columns else y.clear()
    m |= {"SkewRuns": fmt_int(y.height), "SkewRunsFitted": fmt_int(fitted.height),
          # "a power-law fit converges in all 18 traced host YCSB runs": converges, not "admit" (plausible is
          # fit_quality's test)
          "SkewRunsFittedPhrase": f"a power-law fit converges in "
                                  f"{k_of_n(fitted.height, y.height, 'traced host YCSB runs')}"}  # fmt: skip
    if "recordcount" in sk.columns:  # YCSB's record count per testbed, as run.yaml records it
        ycsb = sk.join(runs.select("run_id", "testbed"), on="run_id").filter(pl.col("recordcount").is_not_null())
        for tb, label in (("loop", "host"), ("guest", "guest")):
            rc = ycsb.filter(pl.col("testbed") == tb)["recordcount"]
            if rc.len():
                m[macro_name("ycsb records", label)] = fmt_int(rc.cast(pl.Float64).median())
    if y.height:
        m["SkewRequested"] = fmt_float(y["s_requested"].median(), 2)
    if fitted.height:
        m |= by_load(fitted, runs, "skew block", "s", lambda x: fmt_float(x, 2), ("min", "max", "median"))
        m |= fit_quality(_with_load(fitted, runs))
    return m


def small_pct(x: float) -> str:
    """A share in % with two significant digits below 1 % (0.012 %, not "0.0 %", which reads as none), one decimal
    above."""
    if x <= 0 or 100 * x >= 1:
        return fmt_pct(x)
    return fmt_pct(x, 1 - math.floor(math.log10(100 * x)))


PLAUSIBLE_P = 0.1  # the goodness-of-fit p at or above which a power law is plausible (Clauset et al.)


def fit_quality(fitted: pl.DataFrame) -> dict[str, str]:
    """How good the power-law fits of the runs with one are: the goodness-of-fit test's verdict per load ("plausible
    (p >= 0.1) in 8 of the 9 saturating and 9 of the 9 light runs": SkewPlausiblePhrase; a fit that converges is not
    yet a plausible one), and the share of a run's pages at or above the fit's xmin, whose tail alone the exponent
    s = 1/(alpha - 1) describes (SkewTailShareMin, SkewTailShareMax)."""
    m: dict[str, str] = {}
    if "p_gof" in fitted.columns and "load" in fitted.columns:
        parts = []
        for load in (SATURATING, LIGHT):
            p = fitted.filter(pl.col("load") == load)["p_gof"]
            if p.len():
                parts.append(f"{fmt_int(int((p.fill_null(0) >= PLAUSIBLE_P).sum()))} of the {fmt_int(p.len())} {load}")
        if parts:
            m["SkewPlausiblePhrase"] = f"($p \\ge {PLAUSIBLE_P}$) in {' and '.join(parts)} runs"
    if {"n", "n_tail"} <= set(fitted.columns):
        share = (fitted["n_tail"] / fitted["n"]).drop_nulls()
        if share.len():
            m |= {"SkewTailShareMin": small_pct(share.min()), "SkewTailShareMax": small_pct(share.max())}
    return m


def in_memory_runs(runs: pl.DataFrame) -> pl.DataFrame:
    """run_id of the runs without a memory cap (the in-memory condition)."""
    if "memory_cap" not in runs.columns:
        return runs.select("run_id")
    no_cap = pl.col("memory_cap").cast(pl.Utf8).fill_null("") == ""
    return runs.filter(no_cap & not_descriptive(runs)).select("run_id")


def cassandra_skew(sk: pl.DataFrame, runs: pl.DataFrame) -> dict[str, str]:
    """YCSB's zipfian keys on a Cassandra node (traced host runs of workload cassandra-ycsb): how many runs, how
    many admit a power-law fit of their page-access counts and its exponent, and the median pages per run that
    reads and that writes touched (the node's reads are served from memory: few reach the device). The in-memory
    node's runs alone, as the paragraph that prints them is about it (issue Q review: the count took the memory-capped
    and sweep runs in too, 39 against the 9 in memory), so the count is that of the runs the medians read."""
    if "workload" not in sk.columns:
        return {}
    node = in_memory_runs(runs)["run_id"].to_list()
    c = _host_traced(sk.filter((pl.col("workload") == "cassandra-ycsb") & pl.col("run_id").is_in(node)), runs)
    a = c.filter(pl.col("op") == "all")
    if a.height == 0:
        return {}
    fitted = a.filter(pl.col("s").is_not_null())
    m = {"SkewCassRuns": fmt_int(a.height), "SkewCassRunsFitted": fmt_int(fitted.height)}
    if fitted.height:
        m["SkewCassBlockMedian"] = fmt_float(fitted["s"].median(), 2)
    for op in ("read", "write"):
        n = c.filter(pl.col("op") == op).select("run_id", "n")
        per_run = a.select("run_id").join(n, on="run_id", how="left")["n"].fill_null(0)
        m[macro_name("skew cass", op, "pages")] = fmt_int(per_run.median())
        # "no distinct pages", not "0 distinct pages"
        m[macro_name("skew cass", op, "pages phrase")] = counted(round(per_run.median()), "distinct page",
                                                                 "distinct pages")
    return m


def ycsb_phases(ph: pl.DataFrame, metrics: pl.DataFrame, runs: pl.DataFrame) -> dict[str, str]:
    """The three-phase YCSB jobs on the host (issue L): each database's mean ops/s per phase, the timed phases
    past their warm-up (the workload A run from untraced runs only, the tracer slowing the traced ones), the load
    (a fixed record count, over before a warm-up would end) whole, as YCSB's OVERALL; the runs behind them and
    the filesystems captured."""
    loop = runs.filter(pl.col("testbed") == "loop")["run_id"]
    t = ph.filter(pl.col("run_id").is_in(loop.to_list()) & (pl.col("phase") != "load"))
    t = t.filter(pl.col("ops_s_steady").is_not_null() & ((pl.col("phase") != "run") | ~pl.col("traced")))
    load = metrics.filter(pl.col("metric") == "ops_s_load").select("run_id", ops_s_steady="value").join(
        ph.filter(pl.col("run_id").is_in(loop.to_list())).select("run_id", "database", "filesystem").unique(),
        on="run_id")
    t = pl.concat([t.select("run_id", "database", "filesystem", "phase", "ops_s_steady"),
                   load.select("run_id", "database", "filesystem", phase=pl.lit("load"), ops_s_steady="ops_s_steady")])
    if t.height == 0:
        return {}
    m = {"PhaseFilesystems": ", ".join(sorted(t["filesystem"].unique().to_list()))}
    for r in t.group_by("database", "phase").agg(pl.col("ops_s_steady").mean()).iter_rows(named=True):
        m[macro_name("phase ops", r["database"], r["phase"])] = fmt_int(r["ops_s_steady"])
    for r in t.group_by("database").agg(pl.col("run_id").n_unique()).iter_rows(named=True):
        m[macro_name("phase runs", r["database"])] = fmt_int(r["run_id"])
    return m


def devices(runs: pl.DataFrame, metrics: pl.DataFrame) -> dict[str, str]:
    """The size of the devices the captured runs formatted (MiB), smallest and largest; the volume-size runs'
    sparse devices of several TiB apart (DeviceVolumeTibMin/Max)."""
    if "device_mb" not in runs.columns:
        return {}
    r = runs.filter(pl.col("run_id").is_in(metrics["run_id"].unique()))
    vol = pl.col("job").fill_null("") == VOLUME_JOB if "job" in r.columns else pl.lit(False)
    d, v = r.filter(~vol)["device_mb"].drop_nulls(), r.filter(vol)["device_mb"].drop_nulls()
    m = {"DeviceMbMin": fmt_int(d.min()), "DeviceMbMax": fmt_int(d.max())} if d.len() else {}
    if v.len():
        m |= {"DeviceVolumeTibMin": fmt_float(v.min() / 2**20, 0), "DeviceVolumeTibMax": fmt_float(v.max() / 2**20, 0)}
    return m | setup(runs, metrics)


def _cap_limits(cap: str) -> dict[str, float]:
    """`riops=500 wiops=500 rbps=2M wbps=2M` -> {'riops': 500, ..., 'wbps': 2097152} (blk-throttle's limits)."""
    scale = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}
    out = {}
    for part in cap.split():
        k, _, v = part.partition("=")
        num, unit = v.rstrip("KMG"), v[len(v.rstrip("KMG")):]
        out[k] = float(num) * scale[unit]
    return out


def setup(runs: pl.DataFrame, metrics: pl.DataFrame) -> dict[str, str]:
    """The settings of the captured runs the text names, from the runs sheet: the device caps (requests and MiB
    per second each way; CapMibHigh, CapMibLow), the Cassandra write timeout under the tighter cap, the commitlog
    sync period, and the shortest and longest run."""
    r = runs.filter(pl.col("run_id").is_in(metrics["run_id"].unique()))
    m: dict[str, str] = {}
    if "runtime_s" in r.columns and r["runtime_s"].drop_nulls().len():
        m |= {"RuntimeMinS": fmt_int(r["runtime_s"].min()), "RuntimeMaxS": fmt_int(r["runtime_s"].max())}
    if "device_cap" in r.columns:
        caps = [_cap_limits(c) for c in r["device_cap"].drop_nulls().unique().to_list()]
        mib = sorted({c["wbps"] / 2**20 for c in caps if "wbps" in c})
        iops = sorted({c["wiops"] for c in caps if "wiops" in c})
        if mib:
            m |= {"CapMibHigh": fmt_float(mib[-1], 0), "CapMibLow": fmt_float(mib[0], 0), "CapCount": fmt_int(len(mib))}
        if iops:
            m["CapIops"] = fmt_int(iops[0]) if len(iops) == 1 else f"{fmt_int(iops[0])}--{fmt_int(iops[-1])}"
    if "request_timeout_ms" in r.columns and r["request_timeout_ms"].drop_nulls().len():
        m["CassTimeoutS"] = fmt_float(r["request_timeout_ms"].max() / 1000, 0)
    if "commitlog_sync_period_ms" in r.columns and r["commitlog_sync_period_ms"].drop_nulls().len():
        m["CommitlogSyncS"] = fmt_float(r["commitlog_sync_period_ms"].drop_nulls().median() / 1000, 0)
    return m
