"""Phrases picked from the numbers (blkscope.paper.phrases and the modules that use it): the words follow the data,
so a sentence built on them stays true when the numbers change; and the prose check catches the same words
typed."""

from __future__ import annotations

import re

import polars as pl

from blkscope.paper import characterise_phrases, scale_numbers
from blkscope.paper.phrases import against, k_of_n, leader
from blkscope.paper.prose import range_words


def test_k_of_n_says_none_all_or_how_many():
    assert k_of_n(0, 12, "runs") == "none of the 12 runs"
    assert k_of_n(12, 12, "runs") == "all 12 runs"
    assert k_of_n(2, 2, "runs") == "both runs"  # not "all two runs"
    assert k_of_n(2, 3, "runs") == "two of the three runs"
    assert k_of_n(5, 18, "runs") == "5 of the 18 runs"


def test_leader_follows_the_values_and_declines_a_tie():
    rows = [{"btrfs": 0.05, "ext4": 0.01}, {"btrfs": 0.2, "ext4": 0.1}, {"btrfs": 0.0, "ext4": 0.3}]
    assert leader(rows) == ("btrfs", 2, 3)
    flipped = [{"btrfs": 0.01, "ext4": 0.05}, {"btrfs": 0.1, "ext4": 0.2}, rows[2]]
    assert leader(flipped) == ("ext4", 3, 3)
    assert leader(rows[1:]) == (None, 1, 2)  # one setup each: no leader
    assert leader([{"btrfs": None, "ext4": 0.1}]) == (None, 0, 0)  # a missing value: the setup does not count
    assert leader(rows + [{"ext4": 0.9}] * 4) == ("btrfs", 2, 3)  # a setup on ext4 alone compares nothing


def test_against_prints_the_side_it_is_on():
    assert against(9.93, 10) == ("9.9", "short of")
    assert against(9.96, 10) == ("9.96", "short of")  # not "10.0, short of 10"
    assert against(11.92, 10) == ("11.9", "at least")


def test_the_metadata_sentence_names_whichever_filesystem_leads():
    def table(btrfs, ext4):
        return pl.DataFrame({"testbed": ["loop"] * 4, "workload": ["fio"] * 4, "job": ["a", "a", "b", "b"],
                             "filesystem": ["btrfs", "ext4"] * 2, "meta_share": [btrfs, ext4, btrfs, ext4],
                             "q2q_cv": [0.5, 2.0, 3.0, 4.0], "half_mib": [None, 12.0, None, 3.0]})  # fmt: skip

    m = characterise_phrases.macros(table(0.3, 0.01))
    assert m["CharMetaLeadPhrase"].startswith("btrfs marks the largest share") and "in both host setups" in \
        m["CharMetaLeadPhrase"]  # fmt: skip
    assert characterise_phrases.macros(table(0.01, 0.3))["CharMetaLeadPhrase"].startswith("ext4 ")
    assert m["CharBurstyPhrase"].endswith("in three of the four host setups and filesystems")
    assert m["CharHalfPhraseFioABtrfs"] == "no LRU cache on the curve halves the misses"
    assert m["CharHalfPhraseFioAExtFour"] == r"an LRU cache of 12\,MiB halves the misses"
    # one clause per setup, the filesystems in the text's order, the cache not repeated
    assert m["CharHalfPhraseFioA"] == r"an LRU cache of 12\,MiB halves the misses on ext4; none on the curve does on " \
        "btrfs"  # fmt: skip
    three = characterise_phrases.halves({"btrfs": None, "xfs": 141.0, "ext4": 145.4})
    assert three == (r"an LRU cache of 145\,MiB halves the misses on ext4 and one of 141\,MiB on xfs; none on the "
                     "curve does on btrfs")
    assert characterise_phrases.halves({"xfs": float("nan")}) == "no LRU cache on the curve halves the misses on xfs"


def test_the_merge_words_read_the_data_writes_that_the_median_sizes_read_and_say_why_the_medians_disagree():
    """review: Cassandra on xfs printed a #Q/#D below one (all its writes) beside a median issued size above the
    queued one (its data writes), and called the latter merging. Both now read the data writes of the same runs: a
    #Q/#D below one is splitting, and where the medians point the other way the means (bytes over requests) say
    why."""
    def row(ratio, q_med, d_med, q_mean, d_mean):
        return {"data_write_merge_ratio": ratio, "q_write_median_kib": q_med, "d_write_median_kib": d_med,
                "q_write_mean_kib": q_mean, "d_write_mean_kib": d_mean}
    words = characterise_phrases.split_words({"xfs": row(0.27, 12.0, 1280.0, 3772.0, 990.0),
                                              "ext4": row(0.39, 376.0, 1280.0, 2545.0, 940.0)})
    assert words == (r"of these data writes, \#Q/\#D is 0.39 on ext4 and 0.27 on xfs: the block layer splits them; "
                     "the medians point the other way on ext4 and xfs, as a median counts requests, not bytes: the "
                     r"mean data write is 2{,}545 and 3{,}772\,KiB as queued and 940 and 990\,KiB as issued")
    # medians and #Q/#D agree: no explanation; each filesystem by what the block layer does
    agree = characterise_phrases.split_words({"ext4": row(2.0, 4.0, 8.0, 4.0, 8.0), "xfs": row(1.0, 4.0, 4.0, 4.0, 4.0),
                                              "btrfs": row(0.5, 8.0, 4.0, 8.0, 4.0)})
    assert agree == (r"of these data writes, \#Q/\#D is 2.00 on ext4, 1.00 on xfs and 0.50 on btrfs: the block layer "
                     "merges them on ext4, issues them as queued on xfs and splits them on btrfs")
    assert characterise_phrases.split_words({"xfs": row(None, 4.0, 4.0, 4.0, 4.0)}) == ""


def _steady(batch2: bool) -> pl.DataFrame:
    """A steady-state table as blkscope.analysis.load.steady_state writes it: two in-memory runs (one steady) and one
    or two memory-capped batches, the first short of 10x its cap, the second over it."""
    rows = [
        ("a", "fio", None, None, None, None, 21.0, 11.0, 10.0, False, True, None, None, None),
        ("b", "cassandra-ycsb", None, None, None, None, 242.0, 200.0, 40.0, True, True, None, None, None),
        ("c1", "ycsb", "capped", "384M", 384 * 2**20, 3815 * 2**20, 120.0, 105.0, 15.0, True, True, 60.0, 63.0, True),
        ("c2", "ycsb", "capped", "384M", 384 * 2**20, 3815 * 2**20, 120.0, 60.0, 60.0, False, False, None, None, None),
    ]
    if batch2:
        rows += [("d1", "ycsb", "capped-2", "320M", 320 * 2**20, 3815 * 2**20, 180.0, 150.0, 30.0, True, True, 120.0,
                  123.0, True)]  # fmt: skip
    cols = ["run_id", "workload", "batch", "memory_cap", "memory_cap_bytes", "data_bytes", "run_s", "window_s",
            "window_start_s", "steady", "traced", "trace_start_s", "trace_end_s", "trace_in_window"]
    df = pl.DataFrame(rows, schema=cols, orient="row")
    return df.with_columns(data_over_cap=pl.col("data_bytes") / pl.col("memory_cap_bytes"), testbed=pl.lit("loop"),
                           job=pl.lit("j"))  # fmt: skip


def test_scale_macros_report_the_first_batch_and_judge_the_second():
    one = scale_numbers.macros(_steady(False))
    assert one["MemcapBatches"] == "one" and "MemcapSecondRuns" not in one
    assert (one["MemcapFirstDataOverCap"], one["MemcapFirstRegimePhrase"]) == ("9.9", "short of the plan's 10")
    assert one["MemcapFirstRolePhrase"] == "it stays a condition of its own: reported here, not judged"
    assert one["MemcapFirstSteadyPhrase"] == "one of the two runs" and one["MemcapFirstWindowS"] == "105"
    limit = "data sets 10 or more times the memory their database may use (ours reach 9.9 times a memory cap)"
    assert one["ScaleLimitPhrase"] == limit
    assert one["InMemoryShortPhrase"] == "one of the two runs"
    assert one["InMemorySteadyPhrase"] == r"the steady ones are 1 YCSB run on Cassandra (windows of 200\,s)"
    two = scale_numbers.macros(_steady(True))
    assert two["MemcapBatches"] == "two" and two["MemcapSecondRegimePhrase"] == "at least the plan's 10"
    assert two["MemcapSecondRolePhrase"] == "the scale rows of the claims table read its steady runs"
    assert two["MemcapSecondRunS"] == "180" and two["MemcapSecondTraceS"] == "3"
    assert two["ScaleLimitPhrase"] == "data sets more than 11.9 times the memory their database may use"
    assert two["MemcapFirstRolePhrase"] == one["MemcapFirstRolePhrase"]  # the first stays its own condition
    assert two["MemcapDatabasesPhrase"] == "RocksDB" and two["MemcapSecondDatabase"] == "RocksDB"
    assert two["MemcapSentences"].startswith(r"The first batch (RocksDB) held 3{,}815\,MiB of records under a 384\,MiB "
                                             r"cap: 9.9 times the cap, short of the plan's 10. Its runs last 120\,s; "
                                             "one of the two runs is steady, with windows of 105")
    assert " The second batch (RocksDB) held 3{,}815" in two["MemcapSentences"]
    # a Cassandra batch: the databases and its sentence name it; none of its runs steady, so no window is printed
    cass = pl.DataFrame([(f"e{i}", "cassandra-ycsb", "capped-cass", "640M", 640 * 2**20, 6676 * 2**20, 240.0, 60.0,
                          180.0, False, False, None, None, None) for i in (1, 2)],
                        schema=_steady(True).columns[:14], orient="row")  # fmt: skip
    three = scale_numbers.macros(pl.concat([_steady(True), cass.with_columns(
        data_over_cap=pl.col("data_bytes") / pl.col("memory_cap_bytes"), testbed=pl.lit("loop"), job=pl.lit("j"))]))
    assert three["MemcapDatabasesPhrase"] == "RocksDB and Cassandra" and three["MemcapThirdDatabase"] == "Cassandra"
    # the plan's Cassandra rows wait for the xfs and btrfs batches: a batch they read says so, not "read"
    st = pl.DataFrame({"batch": ["round4-rocksdb-capped", "round4-rocksdb-capped-2", "round4-cassandra-capped-ext4"]})
    from pathlib import Path

    from blkscope.paper import claims_plan

    plan = claims_plan.load(Path(__file__).resolve().parents[1] / "config" / "claims_plan.yaml")
    waiting = scale_numbers.waiting_rows(plan, st)
    rows, missing, ready = waiting["round4-cassandra-capped-ext4"]
    assert not ready and waiting["round4-rocksdb-capped-2"][2]  # S1-hot-scale and others read the RocksDB batch now
    assert set(rows) == {"S1-cass-read-scale", "S1-cass-write-scale", "S1-trace-ycsb-cass-scale"}
    assert missing == ["round4-cassandra-capped-xfs", "round4-cassandra-capped-btrfs"]
    assert waiting["round4-rocksdb-capped-2"][0] == ["S1-cass-read-scale", "S1-cass-write-scale"]  # not S1-hot's
    two = scale_numbers.capped(_steady(True), {"capped-2": (["S1-x-scale"], ["b-xfs"], False)})
    said = "the scale rows that read it (S1-x-scale) wait for one batch not captured yet, the plan's one look"
    assert two["MemcapSecondRolePhrase"] == said
    two = scale_numbers.capped(_steady(True), {"capped-2": (["S1-x-scale"], ["b-xfs"], True)})
    assert two["MemcapSecondRolePhrase"].startswith("the scale rows of the claims table read its steady runs (S1-x")
    assert three["MemcapThirdSentence"] == (r"The third batch (Cassandra) held 6{,}676\,MiB of records under a "
                                            r"640\,MiB cap: 10.4 times the cap, at least the plan's 10. Its runs last "
                                            r"240\,s; none of the two runs are steady; "
                                            "with no steady run, no claim reads it.")


def test_the_prose_check_catches_fixed_words_and_passes_quotes_and_bounds():
    tex = ("btrfs marks far more of its I/O as metadata,\nthe filesystems differ most, at most \\blk{N} runs,\n"
           "and ``a roughly zipfian curve'' is the study's.")
    assert [(line, w) for line, w, _ in range_words(tex)] == [(1, "far more"), (2, "most")]


def test_the_conditions_table_gives_every_condition_its_length_and_window():
    from blkscope.paper import run_conditions

    st = _steady(True)
    by = run_conditions.conditions(st)
    assert by.height == 4  # fio, cassandra-ycsb, and the two capped conditions (384M and 320M) apart
    capped = by.filter(pl.col("memory_cap") == "384M").row(0, named=True)
    assert (capped["runs"], capped["traced"], capped["run"], capped["window"], capped["steady"]) == (
        2, 1, "120", "60--105", 1)
    assert by.filter(pl.col("workload") == "fio")["memory_cap"].to_list() == ["none"]
    tex = run_conditions.table(st)
    assert r"RocksDB j & 320M & 1 & 1 & 180 & 30 & 150 & 1 \\" in tex  # an unknown job: after its database


def test_a_table_without_the_columns_read_is_one_error_and_no_output(tmp_path, capsys):
    bad = tmp_path / "handmade_steady_without_windows.parquet"
    _steady(False).drop("window_s").write_parquet(bad)
    out = tmp_path / "scale.tex"
    assert scale_numbers.main(["--steady", str(bad), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}: no column(s) window_s" in err and not out.exists()
    (tmp_path / "not.parquet").write_text("not a parquet file\n")
    assert scale_numbers.main(["--steady", str(tmp_path / "not.parquet"), "-o", str(out)]) == 1
    assert "not.parquet" in capsys.readouterr().err and not out.exists()
    good = tmp_path / "handmade_steady.parquet"
    _steady(True).write_parquet(good)
    assert scale_numbers.main(["--steady", str(good), "-o", str(out)]) == 0
    assert r"\newcommand{\MemcapSecondRegimePhrase}{at least the plan's 10}" in out.read_text()


def _typeset(tex: str, macros: dict[str, str]) -> str:
    """A section's text as the paper prints it: \\blk{Name} expanded (n/a where undefined), \\ifdefined\\Name ...
    [\\else ...] \\fi taken by whether Name is defined (nesting allowed)."""
    import re

    tok = re.compile(r"\\ifdefined\\(\w+)(?:\{\})?|\\else(?:\{\})?|\\fi(?:\{\})?")
    out, stack, pos = [], [], 0  # stack: (taking this branch?) per open \ifdefined
    for m in tok.finditer(tex):
        if all(stack):
            out.append(tex[pos:m.start()])
        if m.group().startswith("\\ifdefined"):
            stack.append(m.group(1) in macros)
        elif m.group().startswith("\\else"):
            stack[-1] = not stack[-1]
        else:
            stack.pop()
        pos = m.end()
    out.append(tex[pos:])
    text = re.sub(r"\\blk\{(\w+)\}", lambda x: macros.get(x.group(1), "n/a"), "".join(out))
    return re.sub(r"\s+", " ", text)


def test_the_scale_paragraph_reads_true_with_one_or_two_capped_batches():
    from pathlib import Path

    sections = Path(__file__).resolve().parents[1] / "paper/sections"
    tex = (sections / "discussion.tex").read_text()
    scale = tex[tex.index(r"\paragraph{Scale}"):tex.index(r"\paragraph{Kernel")]
    # each capped batch in turn: in the appendix of the runs, which the paragraph names
    runs = (sections / "appendix.tex").read_text()
    runs = runs[runs.index(r"\label{app:runs}"):runs.index(r"\input{generated/tables/conditions.tex}")]
    assert r"Appendix~\ref{app:runs}" in scale
    scale += runs
    import re

    # the other sections' macros (record counts, device sizes) stand in as "X": the scale macros must do the rest
    others = {n: "X" for n in re.findall(r"\\blk\{(\w+)\}", scale) if not n.startswith(("Memcap", "InMemory"))}
    others = {n: v for n, v in others.items() if n not in ("SteadyMinS", "DataOverCapMin")}

    def typeset(st: pl.DataFrame) -> str:
        return _typeset(scale, others | scale_numbers.macros(st))

    one = typeset(_steady(False))
    assert "in one batch (2 runs" in one and "The second" not in one
    assert "9.9 times the cap, short of the plan's 10" in one and "reported here, not judged" in one
    two = typeset(_steady(True))
    assert "in two batches (3 runs" in two
    assert "The second batch (RocksDB) held 3{,}815\\,MiB of records under a 320\\,MiB cap" in two
    assert "the scale rows of the claims table read its steady runs" in two
    none = typeset(_steady(False).filter(pl.col("memory_cap").is_null()))
    assert "No run capped the memory its workload could use." in none and "first batch" not in none
    for text in (one, two, none):
        assert "n/a" not in text


def test_run_lengths_are_the_measured_ones_and_runs_by_load_sum_to_the_in_memory_runs():
    # review-q4 N7: one measured range (run_s), not the sheet's set runtime; N12: the runs by load count the same
    # selection as InMemoryRuns, so that they add up to it
    from blkscope.paper import load_numbers

    st = _steady(True)
    m = scale_numbers.macros(st)
    assert (m["RunMinS"], m["RunMaxS"]) == ("21", "242") and m["InMemoryRunMaxS"] == "242"
    runs = st.select("run_id", "workload", "job", "batch", "memory_cap").with_columns(
        load=pl.Series(["light", "saturating", "light", "light", "saturating"]))
    by = load_numbers.runs_by_load(runs, st["run_id"])
    assert by == {"RunsLight": "1", "RunsSaturating": "1"}
    assert sum(int(v) for v in by.values()) == int(m["InMemoryRuns"])


def test_the_cache_sweep_is_neither_in_memory_nor_a_capped_batch():
    # the sweep's O_DIRECT runs have no cap, its buffered ones a cap over 10x: neither counts (claim_rows.DESCRIPTIVE)
    base = _steady(True)
    sweep = pl.concat([base.filter(pl.col("run_id") == "b"), base.filter(pl.col("run_id") == "d1")]).with_columns(
        run_id=pl.Series(["s1", "s2"]), batch=pl.lit("round4-sweep"))
    both, alone = scale_numbers.macros(pl.concat([base, sweep])), scale_numbers.macros(base)
    # but Table IV lists the sweep's runs without a cap beside the in-memory ones: the text counts them apart
    uncapped = sweep.filter(pl.col("memory_cap").cast(pl.Utf8).fill_null("") == "").height
    assert uncapped == 1 and both.pop("UncappedSweepRuns") == "1" and alone.pop("UncappedSweepRuns") == "0"
    assert both == alone
    assert scale_numbers.macros(pl.concat([base, sweep.with_columns(batch=pl.lit("round4-other"))])) != both


def _row(lo: float, hi: float, est: float, blo: float, bhi: float, words: str, ours: str = "1.00x [0.90x, 1.10x]",
         **more) -> dict:
    return {"lo": lo, "hi": hi, "estimate": est, "claimed_lo": blo, "claimed_hi": bhi, "band_words": words,
            "ours": ours, **more}


def test_where_says_where_an_interval_lies_against_the_claimed_size_and_which_way_it_points():
    from blkscope.paper.phrases import where

    pct = "23.9 % [19.0 %, 28.2 %]"
    assert where(_row(0.19, 0.282, 0.239, 0.24, 0.36, "24-36 %", pct)) == (
        "overlaps the low end of the claimed 24-36 %, direction as claimed")
    assert where(_row(2.97, 3.77, 3.35, 2.0, 3.0, "2-3x")) == (
        "overlaps the high end of the claimed 2-3x, direction as claimed")
    assert where(_row(2.1, 2.9, 2.5, 2.0, 3.0, "2-3x")) == "inside the claimed 2-3x, direction as claimed"
    # an estimate within 5 % of one is near one, not "as claimed" (1.01x against a claimed 2.28x)
    assert where(_row(0.86, 1.19, 1.01, 2.28, 6.85, "2.28-6.85x")) == (
        "wholly below the claimed 2.28-6.85x, estimate near one, interval across one")
    assert where(_row(0.86, 1.39, 1.10, 2.28, 6.85, "2.28-6.85x")) == (
        "wholly below the claimed 2.28-6.85x, estimate as claimed, interval across one")
    pct = "-0.6 % [-3.8 %, 3.0 %]"  # a difference: near zero against the claimed size (5 % of 30 %: 1.5 points)
    assert where(_row(-0.038, 0.03, -0.006, 0.30, 0.42, "30-42 %", pct)).endswith("estimate near zero, interval "
                                                                                  "across zero")
    assert where(_row(-0.10, 0.12, 0.024, 0.24, 0.36, "24-36 %", pct)).endswith("estimate as claimed, interval "
                                                                                 "across zero")
    assert where(_row(0.3, 0.5, 0.4, 2.0, 3.0, "2-3x")) == "wholly below the claimed 2-3x, direction opposite"
    # a ratio's interval whose ends are more than ten times apart says little, by rule
    # one claimed ratio read as a band names the band (review-q5 N7: S5-volume "spans the whole claimed 1.22x")
    wide = "0.93x [0.08x, 11.50x]"
    assert where(_row(0.08, 11.5, 0.93, 2.09, 5.36, "3.18x", wide)) == (
        "spans the whole band 2.09-5.36x around the claimed 3.18x, estimate opposite, interval across one, "
        "uninformative: its ends 144 times apart")
    assert where(_row(0.08, 11.5, 0.93, 2.09, 5.36, "3.18x", wide), short=True) == (
        "spans the whole band 2.09-5.36x around the claimed 3.18x, uninformative: its ends 144 times apart")
    # a lower end printed as 0.00x: the unrounded ends say how wide (the widest interval went unsaid)
    widest = "0.93x [0.00x, 11.50x]"
    assert where(_row(0.002, 11.5, 0.93, 2.09, 5.36, "3.18x", widest), short=True).endswith(
        "uninformative: its ends 5750 times apart")
    # a bare threshold is "the > 0 KiB claimed"
    assert where(_row(138.5, 143.1, 140.8, 0.0, float("inf"), "> 0 KiB", "140.8 KiB [138.5 KiB, 143.1 KiB]")) == (
        "inside the > 0 KiB claimed")
    # a direction: inside it, or across its end (which is across one); an equivalence has no direction
    assert where(_row(5.5, 19.5, 10.4, 1.0, float("inf"), "ext4/xfs > 1")) == "inside the claimed ext4/xfs > 1"
    assert where(_row(0.89, 8.9, 3.59, 1.0, float("inf"), "xfs/ext4 > 1")) == (
        "across the end of the claimed xfs/ext4 > 1, estimate as claimed")
    assert where(_row(0.90, 1.22, 1.05, 0.909, 1.1, "the same")) == "spans the whole equivalence margin"
    # the advice's short form: the direction only where it is wholly the opposite
    assert where(_row(0.86, 1.19, 1.01, 2.28, 6.85, "2.28-6.85x"), short=True) == "wholly below the claimed 2.28-6.85x"
    assert where(_row(0.3, 0.5, 0.4, 2.0, 3.0, "2-3x"), short=True).endswith("direction opposite")
    assert where({"lo": None, "hi": None, "estimate": None, "claimed_lo": 1.0, "claimed_hi": 2.0}) == ""


def test_the_headline_splits_confirmatory_from_post_hoc_rows_and_counts_published_statements():
    from blkscope.paper.headline import published, published_map, rows_on_published, split_sentence

    c = pl.DataFrame({
        "claim_id": ["S2-ops", "S2-ops-scale", "S2-ops-cap", "S3-wb-sysbench", "S3-wb-journal", "S4-ms"],
        "study": ["s"] * 6,
        "claim": ["x holds", "x holds", "x holds (device the limit)", "y (sysbench)", "y (journal writer)", "z"],
        "condition": ["in-memory", "scale", "in-memory", "in-memory", "in-memory", "scale"],
        "verdict": ["replicates", "does not", "inconclusive", "does not", "not tested (no runs)", "inconclusive"]})
    assert published(c) == 3  # a claim's rows, and the claims split from one statement (SAME_STATEMENT): one
    assert split_sentence(c) == (
        "of the six rows, five are judged as planned: one replicates, two do not and two are "
        "inconclusive (confirmatory: one does not and one is inconclusive; the other three are post hoc); one awaits "
        "runs")
    assert rows_on_published(c) == "six rows on three published claims"
    assert published_map(c) == (
        "three published claims, two of them split into four claims by comparator, workload, condition, proxy or "
        "mount option (five in all), with one more row at scale or in a replication")


def test_a_batch_that_repeats_the_one_before_says_only_what_differs():
    base = {"Database": "Cassandra", "DataMiB": "6{,}676", "CapMiB": "640", "DataOverCap": "10.4",
            "RegimePhrase": "at least the plan's 10", "RunS": "242", "TraceS": "3", "TraceStartS": "150",
            "RolePhrase": "the scale rows of the claims table read its steady runs"}
    m = {f"MemcapThird{k}": v for k, v in base.items()} | {f"MemcapFourth{k}": v for k, v in base.items()}
    m |= {"MemcapFourthSteady": "5", "MemcapFourthSteadyPhrase": "five of the six runs",
          "MemcapFourthWindowS": "190--225", "MemcapFourthWindowStartS": "15--50",
          "MemcapFourthTraceInWindowPhrase": "two of the three traced runs"}
    assert scale_numbers.same_setup(m, "MemcapThird", "MemcapFourth")
    assert scale_numbers.repeat_sentence(m, "MemcapFourth", "fourth", "third") == (
        "The fourth batch repeated the third: five of the six runs are steady, with windows of 190--225\\,s, "
        "the kept trace inside the steady window in two of the three traced runs.")
    m["MemcapFourthCapMiB"] = "320"
    assert not scale_numbers.same_setup(m, "MemcapThird", "MemcapFourth")


def test_a_row_of_the_condition_rule_says_its_condition_and_planned_verdict_in_one_clause():
    from blkscope.paper.phrases import says, shown, verdict_text

    ruled = _row(-0.119, -0.021, -0.067, 0.24, 0.36, "24-36 %", "-6.7 % [-11.9 %, -2.1 %]",
                 verdict="outside the study's condition: light load, traced arm faster: a confound",
                 verdict_planned="does not",
                 caveat="light load, traced arm faster: a confound", verdict_unadjusted="does not")
    # the planned verdict first, as the headline counts it; the rule's condition, then the confound, beside it
    assert says(ruled) == verdict_text(ruled) == ("does not; outside the study's condition: light load; traced arm "
                                                  "faster: a confound")
    assert "(" not in says(ruled)  # a sentence quotes it inside a parenthesis
    assert says({**ruled, "measure_changed": True, "verdict_planned_unadjusted": "does not"}) == (
        "does not, measure changed after the plan; outside the study's condition: light load; traced arm faster: a "
        "confound")
    moved_planned = {**ruled, "verdict_planned": "inconclusive", "verdict_planned_unadjusted": "does not (exact)"}
    assert says(moved_planned).startswith("inconclusive, does not before Holm; outside the study's condition: ")
    # a confound the rule does not rule on: beside the verdict, which stands
    faster = {**ruled, "verdict": "does not", "verdict_planned": None, "caveat": "traced arm faster: a confound"}
    assert says(faster) == ("does not; traced arm faster: a confound; wholly below the claimed 24-36 %, direction "
                            "opposite")
    moved = _row(0.35, 1.98, 0.83, 2.28, 6.85, "2.28-6.85x", verdict="inconclusive", verdict_unadjusted="does not",
                 measure_changed=True)
    assert says(moved) == ("inconclusive, does not before Holm, measure changed after the plan; wholly below the "
                           "claimed 2.28-6.85x")
    # strata that disagree: their range, not the random-effects mean against the band
    pooled = _row(2.97, 3.77, 3.35, 2.0, 3.0, "2-3x", verdict="inconclusive", verdict_unadjusted="inconclusive",
                  per_stratum="per stratum 1.03x to 5.40x, 14 strata disagree")
    assert (shown(pooled), says(pooled)) == ("per stratum 1.03x to 5.40x", "inconclusive; 14 strata disagree")
    # review: strata flagged by I squared that each replicate differ in size only; one wording of strata that
    # disagree whether or not the row counts with another; an I squared that rounds to 100 but is not, "over 99"
    from blkscope.paper.claim_heterogeneity import i2_text
    from blkscope.paper.claim_verdict import STRATA_DISAGREE

    alike = {**pooled, "verdict": "replicates", "verdict_unadjusted": "replicates", "i2": 0.55,
             "per_stratum": "per stratum 16.86x to 19.90x, 2 strata disagree"}
    assert says(alike) == "replicates in every stratum; their sizes differ, I squared 55 %"
    split = {**pooled, "verdict": STRATA_DISAGREE, "verdict_unadjusted": STRATA_DISAGREE,
             "per_stratum": "per stratum 0.54x to 1.07x, 3 strata disagree"}
    assert says(split) == "inconclusive: 3 strata disagree"
    assert says({**split, "same_as": "S1-a"}) == "inconclusive: 3 strata disagree; counted with S1-a"
    assert (i2_text(0.9999996), i2_text(0.55), i2_text(1.0), i2_text(0.994)) == ("over 99", "55", "100", "99")
    assert says({"verdict": "not tested (no runs)"}) == "not tested: no runs"
    assert shown({"ours": "69.3 KiB (no spread between runs: no interval)"}) == "69.3 KiB, the same in every run"


def test_no_cell_or_sentence_of_the_claims_prints_a_clause_twice():
    """Review-q5 N6: "(not testable here: in memory, runs of 2 s; in memory, runs of 2 s)" printed a reason twice.
    The detector bites, and no verdict cell, Section X clause or advice phrase of the built claims table repeats
    one."""
    from pathlib import Path

    from blkscope.paper.advice import phrases as advice_phrases
    from blkscope.paper.phrases import repeated_clause, says
    from blkscope.paper.tables import verdict_cell

    assert repeated_clause("outside the study's condition: in memory, runs of 2 s; in memory, runs of 2 s") == (
        "in memory, runs of 2 s")
    assert repeated_clause("outside the study's condition: in memory, a load phase from a cold start; in memory, a "
                           "load phase from a cold start") is not None
    assert repeated_clause("does not; planned: does not") is None  # short verdict words may recur
    assert repeated_clause("inconclusive; 14 strata disagree; post hoc") is None
    rows = [{"verdict": "outside the study's condition: in memory, runs of 2 s", "verdict_planned": "does not",
             "caveat": "in memory, runs of 2 s", "claim_id": "S1-x"}]
    assert all(repeated_clause(verdict_cell(r)) is None and repeated_clause(says(r)) is None for r in rows)
    csv = Path(__file__).resolve().parents[1] / "data/processed/analysis/claims.csv"
    if not csv.exists():
        return
    claims = pl.read_csv(csv, infer_schema_length=None)
    for r in claims.iter_rows(named=True):
        for text in (verdict_cell(r), says(r)):
            assert repeated_clause(str(text or "")) is None, (r["claim_id"], text)
    for k, v in advice_phrases(claims).items():
        assert repeated_clause(v) is None, (k, v)


def test_an_empty_claims_table_is_said_not_counted_as_zero_rows():
    """Both headline forms of a claims table without rows say so (no "of zero rows, ")."""
    from blkscope.paper.headline import NO_ROWS, abstract_counts, split_sentence

    empty = pl.DataFrame(schema={c: pl.Utf8 for c in ("claim_id", "study", "claim", "condition", "verdict",
                                                      "same_as", "verdict_planned")})
    assert abstract_counts(empty) == split_sentence(empty) == NO_ROWS
    assert "zero" not in NO_ROWS and not NO_ROWS.rstrip().endswith(",")


def test_the_number_of_studies_in_the_prose_is_the_macro():
    """The abstract, title and sections name the studies' count by \\NumStudies (the claims' studies, in words), never
    typed: a study added or dropped changes every place at once."""
    from pathlib import Path

    from blkscope.paper.claims import CLAIMS
    from blkscope.paper.latex import count_word
    from blkscope.paper.numbers import method

    n = count_word(len({c.study for c in CLAIMS}))
    assert method()["NumStudies"] == n
    paper = Path(__file__).resolve().parents[1] / "paper"
    abstract = (paper / "sections" / "abstract.tex").read_text()
    assert r"\blk{NumStudies}" in abstract
    for tex in [paper / "main.tex", *sorted((paper / "sections").glob("*.tex"))]:
        typed = re.findall(rf"\b{n}\s+(?:studies|write-ups)\b", tex.read_text(), re.I)
        assert not typed, f"{tex.name}: {typed}"
