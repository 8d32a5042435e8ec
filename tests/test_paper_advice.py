"""The practitioners' advice (blkscope.paper.advice): each piece follows its claim row's verdict and interval by the
module's rule, an inconclusive row or one whose strata disagree gives no advice and says why, the evidence
names the length of short runs, and the PDF check finds the advice the claims
table gives today, or says which is missing; the scale rows' reuse sentence (blkscope.paper.scale_numbers.reuse)
is computed from the runs' access counts."""

from __future__ import annotations

import re

import polars as pl
import pytest

from blkscope.paper import advice, scale_numbers
from blkscope.paper.claim_verdict import STRATA_DISAGREE
from blkscope.paper.claims import TRACED_FASTER
from blkscope.paper.pdf_words import missing_advice, unstated_runs
from blkscope.paper.prose import range_words, typed_numbers


def _claims(rows: list[tuple]) -> pl.DataFrame:
    """Claims-table rows (claim_id, verdict, ours, lo, hi) with the columns the advice reads."""
    df = pl.DataFrame(rows, schema=["claim_id", "verdict", "ours", "lo", "hi"], orient="row")
    return df.with_columns(claim=pl.lit("a claim"))


def _phrase(claim_id: str, verdict: str, ours: str, lo: float | None, hi: float | None) -> str:
    topic = next(t for t in advice.TOPICS if claim_id in t.claims)
    return advice.phrases(_claims([(claim_id, verdict, ours, lo, hi)]))[topic.macro]


def test_a_decided_verdict_chooses_by_the_side_of_no_effect_its_interval_lies_on():
    t = next(t for t in advice.TOPICS if "S2-ops" in t.claims)
    assert _phrase("S2-ops", "replicates", "3.60x [3.10x, 4.20x]", 3.1, 4.2) == \
        f"{t.above} (S2-ops: 3.60x [3.10x, 4.20x], replicates; post hoc)"  # fmt: skip
    assert _phrase("S2-ops", "does not", "0.50x [0.40x, 0.60x]", 0.4, 0.6).startswith(t.below)
    # the reported gap absent and neither filesystem shown faster: no choice made, and no equality claimed; the
    # words give the interval's ends, the evidence does not repeat them
    assert _phrase("S2-ops", "does not", "0.95x [0.83x, 1.10x]", 0.83, 1.10) == (
        "either ext4 or xfs for Cassandra's commitlog: over whole runs ext4/xfs throughput was 0.95x [0.83x, 1.10x], "
        "an interval that rules out the study's claimed size but does not show them equal (S2-ops: does not; post "
        "hoc)")  # the interval as an interval, not as the range of the rates (issue Q review)
    # "when the device is the limit" only from the row whose runs had a device cap, not from its uncapped fallback
    assert _phrase("S2-ops-cap", "does not", "0.95x [0.83x, 1.10x]", 0.83, 1.10).startswith(
        "either ext4 or xfs for Cassandra's commitlog when the device is the limit: over whole runs")
    # a difference (device KiB per 1,000 reads) lies against zero, not one
    atime = next(t for t in advice.TOPICS if "S3-relatime" in t.claims)
    assert _phrase("S3-relatime", "replicates", "4.1 KiB [2.0 KiB, 6.2 KiB]", 2.0, 6.2).startswith(atime.above)
    assert _phrase("S3-relatime", "does not", "-3.0 KiB [-5.0 KiB, -1.0 KiB]", -5.0, -1.0).startswith(atime.below)


def test_each_piece_of_evidence_says_whether_its_row_is_post_hoc_and_has_no_parenthesis_inside():
    c = _claims([("S3-relatime", "replicates (exact)", "69.3 KiB (no spread between runs: no interval)", 69.3, 69.3)])
    said = advice.phrases(c.with_columns(condition=pl.lit("in-memory")))["AdviceAtime"]
    assert said.endswith("(S3-relatime: 69.3 KiB, the same in every run, replicates; post hoc)")
    # the unit the quantity counts per, once, before the words that say every run gave it
    per = c.with_columns(condition=pl.lit("in-memory"), quantity=pl.lit("relatime - noatime device KiB written per "
                                                                          "1,000 reads"))
    assert advice.phrases(per)["AdviceAtime"].endswith(
        "(S3-relatime: 69.3 KiB per 1,000 reads, the same in every run, replicates; post hoc)")
    c = _claims([("S5-inode64-replication", "inconclusive", "1.03x [0.98x, 1.09x]", 0.98, 1.09)])
    said = advice.phrases(c.with_columns(condition=pl.lit("replication")))["AdviceInodeSixtyFour"]
    assert said.endswith("(S5-inode64-replication: 1.03x [0.98x, 1.09x], inconclusive; confirmatory)")


def test_an_inconclusive_row_gives_no_advice_and_says_why_it_is_not_decided():
    t = next(t for t in advice.TOPICS if "S4-reader" in t.claims)

    def said(lo: float, hi: float, **fields) -> str:
        c = _claims([("S4-reader", "inconclusive", f"1.50x [{lo:.2f}x, {hi:.2f}x]", lo, hi)])
        return advice.phrases(c.with_columns(**{k: pl.lit(v) for k, v in fields.items()}))[t.macro]

    ours = "1.50x [1.20x, 1.90x]"
    # wholly above one, yet not decided: no advice (no "leaning to" a side); the repeats that would decide are the
    # claims table's, Holm's correction (what moved the verdict) the advice's
    assert said(1.2, 1.9, pooling="fixed", n_needed="12") == \
        f"no advice on {t.subject} (S4-reader: {ours}, inconclusive; post hoc)"  # fmt: skip
    assert said(1.2, 1.9, verdict_unadjusted="replicates") == (
        f"no advice on {t.subject} (S4-reader: {ours}, inconclusive: replicates before the multiplicity "
        "correction; post hoc)")
    # where the interval lies against the claimed size, where the row has one
    banded = said(0.9, 1.6, band_words="xfs/ext4 > 1", claimed_lo=1.0, claimed_hi=float("inf"), estimate=1.2)
    assert banded.endswith("inconclusive, across the end of the claimed xfs/ext4 > 1; post hoc)")
    # a verdict that says why itself keeps its words; an untested row has no direction
    assert _phrase("S4-reader", "inconclusive (fewer than 2 repeats per arm)", "--", None, None) == (
        f"no advice on {t.subject} (S4-reader: inconclusive (fewer than 2 repeats per arm); post hoc)")
    assert _phrase("S4-reader", "not tested (no runs)", "--", None, None) == (
        "this study cannot say whether ``a claim'' (S4-reader: not tested: no runs)")


def test_the_evidence_names_the_length_of_short_runs_not_of_steady_windows():
    def said(window: str, verdict: str = "inconclusive") -> str:
        c = _claims([("S4-reader", verdict, "6.59x [1.15x, 37.66x]", 1.15, 37.66)])
        # the length is that of the runs read (run_s_lo, run_s_hi), here the one the window names
        lo, hi = re.search(r"(\d+)(?:-(\d+))? s\)", window).groups()
        c = c.with_columns(run_s_lo=pl.lit(float(lo)), run_s_hi=pl.lit(float(hi or lo)))
        return advice.phrases(c.with_columns(window=pl.lit(window), verdict_unadjusted=pl.lit("replicates")))[
            "AdviceJournal"]

    assert said("whole run (10 s)") == ("no advice on a low-latency journal read while written (S4-reader: 6.59x "
                                        "[1.15x, 37.66x], inconclusive: replicates before the multiplicity "
                                        "correction; post hoc; runs of 10 s)")  # fmt: skip
    assert said("as S3-cow-ext4 (runs of 3-60 s)").endswith("; runs of 3-60 s)")
    assert said("the files at the run's end (runs of 240 s)").endswith("; runs of 240 s)")
    assert said("steady window (>= 90 s; runs of 180 s)").endswith("correction; post hoc)")  # steady: no caveat
    assert said("whole run (10 s)", "replicates").startswith("ext4 for a low-latency journal")  # decided: advice
    assert said("whole run (10 s)", "replicates").endswith("replicates; post hoc; runs of 10 s)")


COW = ("mean over strata of btrfs/xfs: fio append light 3.44/1.03; fio randrw light 1.18/1.00; sysbench rndrw "
       "light 3.63/1.01, p=1.2e-11; strata disagree (Q=3.72e+07 on 2 df, p=0, I^2=100 %): judged per stratum")


def test_strata_that_disagree_in_size_but_share_a_direction_give_the_direction_and_not_the_size():
    """Only where the verdict is decided: an inconclusive row backs no choice whatever its strata (issue Q review)."""
    t = next(t for t in advice.TOPICS if "S3-cow-xfs" in t.claims)
    c = _claims([("S3-cow-xfs", "replicates", "3.35x [2.97x, 3.77x]", 2.97, 3.77)]).with_columns(
        pooling=pl.lit("per stratum"), measurement=pl.lit(COW), n=pl.lit("9 vs 9 in 3 strata"),
        heterogeneity=pl.lit("Q=3.72e+07 on 2 df, p=0, I^2=100 %"), runs_read=pl.lit("cassandra data directory"))
    assert advice.phrases(c)[t.macro] == (
        f"{t.above} in all three strata (S3-cow-xfs: 1.18x to 3.59x per stratum, replicates; post hoc), the size "
        "depending on the workload")  # no pooled figure: it describes none of the strata
    # the range the claims table prints (per_stratum, from unrounded values) wins over the measurement's rounded arms
    exact = c.with_columns(per_stratum=pl.lit("per stratum 1.17x to 3.61x, 3 strata disagree"))
    assert "(S3-cow-xfs: 1.17x to 3.61x per stratum, replicates" in advice.phrases(exact)[t.macro]
    undecided = advice.phrases(c.with_columns(verdict=pl.lit(STRATA_DISAGREE)))[t.macro]
    assert undecided.startswith(f"no advice on {t.subject}: its 3 strata disagree") and t.above not in undecided


def test_advice_comes_only_from_a_row_whose_runs_are_its_subject():
    """Issue Q review: btrfs for data directories rested on S3-cow-xfs, whose strata are fio, the journal writer
    and sysbench: no data directory, so no choice is backed, whatever the verdict, and the abstract says so."""
    t = next(t for t in advice.TOPICS if t.macro == "AdviceDataDir")
    c = _claims([("S3-cow-xfs", "replicates", "3.35x [2.97x, 3.77x]", 2.97, 3.77),
                 ("S3-cow-ext4", "replicates", "2.66x [2.18x, 3.25x]", 2.18, 3.25)]).with_columns(
        measurement=pl.lit(COW), runs_read=pl.Series(["as S3-cow-ext4", "untraced host runs of every workload"]))
    said = advice.phrases(c)[t.macro]
    assert said.startswith(f"no advice on {t.subject}: its row reads fio and sysbench, not {t.runs[1]} (S3-cow-xfs")
    assert t.above not in said
    assert "copy-on-write (btrfs) for data directories (S3-cow-xfs)" in advice.abstract_advice(c)
    # review: the claims table's measurement ends its strata with ", random-effects p=" and then "strata disagree
    # (Q=...)", which read as a stratum named "strata"; nor does the last stratum go missing from the ratios
    real = COW.replace(", p=1.2e-11; strata", ", random-effects p=1.2e-11 (not the row's); strata")
    said = advice.phrases(c.with_columns(measurement=pl.lit(real)))[t.macro]
    assert said.startswith(f"no advice on {t.subject}: its row reads fio and sysbench, not {t.runs[1]} (S3-cow-xfs")
    ratios = advice.stratum_ratios({"ours": "1.2x", "measurement": real})
    assert ratios == pytest.approx([3.44 / 1.03, 1.18, 3.63 / 1.01])
    # the same row with a database's runs (followed through "as S3-cow-ext4") backs the choice
    db = c.with_columns(runs_read=pl.Series(["as S3-cow-ext4", "untraced host Cassandra runs"]))
    assert advice.phrases(db)[t.macro].startswith(t.above)


def test_a_row_whose_strata_disagree_on_both_sides_gives_no_advice_whatever_its_verdict():
    """Strata that disagree (none pooled), some above no effect and some below, are no recommendation: the words
    say how many strata and that they differ in direction, and the verdict once (not "strata disagree" twice)."""
    t = next(t for t in advice.TOPICS if "S4-reader" in t.claims)
    meas = ("mean over strata of xfs/ext4: a 3.44/1.03; b 0.50/1.00, p=0.5; strata disagree (Q=30 on 1 df, p=0, "
            "I^2=97 %): judged per stratum")
    for verdict, said in (("inconclusive", "strata disagree, inconclusive"), (STRATA_DISAGREE, STRATA_DISAGREE)):
        c = _claims([("S4-reader", verdict, "per stratum 0.50x to 3.34x, 2 strata disagree", None, None)]).with_columns(
            pooling=pl.lit("per stratum"), measurement=pl.lit(meas), n=pl.lit("9 vs 9 in 2 strata"),
            heterogeneity=pl.lit("Q=30 on 1 df, p=0, I^2=97 %"))
        assert advice.phrases(c)[t.macro] == (
            f"no advice on {t.subject}: its 2 strata disagree (per stratum 0.50x to 3.34x), their estimates on both "
            f"sides of no effect (S4-reader: {said}; post hoc)")


def test_the_replication_row_backs_the_advice_once_judged_else_the_in_memory_row():
    rows = [("S5-inode64", "inconclusive", "1.04x [0.92x, 1.18x]", 0.92, 1.18),
            ("S5-inode64-replication", "not tested (no runs)", "--", None, None)]
    m = advice.phrases(_claims(rows))
    assert m["AdviceInodeSixtyFour"].startswith("no advice on inode64 against inode32 (")
    assert "(S5-inode64: 1.04x [0.92x, 1.18x], inconclusive; post hoc)" in m["AdviceInodeSixtyFour"]
    rows[1] = ("S5-inode64-replication", "replicates", "1.12x [1.05x, 1.20x]", 1.05, 1.20)
    m = advice.phrases(_claims(rows))
    assert m["AdviceInodeSixtyFour"] == ("xfs's inode64 on a large volume, faster than inode32 "
                                         "(S5-inode64-replication: 1.12x [1.05x, 1.20x], replicates; post hoc)")


def test_a_topic_takes_the_first_decided_of_its_claims_in_order_else_the_first_row():
    """The commitlog advice: S2-ops-cap (the device the limit) decided beats S2-ops inconclusive, in either order of
    the table's rows; neither decided, the first listed; the replication row still preferred within a claim."""
    t = next(t for t in advice.TOPICS if t.macro == "AdviceCommitlog")
    assert t.claims.index("S2-ops-cap") < t.claims.index("S2-ops")
    ops = ("S2-ops", "inconclusive", "0.83x [0.35x, 1.98x]", 0.35, 1.98)
    cap = ("S2-ops-cap", "does not", "1.01x [0.86x, 1.19x]", 0.86, 1.19)
    for rows in ([ops, cap], [cap, ops]):
        assert advice.phrases(_claims(rows))[t.macro].endswith("(S2-ops-cap: does not; post hoc)")
    ops_decided = ("S2-ops", "does not", "0.95x [0.83x, 1.10x]", 0.83, 1.10)
    cap_open = ("S2-ops-cap", "inconclusive", "1.05x [0.70x, 1.60x]", 0.7, 1.6)
    # the decided one
    assert "0.95x [0.83x, 1.10x], an interval" in advice.phrases(_claims([cap_open, ops_decided]))[t.macro]
    assert "(S2-ops-cap: 1.05x" in advice.phrases(_claims([cap_open, ops]))[t.macro]  # none: the first listed
    rep = ("S2-ops-cap-replication", "replicates", "3.60x [3.10x, 4.20x]", 3.1, 4.2)
    assert "(S2-ops-cap-replication: 3.60x" in advice.phrases(_claims([ops, cap, rep]))[t.macro]
    no_row = "this study cannot say: the claims table has no row S2-ops-cap or S2-ops"
    assert advice.phrases(_claims([]))[t.macro] == no_row


def _banded(rows: list[tuple], band: str, lo: float, hi: float) -> pl.DataFrame:
    """Rows with a band "<size> for '<claim>'" and its size's words (claims.csv band_words) and edges."""
    return _claims(rows).with_columns(band=pl.lit(band), band_words=pl.lit(band.split(" for '")[0].split(" (")[0]),
                                      claimed_lo=pl.lit(lo), claimed_hi=pl.lit(hi))  # fmt: skip


def test_a_verdict_says_where_its_interval_lies_against_the_claimed_size():
    # the band as the table reads it, the position by phrases.where
    reader = [("S4-reader", "does not", "0.50x [0.40x, 0.60x]", 0.4, 0.6)]
    c = _banded(reader, "xfs/ext4 > 1 (direction) for 'x'", 1.0, float("inf")).with_columns(estimate=pl.lit(0.5))
    assert advice.phrases(c)["AdviceJournal"].endswith(
        "(S4-reader: 0.50x [0.40x, 0.60x], does not, wholly below the claimed xfs/ext4 > 1, direction opposite; "
        "post hoc)")
    cow = [("S3-cow-xfs", "inconclusive", "3.35x [2.97x, 3.77x]", 2.97, 3.77)]
    amp = "2-3x for '2-3x write amplification (ZFS)'"
    said = advice.phrases(_banded(cow, amp, 2.0, 3.0).with_columns(estimate=pl.lit(3.35)))["AdviceDataDir"]
    assert said.endswith("inconclusive, overlaps the high end of the claimed 2-3x; post hoc)")


def test_the_tracing_advice_compares_each_database_with_the_studys_own_figure_for_it():
    """Cassandra's rows against the study's Cassandra 24-36 %; RocksDB's scale row without that band (the study's
    RocksDB figures were about 36 % on btrfs and a faster traced run on ext4), its btrfs runs beside the study's
    btrfs figure; the pooled row named post hoc, as the paper names it."""
    band = "24-36 % for '24-36 % fewer ops/s'"
    rows = [("S1-trace", "outside the study's condition: in memory", "9.8 % [5.1 %, 14.5 %]", 0.051, 0.145),
            ("S1-trace-cass", "does not", "2.4 % [-9.8 %, 11.6 %]", -0.098, 0.116),
            ("S1-trace-scale", "inconclusive", "23.9 % [19.0 %, 28.2 %]", 0.19, 0.282),
            ("S1-trace-btrfs", "outside the study's condition: in memory", "-0.6 % [-3.8 %, 3.0 %]", -0.038, 0.03)]
    c = _banded(rows, band, 0.24, 0.36).with_columns(
        estimate=pl.Series([0.098, 0.024, 0.239, -0.006]),
        condition=pl.Series(["in-memory", "in-memory", "scale", "in-memory"]),
        runs_read=pl.Series(["", "", "steady=true, data >= 10x cap", ""]),
        ours_scale=pl.Series([None, None, None, "20.3 % [12.8 %, 27.1 %]"]))
    said = advice.phrases(c)["AdviceTracing"]
    assert said == (
        "block tracing in production only with its cost measured at its own load: tracing Cassandra cost at most "
        "11.6 % (S1-trace-cass: does not, wholly below the claimed 24-36 %; post hoc); tracing RocksDB with data "
        "at least 10 times its memory cost 23.9 % [19.0 %, 28.2 %] (S1-trace-scale: inconclusive; confirmatory), "
        "20.3 % [12.8 %, 27.1 %] on btrfs alone, where the study saw 36 % for RocksDB on btrfs "
        "(S1-trace-btrfs at scale: exploratory); our row over every workload is post hoc (S1-trace: outside the "
        "study's condition: in memory)")
    assert "exploratory" not in said.split("; our row")[1]
    assert "[-" not in said and " -" not in said  # no minus sign: the upper end of an interval across zero
    assert advice.phrases(_claims([]))["AdviceTracing"].startswith("this study cannot say")
    # issue Q: the advice rests on a decided row alone; with none decided (S1-trace-cass inconclusive), no advice,
    # the costs said as its evidence, and the abstract makes no choice on tracing
    none = c.with_columns(verdict=pl.when(pl.col("claim_id") == "S1-trace-cass").then(pl.lit("inconclusive"))
                          .otherwise(pl.col("verdict")))
    undecided = advice.phrases(none)["AdviceTracing"]
    assert undecided.startswith(f"no advice on {advice.TRACING_SUBJECT}: no row decides; tracing "
                                "Cassandra cost 2.4 % [")
    assert "only with its cost measured" not in undecided
    assert "(S1-trace-scale: inconclusive; confirmatory)" in undecided
    abstract = advice.abstract_advice(none)  # the topics no row backs said as one: "we cannot advise on X, ... or Y"
    assert abstract.endswith(f" or {advice.TRACING_SUBJECT} (S1-trace-cass)") and "only with its cost" not in abstract
    # review: a Cassandra row's scale row that decides with its traced arm faster backs no advice, and is named
    fast = pl.concat([none, none.filter(pl.col("claim_id") == "S1-trace-cass").with_columns(
        claim_id=pl.lit("S1-trace-cass-scale"), verdict=pl.lit("does not"), condition=pl.lit("scale"),
        caveat=pl.lit(TRACED_FASTER))], how="diagonal_relaxed")
    said = advice.phrases(fast)["AdviceTracing"]
    assert said.startswith(f"no advice on {advice.TRACING_SUBJECT}: only S1-trace-cass-scale decides, its "
                           "traced arm faster; ")
    assert said.count("S1-trace-cass-scale") == 1  # named once, not again at the end
    # review: S1-trace-cass, S1-trace-ycsb-cass and S1-trace-btrfs do not replicate as planned, outside their study's
    # condition: "no row of its cost decides" was untrue; the words say in which condition none decides
    ruled = fast.with_columns(
        verdict_planned=pl.when(pl.col("claim_id") == "S1-trace-btrfs").then(pl.lit("does not")).otherwise(
            pl.lit(None, pl.Utf8)),
        verdict=pl.when(pl.col("claim_id") == "S1-trace-btrfs").then(pl.lit("outside the study's condition: in "
                                                                           "memory")).otherwise(pl.col("verdict")))
    assert advice.phrases(ruled)["AdviceTracing"].startswith(
        f"no advice on {advice.TRACING_SUBJECT}: only S1-trace-cass-scale decides in its study's condition, its traced")
    assert advice.abstract_advice(fast).endswith(f" or {advice.TRACING_SUBJECT} (S1-trace-cass)")
    # without the confound it decides, and the advice rests on it
    clean = fast.with_columns(caveat=pl.lit(None, pl.Utf8))
    said = advice.phrases(clean)["AdviceTracing"]
    assert said.startswith("block tracing in production only with its cost measured") and \
        "tracing Cassandra at scale cost 2.4 % [" in said


def test_no_wording_of_any_outcome_characterises_a_range_or_types_a_number():
    for t in advice.TOPICS:
        for words in (t.above, t.below, t.spans):
            assert range_words(words) == [] and typed_numbers(words) == [], words


def test_the_claims_not_testable_here_are_quoted_in_their_studies_words():
    c = _claims([("S1-f2fs", "not testable here", "--", None, None), ("S2-ops", "does not", "0.9x [0.8x, 1.0x]",
                                                                       0.8, 1.0)]).with_columns(  # fmt: skip
        claim=pl.Series(["f2fs is much faster for RocksDB", "x"]))
    c = c.with_columns(n_needed_value=pl.lit(float("nan")), n_needed=pl.lit("--"))
    m = advice.macros(c)
    assert m["AdviceNotTestable"] == "whether ``f2fs is much faster for RocksDB'' (S1-f2fs)"
    # a row the condition rule made not testable is counted, not quoted: the claim may hold in its own condition
    ruled = pl.concat([c, c.filter(pl.col("claim_id") == "S2-ops").with_columns(
        claim_id=pl.lit("S2-aqu-fio"), verdict=pl.lit("outside the study's condition: light load"))])
    m = advice.macros(ruled)
    assert m["AdviceNotTestable"] == ("whether ``f2fs is much faster for RocksDB'' (S1-f2fs), nor what one row "
                                      "would show in its study's condition")
    assert range_words(m["AdviceNotTestable"]) == []  # the study's words, quoted
    assert advice.macros(c.filter(pl.col("claim_id") == "S2-ops"))["AdviceNotTestable"] == \
        "every claim could be tested here"  # fmt: skip


def test_the_pdf_check_finds_the_advice_of_todays_table_in_the_conclusion():
    c = _claims([("S2-ops", "does not", "0.95x [0.83x, 1.10x]", 0.83, 1.10)])
    body = "; ".join(advice.phrases(c).values())  # the conclusion's: the full evidence
    assert "(S2-ops: does not; post hoc)" in body
    # pdftotext breaks lines (and hyphenates) anywhere: the check ignores both
    broken = body.replace(" ", "\n", 3).replace("Cassandra's", "Cas-\nsandra's")
    assert missing_advice(broken, c) == []
    # the verdict moved on (new runs), the conclusion kept the old words
    now = _claims([("S2-ops", "replicates", "3.60x [3.10x, 4.20x]", 3.1, 4.2)])
    problems = missing_advice(body, now)
    assert len(problems) == 1 and "AdviceCommitlog" in problems[0] and "conclusion" in problems[0]


def test_a_whole_run_window_without_its_length_is_reported():
    rows = pl.DataFrame({"claim_id": ["a", "b", "c"], "verdict": ["does not", "replicates", "not tested (no runs)"],
                         "condition": ["in-memory"] * 3, "window": ["whole run", "whole run (2-20 s)", "whole run"],
                         "n": ["3 vs 3"] * 3})  # fmt: skip
    assert unstated_runs(rows) == ["claim a: window 'whole run' states no run length"]


def _capped(n: int = 3) -> pl.DataFrame:
    """Steady-state rows of traced runs in a memory-capped batch at 11.9x its cap, and one steady run short of 10x."""
    return pl.DataFrame({"run_id": [f"r{i}" for i in range(n)] + ["small"], "steady": [True] * (n + 1),
                         "window_s": [180.0] * (n + 1), "data_over_cap": [11.9] * n + [9.93]})  # fmt: skip


def _fof(run: str, counts: dict[int, int]) -> pl.DataFrame:
    return pl.DataFrame({"run_id": run, "op": "read", "count": list(counts), "pages": list(counts.values())})


def test_the_scale_reuse_sentence_says_how_often_a_page_is_read_and_what_that_leaves_to_say():
    fof = pl.concat([_fof("r0", {1: 90, 2: 10}), _fof("r1", {1: 80, 2: 15, 5: 5}), _fof("r2", {1: 60, 3: 40}),
                     _fof("small", {1: 1, 50: 9})])  # fmt: skip
    zipf = pl.DataFrame({"run_id": ["r0", "r1", "r2", "small"], "op": "all", "s": [None, 0.4, 0.5, 0.9]})
    m = scale_numbers.reuse(_capped(), fof, zipf)
    # reads per read page 1.10, 1.35, 1.80 (median 1.35); read once 90, 80, 60 % (median 80 %); 2-3 counts
    assert (m["ScaleReadsPerPage"], m["ScaleReadOncePct"], m["ScaleReadDistinct"]) == ("1.35", r"80\,\%", "2--3")
    assert m["ScaleReuseSentence"] == (
        r"In the three traced runs the scale rows read, a read page is read 1.35 times in the kept trace window "
        r"(median over runs; 80\,\% of the read pages once; 2--3 distinct access counts in a run), and one of the "
        r"three runs has no power-law fit: with more than half of the read pages read once, the skew rows "
        r"(S1-zipf-scale, S1-hot-scale, S1-hot-meta-scale) say little about skew at scale")
    reread = pl.concat([_fof(r, {1: 10, 4: 90}) for r in ("r0", "r1", "r2")])
    s = scale_numbers.reuse(_capped(), reread, None)["ScaleReuseSentence"]
    assert s.endswith("read pages are re-read within the window, so the skew rows (S1-zipf-scale, S1-hot-scale, "
                      "S1-hot-meta-scale) rest on reuse") and "fit" not in s  # fmt: skip
    assert scale_numbers.reuse(_capped(), _fof("small", {1: 5}), zipf) == {}  # no run the scale rows read


@pytest.mark.parametrize("bad", ["missing", "columns"])
def test_scale_numbers_refuses_an_unreadable_fof_file_by_name(tmp_path, capsys, bad):
    steady = tmp_path / "steady.parquet"
    pl.DataFrame({c: [None] for c in scale_numbers.NEED}).write_parquet(steady)
    fof = tmp_path / "r0" / "frequency" / "handmade_fof.parquet"
    fof.parent.mkdir(parents=True)
    if bad == "columns":
        pl.DataFrame({"op": ["read"], "count": [1]}).write_parquet(fof)
    out = tmp_path / "scale.tex"
    rc = scale_numbers.main(["--steady", str(steady), "--fof", str(fof), "-o", str(out)])
    assert rc == 1 and not out.exists()
    err = capsys.readouterr().err
    assert str(fof) in err and ("no column(s) pages" in err if bad == "columns" else True), err


def test_a_throughput_ratio_from_fixed_rate_runs_bounds_no_gain():
    """A throughput topic (data=writeback's gain) read from runs at a light load, whose jobs fix their request rate:
    both arms meet the rate, so the ratio is near one by design: no advice, and why; an inconclusive row at any load
    bounds no gain either (issue Q review: "inode64 gained at most 9 %" read the unadjusted interval)."""
    t = next(t for t in advice.TOPICS if "S3-wb-sysbench" in t.claims)
    c = _claims([("S3-wb-sysbench", "inconclusive", "1.00x [0.97x, 1.04x]", 0.97, 1.04)])
    light = advice.phrases(c.with_columns(load=pl.lit("light")))[t.macro]
    assert light.startswith(f"no advice on {t.subject}: {advice.RATE_FIXED} (S3-wb-sysbench: 1.00x")
    assert "at most" not in light
    assert advice.phrases(c.with_columns(load=pl.lit("saturating")))[t.macro] == (
        f"no advice on {t.subject} (S3-wb-sysbench: 1.00x [0.97x, 1.04x], inconclusive; post hoc)")


def test_the_abstract_gives_each_choice_in_short_with_the_row_it_rests_on_and_stays_within_its_word_limit():
    """Q item 5: the abstract says what to choose (commitlog, data directories, a low-latency journal, a mount
    option, tracing in production), each with its claim row, in the words the conclusion's advice starts with."""
    from blkscope.paper.pdf_words import abstract_words

    c = _claims([("S2-ops", "does not", "0.95x [0.83x, 1.10x]", 0.83, 1.10),
                 ("S4-reader", "outside the study's condition: runs of 11 s", "6.59x [0.89x, 48.93x]", 0.89, 48.93),
                 ("S3-relatime", "replicates", "4.1 KiB [2.0 KiB, 6.2 KiB]", 2.0, 6.2)])
    said = advice.abstract_advice(c).split("; ")
    full = advice.phrases(c)
    # the choices first, then what we cannot advise on, said as one (review: "no choice on" read as advice against)
    assert said[0] == ("We advise either ext4 or xfs for Cassandra's commitlog (S2-ops) and noatime, not the default "
                       "relatime (S3-relatime)")
    assert full["AdviceCommitlog"].startswith("either ext4 or xfs for Cassandra's commitlog:")
    # a row not testable here makes no choice, and names its row; a topic without rows, none either (not "We advise
    # this study cannot say" nor "We advise no advice on")
    assert said[1] == ("we cannot advise on copy-on-write (btrfs) for data directories, a low-latency journal read "
                       f"while written (S4-reader) or {advice.TRACING_SUBJECT}")
    assert len(said) == 2 and "no choice" not in advice.abstract_advice(c)
    # no choice at all: the sentence starts there
    rest = advice.abstract_advice(c.filter(pl.col("claim_id") == "S4-reader"))
    assert rest.startswith("We cannot advise on ") and rest.count(" or ") == 1 and rest.count(", ") >= 3
    assert advice.NO_ADVICE not in advice.abstract_advice(c) and advice.CANNOT_SAY not in advice.abstract_advice(c)
    # topics outside ABSTRACT_TOPICS are the conclusion's alone
    assert not any("inode64" in s or "writeback" in s for s in said)
    # the word count as pdftotext gives the abstract: its heading out, a word hyphenated at a line end once
    assert abstract_words("Abstract---We re-test five write-\nups on ext4.") == 6


def test_a_quoted_claim_leaves_out_our_closing_parenthesis():
    """Review: "this study cannot say whether ``..., xfs stalls the writer more than ext4 (max)''" quoted our
    statistic as the study's words; the quotation stops before it, in the advice and in what cannot be said."""
    c = _claims([("S4-reader", "outside the study's condition: runs of 11 s", "6.59x [0.89x, 48.93x]", 0.89, 48.93),
                 ("S1-f2fs", "not testable here", "--", None, None)]).with_columns(
        claim=pl.Series(["xfs stalls the writer more than ext4 (max)", "f2fs is much faster (RocksDB)"]))
    said = advice.phrases(c)["AdviceJournal"]
    assert said.startswith("this study cannot say whether ``xfs stalls the writer more than ext4'' (S4-reader")
    assert advice.not_testable(c) == "whether ``f2fs is much faster'' (S1-f2fs)"
