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
    return "--" if x is None else f"{int(round(x)):,}".replace(",", "{,}")


def fmt_float(x: float | None, digits: int = 1) -> str:
    if x is None:
        return "--"
    return f"{x:,.{digits}f}".replace(",", "{,}")


def fmt_pct(x: float | None, digits: int = 1) -> str:
    return "--" if x is None else f"{100 * x:.{digits}f}\\,\\%"
