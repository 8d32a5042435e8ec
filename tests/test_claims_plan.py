"""The claims plan against the claims: every claim planned, no measure changed without a deviation; the plan's
reader refuses a bad file with its line; the rows read the runs the plan says."""

import re
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

from blkscope.errors import InputError
from blkscope.paper import claims_plan
from blkscope.paper.claim_rows import in_memory, other_condition
from blkscope.paper.claim_runs import WITHDRAWN
from blkscope.paper.claim_verdict import STRATA_DISAGREE
from blkscope.paper.claims import CLAIMS, claim_of

PLAN = Path(__file__).resolve().parents[1] / "config" / "claims_plan.yaml"


@pytest.fixture(scope="module")
def plan():
    return claims_plan.load(PLAN)


def test_every_claim_has_an_entry_and_its_measure_is_the_plans(plan):
    assert claims_plan.check(plan, CLAIMS) == []
    assert {e.claim_id for e in plan.entries if e.condition == "in-memory"} == {c.claim_id for c in CLAIMS}


def test_a_changed_measure_without_a_deviation_fails(plan):
    other = next(c for c in CLAIMS if c.claim_id == "S1-hot")
    moved = [replace(c, evaluate=other.evaluate) if c.claim_id == "S1-frag" else c for c in CLAIMS]
    frag = next(c for c in moved if c.claim_id == "S1-frag")
    problems = claims_plan.check(plan, moved)
    assert len(problems) == 1 and "S1-frag" in problems[0] and "no deviation" in problems[0]
    # a deviation dated after the plan that names the new measure lets it pass
    dev = claims_plan.Deviation("2099-01-01T00:00Z", "abc", ("S1-frag",), "what", "why", "", "",
                                {"S1-frag": claims_plan.fingerprint(frag)}, 1)
    assert claims_plan.check(replace(plan, deviations=(*plan.deviations, dev)), moved) == []
    # a band changed in claims.py but not in the plan
    wider = [replace(c, size=replace(c.size, text="s = 0.5-1.5")) if c.claim_id == "S1-zipf" else c for c in CLAIMS]
    assert any("band" in p and "S1-zipf" in p for p in claims_plan.check(plan, wider))


def test_a_missing_entry_is_named(plan):
    short = replace(plan, entries=tuple(e for e in plan.entries if e.claim_id != "S4-mean"))
    assert any(p.startswith("S4-mean: no in-memory entry") for p in claims_plan.check(short, CLAIMS))


def test_every_deviation_names_planned_claims_and_both_estimates(plan):
    ids = {c.claim_id for c in CLAIMS}
    assert plan.deviations
    from blkscope.paper.claim_deviations import CHANGES

    recomputed = {(c.commit, c.claim_id) for c in CHANGES}
    for d in plan.deviations:
        # the pooling rule names the rows it concerns (review: S1-cass-write stood for its scale row)
        named = {claim_of(c) for c in d.claims} if d.kind == "pooling" else set(d.claims)
        assert named <= ids and d.before and d.after
        # one dated after the plan is a deviation from it: it names each claim's new measure, and the paper's table
        # recomputes its estimates before and after (claim_deviations.CHANGES, under the same commit)
        assert d.date < plan.date or not d.measure or (set(d.fingerprint) == set(d.claims)
                                                       and {(d.commit, c) for c in d.claims} <= recomputed), d
    # after the plan, changes of no measure: the scale rows' selection (the second RocksDB batch), the condition
    # rule, and S2-ops-cap's secondary measure over the saturated part of each run (its planned verdict stays)
    assert [(d.kind, d.condition) for d in plan.deviations if not d.measure] == [
        ("selection", "scale"), ("verdict rule", "in-memory"), ("secondary", "in-memory"), ("correction", "scale"),
        ("headline", "scale"), ("pooling", "in-memory")]
    assert all(d.short and d.date > plan.date for d in plan.deviations if not d.measure)
    # dated at its own commit's time (94c0e78, 09:06Z; the table sorts by date), not a later one's; its rows are
    # those its before gives, and the rule says it changed after the estimates were seen, no amendment
    pooling = next(d for d in plan.deviations if d.kind == "pooling")
    assert (pooling.commit, pooling.date) == ("94c0e78", "2026-11-30T09:06Z")
    assert set(pooling.claims) == set(re.findall(r"(S\d-[\w-]+): ", pooling.before))
    assert "after the estimates had" in " ".join(plan.rules["heterogeneity"].split())
    assert "Amended" not in plan.rules["heterogeneity"]
    # a secondary measure changes no fingerprint, and the paper's table recomputes both its estimates
    second = [d for d in plan.deviations if d.kind == "secondary"]
    assert [d.claims for d in second] == [("S2-ops-cap",)] and all(d.recomputed and not d.fingerprint for d in second)
    assert all({(d.commit, c) for c in d.claims} <= recomputed for d in second)


def test_a_bad_plan_is_refused_with_its_line(tmp_path):
    bad = tmp_path / "plan.yaml"
    text = PLAN.read_text()
    bad.write_text(text.replace("    n_per_arm: 5\n", "    n_per_arm: five\n", 1))
    with pytest.raises(InputError) as e:
        claims_plan.load(bad)
    line = text[: text.index("    n_per_arm: 5\n")].count("\n") + 1
    entry_line = text[: text.rindex("  - id:", 0, text.index("    n_per_arm: 5\n"))].count("\n") + 1
    assert str(bad) in str(e.value) and f"line {entry_line}" in str(e.value) and entry_line < line
    bad.write_text(text.replace("  - id: S2-ops\n    condition: in-memory\n", "  - id: S2-ops\n", 1))
    with pytest.raises(InputError, match="lacks condition"):
        claims_plan.load(bad)
    # a replication with planned runs must name its batch; a withdrawn one (n_per_arm 0) names none
    bad.write_text(text.replace("batches: [round4-decide-lz4-cap], runs:", "runs:", 1))
    with pytest.raises(InputError, match=r"S2-lz4-cap \(replication\) names no batches"):
        claims_plan.load(bad)


def _tables(batches: list[str]) -> dict:
    runs = pl.DataFrame({"run_id": [f"r{i}" for i in range(len(batches))], "batch": batches})
    return {"runs": runs}


def test_rows_read_the_runs_the_plan_says(plan):
    tb = _tables(["", "saturate-2", "round3-decide-2", "round3-journal-60s-2", "round4-rocksdb-capped",
                  "round4-decide-lz4-cap", "round4-sweep", "round4-rocksdb-capped-2"])
    confirm = in_memory(tb, plan, confirmatory=True)["runs"]["batch"].to_list()
    assert confirm == ["", "saturate-2"]
    everything = in_memory(tb, plan, confirmatory=False)["runs"]["batch"].to_list()
    assert everything == ["", "saturate-2", "round3-decide-2", "round3-journal-60s-2"]
    seen = {}

    def ev(t, size):
        seen["runs"] = t["runs"]["run_id"].to_list()
        return "judged"

    rep = plan.entry("S2-lz4-cap", "replication")
    assert other_condition(tb, rep, ev, None) == "judged" and seen["runs"] == ["r5"]
    # a replication has one look too: while a run of its batch lacks a steady_state row (not captured), it waits
    half = _tables(["round4-decide-lz4-cap"] * 4)
    seen.clear()
    res = other_condition(half | {"steady_state": pl.DataFrame({"run_id": ["r0", "r2"]})}, rep, ev, None)
    assert seen == {} and res.verdict.startswith("not tested")
    assert "round4-decide-lz4-cap is not captured yet (2 of the 4 runs the row lists are in" in res.reason
    every = pl.DataFrame({"run_id": ["r0", "r1", "r2", "r3"]})
    assert other_condition(half | {"steady_state": every}, rep, ev, None) == "judged" and len(seen["runs"]) == 4
    # withdrawn before capture: a plan amendment, not a limit of this machine
    assert other_condition(tb, plan.entry("S1-hot", "replication"), ev, None).verdict == WITHDRAWN
    scale = plan.entry("S1-hot", "scale")
    assert other_condition(tb, scale, ev, None).verdict.startswith("not tested")  # no steady_state table
    # one planned look: a row waits until every batch it lists is captured (each captured run has a steady_state row)
    first = pl.DataFrame({"run_id": ["r4"], "steady": [True], "window_s": [120.0]})
    seen.clear()
    res = other_condition(tb | {"steady_state": first}, scale, ev, None)
    assert seen == {} and res.verdict.startswith("not tested")
    assert "batch round4-rocksdb-capped-2 is not captured yet" in res.reason
    st = pl.DataFrame({"run_id": ["r4", "r7"], "steady": [True, False], "window_s": [120.0, 120.0]})
    assert other_condition(tb | {"steady_state": st}, scale, ev, None) == "judged" and seen["runs"] == ["r4"]
    big = st.with_columns(data_over_cap=pl.lit(12.0))
    assert other_condition(tb | {"steady_state": big}, scale, ev, None) == "judged" and seen["runs"] == ["r4"]
    small = st.with_columns(data_over_cap=pl.lit(9.93))  # records x record size just under 10x the cap
    seen.clear()
    res = other_condition(tb | {"steady_state": small}, scale, ev, None)
    assert seen == {} and res.verdict.startswith("not tested")
    assert "9.93x the memory cap" in res.reason and "10x" in res.reason
    # run by run: of two steady runs, the one under 10x its cap is not read (the first capped batch beside the second)
    both = pl.DataFrame({"run_id": ["r4", "r7"], "steady": [True, True], "window_s": [120.0, 120.0],
                         "data_over_cap": [9.93, 11.9]})
    assert other_condition(tb | {"steady_state": both}, scale, ev, None) == "judged" and seen["runs"] == ["r7"]
    short = st.with_columns(window_s=pl.lit(60.0))  # steady but shorter than 3x the 30-s clocks
    seen.clear()
    other_condition(tb | {"steady_state": short}, scale, ev, None)
    assert seen["runs"] == []
    assert other_condition(tb, plan.entry("S1-hot-f2fs", "scale"), ev, None).verdict == "not testable here"


def test_plan_macros_count_what_holm_moved_and_the_deviations_table_lists_what_moved(plan):
    from blkscope.paper.claims_plan_tex import plan_macros, render_deviations

    exact = "does not (exact)"  # no interval: outside the family, decided
    claims = pl.DataFrame({
        "claim_id": ["A", "B", "C", "D-scale", "E", "E-scale"],
        "condition": ["in-memory"] * 3 + ["scale", "in-memory", "scale"],
        "verdict_unadjusted": ["replicates", "does not", "inconclusive", "not tested (no runs)", exact, exact],
        "verdict": ["replicates", "inconclusive", "inconclusive", "not tested (no runs)", exact, exact],
        "verdict_all": ["replicates", "does not", "replicates", "not tested (no runs)", exact, exact],
        "p_holm": [0.01, 0.2, 0.9] + [float("nan")] * 3, "pooling": ["fixed", "per stratum"] + [None] * 4,
        "i2": [0.1, 0.93] + [None] * 4,
    })  # fmt: skip
    m = plan_macros(plan, claims)
    assert m["ClaimsHolmFamily"] == "3" and (m["ClaimsFamilyDecidedUnadjusted"], m["ClaimsFamilyDecidedAdjusted"]) == (
        "2", "1")
    assert m["ClaimsMovedByHolm"] == "B"
    # B's strata disagree but each does not: it decides in every stratum, inconclusive only after Holm (review: the
    # list said every such row was inconclusive because of it)
    assert m["ClaimsHeterogeneous"] == (r"in one row ($I$ squared 93 \%): one decides in every stratum (B does not, "
                                        "inconclusive after Holm)")
    sd = claims.with_columns(verdict_unadjusted=pl.Series(["replicates", STRATA_DISAGREE, "inconclusive",
                                                           "not tested (no runs)", exact, exact]),
                             pooling=pl.Series(["per stratum"] * 2 + [None] * 4))
    # review: "..., I squared over 99 %" after S2-merge-cap's 55 % read as its; both ends of the range are given
    assert plan_macros(plan, sd)["ClaimsHeterogeneous"] == (
        r"in two rows ($I$ squared from 10 \% to 93 \%): one is inconclusive because of it (B); one decides in "
        "every stratum (A replicates)")
    # review: six rows here beside the headline's five; a row on another's runs counts with it, in both places
    twin = pl.concat([sd, sd.filter(pl.col("claim_id") == "B").with_columns(claim_id=pl.lit("B2"), same_as=pl.lit("B"),
                                                                             i2=pl.lit(0.9999996))],
                     how="diagonal_relaxed")
    assert plan_macros(plan, twin)["ClaimsHeterogeneous"] == (
        r"in two rows ($I$ squared from 10 \% to over 99 \%; B2 counts with B): one is inconclusive because of it "
        "(B); one decides in every stratum (A replicates)")
    from blkscope.paper.headline import split_sentence

    assert ", one of the two because its strata disagree" in split_sentence(
        twin.with_columns(verdict=pl.col("verdict_unadjusted"), study=pl.lit("s"), claim=pl.col("claim_id")))
    assert m["ClaimsExploratoryDiffer"] == "C" and m["ClaimsPlanDate"] == "28 November 2026, 00:20 UTC"
    assert (m["ClaimsExact"], m["ClaimsExactIds"]) == ("2", "E, E-scale")
    # judged rows: those of the in-memory condition post hoc, the others' confirmatory (D-scale waits for runs)
    assert (m["ClaimsPostHoc"], m["ClaimsConfirmatory"], m["ClaimsConfirmatoryIds"]) == ("4", "1", "E-scale")
    assert m["ClaimsExploratoryBatches"] == str(len(plan.exploratory_batches))
    # the condition rule's rows by their planned verdicts: none left out of what Holm moved or what all runs change
    # (issue Q review: S1-cass-read, S1-frag and S4-reader were)
    ruled = "outside the study's condition: in memory"
    more = pl.DataFrame({
        "claim_id": ["F", "G"], "condition": ["in-memory"] * 2, "verdict_unadjusted": [ruled] * 2,
        "verdict": [ruled] * 2, "verdict_all": ["does not", "does not"], "p_holm": [0.3, 0.5],
        "pooling": [None, None], "i2": [None, None], "verdict_planned": ["inconclusive"] * 2,
        "verdict_planned_unadjusted": ["does not", "inconclusive"]})
    both = pl.concat([claims.with_columns(verdict_planned=pl.lit(None, pl.Utf8),
                                          verdict_planned_unadjusted=pl.lit(None, pl.Utf8)), more],
                     how="diagonal_relaxed")
    m = plan_macros(plan, both)
    assert (m["ClaimsMovedByHolm"], m["ClaimsExploratoryDiffer"]) == ("B, F", "C, G")
    assert (m["ClaimsFamilyDecidedUnadjusted"], m["ClaimsFamilyDecidedAdjusted"]) == ("3", "1")
    # judged: by the planned verdict, the rule's rows among them, as the headline counts (one meaning of the word)
    assert (m["ClaimsPostHoc"], m["ClaimsConfirmatory"]) == ("6", "1")
    from blkscope.paper.headline import moved
    assert moved(both) == "two post hoc rows (B and F: two do not)"
    d = plan.deviations[0]
    rec = pl.DataFrame({"commit": [d.commit] * 2, "claim_id": [d.claims[0], "S9-none"],
                        "before_estimate": ["1.00x", "x"], "before_n": ["3", "3"], "before_verdict": ["does not"] * 2,
                        "after_estimate": ["2.00x", "x"], "after_n": ["3", "3"], "after_verdict": ["replicates"] * 2,
                        "moved": [True, False]})
    # the changes made before the plan (the plan's file lists deviations from it too, after them)
    early = replace(plan, deviations=tuple(x for x in plan.deviations if x.date < plan.date))
    tex = render_deviations(early, rec)
    assert "1.00x (does not)" in tex and "2.00x (replicates)" in tex and "S9-none" not in tex
    assert tex.count(r"\begin{longtable}") == 1 and tex.rstrip().endswith(r"\end{longtable}")
    # a numbered table that says its estimates are over all runs, unadjusted: not the claims table's verdicts
    assert r"\label{tab:deviations}" in tex and "Before (all runs) & After (all runs)" in tex
    # titled by the plan's dates: every change made before the plan was fixed, or deviations from it once one is not
    assert "Changes made before the claims plan was fixed, after estimates were seen" in tex
    e = plan_macros(early, claims)
    assert e["ClaimsDeviationsBefore"] == e["ClaimsDeviations"] == str(len(early.deviations))
    assert (e["ClaimsDeviationsAfter"], e["ClaimsDeviationsAfterIds"]) == ("0", "none")
    n = len(early.deviations)
    late = replace(early, deviations=(*early.deviations[:-1], replace(early.deviations[-1], date="2026-12-01T09:00Z")))
    tex = render_deviations(late, rec)
    assert "Changes made before" not in tex
    assert "Deviations from the claims plan: each change" in tex and f"({n - 1} of {n} before" in tex
    m = plan_macros(late, claims)
    assert m["ClaimsDeviationsAfter"] == "1" and m["ClaimsDeviationsAfterIds"] == ", ".join(early.deviations[-1].claims)
    # the plan's file: S4-reader's reader modes became strata after the plan, S1-cass-write's arms both untraced
    # (deviations from it, each with its measure)
    after = [x for x in plan.deviations if x.date > plan.date and x.measure]
    assert [x.claims for x in after] == [("S4-reader",), ("S1-cass-write",)] and all(x.fingerprint for x in after)
    # the changes after the plan in the order of their dates, a change of no measure by its short words
    assert plan_macros(plan, claims)["ClaimsDeviationsAfterIds"] == (
        "the scale rows' second RocksDB batch, S4-reader, S1-cass-write, the condition rule, a secondary measure of "
        "S2-ops-cap over the saturated part of each run, the load label of unthrottled jobs, the headline's planned "
        "verdicts, strata that disagree judged one by one")
    # what the headline counts (issue Q review): the plan's words before, and after the counts as the abstract gives
    # them today with the row as it stands
    head = next(x for x in plan.deviations if x.kind == "headline")
    now = pl.DataFrame({"claim_id": ["S1-trace-ycsb-cass-scale"], "condition": ["scale"], "study": ["s"],
                        "claim": ["c"], "ours": ["-6.7 % [-11.9 %, -2.1 %]"], "verdict": ["does not"],
                        "verdict_planned": [None]}, schema_overrides={"verdict_planned": pl.Utf8})
    line = next(x for x in render_deviations(plan, rec, now).splitlines() if x.startswith(head.date[:10])
                and "headline" in x)
    cells = line.split(" & ")  # date, claims, what, why; under what and why the estimates before and after
    assert cells[3].endswith(r"\\* {}") and cells[4] == "{}"
    assert "24 could be judged" in cells[5] and "the headline: of one row, one is judged as planned" in cells[6]
    assert "S1-trace-ycsb-cass-scale: \\ensuremath{-}6.7" in cells[6] and "(does not)" in cells[6]
    # the secondary measure's row: its claim, the recomputed planned estimate before and the secondary one after
    sec = next(x for x in plan.deviations if x.kind == "secondary")
    rec2 = pl.DataFrame({"commit": [sec.commit], "claim_id": ["S2-ops-cap"],
                         "before_estimate": ["1.00x [0.88x, 1.13x]"], "before_n": ["11 vs 11"],
                         "before_verdict": ["does not"],
                         "after_estimate": ["0.97x [0.80x, 1.16x]"], "after_n": ["11 vs 11"],
                         "after_verdict": ["does not"], "moved": [True]})
    row = next(x for x in render_deviations(plan, rec2).splitlines() if x.startswith("2026-11-29 & S2-ops-cap &"))
    assert "1.00x [0.88x, 1.13x] (does not) & 0.97x [0.80x, 1.16x] (does not)" in row
    # their rows: the selection's scale rows after it, the rule's rows before and after it (from the claims table)
    table = pl.DataFrame({"claim_id": ["S1-zipf-scale", "S2-aqu-fio-replication", "S2-ops"],
                          "ours": ["0.07 [0.05, 0.09]", "1.36x [1.08x, 1.71x]", "0.83x [0.35x, 1.98x]"],
                          "verdict": ["outside the study's condition: a kept trace window of 3 s",
                                      "outside the study's condition: light load", "inconclusive"],
                          "verdict_planned": ["does not", "does not", None]})
    tex = render_deviations(plan, rec, table)
    selection = next(x for x in tex.splitlines() if "the scale rows also select" in x)  # rows not in the table: out
    assert "S1-zipf-scale & " in selection and "0.07 [0.05, 0.09] (does not)" in tex
    assert "S1-hot-scale" not in selection
    # the rule's row: its claims, their planned verdicts counted (each is in the claims table)
    assert "S1-zipf-scale, S2-aqu-fio-replication & " in tex and "as planned, two do not" in tex
    rule = next(line for line in tex.splitlines() if "as planned, two do not" in line)
    assert "S2-ops" not in rule  # a row the rule did not move


def test_the_sweep_is_planned_before_its_capture(plan):
    """The cache sweep's descriptive entry: its batch is the runs sheet's, the repeats are the sheet's, no claim reads
    it, and it was fixed before any of its runs was captured (each captured run's lock came later)."""
    import yaml

    from blkscope.runs import load_runs

    root = PLAN.parents[1]
    sweep = next(d for d in plan.descriptive if d.measure_id == "P-sweep")
    sheet = load_runs(root / "config" / "runs.tsv")
    runs = sheet.filter(pl.col("batch").is_in(list(sweep.batches)))
    assert runs.height == 30 and set(runs["repeat"]) == set(range(1, sweep.repeats + 1))
    assert set(sweep.beside) <= set(sheet["batch"]) and not set(sweep.batches) & set(plan.scale_batches)
    assert {"measures", "against", "window", "bytes", "capture_time"} <= set(sweep.text)
    for r in runs["run_id"]:
        meta = root / "data" / "raw" / r / "run.yaml"
        if meta.exists():
            lock = yaml.safe_load(meta.read_text())["lock"]["acquired_utc"]
            assert lock > sweep.fixed.replace("Z", ""), r


def test_a_bad_descriptive_entry_is_refused_with_its_line(tmp_path):
    bad = tmp_path / "plan.yaml"
    text = PLAN.read_text()
    start = text.index("  - id: P-sweep\n")
    bad.write_text(text.replace("    repeats: 3", "    repeats: three", 1))
    with pytest.raises(InputError, match=rf"line {text[:start].count(chr(10)) + 1}: repeats of P-sweep"):
        claims_plan.load(bad)
    # a batch a claim judges cannot also be described
    bad.write_text(text.replace("    batches: [round4-sweep]", "    batches: [round4-decide-lz4-cap]", 1))
    with pytest.raises(InputError, match="round4-decide-lz4-cap are read by a claim"):
        claims_plan.load(bad)


def test_the_short_journal_runs_length_is_a_macro_from_the_runs_the_claims_read(plan):
    """JournalShortRunS: the length of the runs S4-reader and S3-wb-journal read (claims.csv run_s_lo/run_s_hi), the
    exception to the journal claims' JOURNAL_MIN_S; a build with one of them on long runs fails instead."""
    from blkscope.paper.claims_plan_tex import journal_short_run, plan_macros

    claims = pl.DataFrame({
        "claim_id": ["S4-reader", "S3-wb-journal", "S4-mean"], "condition": ["in-memory"] * 3,
        "verdict_unadjusted": ["inconclusive"] * 3, "verdict": ["inconclusive"] * 3,
        "verdict_all": ["inconclusive"] * 3, "p_holm": [0.5] * 3, "pooling": [None] * 3, "i2": [None] * 3,
        "run_s_lo": [10.0, 10.0, 60.0], "run_s_hi": [10.0, 10.0, 60.0],
    })  # fmt: skip
    assert plan_macros(plan, claims)["JournalShortRunS"] == "10"
    assert journal_short_run(claims.with_columns(run_s_hi=pl.Series([20.0, 10.0, 60.0]))) == "10--20"
    with pytest.raises(ValueError, match="S3-wb-journal"):
        journal_short_run(claims.with_columns(run_s_hi=pl.Series([10.0, 60.0, 60.0])))
    assert "JournalShortRunS" not in plan_macros(plan, claims.drop("run_s_lo", "run_s_hi"))


def test_a_change_of_many_claims_is_one_row_listing_its_claims(plan):
    # one row per change: its date, its claims, what and why once (review-q5 N10)
    from blkscope.paper.claims_plan_tex import render_deviations
    from blkscope.paper.latex import escape

    d = next(x for x in plan.deviations if len(x.claims) > 1)
    tex = render_deviations(plan, pl.DataFrame(schema={"commit": pl.Utf8, "claim_id": pl.Utf8}))
    rows = [line for line in tex.splitlines() if escape(d.what) in line]
    assert len(rows) == 1 and rows[0].startswith(f"{d.date[:10]} & {escape(', '.join(d.claims))} &")
    assert rows[0].count(escape(d.why)) == 1
    assert "as the first row of this change" not in tex and "Today" not in tex
    rows = len(plan.deviations) + sum(not a.listed for a in plan.amendments)  # an amendment's row, unless listed
    assert sum(line.endswith(r"\\") for line in tex.splitlines() if line[:4].isdigit()) == rows
    # the text counts the rows as the table has them: a listed amendment is among the changes, not again beside
    # review: "4 further amendments" beside "amended five times": one count, all the amendments, in both sentences
    from blkscope.paper.claims_plan_tex import _amendments_apart, amended_phrase
    from blkscope.paper.latex import count_word

    n = len(plan.amendments)
    assert any(a.listed for a in plan.amendments) and _amendments_apart(plan) == (
        f"{count_word(n)} amendments, {count_word(n - rows + len(plan.deviations))} of them among those changes")
    assert amended_phrase(plan).startswith(f"amended {count_word(n)} times")


def test_every_amendment_of_the_plan_has_a_row_and_the_text_counts_them(plan, tmp_path):
    """Each amendment (withdrawals too) is a row of the deviations table, or names the deviation whose row it is;
    the text's count and phrase come from the plan's amendments, not from words written once."""
    from blkscope.paper.claims_plan_tex import amended_phrase, render_deviations
    from blkscope.paper.latex import count_word, escape

    assert len(plan.amendments) >= 4 and any(a.withdrawn for a in plan.amendments)
    tex = render_deviations(plan, pl.DataFrame(schema={"commit": pl.Utf8, "claim_id": pl.Utf8}))
    commits = {d.commit for d in plan.deviations}
    for a in plan.amendments:
        assert (a.listed in commits) if a.listed else escape(a.what) in tex
    withdrawn = next(a for a in plan.amendments if a.withdrawn)
    assert f"withdrew {escape(', '.join(withdrawn.claims))}" in amended_phrase(plan)
    assert amended_phrase(plan).startswith("amended five times")
    # an amendment that followed earlier runs of its rows says what of them had been seen (the reviewer: "each time
    # before the runs" hid that the second RocksDB batch's amendment followed the first batch)
    seen = [a for a in plan.amendments if a.seen]
    assert len(seen) >= 2 and all(escape(a.seen) in amended_phrase(plan) for a in seen)
    assert f"; {count_word(len(seen))} followed earlier runs of the same rows: " in amended_phrase(plan)
    one = replace(plan, amendments=plan.amendments[:1])
    assert amended_phrase(one) == "amended once, before the runs the amendment concerns were captured"
    assert amended_phrase(replace(plan, amendments=seen[:1])).endswith(f"the amendment followed earlier runs of the "
                                                                       f"same rows: {escape(seen[0].seen)}")
    assert amended_phrase(replace(plan, amendments=())) == "never amended"
    text = PLAN.read_text().replace("amendments:\n", "amendments:\n  - {date: x}\n", 1)
    (tmp_path / "plan.yaml").write_text(text)
    with pytest.raises(InputError, match="amendment"):
        claims_plan.load(tmp_path / "plan.yaml")




def test_a_secondary_measures_row_prints_the_planned_runs_estimates_the_text_prints_labelled(plan):
    """The text prints the secondary measure on the planned runs; its deviations row gives those and the all-runs
    estimates, each labelled, so the two agree."""
    from blkscope.paper.claims_plan_tex import render_deviations

    d = next(x for x in plan.deviations if x.kind == "secondary")
    row = {"claim_id": d.claims[0], "measure": "m", "planned_n": "6 vs 6", "secondary_n": "6 vs 6"}
    secondary = pl.DataFrame([
        row | {"runs": "planned", "planned": "1.01x [0.86x, 1.19x]", "planned_verdict": "does not",
               "secondary": "0.97x [0.75x, 1.26x]", "secondary_verdict": "does not"},
        row | {"runs": "all", "planned": "1.00x [0.88x, 1.13x]", "planned_verdict": "does not",
               "secondary": "0.97x [0.80x, 1.16x]", "secondary_verdict": "does not"}])  # fmt: skip
    tex = render_deviations(plan, pl.DataFrame(schema={"commit": pl.Utf8, "claim_id": pl.Utf8}), None, secondary)
    line = next(x for x in tex.splitlines() if x.startswith(d.date[:10]) and d.claims[0] in x and "saturated" in x)
    assert line.endswith("& the planned runs: 1.01x [0.86x, 1.19x] (does not); all runs: 1.00x [0.88x, 1.13x] "
                         "(does not) & the planned runs: 0.97x [0.75x, 1.26x] (does not); all runs: 0.97x [0.80x, "
                         r"1.16x] (does not) \\")


def test_a_correction_gives_the_rows_before_in_the_plans_words_and_after_as_the_claims_table_has_them(plan):
    """The load label's correction: its rows' verdicts before it (the plan's words) and as they stand now (the
    claims table), each named, then what else it moved."""
    from blkscope.paper.claims_plan_tex import render_deviations

    d = next(x for x in plan.deviations if x.kind == "correction")
    table = pl.DataFrame({"claim_id": ["S1-trace-ycsb-cass-scale"], "ours": ["-6.7 % [-11.9 %, -2.1 %]"],
                          "verdict": ["outside the study's condition: traced arm faster: a confound"],
                          "verdict_planned": ["does not"]})
    tex = render_deviations(plan, pl.DataFrame(schema={"commit": pl.Utf8, "claim_id": pl.Utf8}), table)
    row = next(x for x in tex.splitlines() if x.startswith(f"{d.date[:10]} & S1-trace-ycsb-cass-scale &"))
    assert "light load, traced arm faster" in row.split(" & ")[5]  # before: as the plan says it was
    assert row.split(" & ")[6].startswith(r"S1-trace-ycsb-cass-scale: \ensuremath{-}6.7 \% [")
    assert "(outside the study's condition: traced arm faster: a confound)" in row.split(" & ")[6]


def test_a_narrowed_claim_says_so_beside_its_number_with_the_estimates_before_and_after(plan):
    """review: S1-frag's and S4-sparse-max's runs were narrowed after their estimates were seen, and the text that
    prints their numbers did not say so; the words come from the plan's deviations (`short`) and the recomputed
    estimates of the deviations table, each narrowing in the order of its date."""
    from blkscope.paper.claims_plan_tex import narrowed, render_plan

    devs = {d.commit: d for d in plan.deviations if d.short and d.measure}
    assert {"3618dea", "e0c2130", "242e04b"} <= set(devs)
    rec = pl.DataFrame({"commit": ["242e04b", "e0c2130", "3618dea"], "claim_id": ["S4-sparse-max"] * 2 + ["S1-frag"],
                        "before_estimate": ["2.13x [0.64x, 7.13x]", "1.71x [0.92x, 3.18x]",
                                            "per stratum 0.80x to 1.13x"],
                        "before_verdict": ["inconclusive", "inconclusive", "inconclusive: strata disagree"],
                        "after_estimate": ["3.46x [1.27x, 9.39x]"] * 2 + ["0.80x [0.65x, 0.99x]"],
                        "after_verdict": ["does not"] * 3})  # fmt: skip
    m = narrowed(plan, rec)
    assert set(m) == {"ClaimSFourSparseMaxNarrowed", "ClaimSOneFragNarrowed"}  # S4-ms: no recomputed row given
    sparse = m["ClaimSFourSparseMaxNarrowed"]
    assert sparse.startswith("narrowed twice after its estimate was seen, ")
    first, second = sparse.index(devs["e0c2130"].short.replace(" s", r"\,s")), sparse.index(devs["242e04b"].short)
    assert first < second and sparse.endswith(r"Table~\ref{tab:deviations}") and "(" not in sparse
    # the estimates with each change alone undone (the second's runs are still the first's), in the same order, a
    # verdict they share said once
    assert "with each alone undone: 1.71x [0.92x, 3.18x] and 2.13x [0.64x, 7.13x], both inconclusive;" in sparse
    # a verdict of strata that disagree less what the estimate's words say already
    frag = m["ClaimSOneFragNarrowed"]
    assert frag.startswith("narrowed after its estimate was seen, " + devs["3618dea"].short + "; with it undone: ")
    assert "undone: per stratum 0.80x to 1.13x, inconclusive; Table" in frag and "disagree" not in frag
    claims = pl.DataFrame({"claim_id": ["A"], "condition": ["in-memory"], "verdict_unadjusted": ["replicates"],
                           "verdict": ["replicates"], "verdict_all": ["replicates"], "p_holm": [0.01],
                           "pooling": [None], "i2": [None]}, schema_overrides={"pooling": pl.Utf8, "i2": pl.Float64})
    assert r"\newcommand{\ClaimSOneFragNarrowed}" in render_plan(plan, claims, recomputed=rec)
    assert "Narrowed" not in render_plan(plan, claims)


def test_every_row_a_deviation_narrowed_carries_the_note_from_the_plan(plan):
    """Issue Q review: S1-hot, S4-mean and S4-p9999 were narrowed after their estimates as S1-frag, S4-ms and
    S4-sparse-max were, and carried no note: the note comes from the plan's deviations, for each row and condition
    a deviation with `short` words lists, the changes in date order."""
    from blkscope.paper.claims import narrowed_by_plan

    notes = narrowed_by_plan(plan)
    listed = {(c, d.condition) for d in plan.deviations if d.measure and d.short for c in d.claims}
    assert set(notes) == listed and {("S1-hot", "in-memory"), ("S4-mean", "in-memory")} <= listed
    assert ("S1-hot", "scale") not in notes  # another condition's row was not narrowed
    both = [d.short for d in sorted(plan.deviations, key=lambda d: d.date) if "S4-sparse-max" in d.claims and d.short]
    assert notes[("S4-sparse-max", "in-memory")] == " and ".join(both) and len(both) == 2


def test_strata_that_disagree_are_the_reason_for_no_verdict_not_a_verdict_and_microseconds_print_as_such():
    """Issue Q review: "(none: strata disagree)" in a verdict's place (Table III), and S4-mean's "us" in Tables
    I-III where the prose prints the micro sign. Over all runs the strata are judged each alone, as the planned
    verdict judges them: the verdict beside their range, without the words the range says."""
    from blkscope.paper.claim_verdict import STRATA_DISAGREE
    from blkscope.paper.claims_plan_tex import with_verdict
    from blkscope.paper.latex import escape
    from blkscope.paper.pdf_words import _TYPESET, squash

    said = with_verdict("per stratum 1.03x to 5.41x, 14 strata disagree", STRATA_DISAGREE)
    assert said == "per stratum 1.03x to 5.41x, 14 strata disagree (inconclusive)"
    assert with_verdict("per stratum 0.50x to 0.80x, 3 strata disagree", "does not") == (
        "per stratum 0.50x to 0.80x, 3 strata disagree (does not in every stratum)")
    assert with_verdict("0.95x [0.83x, 1.10x]", "does not") == "0.95x [0.83x, 1.10x] (does not)"
    assert escape("1.12 us [-0.23 us, 2.46 us]") == (r"1.12\,$\mu$s [\ensuremath{-}0.23\,$\mu$s, 2.46\,$\mu$s]")
    assert escape("a few of us") == "a few of us"
    # the PDF check reads the micro sign back as the table's "us"
    assert squash("1.12 \u03bcs".translate(_TYPESET)) == squash("1.12 us")


def test_the_pooling_rules_row_gives_every_row_before_and_after_with_its_own_verdict(plan):
    """The deviation that stopped pooling strata that disagree: every row it names and every row whose strata
    disagree, each before (the plan's words) and after (the claims table's), each with its own verdict as the
    headline counts it, Holm's own beside where it moved it (review: the others were counted as 'inconclusive',
    a fixed word)."""
    from blkscope.paper.claims_plan_tex import rule_cells

    d = next(x for x in plan.deviations if x.kind == "pooling")
    rows = {"S1-trace": ("per stratum -19.4 % to 26.6 %, 21 strata disagree", "inconclusive: strata disagree", None),
            "S1-cass-read": ("per stratum 0.07x to 0.12x, 2 strata disagree", "inconclusive", "does not"),
            "S3-cow-ext4": ("per stratum 1.03x to 5.39x, 14 strata disagree", "inconclusive: strata disagree", None),
            "S2-merge-cap": ("per stratum 16.86x to 19.90x, 2 strata disagree", "replicates", None),
            "S2-ops": ("0.95x [0.83x, 1.10x]", "does not", None)}
    claims = pl.DataFrame({"claim_id": list(rows), "ours": [o for o, _, _ in rows.values()],
                           "verdict": [v for _, v, _ in rows.values()],
                           "verdict_unadjusted": [u or v for _, v, u in rows.values()], "verdict_planned": [None] * 5,
                           "pooling": ["per stratum"] * 4 + ["fixed"]}, schema_overrides={"verdict_planned": pl.Utf8})
    ids, before, after = rule_cells(d, claims)
    assert ids == ["S1-trace", "S1-cass-read", "S3-cow-ext4", "S2-merge-cap"]  # no row whose strata agree
    assert before.startswith(r"S1-trace: 9.8 \% [5.1 \%, 14.5 \%] (does not); S1-cass-read: 0.09x [0.04x, 0.20x] "
                             "(inconclusive; does not before Holm); S3-cow-ext4: 2.66x")
    assert after == (r"S1-trace: per stratum \ensuremath{-}19.4 \% to 26.6 \% (inconclusive: strata disagree); "
                     "S1-cass-read: per stratum 0.07x to 0.12x (inconclusive; does not before Holm); S3-cow-ext4: "
                     "per stratum 1.03x to 5.39x (inconclusive: strata disagree); S2-merge-cap: per stratum 16.86x to "
                     "19.90x (replicates)")
    assert "the other" not in before + after and "[" not in after
