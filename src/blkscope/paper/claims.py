"""Each claim of the studies we build on: the quantity it speaks of, the size it claims in the study's words, the
band we read that size as (printed beside it), our estimate with its interval and n, the repeats per arm at which
the interval would decide at the observed spread, and a verdict (rules in blkscope.paper.claim_verdict).

Verdicts: `replicates`, `does not`, `inconclusive` (from the interval; fewer than 2 repeats in an arm is
inconclusive), `not tested (...)` (the runs or tables it needs are not in the dataset yet), `not testable
here` with its reason (a condition of the study we cannot make on this machine), and the condition rule's
`outside the study's condition: <caveat>` (below). Estimators: claim_measures.py.
Every published number comes from blkscope.paper.literature.

Under the claims plan (config/claims_plan.yaml, blkscope.paper.claims_plan) a claim has one row per planned
condition (claim_id, claim_id-scale, claim_id-replication; column `condition`), each reading the runs the plan
gives it (claim_rows): the verdict reads the confirmatory runs only; `ours_all`, `n_all` and `verdict_all` are the
estimate over every run of the condition, the batches added after a look included (exploratory, unadjusted).
`verdict` is Holm-adjusted across every row whose verdict an interval gives (`p_decide`, its `p_holm`;
blkscope.paper.claim_multiplicity), `verdict_unadjusted` beside it, and `ours`/`lo`/`hi` the unadjusted interval.
A row whose runs do not vary (every run of an arm read the same value) has no interval: its verdict is the value
against the band, labelled `(exact)` (its estimate says "no spread between runs"), outside the Holm family (a test of
no variance would give p = 0).
`n_needed` is asked at the family's level (claim_multiplicity.family_level): the repeats per arm at which the
adjusted verdict, not only the row's own interval, would decide.
Pooled strata are tested first (`heterogeneity`, `i2`, `p_q`; blkscope.paper.claim_heterogeneity): `pooling` is `fixed`
where they agree and `per stratum` where they do not: then no pooled interval is printed (`ours` gives the strata's
range, `estimate`/`lo`/`hi` are null) and each stratum is judged on its own Welch interval at the claim's level, an
intersection-union test (claim_verdict.strata_verdict): `replicates` or `does not` only where every stratum is, else
`inconclusive: strata disagree` (counted as inconclusive; `reason` counts the strata's own verdicts), its p_decide the
test's (the largest of the strata's p for the kind), in Holm's family. That rule was changed after the estimates were
seen (the plan's deviation of kind pooling): `verdict_pooled_plan` is each row's Holm-adjusted verdict by the plan's
rule, a DerSimonian-Laird random-effects interval where the strata disagree (plan_pooled). `runs_read` (with the strata
it compared in the emulated guest named, where the plan says host runs), `window` (with the length of the runs read) and
`n_planned` are the plan's; `n` the runs read per arm; `run_s_lo`, `run_s_hi` the shortest and longest of them (s).
`caveat` says where a judged row's runs are not in the condition the study's numbers came from (Regime: "in
memory, runs of 2 s", "light load"), by rule, beside a verdict that stays the plan's; `per_stratum` is the range of
the strata's effects where the strata a row pools disagree (as `ours` then); `ours_all` and `verdict_all` give
that range and the strata's verdict, by the planned verdict's rule, where the strata of all runs disagree
(all_runs_text). `ours_scale`, beside an
in-memory row of a claim the plan gives no scale row, is its measure over its study's scale batches (exploratory).
`verdict_planned` (`verdict_planned_unadjusted` before Holm) is the plan's verdict of a row the condition rule
(by_condition, set after the estimates were seen: the plan's deviations list it) labelled `outside the study's
condition: <caveat>`: a row read outside the condition its claim was made in, or that reads journal latency from
runs under claim_measures.JOURNAL_MIN_S (a traced arm faster than its untraced one is a caveat, ruled on by no
rule). The paper prints and counts the planned verdict first, the caveat beside it (phrases.planned_first).
`same_as` names the earlier row whose runs and throughput a row reads (same_runs: counted once in the headline);
`measure_changed` marks an in-memory row whose measure a deviation dated after the plan changed; `narrowed`, how
the plan's deviations narrowed the runs a row reads after its estimate was seen (their short words), or null.
`band_words` is the band's size in words without its note ("1.07x" of "1.07x (comparable: 1.03-1.13x)", "xfs/ext4 >
1", "the same"), for a sentence that names it (`band` adds the note and the study's words). `confounded` names a
factor (filesystem, database) that the strata a row compared hold one value of per capture batch, and whether it is
the comparison's ("compared: database") or the strata's ("strata: filesystem"): there it is confounded with the
batch and its day.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

import polars as pl

from blkscope.analysis.summaries.run_groups import CAPPED, LIGHT
from blkscope.figures import names as setup_names
from blkscope.paper import claim_measures as cm
from blkscope.paper import claim_multiplicity as mt
from blkscope.paper import claim_rows as rw
from blkscope.paper import claim_verdict as vd
from blkscope.paper.claim_runs import NOT_TESTABLE, Result, Tables, armed, canonical, compared, reads, runs
from blkscope.paper.claims_plan import Plan
from blkscope.paper.latex import join_and
from blkscope.paper.literature import value as lit

SCHEMA = {"claim_id": pl.Utf8, "study": pl.Utf8, "claim": pl.Utf8, "quantity": pl.Utf8, "claimed": pl.Utf8,
          "band": pl.Utf8, "ours": pl.Utf8, "measurement": pl.Utf8, "n": pl.Utf8, "n_needed": pl.Utf8,
          "test": pl.Utf8, "verdict": pl.Utf8, "reason": pl.Utf8, "estimate": pl.Float64, "lo": pl.Float64,
          "hi": pl.Float64, "level": pl.Float64, "claimed_lo": pl.Float64, "claimed_hi": pl.Float64,
          "n_needed_value": pl.Float64, "p": pl.Float64, "p_tost": pl.Float64, "load": pl.Utf8,
          "condition": pl.Utf8, "runs_read": pl.Utf8, "window": pl.Utf8, "n_planned": pl.Int64,
          "heterogeneity": pl.Utf8, "i2": pl.Float64, "p_q": pl.Float64, "pooling": pl.Utf8, "ours_all": pl.Utf8,
          "n_all": pl.Utf8, "verdict_all": pl.Utf8, "verdict_unadjusted": pl.Utf8, "p_decide": pl.Float64,
          "p_holm": pl.Float64, "band_words": pl.Utf8, "confounded": pl.Utf8, "run_s_lo": pl.Float64,
          "run_s_hi": pl.Float64, "caveat": pl.Utf8, "ours_scale": pl.Utf8,
          "per_stratum": pl.Utf8, "verdict_planned": pl.Utf8, "verdict_planned_unadjusted": pl.Utf8, "same_as": pl.Utf8,
          "measure_changed": pl.Boolean, "narrowed": pl.Utf8, "verdict_pooled_plan": pl.Utf8}  # fmt: skip
VERDICTS = ("replicates", "does not", "inconclusive", "not tested", NOT_TESTABLE, vd.OUTSIDE)
DECIDED = VERDICTS[:2]  # the verdicts that decide a claim (a row's verdict starts with one)
ABOUT = 0.06  # our reading of "about x %": x +- 6 points
ZIPF_BAND = (0.7, 1.3)  # our reading of "roughly zipfian": a rank exponent s near 1


@dataclass(frozen=True)
class Claim:
    claim_id: str
    study: str
    claim: str
    quantity: str
    claimed: str  # the size in the study's words
    size: vd.Size  # the band we read it as
    fmt: str  # "ratio" | "pct" | "float" | "us" | "ms" | "kib"
    evaluate: cm.Evaluate
    # the scale rows' measure where the in-memory one cannot read the scale batches (a plan's scale entry says it)
    at_scale: cm.Evaluate | None = None


def _fmt(x: float, kind: str) -> str:
    if x is None or not math.isfinite(x):
        return "--"
    return {"ratio": f"{x:.2f}x", "pct": f"{100 * x:.1f} %", "float": f"{x:.2f}", "us": f"{x:.2f} us",
            "ms": f"{x:.2f} ms", "kib": f"{x:.1f} KiB"}[kind]


# -- the claims ---------------------------------------------------------------------------------------------

def _cw(commitlog: str | None):
    return lambda t: cm.cassandra(t, "write", commitlog)


_LONG = f", runs >= {cm.JOURNAL_MIN_S} s"  # the journal writer alone, long enough to meet writeback


def _append(t: pl.DataFrame) -> pl.DataFrame:
    return t.filter((pl.col("workload") == "fio") & pl.col("job").str.starts_with("append"))


def _ycsb_cassandra(t: pl.DataFrame) -> pl.DataFrame:
    return t.filter(pl.col("workload") == cm.YCSB_CASSANDRA)


def _pct(name: str) -> float:
    return lit(name) / 100


SSD, CL, GUIDE, JNL, MYSQL = "SSD study", "commitlog study", "Cassandra guide", "journal study", "MySQL study"


@dataclass(frozen=True)
class Regime:
    """The condition a study's numbers came from, as far as the study says: runs long enough for a steady state,
    data much larger than memory, a saturating load. A row read in another condition says so (caveat)."""
    steady: bool = False
    data_over_memory: bool = False
    saturating: bool = False


# the SSD study traced YCSB runs of hours at full speed with data far larger than memory; the commitlog study's
# numbers came from a saturating write load; the guide, the journal study and the MySQL study state no condition
REGIMES = {SSD: Regime(steady=True, data_over_memory=True, saturating=True), CL: Regime(saturating=True)}
_TR_LO, _TR_HI = _pct("SsdOverheadCassandraLo"), _pct("SsdOverheadCassandraHi")
_TR_BTRFS = _pct("SsdOverheadRocksdbBtrfs")
# a claim judged against a band the study gave for another workload says so beside its verdict: the tracing claim's
# 24-36 % is the study's Cassandra figure (the plan keeps it; the study gave RocksDB on btrfs 36 %)
BAND_NOTES = {"S1-trace": f"the band is the study's Cassandra figure; it gave RocksDB on btrfs "
                          f"{100 * _TR_BTRFS:.0f} %"}


def claim_of(row_id: str) -> str:
    """A row's claim: its id less a condition's suffix (S1-trace-scale -> S1-trace)."""
    return re.sub(r"-(scale|replication)$", "", row_id)


def band_note(row_id: str) -> str | None:
    """BAND_NOTES of a row's claim (claim_of)."""
    return BAND_NOTES.get(claim_of(row_id))


# The studies' claims as they state them (Section II): where we judge one statement as several claims, by
# comparator (btrfs against ext4 and against xfs), workload (tracing Cassandra, RocksDB on btrfs), a condition
# (the device the limit), a proxy (fio appends) or a mount option (strictatime, relatime), each claim of it -> the
# claim that stands for the statement (blkscope.paper.headline.published counts the statements)
SAME_STATEMENT = {"S1-hot-f2fs": "S1-hot", "S1-trace-cass": "S1-trace", "S1-trace-ycsb-cass": "S1-trace",
                  "S1-trace-btrfs": "S1-trace", "S2-ops-cap": "S2-ops", "S2-lz4-cap": "S2-lz4",
                  "S2-aqu-cap": "S2-aqu", "S2-aqu-fio": "S2-aqu", "S2-merge-cap": "S2-merge",
                  "S3-cow-xfs": "S3-cow-ext4", "S3-wb-journal": "S3-wb-sysbench", "S3-relatime": "S3-strictatime"}


def statement_of(row_id: str) -> str:
    """The published claim a row tests, named by the claim that stands for it (SAME_STATEMENT)."""
    c = claim_of(row_id)
    return SAME_STATEMENT.get(c, c)


_TRACE = vd.within(_TR_LO, _TR_HI, f"{100 * _TR_LO:.0f}-{100 * _TR_HI:.0f} %")
_TRACE_WORDS = f"{100 * _TR_LO:.0f}-{100 * _TR_HI:.0f} % fewer ops/s"
_CL_SSD, _CL_NVME = lit("ClOpsExtFourSsd") / lit("ClOpsXfsSsd"), lit("ClOpsExtFourNvme") / lit("ClOpsXfsNvme")
_AQU = lit("ClAquExtFour") / lit("ClAquXfs")
_MY_SMALL, _MY_LARGE = lit("MyReqXfsSmall") / lit("MyReqExtFourSmall"), lit("MyReqXfsLarge") / lit("MyReqExtFourLarge")
_AMP = vd.within(lit("GuideZfsAmpLo"), lit("GuideZfsAmpHi"), f"{lit('GuideZfsAmpLo'):.0f}-{lit('GuideZfsAmpHi'):.0f}x")
_AMP_WORDS = f"{lit('GuideZfsAmpLo'):.0f}-{lit('GuideZfsAmpHi'):.0f}x write amplification (ZFS)"
_VOL_TB = f"{lit('MyVolumeSmallTb'):.0f} TB vs {lit('MyVolumeLargeTb'):.0f} TB"

CLAIMS: list[Claim] = [
    Claim("S1-zipf", SSD, "Block accesses of YCSB on RocksDB roughly follow a Zipf curve",
          "rank exponent s of block accesses", "roughly zipfian",
          vd.within(*ZIPF_BAND, f"s = {ZIPF_BAND[0]}-{ZIPF_BAND[1]}"), "float", cm.zipf),
    Claim("S1-hot", SSD, "btrfs has fewer very hot read pages than ext4",
          "btrfs/ext4 share of read accesses to the hottest 1 % of read pages", "fewer very hot read blocks",
          vd.less("btrfs/ext4"), "ratio", cm.hot_pages("ext4")),
    Claim("S1-hot-f2fs", SSD, "btrfs has fewer very hot read pages than f2fs",
          "btrfs/f2fs share of read accesses to the hottest 1 % of read pages (guest)", "fewer very hot read blocks",
          vd.less("btrfs/f2fs"), "ratio", cm.hot_pages("f2fs")),
    Claim("S1-hot-meta", SSD, "The very hot read pages of ext4 and f2fs are filesystem metadata",
          "share of hot-page read accesses carrying REQ_META", "attributed to filesystem metadata",
          vd.within(0.5, 1.0, "> 50 % of hot-page accesses"), "pct", cm.hot_metadata),
    Claim("S1-trace", SSD, f"Tracing the block layer costs {_TRACE_WORDS}",
          "1 - traced/untraced ops/s, all host workloads", _TRACE_WORDS, _TRACE, "pct", cm.overhead(lambda t: t)),
    Claim("S1-trace-cass", SSD, f"Tracing Cassandra costs {_TRACE_WORDS}",
          "1 - traced/untraced ops/s, Cassandra (cassandra-stress)", _TRACE_WORDS, _TRACE, "pct",
          cm.overhead(lambda t: t.filter(pl.col("workload") == "cassandra"))),
    Claim("S1-trace-ycsb-cass", SSD, f"Tracing Cassandra under YCSB costs {_TRACE_WORDS}",
          "1 - traced/untraced ops/s past the warm-up, YCSB workload A on Cassandra", _TRACE_WORDS, _TRACE, "pct",
          cm.overhead(_ycsb_cassandra, phase="run"), cm.overhead_in_window(_ycsb_cassandra)),
    Claim("S1-trace-btrfs", SSD, f"Tracing RocksDB on btrfs costs about {100 * _TR_BTRFS:.0f} % of its ops/s",
          "1 - traced/untraced ops/s, YCSB-RocksDB on btrfs", f"about {100 * _TR_BTRFS:.0f} %",
          vd.within(_TR_BTRFS - ABOUT, _TR_BTRFS + ABOUT,
                    f"{100 * (_TR_BTRFS - ABOUT):.0f}-{100 * (_TR_BTRFS + ABOUT):.0f} %"), "pct",
          cm.overhead(lambda t: t.filter((pl.col("workload") == "ycsb") & (pl.col("filesystem") == "btrfs")))),
    Claim("S1-f2fs", SSD, "f2fs is much faster for RocksDB", "f2fs/ext4 YCSB-RocksDB ops/s", "much faster",
          vd.more("f2fs/ext4"), "ratio", cm.f2fs_rocksdb),
    Claim("S1-frag", SSD, "Cassandra's large files fragment on btrfs under random writes",
          "btrfs/ext4 extents per GiB of Cassandra data files >= 1 MiB", "fragment", vd.more("btrfs/ext4"), "ratio",
          cm.fragmentation),
    Claim("S1-cass-read", SSD, "Cassandra has higher read throughput than RocksDB",
          "Cassandra/RocksDB YCSB ops/s past the warm-up, read-only phase (workload C)", "higher read throughput",
          vd.more("Cassandra/RocksDB"), "ratio", cm.cassandra_vs_rocksdb("read"),
          cm.cassandra_vs_rocksdb_in_window("read")),
    Claim("S1-cass-write", SSD, "Cassandra has lower write throughput than RocksDB",
          "Cassandra/RocksDB YCSB ops/s, whole load phase (a fixed count of inserts, cold start)",
          "lower write throughput", vd.less("Cassandra/RocksDB"), "ratio",
          cm.untraced(cm.cassandra_vs_rocksdb("load", whole=True)),
          cm.cassandra_vs_rocksdb_in_window("update")),
    Claim("S2-ops", CL, "Uncompressed commitlogs: ext4 several times the ops/s of xfs",
          "ext4/xfs cassandra-stress write ops/s, commitlog uncompressed",
          f"{_CL_SSD:.2f}x (SSD), {_CL_NVME:.2f}x (NVMe)", vd.comparable_between(_CL_SSD, _CL_NVME), "ratio",
          cm.metric_ratio("workload_metrics", _cw("none"), "ops_s", ("ext4", "xfs"), False, True, "ops/s", digits=0)),
    Claim("S2-lz4", CL, "LZ4 commitlogs: ext4 and xfs give the same ops/s",
          "ext4/xfs cassandra-stress write ops/s, commitlog LZ4",
          f"the same ({lit('ClOpsExtFourLzFour'):.0f} vs {lit('ClOpsXfsLzFour'):.0f} ops/s)", vd.same(0.10), "ratio",
          cm.metric_ratio("workload_metrics", _cw("lz4"), "ops_s", ("ext4", "xfs"), False, True, "ops/s", digits=0)),
    Claim("S2-aqu", CL, "Commitlog writes queue deeper on ext4",
          "ext4/xfs iostat aqu-sz, Cassandra write, uncompressed",
          f"avgqu-sz {lit('ClAquExtFour'):.2f} vs {lit('ClAquXfs'):.2f}", vd.comparable_ratio(_AQU), "ratio",
          cm.metric_ratio("iostat_summary", _cw("none"), "aqu_sz", ("ext4", "xfs"), False, True, "", digits=3)),
    Claim("S2-merge", CL, "ext4 merges more commitlog writes than xfs",
          "ext4/xfs iostat wrqm/s, Cassandra write, uncompressed", "more write merges", vd.more("ext4/xfs"), "ratio",
          cm.metric_ratio("iostat_summary", _cw("none"), "wrqm_s", ("ext4", "xfs"), False, True, "merges/s")),
    # the same claims where the device, not the CPU, is the limit (the commitlog grid under a device cap)
    Claim("S2-ops-cap", CL, "Uncompressed commitlogs: ext4 several times the ops/s of xfs (device the limit)",
          "ext4/xfs cassandra-stress write ops/s, commitlog uncompressed, device capped",
          f"{_CL_SSD:.2f}x (SSD), {_CL_NVME:.2f}x (NVMe)", vd.comparable_between(_CL_SSD, _CL_NVME), "ratio",
          cm.metric_ratio("workload_metrics", _cw("none"), "ops_s", ("ext4", "xfs"), False, False, "ops/s", digits=0,
                          load=CAPPED)),
    Claim("S2-lz4-cap", CL, "LZ4 commitlogs: ext4 and xfs give the same ops/s (device the limit)",
          "ext4/xfs cassandra-stress write ops/s, commitlog LZ4, device capped",
          f"the same ({lit('ClOpsExtFourLzFour'):.0f} vs {lit('ClOpsXfsLzFour'):.0f} ops/s)", vd.same(0.10), "ratio",
          cm.metric_ratio("workload_metrics", _cw("lz4"), "ops_s", ("ext4", "xfs"), False, False, "ops/s", digits=0,
                          load=CAPPED)),
    # aqu-sz once the device is the limit: from its first saturated report on (the page cache's warm-up dropped)
    Claim("S2-aqu-cap", CL, "Commitlog writes queue deeper on ext4 (device the limit)",
          "ext4/xfs iostat aqu-sz from the first saturated report, Cassandra write, uncompressed, device capped",
          f"avgqu-sz {lit('ClAquExtFour'):.2f} vs {lit('ClAquXfs'):.2f}", vd.comparable_ratio(_AQU), "ratio",
          cm.metric_ratio("iostat_summary", _cw("none"), "aqu_sz_sat", ("ext4", "xfs"), False, False, "", digits=3,
                          load=CAPPED)),
    Claim("S2-merge-cap", CL, "ext4 merges more commitlog writes than xfs (device the limit)",
          "ext4/xfs iostat wrqm/s, Cassandra write, uncompressed, device capped", "more write merges",
          vd.more("ext4/xfs"), "ratio",
          cm.metric_ratio("iostat_summary", _cw("none"), "wrqm_s", ("ext4", "xfs"), False, False, "merges/s",
                          load=CAPPED)),
    Claim("S2-aqu-fio", CL, "Appends queue deeper on ext4 than on xfs (fio append, proxy)",
          "ext4/xfs iostat aqu-sz, fio append", f"avgqu-sz {lit('ClAquExtFour'):.2f} vs {lit('ClAquXfs'):.2f}",
          vd.comparable_ratio(_AQU), "ratio",
          cm.metric_ratio("iostat_summary", _append, "aqu_sz", ("ext4", "xfs"), False, True, "", digits=3)),
    Claim("S3-cow-ext4", GUIDE, "Copy-on-write (ZFS; btrfs its proxy here) amplifies writes: btrfs against ext4",
          "btrfs/ext4 device KiB written per KiB the workload wrote", _AMP_WORDS, _AMP, "ratio",
          cm.write_amplification("ext4")),
    Claim("S3-cow-xfs", GUIDE, "Copy-on-write (ZFS; btrfs its proxy here) amplifies writes: btrfs against xfs",
          "btrfs/xfs device KiB written per KiB the workload wrote", _AMP_WORDS, _AMP, "ratio",
          cm.write_amplification("xfs")),
    Claim("S3-wb-sysbench", GUIDE, "data=writeback is faster than data=ordered (sysbench)",
          "ext4 writeback/ordered sysbench req/s", "trades durability for speed", vd.more("writeback/ordered"),
          "ratio", cm.writeback_speed("sysbench", "ops_s", False, True)),
    Claim("S3-wb-journal", GUIDE, "data=writeback is faster than data=ordered (journal writer)",
          "ext4 ordered/writeback mean write latency, traced", "trades durability for speed",
          vd.more("ordered/writeback"), "ratio", cm.writeback_speed("journal", "write_mean_us", True, False)),
    Claim("S3-strictatime", GUIDE, "noatime avoids the writes strictatime makes on reads",
          "strictatime - noatime device KiB written per 1,000 reads", "noatime always",
          vd.within(0.0, math.inf, "> 0 KiB", "direction"), "kib", cm.atime_writes("strictatime")),
    Claim("S3-relatime", GUIDE, "noatime avoids writes relatime (the default) still makes",
          "relatime - noatime device KiB written per 1,000 reads", "noatime always",
          vd.within(0.0, math.inf, "> 0 KiB", "direction"), "kib", cm.atime_writes("relatime")),
    Claim("S4-ms", JNL, "ext4 shows multi-millisecond writes in every preallocation mode",
          f"smallest max write latency over ext4 runs (ms){_LONG}", "multi-millisecond",
          vd.within(1.0, math.inf, ">= 1 ms in every run"), "ms", cm.ext4_ms_writes),
    Claim("S4-mean", JNL, "Mean journal write latency is lower on xfs by a few hundred ns",
          f"ext4 - xfs mean write latency{_LONG}", "a few hundred ns", vd.within(0.1, 0.9, "0.1-0.9 us"), "us",
          cm.metric_ratio("workload_metrics", cm.journal_writer, "write_mean_us", ("ext4", "xfs"), False,
                          False, "us", ratio=False)),
    Claim("S4-sparse-max", JNL, "xfs with sparse preallocation has the best maximum write latency",
          f"xfs sparse / best other filesystem x mode pair, max write latency{_LONG}", "the best of all pairs",
          vd.less("xfs sparse/best other"), "ratio", cm.sparse_best_max),
    Claim("S4-p9999", JNL, "ext4 has the better 99.99th percentile with fully primed files",
          f"ext4/xfs p99.99 write latency, preallocated and filled{_LONG}", "better 99.99th", vd.less("ext4/xfs"),
          "ratio",
          cm.metric_ratio("workload_metrics", lambda t: cm.journal_writer(t).filter(pl.col("job") == "prealloc"),
                          "write_p9999_us", ("ext4", "xfs"), False, False, "us", digits=0)),
    Claim("S4-reader", JNL, "With a concurrent reader, xfs stalls the writer more than ext4 (max)",
          "xfs/ext4 max write latency with a reader", "xfs stalls the writer", vd.more("xfs/ext4"), "ratio",
          cm.reader_stalls),
    Claim("S5-sysbench", MYSQL, "xfs beats ext4 on sysbench fileio random read/write",
          "xfs/ext4 sysbench req/s", f"{_MY_SMALL:.3f}x at {lit('MyVolumeSmallTb'):.0f} TB",
          vd.comparable_ratio(_MY_SMALL), "ratio",
          cm.metric_ratio("workload_metrics", lambda t: t.filter((pl.col("workload") == "sysbench")
                                                                 & (pl.col("job") != cm.VOLUME_JOB)),
                          "ops_s", ("xfs", "ext4"), False, True, "req/s", digits=0)),
    Claim("S5-volume", MYSQL, "xfs's advantage over ext4 grows with the volume",
          "(xfs/ext4 on the larger volume) / (xfs/ext4 on the smaller), sysbench req/s",
          f"{_MY_LARGE / _MY_SMALL:.2f}x ({_VOL_TB})", vd.comparable_ratio(_MY_LARGE / _MY_SMALL), "ratio",
          cm.volume_growth),
    Claim("S5-inode64", MYSQL, "inode64 keeps a directory's files together and beats inode32 on a large volume",
          "xfs inode64/inode32 sysbench req/s on the larger volume", "inode64 better", vd.more("inode64/inode32"),
          "ratio", cm.inode64),
]


# an estimate whose runs do not vary (every run of an arm read the same value: S3-relatime's deterministic atime
# writes, S1-hot-meta's zero shares) has an interval of no width: the row says so instead of printing it. A rule
# over runs (S4-ms: the smallest maximum) has no standard error and no interval to speak of: a bare number.
NO_SPREAD = "(no spread between runs: no interval)"
EXACT = "exact"  # the label of a verdict read off such a value: no interval, no test, no Holm


def exact(e: vd.Estimate | None) -> bool:
    """An estimate with a standard error of no width (but a variance's float noise): its runs do not vary."""
    return e is not None and math.isfinite(e.se) and math.isclose(e.lo, e.hi, rel_tol=1e-9)


def ours_text(e: vd.Estimate | None, fmt: str) -> str:
    if e is None:
        return "--"
    if exact(e):
        return f"{_fmt(e.value, fmt)} {NO_SPREAD}"
    if e.lo == e.hi == e.value:
        return _fmt(e.value, fmt)
    return f"{_fmt(e.value, fmt)} [{_fmt(e.lo, fmt)}, {_fmt(e.hi, fmt)}]"


def disagrees(r) -> bool:
    """Whether a result pools strata that disagree (claim_heterogeneity) and has each one's own estimate: its
    verdict is then the strata's (claim_verdict.strata_verdict), and no pooled interval is printed. An estimator
    whose strata disagree but that gives no estimate per stratum (volume_growth, whose source is its fingerprint in
    the claims plan; its strata agree) is refused rather than judged on a pooled interval."""
    if r is None or r.het is None or not r.het.disagree or r.estimate is None:
        return False
    if not r.strata:
        raise ValueError(f"strata disagree ({r.het.text()}) but the estimate gives none of its own: {r.measurement}")
    return True


def verdict_of(r, size: vd.Size) -> str:
    e = r.estimate
    if r.verdict or e is None:
        return r.verdict or "inconclusive"
    if disagrees(r):
        return vd.strata_verdict(list(r.strata), size)[0]
    v = vd.verdict(e.lo, e.hi, size)
    return f"{v} ({EXACT})" if exact(e) else v


PER_STRATUM = "per stratum"  # `pooling` where the strata disagree: none pooled, each judged on its own


def strata_range(r, fmt: str) -> str | None:
    """Where the strata a result pools disagree: the range of their effects ("per stratum 1.03x to 5.41x, 14
    strata disagree"); None where they agree or it pools none."""
    het = r.het if r is not None else None
    if het is None or het.k < 2 or not het.disagree or het.span is None:
        return None
    return f"per stratum {_fmt(het.span[0], fmt)} to {_fmt(het.span[1], fmt)}, {het.k} strata disagree"


def ours_of(r, fmt: str) -> str:
    """A result's estimate as the table prints it: where its strata disagree, their range (strata_range), no
    pooled interval."""
    return strata_range(r, fmt) if disagrees(r) else ours_text(r.estimate, fmt)


def strata_counts(r, size: vd.Size) -> str:
    """How the strata of a result whose strata disagree decide, each on its own interval: "of 14 strata, 3
    replicate, 2 do not and 9 are inconclusive"."""
    own = [vd.verdict(e.lo, e.hi, size) for e in r.strata]
    words = {"replicates": ("replicates", "replicate"), "does not": ("does not", "do not"),
             "inconclusive": ("is inconclusive", "are inconclusive")}
    said = [f"{k} {w[k != 1]}" for v, w in words.items() if (k := own.count(v))]
    return f"of {len(own)} strata, {STRATA_OWN}, {join_and(said)}"


STRATA_OWN = "each judged on its own interval"  # in strata_counts' reason: how the strata split, kept by by_condition


def all_runs_text(r, c: Claim) -> tuple[str, str]:
    """The estimate and verdict over every run of a condition, exploratory ones included (ours_all, verdict_all;
    the deviations' before and after), by the planned verdict's rule and code (ours_of, verdict_of): where its
    strata disagree (blkscope.paper.claim_heterogeneity), no pooled interval but the range over its strata (a
    random-effects interval over many strata with near-exact repeats can be as narrow as a fixed one), and each
    stratum judged on its own interval, `replicates` or `does not` only where every stratum is, else `inconclusive:
    strata disagree` (issue Q review: it said "none: strata disagree" where the planned verdict judged)."""
    return ours_of(r, c.fmt), verdict_of(r, c.size)


def in_family(r) -> bool:
    """Whether a result's verdict comes from an interval (Holm's family): not a rule's, not an exact value's."""
    return r.verdict is None and r.estimate is not None and not exact(r.estimate)


def run_span(tables: Tables, run_ids: set[str]) -> tuple[float, float] | None:
    """The shortest and longest of the runs a row read (s): as long as they ran (the steady_state table's run_s,
    the length the run-conditions table prints), else as the runs sheet set them (runtime_s); None when unknown."""
    st = tables.get("steady_state")
    r, col = (st, "run_s") if st is not None and "run_s" in st.columns else (tables["runs"], "runtime_s")
    if not run_ids or col not in r.columns:
        return None
    s = r.filter(pl.col("run_id").is_in(list(run_ids)))[col].cast(pl.Float64, strict=False).drop_nulls().drop_nans()
    return (float(s.min()), float(s.max())) if s.len() else None


def run_length(span: tuple[float, float] | None) -> str | None:
    """The length of the runs a row read (run_span) as the window says it, in whole seconds as the run-conditions
    table prints them: "20 s", "2-20 s"; None when unknown."""
    if span is None:
        return None
    lo, hi = f"{round(span[0]):d}", f"{round(span[1]):d}"
    return f"{lo} s" if lo == hi else f"{lo}-{hi} s"


# the factors whose runs may each come from batches of their own: the YCSB-on-Cassandra grid was captured one
# filesystem per batch, and at scale each database in batches of its own
BATCH_FACTORS = ("filesystem", "database")
COMPARED, STRATA = "compared", "strata"  # what a factor held one value per batch confounds with the batch


def confounded(tables: Tables, strata: list[pl.DataFrame]) -> str | None:
    """Where the strata an estimate compared its arms in (claim_runs.compared) hold one value of a factor of
    BATCH_FACTORS per capture batch, though they read more than one: "compared: filesystem" when the factor differs
    between the arms of a stratum (the comparison itself is confounded with the batch and its day), "strata:
    filesystem" when the filesystem is one per stratum (the differences between the strata, read as the
    filesystems', are). None when no factor is, or no arms were compared in strata."""
    if not strata or "batch" not in tables["runs"].columns:
        return None
    r = pl.concat(strata).join(runs(tables), on="run_id")
    out = []
    for f in (f for f in BATCH_FACTORS if f in r.columns and r[f].n_unique() > 1):
        if r.group_by("batch").agg(k=pl.col(f).n_unique())["k"].max() != 1:
            continue
        within = r.group_by("stratum").agg(k=pl.col(f).n_unique())["k"].max() > 1
        if within or f == "filesystem":  # strata of one database each are workloads, read as no database's effect
            out.append(f"{COMPARED if within else STRATA}: {f}")
    return "; ".join(out) or None


# a length the plan wrote into a window ("whole run (2-20 s)", "(2 s saturating, 20 s light)"): the table prints
# the length of the runs read instead, measured (the plan's words said what was expected before the runs)
_PLAN_LENGTH = re.compile(r"\s*\(\d[\d.]*(?:-\d[\d.]*)? s\b[^()]*\)$")


def kept_span(tables: Tables, ids: set[str]) -> tuple[float, float] | None:
    """The shortest and longest kept trace window (steady_state trace_end_s - trace_start_s, s) of the runs read;
    None where no run read kept one."""
    st = tables.get("steady_state")
    if st is None or not ids or not {"trace_start_s", "trace_end_s"} <= set(st.columns):
        return None
    w = st.filter(pl.col("run_id").is_in(list(ids))).select(w=pl.col("trace_end_s") - pl.col("trace_start_s"))
    w = w["w"].cast(pl.Float64).drop_nulls().drop_nans()
    return (round(float(w.min()), 1), round(float(w.max()), 1)) if w.len() else None


KEPT = "kept window"  # a window's words for a trace's kept window (the plan's, and SHORTHAND's in the tables)


def kept_window_text(window: str | None, kept: tuple[float, float] | None) -> str | None:
    """A window that reads the trace's kept window with that window's length: "the trace's kept window inside
    ..." -> "the trace's kept window of 3 s inside ..."."""
    if not window or kept is None or KEPT not in window:
        return window
    return window.replace(KEPT, f"{KEPT} of {run_length(kept)}", 1)


COLD = "cold start"  # a quantity read from a cold start (S1-cass-write's load phase), not a steady state
JOURNAL_LATENCY = "write latency"  # a quantity of the journal writer's latency (S4-*, S3-wb-journal)
TRACING_COST = "1 - traced/untraced"  # a tracing cost's quantity (S1-trace*)
TRACED_FASTER = "traced arm faster: a confound"
JOURNAL_SHORT = "journal latency needs"  # ends the reason of a journal-latency row read from runs under 60 s


def caveat(regime: Regime | None, condition: str, load: str | None, verdict: str, quantity: str,
           span: tuple[float, float] | None, kept: tuple[float, float] | None,
           e: vd.Estimate | None = None) -> str | None:
    """Where a judged row's runs are not in the condition the study's numbers came from (REGIMES), in words:
    "in memory" (the in-memory condition, where the study's data were much larger than memory), "runs of 2-240 s"
    or "a kept trace window of 3 s" (runs read, or a window, shorter than the steady window, STEADY_MIN_S: the
    shortest run read decides), "light load"
    (the study's load saturated), "a load phase from a cold start" (a quantity read from one, where the study's
    runs were steady); whatever the study: "runs of 11 s, under the 60 s journal latency needs" (the journal
    writer's latency read from runs shorter than claim_measures.JOURNAL_MIN_S, the paper's own rule: such a run
    ends before the kernel's and xfs's 30-s clocks), and "traced arm faster: a confound" (a tracing cost whose
    interval lies wholly below zero: a tracer cannot speed a run up, so the arms differ in something else);
    None where the row meets it, or is not judged (`not tested`, `not testable here`)."""
    if verdict.startswith("not test"):
        return None
    parts, extra = [], []
    if JOURNAL_LATENCY in quantity and span is not None and span[0] < cm.JOURNAL_MIN_S:
        extra.append(f"runs of {run_length(span)}, under the {cm.JOURNAL_MIN_S} s {JOURNAL_SHORT}")
    if quantity.startswith(TRACING_COST) and e is not None and math.isfinite(e.hi) and e.hi < 0:
        extra.append(TRACED_FASTER)
    if regime is None:
        return ", ".join(extra) or None
    if regime.data_over_memory and condition != "scale":
        parts.append("in memory")
    if regime.steady and kept is not None and kept[1] < rw.STEADY_MIN_S:
        parts.append(f"a kept trace window of {run_length(kept)}")
    elif regime.steady and condition != "scale" and span is not None and span[0] < rw.STEADY_MIN_S:
        parts.append(f"runs of {run_length(span)}")
    if regime.steady and condition != "scale" and COLD in quantity:
        parts.append(f"a load phase from a {COLD}")
    if regime.saturating and load == LIGHT:
        parts.append("light load")
    return ", ".join(parts + extra) or None


def at_scale(tables: Tables, plan: Plan | None, c: Claim) -> Result | None:
    """Beside an in-memory row of a claim the plan gives no scale row: the claim's own measure over the steady
    runs with data >= 10x the cap of its study's scale batches (those captured wholly), exploratory (no plan, no
    verdict); None where it reads no runs there."""
    if plan is None or any(e.claim_id == c.claim_id and e.condition == "scale" for e in plan.entries):
        return None
    ids = {x.claim_id for x in CLAIMS if x.study == c.study}
    scale = [e for e in plan.entries if e.condition == "scale" and e.claim_id in ids and e.batches]
    batches = tuple(dict.fromkeys(b for e in scale for b in e.batches))
    if not scale or tables.get("steady_state") is None:
        return None
    batches = tuple(b for b in batches if b not in rw.uncaptured(tables, batches))
    if not batches:
        return None
    return rw.other_condition(tables, replace(scale[0], claim_id=c.claim_id, batches=batches), c.evaluate, c.size)


def guest_strata(tables: Tables, strata: list[pl.DataFrame], ids: set[str]) -> str | None:
    """Where a row's runs read, in the plan's words, are host runs but strata it compared ran in the emulated
    guest: those of the strata its estimate read (runs in `ids`) named in plain words ("one of the three strata
    (RocksDB small) ran in the guest"); None otherwise."""
    r = tables["runs"]
    if not strata or "testbed" not in r.columns:
        return None
    s = pl.concat(strata).filter(pl.col("run_id").is_in(list(ids))).join(r.select("run_id", "testbed"), on="run_id")
    k = s["stratum"].n_unique()
    guest = s.filter(pl.col("testbed") == "guest")["stratum"].unique(maintain_order=True).to_list()
    if not guest:
        return None
    return setup_names.guest_strata(guest, k)


def runs_read_text(runs: str | None, guest: str | None) -> str | None:
    """The plan's runs read, with the strata that ran in the guest named where the plan says host runs."""
    if not runs or not guest or not re.search(r"\bhost\b", runs):
        return runs
    return f"{runs}; {guest}"


def window_text(window: str | None, length: str | None) -> str | None:
    """The plan's window with the length of the runs read (run_span) in place of any length the plan wrote:
    "whole run" and "whole run (20-60 s)" -> "whole run (10-20 s)", "steady window (>= 90 s)" -> "steady window
    (>= 90 s; runs of 180 s)", "the run's iostat window" -> "the run's iostat window (runs of 2-20 s)"; "--" (no
    runs), and a window whose runs' length is unknown, as the plan has them."""
    if window is None or length is None or window.strip() in ("", "--"):
        return window
    w = window.strip()
    if w.startswith("whole run"):
        w = _PLAN_LENGTH.sub("", w)
    if w == "whole run":
        return f"{w} ({length})"
    return f"{w[:-1]}; runs of {length})" if w.endswith(")") else f"{w} (runs of {length})"


def per_stratum(n: str | None) -> str:
    """The unit n_needed counts in, from the row's n: a pooled estimate's spread is that of one repeat per arm in
    each stratum ("6 vs 6 in 2 strata": n_needed 6 is 12 runs per arm), so the table says so beside the number."""
    if re.search(r"\bin \d+ strata\b", n or ""):
        return " per stratum"
    return " per configuration" if re.search(r"\b\d+ configurations\b", n or "") else ""


BAND_END = 0.05  # an estimate within this share of its band's width from one of the band's ends sits at that end


def at_band_end(value: float, size: vd.Size) -> bool:
    """An estimate at its band's end (within BAND_END of the band's width from lo or hi; a band with an open end
    never): the interval narrows around the end, so the repeats it would take to decide run to thousands and the
    claims table prints a dash (S1-trace-scale: 23.9 % against 24-36 %)."""
    lo, hi = size.lo, size.hi
    if size.kind != "range" or not all(math.isfinite(x) for x in (value, lo, hi)) or hi <= lo:
        return False
    return min(abs(value - lo), abs(value - hi)) < BAND_END * (hi - lo)


def _row(c: Claim, r, entry, everything, span: tuple[float, float] | None = None, family: int = 1,
         confound: str | None = None, guest: str | None = None, kept: tuple[float, float] | None = None,
         scale: Result | None = None) -> dict:
    """One row: the confirmatory result `r`, the plan's `entry` (None: no plan), the result over all the
    condition's runs, exploratory ones included (`everything`; None: the same runs), the shortest and longest of
    the runs `r` read (`span`, s: for the window and run_s_lo/run_s_hi), the size of Holm's family (`family`, for
    n_needed's level), and the factors its strata hold one value of per batch (`confound`, confounded)."""
    split = disagrees(r)  # strata that disagree: each judged on its own, no pooled estimate printed or tested
    e = None if split else r.estimate
    v = verdict_of(r, c.size)
    test = ("each stratum's own interval, intersection-union" if split else e.test if e else "") + \
        f"; {100 * c.size.level:.0f} % interval vs the band"
    # at Holm's family level where the interval gives the verdict; nan for strata that disagree (no pooled
    # estimate) and for an exact value (no spread to narrow)
    level = mt.family_level(c.size.level, family) if in_family(r) else c.size.level
    need = vd.n_needed(e, c.size, level) if e is not None and not exact(e) else math.nan
    if e is not None and math.isfinite(need) and at_band_end(e.value, c.size):
        need = math.inf  # no practical number of repeats decides an estimate at the band's end: a dash
    reason = r.reason
    if reason is None and v.startswith("inconclusive") and split:
        reason = strata_counts(r, c.size)
    elif reason is None and v.startswith("inconclusive") and r.het is not None and r.het.disagree:
        reason = "the strata disagree: more repeats per arm do not narrow the spread between them"
    unit = per_stratum(r.n)
    if reason is None and v.startswith("inconclusive") and math.isfinite(need):
        reason = f"{vd.n_needed_text(need)} repeats per arm{unit} would decide at the observed spread"
    elif reason is None and v.startswith("inconclusive") and math.isinf(need):
        reason = "the estimate sits at the band's end: no practical number of repeats decides"
    everything = everything or r
    het = r.het
    cond = entry.condition if entry else "in-memory"
    return {
        "claim_id": entry.row_id if entry else c.claim_id, "study": c.study, "claim": c.claim,
        "quantity": entry.quantity if entry else c.quantity, "claimed": c.claimed,
        "band": f"{c.size.text} for '{c.claimed}'", "band_words": c.size.claimed_words,
        "ours": ours_of(r, c.fmt), "measurement": r.measurement, "n": r.n,
        "n_needed": vd.n_needed_text(need) + (unit if math.isfinite(need) else ""),
        "test": test, "verdict": v, "reason": reason, "estimate": e.value if e else None, "lo": e.lo if e else None,
        "hi": e.hi if e else None, "level": c.size.level, "claimed_lo": c.size.lo, "claimed_hi": c.size.hi,
        "n_needed_value": need, "p": e.p if e else None, "p_tost": e.p_tost if e else None,
        "load": None if v.startswith("not test") else r.load,
        "condition": cond, "runs_read": runs_read_text(entry.runs if entry else None, guest),
        "window": kept_window_text(window_text(entry.window if entry else None, run_length(span)), kept),
        "caveat": caveat(REGIMES.get(c.study), cond, None if v.startswith("not test") else r.load, v,
                         entry.quantity if entry else c.quantity, span, kept, e),
        "ours_scale": ours_of(scale, c.fmt) if scale is not None and scale.estimate is not None else None,
        "run_s_lo": span[0] if span else None, "run_s_hi": span[1] if span else None,
        "n_planned": entry.n_per_arm if entry else None,
        "heterogeneity": het.text() if het and het.k >= 2 else None, "i2": het.i2 if het and het.k >= 2 else None,
        "p_q": het.p if het and het.k >= 2 else None,
        "pooling": None if het is None or het.k < 2 else (PER_STRATUM if het.disagree else "fixed"),
        "ours_all": (alls := all_runs_text(everything, c))[0], "n_all": everything.n, "verdict_all": alls[1],
        "per_stratum": strata_range(r, c.fmt),
        "verdict_planned": None, "verdict_planned_unadjusted": None,
        "confounded": None if v.startswith("not test") else confound,
        "_estimate": e, "_from_interval": in_family(r),
        "_decision": vd.strata_verdict(list(r.strata), c.size)[1] if split and in_family(r) else None,
        "_pooled": plan_pooled(r, c.size) if split and in_family(r) else None,
    }  # fmt: skip


def plan_pooled(r, size: vd.Size) -> tuple[mt.Decision, str]:
    """A row whose strata disagree as the plan judged it, before the pooling rule was changed once the estimates
    had been seen (the claims plan's deviation of kind pooling): its random-effects interval's decision and verdict
    against the band (claim_rows.holm_columns gives `verdict_pooled_plan`, Holm's as for `verdict`)."""
    e = r.estimate
    return vd.decision(e, size), vd.verdict(e.lo, e.hi, size)


def ruling(caveat: str | None) -> str | None:
    """The part of a caveat the condition rule rules on: all but TRACED_FASTER, a sign the interval shows, which is
    stated beside the verdict and overturns none (issue Q review: a rule on the estimate's own sign, set after it
    was seen, decided the row it read); None where nothing else is left."""
    parts = [x for x in str(caveat or "").split(", ") if x and x != TRACED_FASTER]
    return ", ".join(parts) or None


def by_condition(row: dict) -> None:
    """The condition rule (set after the runs were seen; the claims plan's deviations list it): a claim is re-tested
    in the condition it was made in, so a judged row whose runs are not in it (its `caveat`, ruling's part of it) is
    `outside the study's condition: <caveat>` (RULED), before and after the correction, its planned verdict
    (Holm's family as planned) kept in `verdict_planned` (before Holm: `verdict_planned_unadjusted`); no repeats
    decide it (n_needed "--"), its reason kept only where it says how its strata split (review: S1-hot and S1-trace
    lost it). A caveat of a traced arm faster alone leaves the verdict as planned, the caveat
    beside it."""
    if not ruling(row.get("caveat")) or str(row["verdict"]).startswith("not test"):
        return
    row["verdict_planned"], row["verdict_planned_unadjusted"] = row["verdict"], row["verdict_unadjusted"]
    row["verdict"] = row["verdict_unadjusted"] = f"{RULED}{row['caveat']}"
    # no repeats decide it; how its strata split (strata_counts) still says why the planned verdict is undecided
    keep = row.get("pooling") == PER_STRATUM and STRATA_OWN in str(row.get("reason") or "")
    row["n_needed"], row["n_needed_value"], row["reason"] = "--", math.nan, row["reason"] if keep else None


def condition_rule_words() -> str:
    """The condition rule per study, exactly as `caveat` and `ruling` apply it (REGIMES, the journal writer's latency
    rule; the tracing confound stated, not ruled on), for the claims table's caption and Appendix A: "the SSD
    study's rows need steady runs (...), a saturating load and data at least 10 times the memory; the commitlog
    study's a saturating load; ...; the Cassandra guide, the journal study and the MySQL study state no condition:
    their rows are judged as run (...). A tracing cost whose traced arm ran faster ... is marked a confound beside its
    verdict, which stands"."""
    def needs(r: Regime) -> str:
        out = []
        if r.steady:
            out.append(f"steady runs (runs, or a kept trace window, of at least {rw.STEADY_MIN_S:.0f} s, not a "
                       f"load phase from a {COLD})")
        if r.saturating:
            out.append("a saturating load")
        if r.data_over_memory:
            out.append(f"data at least {rw.DATA_OVER_CAP} times the memory (not in-memory runs)")
        return ", ".join(out[:-1]) + (" and " if len(out) > 1 else "") + out[-1]

    said = [f"the {study}'s rows need {needs(r)}" if k == 0 else f"the {study}'s {needs(r)}"
            for k, (study, r) in enumerate(REGIMES.items())]
    said.append(f"a row of the journal writer's latency, in any study, runs of at least {cm.JOURNAL_MIN_S} s")
    silent = list(dict.fromkeys(c.study for c in CLAIMS if c.study not in REGIMES))
    names = [f"the {s}" for s in silent]
    names = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)
    return (f"{'; '.join(said)}. {names[0].upper()}{names[1:]} state no condition: their rows are judged as run "
            f"(but for the journal writer's latency). A tracing cost whose traced arm ran faster than its untraced one "
            f"is marked a confound beside its verdict, which stands")


RULED = f"{vd.OUTSIDE}: "  # the condition rule's verdict, its condition after the colon (no parenthesis: a
# sentence quotes a verdict inside one)


def by_rule(verdict: str | None) -> bool:
    """A verdict the condition rule gave (`outside the study's condition: <caveat>`)."""
    return str(verdict or "").startswith(RULED)


UNJUDGED = ("not test", RULED)  # verdicts' first words: not tested, not testable here, the condition rule's


def unjudged_here(verdict: str | None) -> bool:
    """A verdict on which this study cannot say whether the claim holds in its study's condition: `not tested`,
    `not testable here`, or the condition rule's (by_rule; its planned verdict is beside it, a caveat)."""
    return str(verdict or "").startswith(UNJUDGED)


def unjudged_expr(column: str = "verdict") -> pl.Expr:
    """unjudged_here as a polars expression (null: false)."""
    v = pl.col(column).fill_null("")
    return pl.any_horizontal(*(v.str.starts_with(p) for p in UNJUDGED))


def narrowed_by_plan(plan: Plan | None) -> dict[tuple[str, str], str]:
    """(claim id, condition) -> how the plan's measure deviations narrowed the runs it reads once its estimate was
    seen, their `short` words in date order ("to runs of at least 60 s and to the best pair ..."): every row the
    plan lists, so that no table or sentence carries the note for some rows and not others (issue Q review)."""
    if plan is None:
        return {}
    out: dict[tuple[str, str], list[str]] = {}
    for d in plan.narrowings:
        for cid in d.claims:
            out.setdefault((cid, d.condition), []).append(d.short)
    return {k: " and ".join(v) for k, v in out.items()}


def changed_after_plan(plan: Plan | None) -> set[str]:
    """The claims whose measure a deviation dated after the plan changed (its new fingerprint named)."""
    if plan is None:
        return set()
    return {cid for d in plan.deviations if d.date > plan.date for cid in d.fingerprint}


# one run's throughput split by operation (YCSB workload A's reads and updates): the same quantity once the
# operation's word is dropped
_OPERATION = re.compile(r"\b(?:read|update|insert|write) (?=ops/s)")


def same_runs(rows: list[dict], ids: list[frozenset]) -> None:
    """`same_as`: a judged row that reads the same runs as an earlier judged row of its condition, and the same
    quantity but for the operation it counts (a workload's reads and updates share each run's throughput), is
    not a finding of its own: it names that row, and the headline counts the two once (blkscope.paper.headline)."""
    seen: dict[tuple, str] = {}
    for row, read in zip(rows, ids, strict=True):
        row["same_as"] = None
        if not read or str(row["verdict"]).startswith("not test"):  # the condition rule's rows are judged
            continue
        key = (row["condition"], read, _OPERATION.sub("", str(row["quantity"])))
        if key in seen:
            row["same_as"] = seen[key]
        else:
            seen[key] = row["claim_id"]


ARMS_SCHEMA = {"claim_id": pl.Utf8, "run_id": pl.Utf8, "arm": pl.Utf8}


def arms_read(parts: list[pl.DataFrame], ids: set[str]) -> pl.DataFrame:
    """The arms (run_id, arm) of the runs a row's verdict read (`ids`), from claim_runs.armed's frames: the arms
    its estimate compared where it recorded them (by_strata, _overhead_at), else the selections it drew values
    from (vals); empty where it recorded neither (a one-sample row, an estimator that compares arrays it filtered
    itself)."""
    if not parts:
        return pl.DataFrame(schema={"run_id": pl.Utf8, "arm": pl.Utf8})
    t = pl.concat(parts).filter(pl.col("run_id").is_in(sorted(ids)))
    how = "compared" if (t["how"] == "compared").any() else "values"
    return t.filter(pl.col("how") == how).select("run_id", "arm").unique(maintain_order=True)


def evaluate(tables: Tables, plan: Plan | None = None, arms: list[pl.DataFrame] | None = None) -> pl.DataFrame:
    """Every claim's rows (one per plan entry; without a plan, one on all runs), the verdict Holm-adjusted. With a
    list `arms`, each row's arms (ARMS_SCHEMA: the runs its verdict read, by arm) are appended to it."""
    tables = canonical(tables)  # the same tables in any row order give the same bytes (claim_runs: Order)
    results = []  # (claim, result, entry, result over all runs, run length): Holm's family size first
    confirm, everything = rw.in_memory(tables, plan, True), rw.in_memory(tables, plan, False)
    for c in CLAIMS:
        entries = [e for e in plan.entries if e.claim_id == c.claim_id] if plan else [None]
        for entry in entries or [None]:
            in_memory = entry is None or entry.condition == "in-memory"
            # the runs the verdict reads (their length), its strata, its arms
            with reads() as ids, compared() as strata, armed() as drawn:
                measure = c.at_scale if entry and entry.condition == "scale" and c.at_scale else c.evaluate
                r = c.evaluate(confirm, c.size) if in_memory else rw.other_condition(tables, entry, measure, c.size)
            if arms is not None:
                row_id = entry.row_id if entry else c.claim_id
                arms.append(arms_read(drawn, ids).select(claim_id=pl.lit(row_id), run_id="run_id", arm="arm"))
            alls = c.evaluate(everything, c.size) if plan and in_memory else None
            beside = at_scale(tables, plan, c) if in_memory and REGIMES.get(c.study, Regime()).steady else None
            results.append((c, r, entry, alls, run_span(tables, ids), confounded(tables, strata),
                            guest_strata(tables, strata, ids),
                            kept_span(tables, ids) if entry and KEPT in entry.window else None, beside,
                            frozenset(ids)))
    family = sum(in_family(x[1]) for x in results)
    rows = [_row(c, r, entry, alls, span, family, confound, guest, kept, beside)
            for c, r, entry, alls, span, confound, guest, kept, beside, _ in results]
    rw.holm_columns(rows, [x[0].size for x in results])
    changed, narrowed = changed_after_plan(plan), narrowed_by_plan(plan)
    for row in rows:
        by_condition(row)
        row["measure_changed"] = row["condition"] == "in-memory" and row["claim_id"] in changed
        row["narrowed"] = narrowed.get((row["claim_id"], row["condition"]))
    same_runs(rows, [x[-1] for x in results])
    odd = [r["claim_id"] for r in rows if not r["verdict"].startswith(VERDICTS)]
    if odd:
        raise ValueError(f"claims {', '.join(odd)}: a verdict outside {VERDICTS}")
    return pl.DataFrame(rows, schema=SCHEMA)
