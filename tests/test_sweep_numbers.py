"""The cache sweep's macros (blkscope.paper.sweep_numbers) on the workflow's real table (tests/fixtures/cache_sweep,
30 runs of round4-sweep beside 6 runs of the other capped batches): its runs, configurations and ranges, each
checked against the table itself; the phrase rules' branches (the real shares and miss ratios, then the same
scaled by hand past each threshold); the command line, its bad input; the figure's caption read from the table."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from blkscope.analysis.characterise.cache_sweep import CONFIGURATION, EMPTY_NOTE, MIN_HOT_PAGES, configurations
from blkscope.figures import cache_sweep as figure
from blkscope.paper import sweep_numbers
from blkscope.paper.bookkeeping import internal_words
from blkscope.paper.prose import range_words
from blkscope.paper.sweep_numbers import few_pages_phrase, macros, reuse_phrase, sig, skew_phrase

TABLE = Path(__file__).resolve().parent / "fixtures" / "cache_sweep" / "cache_sweep.parquet"
SWEEP = "round4-sweep"


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return pl.read_parquet(TABLE)


def test_the_macros_count_the_sweeps_runs_and_configurations(table):
    sweep = table.filter(pl.col("batch") == SWEEP)
    m = macros(table, SWEEP)
    assert m["SweepRuns"] == str(sweep.height) == "30"
    # 7 memory caps (6 GiB to 320 MiB over three record counts) and 3 block caches: 10 configurations of 3 runs
    assert m["SweepConfigs"] == "10" and m["SweepRepeats"] == "3" and m["SweepWindowS"] == "1"
    assert (m["SweepCacheToDataMin"], m["SweepCacheToDataMax"]) == ("0.079", "8.4")
    assert (m["SweepRecordsMin"], m["SweepRecordsMax"]) == ("40{,}000", "4{,}000{,}000")
    lo, hi = sweep["hot1_read"].min(), sweep["hot1_read"].max()
    assert (m["SweepHotReadMin"], m["SweepHotReadMax"]) == (f"{100 * lo:.1f}\\,\\%", f"{100 * hi:.1f}\\,\\%")
    assert 0.009 < lo < hi < 0.05  # the hottest 1 % of pages take 1-4 % of the reads
    assert (m["SweepMissOneMin"], m["SweepMissTenMin"]) == (f"{sweep['miss_1pct'].min():.2f}",
                                                            f"{sweep['miss_10pct'].min():.2f}")  # fmt: skip
    assert m["SweepHotPct"] == m["SweepOnePct"] == "1\\,\\%" and m["SweepTenPct"] == "10\\,\\%"
    # review-q5 N13: the hottest 1 % take up to 4.3 times a uniform share, not "near uniform" in every run
    assert m["SweepSkewPhrase"].startswith("at most 4.3 times the 1\\,\\% a uniform spread gives them (under 1.5")
    assert "near uniform at every" not in m["SweepSkewPhrase"]
    assert m["SweepReusePhrase"].startswith("near 1 even at a cache of 10\\,\\%") and "1\\,s window" in m[
        "SweepReusePhrase"]  # fmt: skip


def test_only_the_sweeps_captured_runs_count(table):
    m = macros(table, SWEEP)
    assert macros(table.filter(pl.col("batch") == SWEEP), SWEEP) == m  # the other capped batches change nothing
    assert macros(table.filter(pl.col("batch") != SWEEP), SWEEP) == {}  # no sweep run: no macro (text guarded)
    # a repeat not captured yet (the table's row with null facts) is not a run of the text
    first = table.filter(pl.col("batch") == SWEEP).head(1).with_columns(
        captured=pl.lit(False), hot1_read=pl.lit(None, pl.Float64), run_id=pl.lit("not-captured-r4"))
    assert macros(pl.concat([table, first]), SWEEP) == m


def test_skew_phrase_branches(table):
    real = table.filter(pl.col("batch") == SWEEP)["hot1_read"]
    near = int((real < 0.015).sum())
    assert 0 < near < real.len()
    assert skew_phrase(real) == (f"at most 4.3 times the 1\\,\\% a uniform spread gives them (under 1.5 times it, "
                                 f"near uniform, in {near} of the 30 runs)")
    assert skew_phrase(real / 3).endswith("near uniform at every cache-to-data ratio and record count")  # by hand
    assert skew_phrase(real * 20).startswith("at least 20 times the 1\\,\\%")  # hand-scaled: 20-86 % skewed
    mixed = pl.concat([real, real * 20])
    assert skew_phrase(mixed).endswith(f"near uniform, in {near} of the 60 runs and 10 times it or more, skewed, "
                                       "in 30 of the 60 runs)")
    assert skew_phrase(pl.Series([0.02, 0.03])) == "at most 3.0 times the 1\\,\\% a uniform spread gives them"
    assert skew_phrase(pl.Series([], dtype=pl.Float64)).startswith("no run")
    # a largest multiple that rounds to one is the uniform share itself, not "at most 1.0 times" it
    assert skew_phrase(pl.Series([0.0098, 0.0101])) == ("no more than the 1\\,\\% a uniform spread gives them: "
                                                         "near uniform at every cache-to-data ratio and record count")


def test_two_equal_miss_ratios_are_said_once():
    from blkscope.paper.sweep_numbers import miss_phrase

    assert miss_phrase("1.00", "1.00") == "each miss 1.00 of the accesses"
    assert miss_phrase("0.41 to 0.90", "0.12 to 0.80") == "miss 0.41 to 0.90 and 0.12 to 0.80 of the accesses"


def test_reuse_phrase_branches(table):
    real = table.filter(pl.col("batch") == SWEEP)["miss_10pct"]
    assert "the 1\\,s window, not only the cache, limits" in reuse_phrase(real, 0.1, "1")
    assert "at least half of the accesses in every run" in reuse_phrase(real / 2, 0.1, "1")  # hand-scaled
    spread = reuse_phrase(pl.concat([real, real / 2]), 0.1, "1")
    assert "differs between runs within the 1\\,s window" in spread
    assert "differs" in reuse_phrase(pl.Series([0.9, 0.89]), 0.1, "1")  # one run under NEAR_ONE: not near 1


def test_runs_without_a_hot_share_are_said(table):
    real = table.filter(pl.col("batch") == SWEEP)["hot1_read"]
    assert few_pages_phrase(real) == "" and real.null_count() == 0  # every RocksDB sweep run has one
    two = pl.concat([real, pl.Series([None, None], dtype=pl.Float64)])  # two runs without, by hand
    assert few_pages_phrase(two) == (" (not in 2 of the 32 runs: their windows read fewer than 100 pages, too few "
                                     "for a hottest 1\\,\\%)")
    assert macros(table, SWEEP)["SweepHotFewPhrase"] == ""
    # the skew phrase then speaks of the runs that have a share, not of every ratio and record count
    assert skew_phrase(two / 3).endswith("near uniform in every run that has one")


def test_sig_keeps_two_significant_digits():
    assert [sig(x) for x in (0.0786432, 8.388608, 0.402653, 1.6777216, 0.0)] == ["0.079", "8.4", "0.40", "1.7", "0"]


def test_the_phrases_are_the_only_range_words(table):
    # the text around the macros types none; the phrases carry them by rule
    assert range_words("A descriptive sweep on ext4, which no claim reads, ran YCSB workload A on RocksDB.") == []


def test_command_line_writes_the_macros_and_refuses_a_table_without_its_columns(table, tmp_path):
    out = tmp_path / "sweep.tex"
    assert sweep_numbers.main(["--sweep", str(TABLE), "--batch", SWEEP, "-o", str(out)]) == 0
    text = out.read_text()
    assert "\\newcommand{\\SweepRuns}{30}" in text and "\\newcommand{\\BlkSweepNumbers}{}" in text
    bad = tmp_path / "no_miss.parquet"
    table.drop("miss_10pct").write_parquet(bad)
    out2 = tmp_path / "bad.tex"
    assert sweep_numbers.main(["--sweep", str(bad), "--batch", SWEEP, "-o", str(out2)]) == 1
    assert not out2.exists()


def test_each_sweep_batch_writes_its_own_prefix_and_two_batches_on_one_prefix_are_refused(table, tmp_path):
    # a second sweep (Cassandra's) beside RocksDB's: the fixture's capped batch stands in for it
    other = sorted(set(table["batch"].drop_nulls()) - {SWEEP})[0]
    out = tmp_path / "sweep.tex"
    argv = ["--sweep", str(TABLE), "--batch", SWEEP, "--batch", f"{other}=SweepCass", "-o", str(out)]
    assert sweep_numbers.main(argv) == 0
    text = out.read_text()
    runs = table.filter((pl.col("batch") == other) & pl.col("captured")).height
    assert "\\newcommand{\\SweepRuns}{30}" in text and f"\\newcommand{{\\SweepCassRuns}}{{{runs}}}" in text
    assert macros(table, other, "SweepCass") == {k.replace("Sweep", "SweepCass", 1): v
                                                  for k, v in macros(table, other).items()}  # fmt: skip
    m = macros(table, SWEEP)  # a span is one value where every run gives it, else its two ends
    lo, hi = m["SweepHotReadMin"], m["SweepHotReadMax"]
    assert m["SweepHotReadSpan"] == (lo if lo == hi else f"{lo} to {hi}") and lo != hi
    one = macros(table.filter(pl.col("run_id") == table.filter(pl.col("batch") == SWEEP)["run_id"][0]), SWEEP)
    assert one["SweepHotReadSpan"] == one["SweepHotReadMin"] == one["SweepHotReadMax"]
    clash = tmp_path / "clash.tex"
    assert sweep_numbers.main(["--sweep", str(TABLE), "--batch", SWEEP, "--batch", other, "-o", str(clash)]) == 1
    assert not clash.exists()


def test_the_figure_caption_says_what_it_draws_and_that_no_claim_reads_it(table):
    cap = figure.caption(table)
    # the sweep's 30 runs and the two earlier capped batches' 3 each; 320 MiB at 4 M records is in both
    assert "36 runs of three batches in 11 configurations of cache, cache size and records" in cap
    # the figure counts configurations by the analysis' columns without importing it (the layers)
    assert figure.CONFIGURATION == CONFIGURATION and configurations(table).height == 11
    assert figure.MIN_HOT_PAGES == MIN_HOT_PAGES and "no point in the hot-1" not in cap  # every run has a share
    few = figure.caption(table.with_columns(hot1_read=pl.when(pl.col("run_id") == table["run_id"][0])
                                            .then(None).otherwise(pl.col("hot1_read"))))  # one run without, by hand
    assert "1 of them read fewer than 100 pages in their window" in few and range_words(few) == []
    assert "round4" not in cap  # a batch's name is internal
    assert "each keeps 1 to 3\\,s of its trace" in cap and cap.endswith("Descriptive: no claim reads this figure.")
    assert range_words(cap) == [] and internal_words(cap) == []
    assert "No run is drawn" in figure.caption(table.with_columns(captured=pl.lit(False)))
    # a dataset without the sweep draws this note in the paper's figure (the miniature workflow's paper)
    assert internal_words(EMPTY_NOTE) == []


def test_a_point_run_again_by_a_later_batch_is_read_from_it_and_its_first_runs_are_given_beside(table, tmp_path):
    """A sweep of two batches (`A+B=PREFIX`): a configuration the later batch ran again (here by hand: the first
    configuration's runs copied with a longer window and fewer misses) is read from the later runs alone; the
    earlier ones stay out of the sweep's macros and are given beside (Aside), as are the later ones (Redone)."""
    sweep = table.filter(pl.col("batch") == SWEEP)
    first = configurations(sweep).row(0, named=True)
    point = sweep.join(pl.DataFrame([first]).select(CONFIGURATION), on=CONFIGURATION, how="semi")
    again = point.with_columns(batch=pl.lit("later"), run_id=pl.col("run_id") + "-long", window_s=pl.lit(120.0),
                               miss_10pct=pl.col("miss_10pct") / 2, events=pl.lit(15_000, pl.Int64))  # fmt: skip
    both = pl.concat([table, again], how="diagonal")
    m = macros(both, (SWEEP, "later"))
    assert m["SweepRuns"] == "30" and m["SweepConfigs"] == "10" and m["SweepWindowS"] == "1--120"
    assert (m["SweepRedoneRuns"], m["SweepAsideRuns"]) == (str(point.height), str(point.height))
    assert (m["SweepRedoneWindowS"], m["SweepAsideWindowS"]) == ("120", "1")
    assert m["SweepRedoneEventsSpan"] == "15{,}000" and m["SweepAsideEventsSpan"] == "--"  # no events column
    half = point["miss_10pct"] / 2
    lo, hi = f"{half.min():.2f}", f"{half.max():.2f}"
    assert m["SweepRedoneMissTenSpan"] == (lo if lo == hi else f"{lo} to {hi}")
    assert m["SweepMissTenMin"] == f"{min(half.min(), sweep['miss_10pct'].min()):.2f}"
    # the fixture has no kernel column: said so, not a boot assumed
    assert m["SweepRedoneKernelPhrase"] == "on a kernel build not recorded for every run"
    # a third batch running the point again: the first batch's runs are set aside once, not once per later batch
    third = again.with_columns(batch=pl.lit("third"), run_id=pl.col("run_id") + "-3")
    m3 = macros(pl.concat([both, third], how="diagonal"), (SWEEP, "later", "third"))
    assert m3["SweepAsideRuns"] == str(2 * point.height) and m3["SweepRedoneRuns"] == str(point.height)
    # one batch alone, or a later batch that ran no configuration again: nothing set aside
    assert "SweepAsideRuns" not in macros(both, SWEEP) and macros(table, (SWEEP, "later")) == macros(table, SWEEP)
    out = tmp_path / "sweep.tex"
    both.write_parquet(tmp_path / "both.parquet")
    assert sweep_numbers.main(["--sweep", str(tmp_path / "both.parquet"), "--batch", f"{SWEEP}+later=SweepCass",
                               "-o", str(out)]) == 0  # fmt: skip
    assert f"\\newcommand{{\\SweepCassAsideRuns}}{{{point.height}}}" in out.read_text()


def test_a_redone_points_kept_trace_is_placed_against_its_steady_window_and_missing_measures_are_words(table):
    """Issue Q review: "keeping the 120 s after the warm-up" where the kept trace starts at the fixed 60-s warm-up,
    15-25 s before the steady window MSER-5 found (steady_state: trace_in_window false); and the short runs' "rank
    exponent of --": a measure no run has is said missing, one some runs lack with the runs that have it."""
    from blkscope.paper.sweep_numbers import kept_phrase, measures_phrase

    runs = pl.DataFrame({"run_id": ["a", "b"], "window_s": [120.0, 120.0]})
    steady = pl.DataFrame({"run_id": ["a", "b", "c"], "trace_start_s": [59.5, 59.8, 1.0],
                           "window_start_s": [85.0, 75.0, 0.0], "trace_in_window": [False, False, True],
                           "rule": ["MSER-5 on YCSB ops/s (phase run)"] * 3})
    assert kept_phrase(runs, steady) == (
        "keeping 120\\,s of trace from 60\\,s on, the end of the fixed warm-up; the steady window (MSER-5 on YCSB "
        "ops/s) starts 15--26\\,s later, so the kept trace's first 15--26\\,s precede it")
    inside = steady.with_columns(trace_in_window=pl.lit(True))
    assert kept_phrase(runs, inside).endswith("inside the steady window in every run")
    # one run inside its window: the lead is the other's alone, said of it (not "0--26 s later")
    mixed = steady.with_columns(trace_in_window=pl.Series([False, True, True]))
    assert kept_phrase(runs, mixed).endswith("starts 26\\,s later in one of the two runs, so the kept trace's "
                                             "first 26\\,s precede it")
    short = pl.DataFrame({"s": [None, None], "hot1_read": [None, None], "miss_1pct": [None, None],
                          "miss_10pct": [1.0, None]}, schema={k: pl.Float64 for k in ("s", "hot1_read", "miss_1pct",
                                                                                        "miss_10pct")})
    said = measures_phrase(short, {"AMissTenSpan": "1.00"}, "A")
    assert said == ("give a miss ratio at the larger cache of 1.00 (in one of the two runs), and no rank exponent, "
                    "hottest share or miss ratio at the smaller cache: too few pages for them")
    assert "--" not in said


def test_a_redone_point_says_whether_it_ran_on_the_kernel_build_of_the_runs_set_aside():
    from blkscope.paper.sweep_numbers import kernel_phrase

    runs = lambda *k: pl.DataFrame({"kernel": list(k)}, schema={"kernel": pl.Utf8})  # noqa: E731
    assert kernel_phrase(runs("6.18-v857", "6.18-v857"), runs("6.18-v782")) == (
        "on another kernel build (6.18-v857 against 6.18-v782)")
    assert kernel_phrase(runs("6.18-v782"), runs("6.18-v782", "6.18-v782")) == "on the same kernel build"
    assert kernel_phrase(runs("a", "b"), runs("b")) == "partly on another kernel build (a and b against b)"
    assert kernel_phrase(runs("a", None), runs("b")) == "on a kernel build not recorded for every run"
