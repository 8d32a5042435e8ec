"""Phrases that characterise numbers, picked from the numbers by a stated rule, so that a sentence stays true
whichever numbers the data give (the prose check, blkscope.paper.prose, rejects the same words typed).

Rules: a count of a whole is "none of the N", "all N" ("both" for two) or "k of the N" (k_of_n); a filesystem
leads a set of setups when it has the largest value in more of them than any other filesystem (leader); a ratio
against a threshold is "at least" or "short of" it, printed with the digits that keep the two apart (against)."""

from __future__ import annotations

from collections import Counter

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
