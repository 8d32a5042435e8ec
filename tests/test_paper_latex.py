import polars as pl

from blkscope.paper.latex import escape, fmt_int, fmt_pct, macro_name
from blkscope.paper.numbers import render
from blkscope.paper.tables import longtable


def test_macro_names_are_letters_only():
    assert macro_name("top share", "randrw", "ext4") == "TopShareRandrwExtFour"
    assert macro_name("x_1", "f2fs").isalpha()


def test_escape_and_number_formats():
    assert escape("a_b & 5%") == r"a\_b \& 5\%"
    assert fmt_int(1234567) == "1{,}234{,}567"
    assert fmt_int(None) == "--"
    assert fmt_pct(0.1234) == r"12.3\,\%"


def test_an_opening_single_quote_is_set_as_one_and_apostrophes_and_closing_quotes_stay():
    assert escape("1.22x for '1.22x better'") == "1.22x for `1.22x better'"
    assert escape("('x' and 'y')") == "(`x' and `y')"
    assert escape("xfs's advantage, ''quoted''") == "xfs's advantage, ''quoted''"


def test_render_and_longtable():
    tex = render({"NumRuns": "12"})
    assert r"\newcommand{\NumRuns}{12}" in tex
    df = pl.DataFrame({"fs": ["ext4", "x_fs"], "n": [1, 2000]})
    t = longtable(df, [("fs", "FS", 1.0, escape), ("n", "n", 0, fmt_int)], "cap", "tab:x")
    assert r"x\_fs & 2{,}000 \\" in t and r"\toprule" in t and r"\label{tab:x}" in t and r"\endhead" in t
    assert r"p{\dimexpr0.940\linewidth-2\tabcolsep\relax}l}" in t  # the paragraph column takes the line less the l


def test_negative_zero_is_zero_in_numbers_and_texts():
    from blkscope.paper.latex import fmt_float, tidy

    assert fmt_pct(-0.0001) == r"0.0\,\%" and fmt_float(-0.04, 1) == "0.0" and fmt_int(-0.4) == "0"
    assert tidy("-0.0 % [-1.2 %, 0.4 %]") == "0.0 % [-1.2 %, 0.4 %]"
    assert tidy("-0.05x, S1-0, x-0.00") == "-0.05x, S1-0, x-0.00"  # a number that is not zero; words stay


def test_negative_numbers_carry_a_minus_sign_and_hyphens_between_words_stay():
    from blkscope.paper.latex import fmt_float, signed

    minus = r"\ensuremath{-}"
    assert fmt_float(-0.5) == minus + "0.5" and fmt_int(-1234) == minus + "1{,}234"
    assert fmt_pct(-0.021) == minus + r"2.1\,\%" and fmt_float(0.5) == "0.5"
    assert escape("-0.6 % [-3.8 %, 3.0 %]") == minus + r"0.6 \% [" + minus + r"3.8 \%, 3.0 \%]"
    assert escape("within +-10 %") == r"within \ensuremath{\pm}10 \%"
    words = "S1-hot, round3-claims, p=1.4e-05, 95--115, -F -q, 2026-11-27, x-0.5"
    assert escape(words) == words  # hyphens that join words stay hyphens
    assert escape("2-3x, runs of 2-20 s") == "2--3x, runs of 2--20 s"  # a range of two numbers: an en dash
    assert signed(signed("-1")) == signed("-1") == minus + "1"  # once set, a sign is not set again


def test_counts_are_phrased_by_rule():
    from blkscope.paper.latex import counted, enumerate_counts

    assert counted(0, "lost event", "lost events") == "no lost events"
    assert counted(1, "run", "runs") == "one run" and counted(1234, "run", "runs") == "1{,}234 runs"
    parts = [(2, "replicates", "replicate"), (0, "waits", "wait"), (1, "is inconclusive", "are inconclusive")]
    assert enumerate_counts(parts) == "two replicate and one is inconclusive"
    parts = [(12, "replicates", "replicate"), (0, "waits", "wait"), (1, "is not testable", "are not testable")]
    assert enumerate_counts(parts) == "12 replicate and 1 is not testable"  # digits throughout once one is > 9
    assert enumerate_counts([(0, "a", "b")]) == "none"


def test_verdict_sentence_counts_every_verdict_and_leaves_out_the_empty_ones():
    from blkscope.paper.study_numbers import verdict_sentence

    v = pl.Series(["replicates", "does not", "does not", "not testable here", "inconclusive (reason)"])
    want = "five claims: one replicates, two do not, one is inconclusive and one is not testable here"
    assert verdict_sentence(v) == want
    ids = pl.Series(["a", "a", "b", "c", "d"])  # a judged under two conditions: a row each
    assert verdict_sentence(v, ids).startswith("five verdicts on four claims: one replicates")


def test_the_claims_sentence_counts_a_claim_judged_under_several_conditions_once():
    from blkscope.paper.study_numbers import claim_ids, claims_sentence

    c = pl.DataFrame({"claim_id": ["S1-zipf", "S1-zipf-scale", "S1-hot-replication", "S2-ops-cap"],
                      "condition": ["in-memory", "scale", "replication", "in-memory"],
                      "verdict": ["does not", "does not", "not tested (no runs)", "replicates"]})  # fmt: skip
    # S2-ops-cap is a claim of its own (in-memory): only the suffix the plan appends for a condition goes
    assert claim_ids(c).to_list() == ["S1-zipf", "S1-zipf", "S1-hot", "S2-ops-cap"]
    assert claims_sentence(c) == "four verdicts on three claims: one replicates, two do not and one waits for runs"


def test_queue_depth_and_lost_events_in_words_from_the_counts():
    from blkscope.paper.numbers import lost_phrase
    from blkscope.paper.study_numbers import above_one_phrase

    assert above_one_phrase(0, 24) == "none of the 24 runs kept more than one request in flight on average"
    assert above_one_phrase(0, 27, 0.17) == "the 27 runs kept at most 0.17 requests in flight on average"
    assert above_one_phrase(3, 24).startswith("3 of the 24 runs") and above_one_phrase(2, 2).startswith("all 2")
    assert lost_phrase(0) == "the tracer lost no events in any of them"
    assert lost_phrase(1) == "the tracer lost at most 1 event in any of them"


def test_equal_values_per_place_are_said_once():
    from blkscope.paper.latex import on_each

    assert on_each([("1.0 %", "ext4"), ("1.0 %", "xfs"), ("1.0 %", "btrfs")]) == "1.0 % on each of ext4, xfs and btrfs"
    assert on_each([("1.1 %", "ext4"), ("4.5 %", "xfs")]) == "1.1 % on ext4 and 4.5 % on xfs"
    assert on_each([("1.1 %", "ext4")]) == "1.1 % on ext4"


def test_a_range_of_two_numbers_gets_an_en_dash_and_nothing_else_does():
    from blkscope.paper.latex import escape
    from blkscope.paper.pdf_words import squash

    assert escape("runs of 2-242 s; 24-36 %; 2.28-6.85x") == r"runs of 2--242 s; 24--36 \%; 2.28--6.85x"
    for same in ("2026-11-29", "x86-64", "1.4e-05", "S1-hot-f2fs", "round3-decide-2", "95--115", "a 2-s run"):
        assert escape(same) == same
    assert escape("-3.2 % to 1.5 %").startswith(r"\ensuremath{-}3.2")
    # the PDF check compares a plain-text cell ("2-242 s") with the en dash the PDF prints
    assert squash("runs of 2-242 s") == squash("runs of 2\u2013242 s")
