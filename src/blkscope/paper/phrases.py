"""Phrases that characterise numbers, picked from the numbers by a stated rule, so that a sentence stays true
whichever numbers the data give (the prose check, blkscope.paper.prose, rejects the same words typed).

Rules: a count of a whole is "none of the N", "all N" ("both" for two) or "k of the N" (k_of_n); a filesystem
leads a set of setups when it has the largest value in more of them than any other filesystem (leader); a ratio
against a threshold is "at least" or "short of" it, printed with the digits that keep the two apart (against)."""

from __future__ import annotations

import re
from collections import Counter

from blkscope.paper.claim_heterogeneity import i2_text
from blkscope.paper.claim_verdict import OUTSIDE, STRATA_DISAGREE
from blkscope.paper.latex import count_word, fmt_float, fmt_int


def k_of_n(k: int, n: int, noun: str) -> str:
    """"none of the 12 runs", "all 12 runs", "both runs", "one of the 12 runs", "5 of the 12 runs" (n >= 1)."""
    many = fmt_int(n) if n > 9 else count_word(n)
    if k == 0:
        return f"none of the {many} {noun}"
    if k == n:
        return f"all {many} {noun}" if n > 2 else f"both {noun}" if n == 2 else f"the one {noun.removesuffix('s')}"
    return f"{fmt_int(k) if n > 9 else count_word(k)} of the {many} {noun}"


def leader(rows: list[dict[str, float | None]]) -> tuple[str | None, int, int]:
    """Over setups (each a {filesystem: value} mapping, None for a missing value), the filesystem with the largest
    value in the most setups, in how many, and over how many setups with every value present and more than one
    filesystem (a setup run on one filesystem alone compares nothing; a tie for the most setups: None)."""
    full = [r for r in rows if len(r) > 1 and all(v is not None and v == v for v in r.values())]
    tops = Counter(max(r, key=lambda fs: r[fs]) for r in full)
    if not tops:
        return None, 0, 0
    (fs, k), *rest = tops.most_common()
    if rest and rest[0][1] == k:
        return None, k, len(full)
    return fs, k, len(full)


def against(ratio: float, threshold: float, digits: int = 1) -> tuple[str, str]:
    """(the ratio as printed, "at least" or "short of"): `ratio` rounded so that the printed value falls on the
    same side of `threshold` as the ratio does (9.96 against 10 prints 9.96, not 10.0)."""
    side = "at least" if ratio >= threshold else "short of"
    for d in range(digits, digits + 4):
        printed = fmt_float(ratio, d)
        if (round(ratio, d) >= threshold) == (ratio >= threshold):
            return printed, side
    return fmt_float(ratio, digits + 4), side


def _finite(*vals: object) -> bool:
    return all(isinstance(v, int | float) and v == v for v in vals)


def no_effect(r: dict) -> float | None:
    """The value of no effect for a claim row's estimate: one for a ratio ("1.01x [...]"), zero for a difference (a
    cost in %, KiB, us); None for a level with no such value (a rank exponent, a latency in ms, a share)."""
    ours = str(r.get("ours") or "")
    if "x [" in ours or ours.endswith("x"):
        return 1.0
    if str(r.get("band_words") or "").startswith((">", "the same")) or " ms" in ours:
        return None  # a share or a level against a threshold
    return 0.0 if any(f" {u}" in ours for u in ("%", "KiB", "us")) else None


def one_sided(r: dict) -> bool:
    """A claimed size that is a direction ("btrfs/ext4 < 1", "ext4/xfs > 1"): one end at the floor (zero for a
    ratio) or unbounded."""
    blo, bhi = r.get("claimed_lo"), r.get("claimed_hi")
    return bhi == float("inf") or (no_effect(r) == 1.0 and blo == 0)


def band_what(words: str) -> str:
    """The claimed size a phrase places an interval against: "the equivalence margin" for a claim of "the same",
    "the > 0 KiB claimed" for a bare threshold, "the claimed <band words>", or "the claimed size" without words."""
    if re.fullmatch(r"[<>]=? [\d.]+ \S+", words):  # a bare threshold: "the > 0 KiB claimed"
        return f"the {words} claimed"
    return "the equivalence margin" if words.startswith("the same") else f"the claimed {words}" if words else (
        "the claimed size")


NEAR = 0.05  # an estimate within 5 % of no effect (a ratio within 0.05 of one) is "near one"
WIDE = 10.0  # a ratio's interval whose ends lie more than this factor apart says little: "uninformative"


def near_no_effect(r: dict) -> bool:
    """An estimate near no effect, on the claim's own scale: a ratio within NEAR of one; a difference within NEAR
    of the claimed size (its smallest finite end other than zero), so that a 0.4-point difference is near zero
    against a claimed 24-36 % and not against a claimed 0.1-0.9 us; a difference against a bare direction
    ("> 0 KiB", no size) is never near."""
    ref, est = no_effect(r), r.get("estimate")
    if ref is None or not _finite(est):
        return False
    if ref == 1.0:
        return abs(est - 1.0) < NEAR
    sizes = [abs(e) for e in (r.get("claimed_lo"), r.get("claimed_hi")) if _finite(e) and abs(e) != float("inf")
             and e != 0]
    return bool(sizes) and abs(est) < NEAR * min(sizes)


_PRINTED = re.compile(r"\[(-?\d+(?:\.\d+)?)x, (-?\d+(?:\.\d+)?)x\]")  # a ratio's interval as printed


def wide(r: dict) -> str:
    """", uninformative: its ends 55 times apart" for a ratio whose interval's ends lie more than WIDE
    apart (hi / lo; S4-reader's 0.89x to 48.93x), from the ends as printed beside it (claims.csv `ours`: issue Q
    review, [0.08x, 11.48x] said "152 times apart" from the unrounded ends); "" otherwise."""
    lo, hi = r.get("lo"), r.get("hi")
    # the printed ends, but where the lower one prints as 0.00x the unrounded ones: the widest would go unsaid
    if (m := _PRINTED.search(str(r.get("ours") or ""))) and float(m.group(1)) > 0:
        lo, hi = float(m.group(1)), float(m.group(2))
    if no_effect(r) != 1.0 or not _finite(lo, hi) or lo <= 0 or hi / lo <= WIDE:
        return ""
    return f", uninformative: its ends {hi / lo:.0f} times apart"


def where(r: dict, short: bool = False) -> str:
    """Where a judged row's interval lies against the claimed size (_where), and whether it says little (wide)."""
    return _where(r, short) + (wide(r) if _where(r, short) else "")


def _where(r: dict, short: bool = False) -> str:
    """Where a judged row's interval lies against the claimed size (band edges claimed_lo, claimed_hi; the claims
    table's words band_words) and which way it points, for every row of Section X and the advice. Against a size:
    "inside the claimed 2-3x", "overlaps the low end of the claimed 24-36 %", "wholly below the claimed
    2.28-6.85x", "spans the whole claimed 3.18x"; against a direction ("ext4/xfs > 1"): "inside" it, "wholly
    below" it or "across the end of" it. Then the direction, where the claim has one and the estimate has a value
    of no effect (no_effect): "direction as claimed" or "direction opposite" for an interval on one side of no
    effect, "estimate as claimed, interval across one" (or "opposite", "across zero"; "estimate near one" for one
    near no effect, near_no_effect) for one spanning it; then ", uninformative: ..." for a ratio's interval wider
    than a factor of WIDE (wide); said
    once (an interval inside a direction is its direction). `short` (the advice's evidence): the position, and the
    direction only where the interval lies wholly opposite. "" for a row without an interval or band."""
    lo, hi, blo, bhi, est = (r.get(k) for k in ("lo", "hi", "claimed_lo", "claimed_hi", "estimate"))
    if not _finite(lo, hi, est) or not (_finite(blo) and isinstance(bhi, int | float)):
        return ""
    words = str(r.get("band_words") or "").strip()
    same = words.startswith("the same")
    what = band_what(words)
    if re.fullmatch(r"[\d.]+x", words) and _finite(bhi):  # one claimed ratio read as a band: name the band
        what = f"the band {blo:.2f}-{bhi:.2f}x around the claimed {words}"
    inside = lo >= blo and hi <= bhi
    if hi < blo or lo > bhi:
        pos = f"wholly {'below' if hi < blo else 'above'} {what}"
    elif inside:
        pos = f"inside {what}"
    elif one_sided(r):
        pos = f"across the end of {what}"
    elif lo < blo and hi > bhi:
        pos = f"spans the whole {what.removeprefix('the ')}"
    else:
        pos = f"overlaps the {'low' if lo < blo else 'high'} end of {what}"
    ref = no_effect(r)
    if ref is None or same or blo < ref < bhi or (inside and one_sided(r)):
        return pos  # no direction claimed (an equivalence, a level), or the position says it
    up = blo >= ref  # the claimed direction: above no effect
    if lo > ref or hi < ref:
        if short and (lo > ref) == up:
            return pos
        return f"{pos}, direction {'as claimed' if (lo > ref) == up else 'opposite'}"
    if est == ref or short:
        return pos
    if near_no_effect(r):  # "estimate as claimed" for 1.01x would read as agreement with a claimed 2.28x
        way = f"{pos}, estimate near {'one' if ref else 'zero'}"
    else:
        way = f"{pos}, estimate {'as claimed' if (est > ref) == up else 'opposite'}"
    if one_sided(r):  # across a direction's end is across no effect
        return way
    return f"{way}, interval across {'one' if ref else 'zero'}"


def planned_first(r: dict) -> str | None:
    """A row the condition rule labelled (claims.csv `verdict_planned`) as the headline counts it: its
    planned, Holm-adjusted verdict first, then the condition its runs are outside of ("does not; outside the
    study's condition: light load", a confound after it: "...; traced arm faster: a confound"); None for any
    other row. The rule was set after the estimates were seen, so it is a caveat, not the verdict (issue Q)."""
    parts = ruled_parts(r)
    return "; ".join(parts) if parts else None


def ruled_parts(r: dict) -> tuple[str, str] | None:
    """planned_first's two parts: the planned verdict, and the rule's condition (with a confound after it)."""
    planned, caveat = r.get("verdict_planned"), str(r.get("caveat") or "")
    if not planned or not caveat:
        return None
    from blkscope.paper.claims import TRACED_FASTER, ruling

    rest = [TRACED_FASTER] if TRACED_FASTER in caveat.split(", ") else []
    return str(planned), "; ".join([f"{OUTSIDE}: {ruling(caveat) or caveat}", *rest])


def planned_moved(r: dict) -> str:
    """", does not before Holm" after a condition-rule row's planned verdict where the correction moved it, else ""."""
    before = str(r.get("verdict_planned_unadjusted") or "")
    return f", {before.replace(' (exact)', '')} before Holm" if before and before != r.get("verdict_planned") else ""


def verdict_text(r: dict) -> str:
    """A row's verdict for a sentence, with no parenthesis inside (the sentence puts it in one): "does not, exact",
    "not tested: no runs", and a row of the condition rule as planned_first gives it, "does not; outside the
    study's condition: light load"."""
    v = str(r.get("verdict") or "")
    if first := planned_first(r):
        return first.replace(" (exact)", ", exact")
    return re.sub(r" \(([^()]*)\)$", lambda m: (", " if m.group(1) == "exact" else ": ") + m.group(1), v)


NARROWED = "narrowed after its estimate was seen"


def deviated(r: dict, narrowed: bool = True) -> str:
    """What the plan's deviations did to a row, for beside its verdict: "; measure changed after the plan" (claims.csv
    `measure_changed`), "; narrowed after its estimate was seen, to runs of at least 60 s" (`narrowed`; not where
    the sentence gives the narrowing with its estimate before, claims_plan_tex.narrowed's Claim<Id>Narrowed), or
    ""."""
    out = "; measure changed after the plan" if r.get("measure_changed") else ""
    return out + (f"; {NARROWED}, {r['narrowed']}" if narrowed and r.get("narrowed") else "")


POOLED_PLAN = "by the plan's pooling rule, replaced once the estimates were seen"


def verdict_kind(v: str) -> str:
    """A verdict's kind, its first words: "inconclusive" of "inconclusive: strata disagree"."""
    return next((k for k in ("replicates", "does not", "inconclusive") if v.startswith(k)), v)


def pooled_otherwise(r: dict, verdict: str) -> str:
    """The plan's pooled verdict of a row (claims.csv `verdict_pooled_plan`, the plan's random-effects verdict) where
    it is of another kind than `verdict`, the row's verdict as counted; else "". The one test of whether the change
    of pooling rule, made once the estimates were seen, moved a row (the claims table, the split sentence and the
    abstract's note read it)."""
    plan = str(r.get("verdict_pooled_plan") or "")
    return plan if plan and verdict_kind(plan) != verdict_kind(verdict) else ""


def pooling_moved(r: dict) -> str:
    """Beside a row whose verdict as counted (its planned one where the condition rule labelled it) the change of
    pooling rule moved (pooled_otherwise): "; does not by the plan's pooling rule, replaced once the estimates were
    seen"; else ""."""
    plan = pooled_otherwise(r, str(r.get("verdict_planned") or r.get("verdict") or ""))
    return f"; {plan} {POOLED_PLAN}" if plan else ""


def says(r: dict) -> str:
    """One short clause per row for Section X (the full placement is in the claims table): the verdict
    (verdict_text), with the row's own where Holm's correction moved it, the flag of a measure changed after the
    plan, and then where its interval lies (where, short); for a row whose strata disagree (no pooled interval),
    how many, and a decided verdict as every stratum's; for a row counted with another, that it is."""
    v = verdict_text(r)
    changed = ", measure changed after the plan" if r.get("measure_changed") else ""
    if planned_first(r):  # the planned verdict, as moved by Holm and changed, then the rule's caveat
        head, tail = v.split("; ", 1)
        return f"{head}{planned_moved(r)}{changed}; {tail}"
    if str(r.get("verdict") or "").startswith("not test"):
        return v + changed
    if r.get("caveat"):  # a caveat the rule does not rule on (a traced arm faster): beside the verdict
        changed += f"; {r['caveat']}"
    before = str(r.get("verdict_unadjusted") or "")
    if before and before != str(r["verdict"]):
        v += f", {before.replace(' (exact)', '')} before Holm"
    v += changed
    k = str(r["per_stratum"]).split(", ")[-1] if r.get("per_stratum") else ""  # "14 strata disagree"
    if k:  # one wording in every row: "inconclusive: 3 strata disagree" (review: the same_as row said it apart)
        v = v.replace(STRATA_DISAGREE, f"inconclusive: {k}")
    if r.get("same_as"):
        return f"{v}; counted with {r['same_as']}"
    if k:  # each judged on its own interval
        if v.startswith(("replicates", "does not")):  # every stratum alike: only their sizes differ
            return f"{v} in every stratum; {sizes_differ(r, k)}"
        return v if v.startswith("inconclusive: ") else f"{v}; {k}"
    w = where(r, short=True)
    return f"{v}; {w}" if w else v


def sizes_differ(r: dict, k: str) -> str:
    """Strata that each decide alike but were flagged as disagreeing (I^2 or Cochran's Q): what differs is their size,
    "their sizes differ, I squared 55 %" (no parenthesis: a sentence quotes it inside one; review: "replicates in
    every stratum; 2 strata disagree"); `k` without an I squared."""
    i2 = r.get("i2")
    return f"their sizes differ, I squared {i2_text(i2)} %" if i2 is not None else k


def shown(r: dict) -> str:
    """A row's estimate for a sentence: its interval, or for a row whose strata disagree their range ("per stratum
    1.03x to 5.40x"): no pooled figure."""
    if r.get("per_stratum"):
        return str(r["per_stratum"]).split(", ")[0]
    ours = str(r.get("ours") or "--")  # an exact value (claims.NO_SPREAD): "69.3 KiB, the same in every run"
    return ours.replace(" (no spread between runs: no interval)", ", the same in every run")


_PER = re.compile(r"\b(per [\d,]+ \w+)$")


def per_what(r: dict) -> str:
    """The unit a row's quantity counts per ("per 1,000 reads" of "... KiB written per 1,000 reads"), "" if none."""
    m = _PER.search(str(r.get("quantity") or ""))
    return m.group(1) if m else ""


def plan_status(r: dict) -> str:
    """"confirmatory" for a row whose runs were captured after the claims plan (the scale and replication
    conditions), "post hoc" for one of the in-memory condition, whose runs came before it."""
    return "confirmatory" if str(r.get("condition") or "in-memory") in ("scale", "replication") else "post hoc"


def median_pct(x: float, digits: int = 1) -> str:
    """A median share in words: "median 2.3 %", but for one that rounds to zero "median under 0.05 % either way"
    ("median 0.0 %" reads as a measured zero, "median -0.0 %" as a sign)."""
    from blkscope.paper.latex import fmt_pct

    if round(100 * x, digits) == 0:
        return f"median under {fmt_pct(0.5 * 10 ** -digits / 100, digits + 1)} either way"
    return f"median {fmt_pct(x, digits)}"


def util_pct(x: float) -> str:
    """A device's busy share in % (iostat %util) with the digits that keep a small one from reading as zero: one
    decimal under 10 (0.4, 7.2), none above (63)."""
    from blkscope.paper.latex import fmt_float

    return fmt_float(x, 1 if abs(x) < 10 else 0)


def repeated_clause(text: str, words: int = 3) -> str | None:
    """A clause a sentence or cell prints twice ("in memory, runs of 2 s; in memory, runs of 2 s"; "outside the
    study's condition: in memory, a cold start; in memory, a cold start"): of its "; "-separated parts (their text
    after a label's colon too), one of at least `words` words that another part repeats or ends with; None where
    none."""
    parts = [p.strip() for p in re.split(r";\s+", text) if p.strip()]
    seen: list[str] = []
    for p in parts:
        tails = {p, p.split(": ", 1)[-1]}
        for q in seen:
            for t in tails:
                if len(t.split()) >= words and (q == t or q.endswith(t) or t.endswith(q) and len(q.split()) >= words):
                    return t
        seen.extend(tails)
    return None
