import polars as pl

from blkscope.paper.latex import escape, fmt_int, fmt_pct, macro_name
from blkscope.paper.numbers import render
from blkscope.paper.tables import booktabs


def test_macro_names_are_letters_only():
    assert macro_name("top share", "randrw", "ext4") == "TopShareRandrwExtFour"
    assert macro_name("x_1", "f2fs").isalpha()


def test_escape_and_number_formats():
    assert escape("a_b & 5%") == r"a\_b \& 5\%"
    assert fmt_int(1234567) == "1{,}234{,}567"
    assert fmt_int(None) == "--"
    assert fmt_pct(0.1234) == r"12.3\,\%"


def test_render_and_booktabs():
    tex = render({"NumRuns": "12"})
    assert r"\newcommand{\NumRuns}{12}" in tex
    df = pl.DataFrame({"fs": ["ext4", "x_fs"], "n": [1, 2000]})
    t = booktabs(df, [("fs", "FS", "l", escape), ("n", "n", "r", fmt_int)], "cap", "tab:x")
    assert r"x\_fs & 2{,}000 \\" in t and r"\toprule" in t and r"\label{tab:x}" in t
