"""What an engineer choosing a filesystem for a database can take from the claims table, in words picked from each
claim row's verdict, interval and strata by a stated rule (the conclusion prints them; the PDF check,
blkscope.paper.pdf_text, finds each phrase there as computed from claims.parquet).

Each piece of advice (a `Topic`) rests on one row of the claims table: of the claims it lists, in order (the
condition closest to the engineer's first: S2-ops-cap, the device the limit, before S2-ops), the first whose row is
decided, else the first with a row; a claim's row is its replication row where that has been judged (a new batch
judged alone), else its in-memory row. The rule:

- a row whose runs are not of the topic's subject (`runs`: a data directory's advice from a database's runs, not
  fio's): "no advice on" the subject, and what the row's runs are (issue Q review: btrfs for data directories
  rested on fio, the journal writer and sysbench);
- a row whose strata disagree (`pooling` "per stratum": none pooled, each judged on its own interval, the row
  decided only where every stratum is): no advice follows from a pooled figure;
  the words say how many strata disagree (from `heterogeneity`: Q on k - 1 df) and, for a ratio, the per-stratum
  range (from `measurement`), and whether the strata differ in the effect's size (every stratum on one side of no
  effect) or in its direction; a decided row whose strata share a side gives that direction, not its size;
- a decided verdict (`replicates`, `does not`): the choice follows where the interval lies against no effect (one
  for a ratio, zero for a difference): above it, the topic's `above` words; below it, `below`; spanning it, `spans`
  (no choice is shown better);
- `inconclusive`: "no advice on" the topic's `subject`, never a bound read off the interval (the verdict, Holm's,
  does not support one; the interval printed is the row's own, unadjusted); a throughput topic (`rate`) read from
  runs at a light load, whose jobs fix their request rate, says so (RATE_FIXED); else the evidence says where the
  interval lies;
- `not tested`, `not testable here` or the condition rule's `outside the study's condition`: "this study cannot
  say whether" the claim holds.

Each phrase ends with its evidence: the row's id, estimate [interval] and verdict, all from claims.csv, and the
length of the runs it read where they are not the steady-state runs (the row's window: "runs of 10 s"). A `does
not` row says on which side of the claimed size its interval lies ("below the claimed 24-36 %"). Also what the
study cannot say: AdviceNotTestable, the claims it cannot test here in the studies' own (quoted) words.

    python -m blkscope.paper.advice --claims data/processed/analysis/claims.parquet -o advice.tex
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

import polars as pl

from blkscope.analysis.summaries.run_groups import LIGHT
from blkscope.paper import headline, literature, table_to_tex
from blkscope.paper.claim_verdict import STRATA_DISAGREE
from blkscope.paper.claims import DECIDED, PER_STRATUM, TRACED_FASTER, by_rule, unjudged_here
from blkscope.paper.latex import counted, escape, fmt_int, join_and, macro_file, macro_name, seconds_unbroken, tidy
from blkscope.paper.load_numbers import DECIDE_WITHIN, run_length, side
from blkscope.paper.phrases import NEAR, WIDE, k_of_n, per_what, plan_status, says, shown, verdict_text, where

NO_ADVICE = "no advice on"
CANNOT_SAY = "this study cannot say"
NO_CHOICE = "no choice on "  # short()'s mark of a topic no row backs (the abstract: "we cannot advise on")


@dataclass(frozen=True)
class Topic:
    macro: str  # AdviceCommitlog ...
    claims: tuple[str, ...]  # the claims' ids, the first decided one taken (the replication row preferred, judged)
    above: str  # the choice when the interval lies above no effect
    below: str  # ... below it
    spans: str  # ... when it spans no effect under a decided verdict
    subject: str  # what no advice is given on, when none follows ("the commitlog directory")
    more: tuple[tuple[str, str], ...] = ()  # rows cited beside it: (claim id, what it asks), by more_row's rule
    rate: bool = False  # a throughput ratio: from fixed-rate (light) runs it cannot show a gain (RATE_FIXED)
    runs: tuple[str, str] = ()  # (a pattern the row's runs or strata must match, the subject's runs in words)


TOPICS = (
    Topic("AdviceCommitlog", ("S2-ops-cap", "S2-ops"),
          "ext4 for Cassandra's commitlog, where it wrote faster than xfs",
          "xfs for Cassandra's commitlog, where it wrote faster than ext4",
          "either ext4 or xfs for Cassandra's commitlog{limit}: over whole runs ext4/xfs throughput was {ours}, an "
          "interval that rules out the study's {band} but does not show them equal",
          "the commitlog directory",
          (("S2-lz4-cap", "whether LZ4 commitlogs make them equal"),)),
    Topic("AdviceDataDir", ("S3-cow-xfs",),
          "copy-on-write (btrfs) for data directories only where its extra device writes are affordable: it wrote more "
          "device bytes per byte written than xfs",
          "copy-on-write (btrfs) over xfs for data directories, as it wrote fewer device bytes per byte written",
          "either btrfs or xfs: neither was shown to write more device bytes",
          "copy-on-write (btrfs) for data directories",  # S3-cow-ext4 reads the same strata: no data directory either
          runs=(r"\bcassandra\b", "a database")),
    Topic("AdviceJournal", ("S4-reader",),
          "ext4 for a low-latency journal read while written, as xfs stalled its writer longer",
          "xfs for a low-latency journal read while written, as ext4 stalled its writer longer",
          "either ext4 or xfs for a low-latency journal read while written: neither was shown to stall it longer",
          "a low-latency journal read while written",
          (("S4-ms", "on our loop device, that ext4 stalls a journal written alone for a millisecond or more in "
            "every run"),)),
    Topic("AdviceAtime", ("S3-relatime",),
          "noatime, not the default relatime, which wrote more per read",
          "relatime, not noatime, which wrote more per read",
          "relatime or noatime: neither was shown to write more per read",
          "relatime against noatime"),
    Topic("AdviceWriteback", ("S3-wb-sysbench",),
          "ext4's data=writeback for speed, faster than data=ordered",
          "ext4's data=ordered, faster than data=writeback here",
          "ext4's data=ordered, as data=writeback was not shown faster",
          "data=writeback against data=ordered", rate=True),
    Topic("AdviceInodeSixtyFour", ("S5-inode64",),
          "xfs's inode64 on a large volume, faster than inode32",
          "xfs's inode32 on a large volume, faster than inode64",
          "xfs's default inode64 on a large volume, as inode32 was not shown faster",
          "inode64 against inode32", rate=True),
)
# block tracing rests on the rows whose workload the study's figures came from, each against its own figure: its
# 24-36 % was Cassandra's (the Cassandra rows, judged against it); for RocksDB it saw about 36 % on btrfs and a faster
# traced run on ext4 (no cost), so the scale condition's RocksDB row over three filesystems is given without the
# Cassandra band, and its btrfs runs alone (S1-trace-btrfs at scale, exploratory) beside the study's btrfs figure.
# Our row over every workload (S1-trace) is named with its plan status (tracing())
TRACING = "AdviceTracing"
TRACING_ROWS = (("S1-trace-cass", "Cassandra"), ("S1-trace-ycsb-cass", "Cassandra under YCSB"))
TRACING_ROCKSDB = ("S1-trace-scale", "RocksDB with data at least {k} times its memory")
TRACING_BTRFS = "S1-trace-btrfs"  # its ours_scale: the btrfs runs of the scale condition (exploratory)
TRACING_POOLED = "S1-trace"
TRACING_SUBJECT = "block tracing in production"  # what the abstract gives no choice on when the rows decide none


def claim_row(rows: dict[str, dict], claim: str) -> dict | None:
    """A claim's row: its replication row once judged, else its in-memory row (None: neither)."""
    rep = rows.get(f"{claim}-replication")
    if rep is not None and not unjudged_here(rep["verdict"]):
        return rep
    return rows.get(claim)


def row_for(claims: pl.DataFrame, ids: tuple[str, ...]) -> dict | None:
    """The row a topic rests on: of its claims' rows, in order, the first decided one, else the first there is."""
    rows = {r["claim_id"]: r for r in claims.iter_rows(named=True)}
    found = [r for r in (claim_row(rows, c) for c in ids) if r is not None]
    return next((r for r in found if str(r["verdict"]).startswith(DECIDED)), found[0] if found else None)


def undecided(r: dict) -> str:
    """Why an inconclusive row is not decided, from its fields: "replicates before the multiplicity correction" (Holm's
    moved it), "37 repeats per arm would decide", else
    "its interval crosses an end of the claimed size" (a row whose strata disagree is `disagree`'s)."""
    before = str(r.get("verdict_unadjusted") or "")
    if before.startswith(DECIDED):
        return f"{before} before the multiplicity correction"
    need, _, unit = str(r.get("n_needed") or "--").partition(" per ")  # "6 per stratum": per arm in each
    if need not in ("--", "", "nan"):
        return f"{need} repeats per arm{' per ' + unit if unit else ''} would decide"
    return ""


_ENDS = re.compile(r"\[(.+?), (.+?)\]")
_NO_SPREAD = " (no spread between runs: no interval)"


def ends(r: dict) -> tuple[str, str] | None:
    """The interval's ends as the claims table prints them ("0.86x", "1.19x")."""
    m = _ENDS.search(str(r.get("ours") or ""))
    return (m.group(1), m.group(2)) if m else None


def evidence(r: dict, stated: bool = False, placed: bool = False) -> str:
    """"S2-ops-cap: 1.01x [0.86x, 1.19x], does not, wholly below the claimed 2.28-6.85x, estimate as claimed,
    interval across one; post hoc; runs of 60 s": the row's id, estimate [interval] (an exact one "in every run"; none
    for strata that disagree, whose pooled figure describes none of them), verdict (an inconclusive one with why it
    is not decided), where its interval lies (phrases.where), whether the plan came before its runs
    (phrases.plan_status) and the length of the runs it read where they are not the steady-state runs; `stated`:
    the words before it give the estimate already (no interval repeated); `placed`: they say where it lies too."""
    ours = tidy(str(r.get("ours") or "--"))
    per = f" {per_what(r)}" if per_what(r) else ""  # "69.3 KiB per 1,000 reads"
    if ours.endswith(_NO_SPREAD):
        ours = ours.removesuffix(_NO_SPREAD) + f"{per}, the same in every run"
    elif ours != "--":
        ours += per
    v = str(r["verdict"])
    if unjudged_here(v):
        return f"{r['claim_id']}: {verdict_text(r)}"
    pooled = r.get("pooling") == PER_STRATUM
    why = undecided(r) if v == "inconclusive" and not pooled else ""
    why = why if "multiplicity" in why else ""  # the repeats that would decide: the claims table gives them
    spread = strata_side(r) if pooled else None
    said = [spread[2] if spread else "" if STRATA_DISAGREE in v else "strata disagree" if pooled
            else ours if ours != "--" and not stated else "",
            v.removesuffix(" (exact)") + (f": {why}" if why else ""), "" if pooled or placed else where(r, True)]
    tail = [plan_status(r)] + ([f"runs of {run_length(r)}"] if run_length(r) else [])
    return f"{r['claim_id']}: {', '.join(x for x in said if x)}; {'; '.join(tail)}"


def _strata(r: dict) -> str:
    """The strata a pooled row reads, counted ("14 strata", "21 configurations"): Cochran's Q is on k - 1 degrees of
    freedom; the unit as the row's n names it."""
    m = re.search(r"on (\d+) df", str(r.get("heterogeneity") or ""))
    unit = "configurations" if "configurations" in str(r.get("n") or "") else "strata"
    return f"its {int(m.group(1)) + 1} {unit}" if m else f"its {unit}"


ONE = {"strata": "stratum", "configurations": "configuration"}
# where a measurement's list of strata ends: its p ("..., p=" or "..., random-effects p="), the strata it left out
_STRATA_END = re.compile(r", (?:random-effects )?p=|; left out")


def strata_items(text: str) -> list[str]:
    """The strata a pooled row's measurement lists ("fio append light 3.44/1.03", ...), none of what follows them
    (review: "strata disagree (Q=...)" after ", random-effects p=" read as a stratum named "strata"); [] for a
    measurement that lists none."""
    if "mean over strata of " not in text:
        return []
    return [x.strip() for x in _STRATA_END.split(text.split(": ", 1)[1], maxsplit=1)[0].split("; ") if x.strip()]


_PAIR = re.compile(r"(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)(?: [a-z/]+)?$")
_EACH = re.compile(r"per configuration (-?\d+(?:\.\d+)?) to (-?\d+(?:\.\d+)?) %")


def stratum_ratios(r: dict) -> list[float]:
    """The per-stratum ratios of a ratio row, from its measurement ("mean over strata of btrfs/xfs: fio append light
    3.44/1.03; ...; p=1.2e-11; ..."): each stratum's two arms' values divided, as the table prints them (the strata
    it left out excluded); [] for a row of another kind."""
    text = str(r.get("measurement") or "")
    if "x" not in str(r.get("ours") or "") or "mean over strata of " not in text:
        return []
    pairs = [_PAIR.search(item.strip()) for item in strata_items(text)]
    return [float(m.group(1)) / float(m.group(2)) for m in pairs if m and float(m.group(2)) > 0]


_SPAN = re.compile(r"per stratum (\d+(?:\.\d+)?)x to (\d+(?:\.\d+)?)x, (\d+) strata")


def stratum_span(r: dict) -> tuple[float, float, int] | None:
    """A ratio row's per-stratum (lowest, highest, count): claims.csv `per_stratum`, from the strata's unrounded
    values, where its strata disagree (the measurement's arms are rounded: 5.41/1.00 for a stratum at 5.39x), else
    from the measurement; None for a row of another kind."""
    if m := _SPAN.match(str(r.get("per_stratum") or "")):
        return float(m[1]), float(m[2]), int(m[3])
    ratios = stratum_ratios(r)
    return (min(ratios), max(ratios), len(ratios)) if ratios else None


def disagree(r: dict) -> str:
    """Why a row whose strata disagree gives no advice: "its 14 strata disagree (per stratum 1.03x to 5.41x), so the
    effect's size depends on the stratum" (every stratum on one side of no effect), "..., their estimates on both
    sides of no effect" (strata on both sides); a difference's per-configuration range ("per configuration -19.4 to
    26.6 %") says which, unprinted (a minus sign would not survive the PDF check); neither: "so one pooled figure
    describes none of them"."""
    what = _strata(r)
    if span := stratum_span(r):
        lo, hi, ref, shown = span[0], span[1], 1.0, f" (per stratum {span[0]:.2f}x to {span[1]:.2f}x)"
    elif m := _EACH.search(str(r.get("measurement") or "")):
        lo, hi, ref, shown = float(m.group(1)), float(m.group(2)), 0.0, ""
    else:
        return f"{what} disagree, so one pooled figure describes none of them"
    if lo > ref or hi < ref:
        return f"{what} disagree{shown}, so the effect's size depends on the {ONE[what.split()[-1]]}"
    return f"{what} disagree{shown}, their estimates on both sides of no effect"


def strata_side(r: dict) -> tuple[str, str, str] | None:
    """For a ratio row whose strata disagree but all lie on one side of one: ("above" or "below", "in all 14
    strata", "1.03x to 5.41x per stratum"); None otherwise (strata on both sides, or no per-stratum values)."""
    span = stratum_span(r)
    if not span or not (span[0] > 1 or span[1] < 1):
        return None
    lo, hi, k = span
    return ("above" if lo > 1 else "below", f"in {k_of_n(k, k, 'strata')}", f"{lo:.2f}x to {hi:.2f}x per stratum")


def more_row(rows: dict[str, dict], claim: str, asks: str) -> str:
    """A row cited beside a topic's: its strata's common side ("than ext4 in all 14 strata (per stratum ...)"), or
    its question and verdict ("whether LZ4 commitlogs make them equal is undecided"), with its evidence."""
    r = claim_row(rows, claim)
    if r is None:
        return ""
    v = str(r["verdict"])
    if r.get("pooling") == PER_STRATUM and v.startswith(DECIDED) and (s := strata_side(r)):
        return f"and {asks} {s[1]} ({evidence(r)})"
    said = ("is undecided" if v.startswith("inconclusive") else "is untested" if unjudged_here(v)
            else "holds" if v.startswith("replicates") else "does not hold")
    return f"{asks} {said} ({evidence(r)})"


WORKLOADS = {"journal": "the journal writer"}  # a stratum's first word as the text names its workload
_AS = re.compile(r"^as (S\d-[a-z0-9-]+)")


def off_subject(r: dict, rows: dict[str, dict], pattern: str) -> str | None:
    """None where a row's runs (claims.csv `runs_read`, followed through "as <row>") or its strata (`measurement`)
    match `pattern`; else the workloads its strata name ("fio, the journal writer and sysbench"), or its runs."""
    runs, seen = str(r.get("runs_read") or ""), set()
    while (m := _AS.match(runs)) and m.group(1) in rows and m.group(1) not in seen:
        seen.add(m.group(1))
        runs = str(rows[m.group(1)].get("runs_read") or "")
    text = str(r.get("measurement") or "")
    if re.search(pattern, f"{runs} {text}", re.IGNORECASE):
        return None
    names = list(dict.fromkeys(WORKLOADS.get(item.split(" ")[0], item.split(" ")[0]) for item in strata_items(text)))
    return join_and(names) if names else (f"runs of {runs}" if runs else "other runs")


def quoted(claim: str) -> str:
    """A claim in quotation marks, its study's words only: our closing parenthesis (headline.CLOSING, "(max)") left
    out (review: "(max)" read as the study's)."""
    return f"``{headline.CLOSING.sub('', str(claim))}''"


def phrase(t: Topic, r: dict | None, rows: dict[str, dict] | None = None) -> str:
    """The advice of topic `t` from its claim row `r`, by the module's rule (plain text, not yet escaped); `rows`
    (every row by id) for the rows it cites beside (t.more)."""
    if r is None:
        return f"{CANNOT_SAY}: the claims table has no row {' or '.join(t.claims)}"
    v = str(r["verdict"])
    more = [m for c, asks in t.more if (m := more_row(rows or {}, c, asks))]
    beside = "".join(f"; {m}" if not m.startswith("and ") else f" {m}" for m in more)
    if unjudged_here(v):
        return f"{CANNOT_SAY} whether {quoted(r['claim'])} ({evidence(r)}){beside}"
    if t.runs and (other := off_subject(r, rows or {}, t.runs[0])) is not None:
        return f"{NO_ADVICE} {t.subject}: its row reads {other}, not {t.runs[1]} ({evidence(r)}){beside}"
    if r.get("pooling") == PER_STRATUM:
        # the strata disagree on the size only: the direction they share is advice
        if v.startswith(DECIDED) and (s := strata_side(r)):
            words = t.above if s[0] == "above" else t.below
            return f"{words} {s[1]} ({evidence(r)}){beside}, the size depending on the workload"
        return f"{NO_ADVICE} {t.subject}: {disagree(r)} ({evidence(r)}){beside}"
    if v.startswith(DECIDED):
        where_ = side(r)
        words = t.above if where_.startswith("above") else t.below if where_.startswith("below") else t.spans
        lo_hi = ends(r) or ("", "")
        stated = "{ours}" in words or "{lo}" in words
        # "when the device is the limit" only where the row's runs had a device cap (S2-ops-cap, not its fallback)
        limit = " when the device is the limit" if str(r["claim_id"]).endswith("-cap") else ""
        words = words.format(ours=tidy(str(r.get("ours") or "")), lo=lo_hi[0], hi=lo_hi[1],
                             band=str(r.get("band_words") or "claimed size"), limit=limit)
        return f"{words} ({evidence(r, stated, stated)}){beside}"
    if t.rate and str(r.get("load") or "") == LIGHT:  # fixed-rate runs: their throughput is the rate
        return f"{NO_ADVICE} {t.subject}: {RATE_FIXED} ({evidence(r)}){beside}"
    return f"{NO_ADVICE} {t.subject} ({evidence(r)}){beside}"


# a throughput ratio read from runs at a light load, whose jobs fix their request rate (run_groups.with_groups): both
# arms meet the rate, so the ratio is near one by design
RATE_FIXED = "its runs ran at a fixed request rate, which both met, so their throughput cannot show a gain"
def tracing(claims: pl.DataFrame) -> str:
    """Block tracing in production, from the rows whose workload the study's figures came from (TRACING_ROWS, the
    Cassandra rows against its Cassandra 24-36 %): a row decided below the claimed size by the upper end of its
    interval ("cost at most 11.6 %"), any other by its estimate [interval]; RocksDB's scale row without that band
    (TRACING_ROCKSDB) and its btrfs runs beside the study's RocksDB-on-btrfs figure (TRACING_BTRFS); our row
    over every workload (S1-trace) with its plan status and verdict; the Cassandra rows' scale rows where they
    decide. The advice rests on a row decided without a confound alone: where none of these rows so decides, "no
    advice on block tracing in production", the rows' costs said as the evidence, and a row decided with its traced
    arm faster named as such (_none_decides: "only S1-trace-ycsb-cass-scale decides in its study's condition,
    its traced arm faster; ...")."""
    rows = {r["claim_id"]: r for r in claims.iter_rows(named=True)}
    said, decided, confounded = [], [], []
    for claim, who in TRACING_ROWS:
        r = claim_row(rows, claim)
        if r is not None and not unjudged_here(r["verdict"]) and ends(r) is not None:
            below = str(r["verdict"]).startswith("does not") and where(r).startswith("wholly below")
            cost = f"at most {ends(r)[1]}" if below else tidy(str(r["ours"]))
            said.append(f"tracing {who} cost {cost} ({evidence(r, True)})")
            decided.append(_decides(r, confounded))
        # its scale row too (review: S1-trace-ycsb-cass-scale decides, but its traced arm ran faster): a decided
        # one is said; one with the confound backs no advice, and the sentence names it
        s = rows.get(f"{claim}-scale")
        if s is not None and not unjudged_here(s["verdict"]) and _decides(s, confounded):
            said.append(f"tracing {who} at scale cost {tidy(str(s['ours']))} ({evidence(s, True)})")
            decided.append(True)
    r = claim_row(rows, TRACING_ROCKSDB[0])
    if r is not None and not unjudged_here(r["verdict"]) and ends(r) is not None:
        decided.append(_decides(r, confounded))  # as the Cassandra rows: a traced arm faster is a confound
        k = re.search(r"data >= (\d+(?:\.\d+)?)x cap", str(r.get("runs_read") or ""))
        who = TRACING_ROCKSDB[1].format(k=k.group(1) if k else "ten")
        rocks = f"tracing {who} cost {tidy(str(r['ours']))} ({evidence(r, True, True)})"
        b = rows.get(TRACING_BTRFS)
        if b is not None and b.get("ours_scale"):
            study = fmt_int(literature.value("SsdOverheadRocksdbBtrfs"))
            rocks += (f", {tidy(str(b['ours_scale']))} on btrfs alone, where the study saw {study} % for "
                      f"RocksDB on btrfs ({TRACING_BTRFS} at scale: exploratory)")
        said.append(rocks)
    if not said:
        return f"{CANNOT_SAY} what block tracing costs in production: the claims table has none of its rows"
    p = rows.get(TRACING_POOLED)
    pooled = f"; our row over every workload is {plan_status(p)} ({evidence(p)})" if p is not None else ""
    if not any(decided):
        return f"{NO_ADVICE} {TRACING_SUBJECT}: {_none_decides(rows, confounded)}; {'; '.join(said)}{pooled}"
    return f"block tracing in production only with its cost measured at its own load: {'; '.join(said)}{pooled}"


def _none_decides(rows: dict[str, dict], confounded: list[dict]) -> str:
    """Why no tracing row backs advice, true to the rows (review: "no row of its cost decides" beside S1-trace-cass,
    S1-trace-ycsb-cass and S1-trace-btrfs, which do not replicate as planned): "no row in its study's condition
    decides" where a row decides as planned only outside it (the condition rule's), and the rows that decide with
    their traced arm faster named as the only ones ("only S1-trace-ycsb-cass-scale decides in its study's condition,
    its traced arm faster")."""
    ids = [c for c, _ in TRACING_ROWS] + [f"{c}-scale" for c, _ in TRACING_ROWS] + [
        TRACING_ROCKSDB[0], TRACING_BTRFS, TRACING_POOLED]
    outside = any(by_rule(r["verdict"]) and str(r.get("verdict_planned") or "").startswith(DECIDED)
                  for c in ids if (r := rows.get(c)) is not None)
    where = " in its study's condition" if outside else ""
    if not confounded:
        return f"no row{where} decides"
    # final review: "no row ... decides but X, its traced arm faster" read garbled
    one = len(confounded) == 1
    ids = join_and([str(r["claim_id"]) for r in confounded])
    return f"only {ids} {'decides' if one else 'decide'}{where}, {'its' if one else 'each with its'} traced arm faster"


def _decides(r: dict, confounded: list[dict]) -> bool:
    """Whether a tracing row decides with no confound; a decided one whose traced arm ran faster (claims
    TRACED_FASTER, beside its verdict) is added to `confounded` instead."""
    if not str(r["verdict"]).startswith(DECIDED):
        return False
    if TRACED_FASTER in str(r.get("caveat") or ""):
        confounded.append(r)
        return False
    return True


def decidable_list(claims: pl.DataFrame) -> str:
    """The inconclusive rows that load_numbers.DECIDE_WITHIN repeats per arm would decide, each with its repeats,
    without a parenthesis inside a list ("S2-aqu-cap: 6 per stratum; S2-merge: 4"); "none" where none would."""
    inc = claims.filter(pl.col("verdict").str.starts_with("inconclusive") & pl.col("n_needed_value").is_finite()
                        & (pl.col("n_needed_value") <= DECIDE_WITHIN))
    return "; ".join(f"{r['claim_id']}: {r['n_needed']}" for r in inc.iter_rows(named=True)) or "none"


def machine_limited(claims: pl.DataFrame) -> pl.DataFrame:
    """The rows not testable on this machine (f2fs, ...): not the condition rule's (their verdict names the
    condition, "outside the study's condition: light load")."""
    return claims.filter(pl.col("verdict") == "not testable here")


def not_testable(claims: pl.DataFrame, outside: int = 0) -> str:
    """The claims not testable here, in their studies' words (quoted: the words are the studies', not ours), and
    how many rows the condition rule found outside (`outside`: their runs are not in the claim's condition)."""
    rows = machine_limited(claims)
    said = list(dict.fromkeys(f"{quoted(r['claim'])} ({r['claim_id']})" for r in rows.iter_rows(named=True)))
    rest = f"what {counted(outside, 'row', 'rows')} would show in {'its' if outside == 1 else 'their'} study's " \
        "condition" if outside else ""
    if not said:
        return rest or "every claim could be tested here"
    return "whether " + join_and(said, "or") + (f", nor {rest}" if rest else "")


def phrases(claims: pl.DataFrame) -> dict[str, str]:
    """Each topic's advice as plain text (the PDF check looks for these words in the conclusion)."""
    rows = {r["claim_id"]: r for r in claims.iter_rows(named=True)}
    return {t.macro: phrase(t, row_for(claims, t.claims), rows) for t in TOPICS} | {TRACING: tracing(claims)}


_ROW = re.compile(r"\b(S\d-[a-z0-9-]+): ")  # a claim row cited with its evidence ("(S2-ops-cap: 1.01x ...")


def short(topic: str, text: str, claims: pl.DataFrame) -> str:
    """A piece of advice as the abstract gives it: its choice, the words before their reason (": ", ", as ",
    ", which ") or evidence (" (S2-..."), and the row it rests on, the first it cites ("either ext4 or xfs for
    Cassandra's commitlog when the device is the limit (S2-ops-cap)"); a row not testable here: no choice on the
    topic's subject, and its row."""
    t = next((x for x in TOPICS if x.macro == topic), None)
    ids = list(dict.fromkeys(_ROW.findall(text)))
    rows = {r["claim_id"]: r for r in claims.iter_rows(named=True)}
    untested = ids and ids[0] in rows and unjudged_here(rows[ids[0]]["verdict"])
    if untested or text.startswith((NO_ADVICE, CANNOT_SAY)):  # no choice, said as one (the abstract: "We advise ...")
        subject = t.subject if t is not None else TRACING_SUBJECT
        return f"{NO_CHOICE}{subject}" + (f" ({ids[0]})" if ids else "")
    head = re.split(r": |, as |, which | \((?=S\d)", text, maxsplit=1)[0]
    return f"{head} ({ids[0]})" if ids else head


# the abstract's choices (issue Q item 5: commitlog and data directories, a low-latency journal, mount options,
# tracing in production), within its word limit (blkscope.paper.pdf_words.ABSTRACT_WORDS); the conclusion gives every
# topic
ABSTRACT_TOPICS = ("AdviceCommitlog", "AdviceDataDir", "AdviceJournal", "AdviceAtime", TRACING)


def abstract_advice(claims: pl.DataFrame) -> str:
    """The abstract's sentence of advice: the short form (short) of each of ABSTRACT_TOPICS, in the conclusion's
    order, the choices first ("We advise X (S2-ops-cap) and Y (S3-relatime)") and then the topics no row backs, said
    as one ("; we cannot advise on Z (S3-cow-xfs), W (S4-reader) or V (S1-trace-scale)"), within the abstract's word
    limit; as plain text (review: "no choice on" read as advice against the choice)."""
    said = [short(k, v, claims) for k, v in phrases(claims).items() if k in ABSTRACT_TOPICS]
    chosen = [x for x in said if not x.startswith(NO_CHOICE)]
    none = [x.removeprefix(NO_CHOICE) for x in said if x.startswith(NO_CHOICE)]
    out = [f"We advise {join_and(chosen)}"] if chosen else []
    if none:
        out.append(f"{'we' if chosen else 'We'} cannot advise on {join_and(none, 'or')}")
    return "; ".join(out)


def macros(claims: pl.DataFrame) -> dict[str, str]:
    def tex(v: str) -> str:  # a number and its unit of seconds or per cent on one line
        return re.sub(r"(\d) \\%", r"\1\\,\\%", seconds_unbroken(escape(v)))

    m = {k: tex(v) for k, v in phrases(claims).items()}
    m["AdviceAbstract"] = tex(abstract_advice(claims))
    m |= {k: escape(v) for k, v in headline.macros(claims).items()}
    for r in claims.iter_rows(named=True):  # Section X: what each row's estimate says, and the estimate
        m[macro_name("claim", r["claim_id"]) + "Says"] = escape(tidy(says(r)))  # one clause per row (Section X)
        m[macro_name("claim", r["claim_id"]) + "Shown"] = escape(tidy(shown(r)))
    # the quotes are LaTeX's own (``...''), escaped only inside
    rows = machine_limited(claims)
    outside = sum(by_rule(v) for v in claims["verdict"])
    m["AdviceNotTestable"] = not_testable(rows.with_columns(pl.col("claim").map_elements(escape, pl.Utf8),
                                                            pl.col("claim_id").map_elements(escape, pl.Utf8)), outside)
    m["ClaimsNearPct"], m["ClaimsWideFactor"] = fmt_int(100 * NEAR), fmt_int(WIDE)
    m["ClaimsDecidableList"] = escape(decidable_list(claims))
    return m


NEED = ("claim_id", "claim", "verdict", "ours", "lo", "hi")  # and, where claims.csv has them, the band's and
# undecided's fields


def main(argv: list[str] | None = None) -> int:
    head = "% Generated by `python -m blkscope.paper.advice`; do not edit."
    return table_to_tex.main(argv, "blkscope.paper.advice", __doc__, "claims", NEED,
                             lambda c: macro_file(head, macros(c)))  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
