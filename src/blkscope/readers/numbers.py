"""Numbers as benchmark tools print them, in any locale.

Java and C tools follow the user's locale: ru_RU prints `251,4` and `35 298` (thousands grouped
with U+00A0 or U+202F), de_DE `1.234,5`, en_US `1,234.5`. The caller says which mark is the
decimal one (see `guess_decimal`); every grouping character is then dropped.
"""

from __future__ import annotations

import re

GROUPING = "\u00a0\u202f\u2009 '’_"  # NBSP, narrow NBSP, thin space, space, apostrophes (de_CH), underscore
_INF = {"∞", "inf", "infinity", "+inf", "+infinity"}
_NAN = {"nan", "-nan"}
_CLEAN = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_COMMA_DECIMAL = re.compile(r"^-?\d+,\d+$")  # "0,00", "251,4": comma as decimal mark
_DOT_GROUPED = re.compile(r"^-?\d{1,3}(\.\d{3})+,\d+$")  # "1.234,5"


def parse_number(s: str, decimal: str = ".") -> float:
    """`s` as a float; `decimal` is "." or ","; raises ValueError for anything else."""
    t = s.strip()
    low = t.lower()
    if low in _INF:
        return float("inf")
    if low in _NAN:
        return float("nan")
    for ch in GROUPING:
        t = t.replace(ch, "")
    # the other mark can only be grouping
    t = t.replace(".", "").replace(",", ".") if decimal == "," else t.replace(",", "")
    if not _CLEAN.match(t):
        raise ValueError(f"not a number: {s!r}")
    return float(t)


def parse_any(s: str) -> float:
    """`s` as a float in whichever locale it shows (guess_decimal of `s` alone). A plain ASCII decimal ("1431.91",
    "66", "1e5") reads the same in every locale here, so it skips the guess: YCSB's status lines hold ~10^6
    of them, and the guess cost most of the YCSB reader's time."""
    if _CLEAN.match(s):
        return float(s)
    return parse_number(s, guess_decimal([s]))


def parse_int(s: str, decimal: str = ".") -> int:
    v = parse_number(s, decimal)
    if v != int(v):
        raise ValueError(f"not an integer: {s!r}")
    return int(v)


def guess_decimal(samples: list[str]) -> str:
    """"," if these number strings use a decimal comma ("0,00", "1.234,5"), else "."."""
    for s in samples:
        t = "".join(ch for ch in s.strip() if ch not in GROUPING)
        if _DOT_GROUPED.match(t):
            return ","
        if _COMMA_DECIMAL.match(t) and not re.match(r"^-?\d{1,3}(,\d{3})+$", t):
            return ","
    return "."
