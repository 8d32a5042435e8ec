"""Locale number parsing shared by the text readers (readers/numbers.py)."""

from __future__ import annotations

import math

import pytest

from blkscope.readers.numbers import guess_decimal, parse_any, parse_int, parse_number


@pytest.mark.parametrize(("text", "decimal", "value"), [
    ("251,4", ",", 251.4),
    ("35\u00a0298", ",", 35298.0),
    ("100\u202f000", ".", 100000.0),
    ("1.234,5", ",", 1234.5),
    ("1,234.5", ".", 1234.5),
    ("-0,93346", ",", -0.93346),
    ("3.0013", ".", 3.0013),
    ("1e3", ".", 1000.0),
])
def test_parse_number(text: str, decimal: str, value: float) -> None:
    assert parse_number(text, decimal) == value


def test_specials_and_rejects() -> None:
    assert parse_number("∞") == math.inf and math.isnan(parse_number("NaN"))
    for bad in ("", "12a", "1.2.3", "--1", "0x10"):
        with pytest.raises(ValueError):
            parse_number(bad)
    assert parse_int("100 000") == 100000
    with pytest.raises(ValueError):
        parse_int("2.5")


def test_guess_decimal() -> None:
    assert guess_decimal(["0,00", "12"]) == ","
    assert guess_decimal(["1.234,5"]) == ","
    assert guess_decimal(["1,234"]) == "."  # thousands grouping in en_US: not a decimal comma
    assert guess_decimal(["3.5", "7"]) == "."


@pytest.mark.parametrize("text", ["1431.91", "66", "0", "-3.5", "1e5", "2.5E-3", ".5", "5.", "1.234", "1,234",
                                  "0,00", "251,4", "1.234,5", "1,234.5", "35\u00a0298", " 12 ", "∞", "NaN", "+7"])
def test_parse_any_is_the_guess_of_the_value_alone(text: str) -> None:
    """parse_any's plain-decimal shortcut gives what guessing the value's own locale gives, for every form."""
    want = parse_number(text, guess_decimal([text]))
    got = parse_any(text)
    assert got == want or (math.isnan(got) and math.isnan(want))


def test_parse_any_rejects_what_parse_number_rejects() -> None:
    for bad in ("12abc", "", "1.2.3,4,5", "1,2,3.4.5"):
        with pytest.raises(ValueError):
            parse_any(bad)
