"""Formatting values for LaTeX: escaping, thousands separators, macro names."""

from __future__ import annotations

import math
import re

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_DIGITS = ["Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"]


# An opening single quote (after a space, a bracket or the start, before a character): LaTeX sets ' as a closing
# quote, so "for '1.22x better'" would print with two closing quotes; "xfs's" and "''" are left alone.
_OPEN_QUOTE = re.compile(r"(?<![\w.,;:!?)\]'`])'(?=[^\s'])")


def escape(text: object) -> str:
    """`text` for LaTeX: special characters escaped, an opening single quote as `, a range of two numbers set with
    an en dash as the paper's own ranges are (ranged: "2-242 s" -> "2--242 s"), a number's sign set as a minus
    (signed)."""
    return micro(signed(ranged(_OPEN_QUOTE.sub("`", "".join(_SPECIAL.get(ch, ch) for ch in str(text))))))


_MICRO = re.compile(r"(\d) us\b")  # claims.csv's ASCII microseconds ("1.12 us") after a number


def micro(tex: str) -> str:
    """Microseconds as the paper's prose sets them ("1.12\\,$\\mu$s"), not the tables' ASCII "us" (issue Q review:
    S4-mean printed "us" in Tables I-III); the PDF check reads the micro sign back as "u" (pdf_words._TYPESET)."""
    return _MICRO.sub(r"\1\\,$\\mu$s", tex)


# A range is two numbers joined by one hyphen, the first after no letter, digit, point or dash and the second
# followed by no digit, point or further "-digit": "2-242 s", "24-36 %", "2.28-6.85x" are ranges; "2026-11-29" (a
# date), "x86-64", "1.4e-05", "S1-hot", "round3-claims" and "95--115" are not.
_RANGE = re.compile(r"(?<![\w.\-])(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)(?![\d.]|-\d)")


def ranged(tex: str) -> str:
    """Number ranges with an en dash ("--"), as the text's own ranges: one rule for a range in the PDF."""
    return _RANGE.sub(r"\1--\2", tex)


# A sign is a hyphen before a digit that follows no letter, digit, point or dash ("-0.5", "[-3.8 %", "=-1"): in
# "S1-hot", "2--3x", "round3-claims", "1.4e-05", "95--115" the hyphen joins and stays one; "+-" before a digit is
# plus-or-minus. \ensuremath: the same minus in prose and inside $...$ (pdftotext reads it as U+2212).
_MINUS = re.compile(r"(?<![\w.\-+])-(?=\.?\d)")
_PLUS_MINUS = re.compile(r"\+-(?=\.?\d)")


def signed(tex: str) -> str:
    """A LaTeX text whose negative numbers carry a true minus sign (not a hyphen), and "+-" as plus-or-minus."""
    return _MINUS.sub(r"\\ensuremath{-}", _PLUS_MINUS.sub(r"\\ensuremath{\\pm}", tex))


def macro_name(*parts: object) -> str:
    """CamelCase letters only (LaTeX macro names cannot hold digits): ('top', 'ext4') -> TopExtFour."""
    words = []
    for part in parts:
        for w in re.split(r"[^A-Za-z0-9]+", str(part)):
            w = re.sub(r"\d", lambda m: _DIGITS[int(m.group())], w)
            if w:
                words.append(w[0].upper() + w[1:])
    return "".join(words)


def macro_file(header: str, macros: dict[str, str]) -> str:
    """A file of \\newcommand lines after `header` lines; sorted: the macros come out of group_bys in no fixed
    order, and a rerun must write the same file."""
    lines = [*header.splitlines(), *(f"\\newcommand{{\\{k}}}{{{v}}}" for k, v in sorted(macros.items()))]
    return "\n".join(lines) + "\n"


def fmt_int(x: int | float | None) -> str:
    return "--" if x is None else signed(tidy(f"{int(round(x)):,}").replace(",", "{,}"))


def fmt_float(x: float | None, digits: int = 1) -> str:
    if x is None:
        return "--"
    return signed(tidy(f"{x:,.{digits}f}").replace(",", "{,}"))


def fmt_pct(x: float | None, digits: int = 1) -> str:
    return "--" if x is None else signed(tidy(f"{100 * x:.{digits}f}")) + "\\,\\%"


# Queue depth (requests in flight: the traced time-weighted mean and iostat's aqu-sz) prints with one rule wherever
# it appears: two decimals (iostat reports aqu-sz to two, so a third is finer than one of the two instruments
# measures), and more below 0.1 so that a shallow queue keeps two significant digits (0.016, not 0.02).
DEPTH_DIGITS = 2


def fmt_depth(x: float | None) -> str:
    """A queue depth as every part of the paper prints it: 0.96, 11.37, 0.016."""
    if x is None or not math.isfinite(x) or x == 0:
        return fmt_float(x, DEPTH_DIGITS)
    return fmt_float(x, max(DEPTH_DIGITS, 1 - math.floor(math.log10(abs(x)))))


_NEG_ZERO = re.compile(r"(?<![\w.])-(0(?:\.0+)?)(?![\d.])")


def span(x, digits: int = 0) -> str:
    """"120" or "95--115": the range of a series' values, one number when it has one value ("--" when none)."""
    x = x.drop_nulls()
    if x.len() == 0:
        return "--"
    lo, hi = fmt_float(x.min(), digits), fmt_float(x.max(), digits)
    return lo if lo == hi else f"{lo}--{hi}"


def tidy(text: str) -> str:
    """A number rounded to zero is zero: "-0.0" (a small negative rounded) becomes "0.0", in a number or a text
    of numbers ("-0.0 % [-1.2 %, 1.0 %]")."""
    return _NEG_ZERO.sub(r"\1", str(text))


_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def count_word(n: int, zero: str = "no") -> str:
    """A count in prose: words up to nine (`zero` for none: "no" before a noun, "none" alone), digits above."""
    n = int(n)
    if n == 0:
        return zero
    return _WORDS[n] if 0 < n < len(_WORDS) else fmt_int(n)


def seconds_unbroken(tex: str) -> str:
    """"runs of 2-240 s" -> "runs of 2-240\\,s": a number and its unit of seconds on one line."""
    return re.sub(r"(\d) s\b", r"\1\\,s", tex)


def counted(n: int, singular: str, plural: str, zero: str = "no") -> str:
    """"no lost events", "one run", "12 runs": a count with its noun in the right number."""
    return f"{count_word(n, zero)} {singular if int(n) == 1 else plural}"


def join_and(items: list[str], last: str = "and") -> str:
    """"a", "a and b", "a, b and c" (or `last`: "a, b or c")."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {last} " + items[-1]


def on_each(pairs: list[tuple[str, str]]) -> str:
    """Values per place, an equal value said once: [("1.0 %", "ext4"), ("1.0 %", "xfs")] -> "1.0 % on each of ext4
    and xfs"; [("1.1 %", "ext4"), ("4.5 %", "xfs")] -> "1.1 % on ext4 and 4.5 % on xfs"; one pair: "1.1 % on ext4"."""
    if len(pairs) > 1 and len({v for v, _ in pairs}) == 1:
        return f"{pairs[0][0]} on each of {join_and([w for _, w in pairs])}"
    return join_and([f"{v} on {w}" for v, w in pairs])


def enumerate_counts(parts: list[tuple[int, str, str]]) -> str:
    """Counts with their predicates in agreement, the zero ones left out: [(12, 'replicates', 'replicate'),
    (0, ...), (1, 'is inconclusive', 'are inconclusive')] -> "12 replicate and 1 is inconclusive" (digits
    throughout once one count is above nine; "two replicate and one is inconclusive" otherwise)."""
    digits = any(n >= len(_WORDS) for n, _, _ in parts)  # a series with a number above nine: digits throughout
    items = [f"{fmt_int(n) if digits else count_word(n)} {one if n == 1 else many}" for n, one, many in parts if n]
    return join_and(items) if items else "none"
