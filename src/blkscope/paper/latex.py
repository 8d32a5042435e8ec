"""Formatting values for LaTeX: escaping, thousands separators, macro names."""

from __future__ import annotations

import re

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_DIGITS = ["Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"]


def escape(text: object) -> str:
    return "".join(_SPECIAL.get(ch, ch) for ch in str(text))


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
    return "--" if x is None else tidy(f"{int(round(x)):,}").replace(",", "{,}")


def fmt_float(x: float | None, digits: int = 1) -> str:
    if x is None:
        return "--"
    return tidy(f"{x:,.{digits}f}").replace(",", "{,}")


def fmt_pct(x: float | None, digits: int = 1) -> str:
    return "--" if x is None else tidy(f"{100 * x:.{digits}f}") + "\\,\\%"


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


def counted(n: int, singular: str, plural: str, zero: str = "no") -> str:
    """"no lost events", "one run", "12 runs": a count with its noun in the right number."""
    return f"{count_word(n, zero)} {singular if int(n) == 1 else plural}"


def join_and(items: list[str], last: str = "and") -> str:
    """"a", "a and b", "a, b and c" (or `last`: "a, b or c")."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {last} " + items[-1]


def enumerate_counts(parts: list[tuple[int, str, str]]) -> str:
    """Counts with their predicates in agreement, the zero ones left out: [(12, 'replicates', 'replicate'),
    (0, ...), (1, 'is inconclusive', 'are inconclusive')] -> "12 replicate and 1 is inconclusive" (digits
    throughout once one count is above nine; "two replicate and one is inconclusive" otherwise)."""
    digits = any(n >= len(_WORDS) for n, _, _ in parts)  # a series with a number above nine: digits throughout
    items = [f"{fmt_int(n) if digits else count_word(n)} {one if n == 1 else many}" for n, one, many in parts if n]
    return join_and(items) if items else "none"
