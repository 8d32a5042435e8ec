"""The paper's prose may state no number of its own: every number is a macro generated from the data (\\blk{...},
or a macro the numbers files define) or a literature macro (\\Lit...). The paper rule runs this check before
LaTeX, so `make all` fails on a typed number. Allowed: years (1990 to 2030, after a word that dates), the
numbers inside references, labels, citations and file names, code set in \\texttt (a command line, an option),
and identifiers whose digits follow a letter (ext4, f2fs, S1-zipf, p99, Q2Q, inode64).

Words that characterise a range (``rarely'', ``about one'', ``mostly'') must come from the data too: they are
reported unless a macro writes them (a phrase macro picks its words from the numbers, blkscope.paper.latex).

    python -m blkscope.paper.prose paper/sections/*.tex [--words-only paper/generated/figures/*.tex]

Generated text (the figures' captions, after --words-only) is checked for range words alone.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# commands whose argument is not prose: cross-references, citations, files, code, environments, float placement
_ARG_COMMANDS = ("ref", "pageref", "label", "cite", "input", "include", "optsection", "optinput", "blk",
                 "includegraphics", "texttt", "begin", "end", "url", "bibliography", "bibliographystyle",
                 "IfFileExists", "ifdefined", "ifcsname")  # fmt: skip
_ARGS = re.compile(r"\\(?:" + "|".join(_ARG_COMMANDS) + r")\*?(?:\[[^\]]*\])?\{(?:[^{}]|\{[^{}]*\})*\}")
_COMMENT = re.compile(r"(?<!\\)%.*")
_MACRO = re.compile(r"\\[A-Za-z@]+")
_OPTIONS = re.compile(r"\\begin\{[a-z*]+\}\[[^\]]*\]")  # float placement [tbp]
_NUMBER = re.compile(r"(?<![A-Za-z0-9.])\d+(?:[.,]\d+|\{,\}\d+)*")
# a year: a four-digit token from 1990 to 2030 after a word that dates ("in 2019", "since 2021", "(2007)", "May
# 2018"); not any number from 1900 to 2099 anywhere (review: "2048 requests" passed as a year)
_YEAR = re.compile(r"199\d|20[0-2]\d|2030")
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DATES = re.compile(rf"(?:\b(?:in|since|until|before|after|{_MONTHS})\s+|\()$", re.I)
# Words that characterise a range or a comparison in fixed words: their truth depends on numbers that can change
# with the data (a quantifier, a degree, a direction stated for all cases). A sentence needs them from a phrase
# macro that picks its words by a stated rule (blkscope.paper.phrases), or not at all. A studies' own words are
# quoted (``...'') and pass: they report what a write-up said, not what our data show.
RANGE_WORDS = ("rarely", "about one", "mostly", "almost all", "almost none", "nearly all", "hardly", "seldom",
               "usually", "most of them", "most runs", "far more", "far fewer", "far less", "far larger",
               "far smaller", "far higher", "far lower", "much more", "much less", "much larger", "much smaller",
               "much faster", "much slower", "much higher", "much lower", "many more", "many fewer", "roughly",
               "barely", "almost no", "almost nothing", "almost never", "order of magnitude", "orders of magnitude",
               "everywhere", "alike", "similar", "never", "always", "negligible", "a few", "several times",
               "often", "typically", "largely", "mainly", "many of", "few of", "the same as")  # fmt: skip
# "most" alone ("differ most", "most panels"), not the bound "at most"
_RANGE = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in RANGE_WORDS) + r"|(?<!at\s)most)\b", re.I)
_QUOTED = re.compile(r"(?s)``.*?''")


def prose(tex: str) -> str:
    """The prose of a LaTeX source: comments, command arguments that are not prose and macro names removed
    (a removed span keeps its newlines, so line numbers hold)."""

    def blank(m: re.Match) -> str:
        return re.sub(r"[^\n]", " ", m.group())

    body = tex.find(r"\begin{document}")
    if body > 0:  # a preamble sets lengths and counters, not prose
        tex = blank(re.match(r"(?s).*", tex[:body])) + tex[body:]

    for rx in (_COMMENT, _OPTIONS, _ARGS, _MACRO):
        tex = rx.sub(blank, tex)
    return tex


def typed_numbers(tex: str) -> list[tuple[int, str, str]]:
    """(line, number, context) of every number the prose types: not a year, not part of an identifier."""
    text = prose(tex)
    out = []
    for m in _NUMBER.finditer(text):
        if _YEAR.fullmatch(m.group()) and _DATES.search(text[max(0, m.start() - 12): m.start()]):
            continue
        line = text.count("\n", 0, m.start()) + 1
        context = " ".join(tex.splitlines()[line - 1].split())
        out.append((line, m.group(), context))
    return out


def range_words(tex: str) -> list[tuple[int, str, str]]:
    """(line, words, context) of every phrase that characterises a range in the prose's own words (a quoted span,
    a study's words, passes)."""
    text = _QUOTED.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), prose(tex))
    out = []
    for m in _RANGE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        out.append((line, m.group(), " ".join(tex.splitlines()[line - 1].split())))
    return out


def check(paths: list[Path], words_only: bool = False) -> list[str]:
    """Typed numbers and range words of each file; `words_only`: range words alone (generated text, a figure's
    caption, prints the numbers its code computed)."""
    problems = []
    for p in paths:
        tex = p.read_text()
        for line, num, ctx in [] if words_only else typed_numbers(tex):
            problems.append(f"{p}:{line}: the number {num!r} is typed, not a macro: {ctx}")
        for line, words, ctx in range_words(tex):
            problems.append(f"{p}:{line}: {words!r} characterises a range without a macro: {ctx}")
    return problems


# the generated files whose macros are composed for the paper's text (phrases, counts, the plan's figures): each is
# printed somewhere, or it is dead output that tests keep alive. The files of per-setup numbers (runs.tex, load.tex,
# characterise.tex, ...) are tables of values the text picks from, as are the per-row clauses of the claims table
# (Claim<Id>Says, Claim<Id>Shown, and Claim<Id>Narrowed beside a narrowed claim's number: Section X names the rows
# it discusses).
COMPOSED = ("advice.tex", "claims_plan.tex")
PER_ROW = re.compile(r"^Claim(?!s[A-Z])[A-Za-z]+(?:Says|Shown|Narrowed)$")
_DEFINED = re.compile(r"\\(?:re)?newcommand\{?\\([A-Za-z]+)\}?")


def unused_macros(generated: list[Path], sources: list[Path]) -> list[str]:
    """The macros `generated` defines that no file of `sources` (nor another generated file) uses, per-row
    clauses (PER_ROW) aside: "advice.tex: AdviceInconclusive is printed nowhere"."""
    used = ""
    for f in [*sources, *generated]:
        used += _DEFINED.sub("", f.read_text()) + "\n"
    names = set(re.findall(r"\\blk\{([A-Za-z]+)\}", used)) | set(re.findall(r"\\([A-Za-z]+)", used))
    return [f"{f.name}: {m} is printed nowhere" for f in generated for m in _DEFINED.findall(f.read_text())
            if m not in names and not PER_ROW.match(m)]


def main(argv: list[str] | None = None) -> int:
    args = list(argv if argv is not None else sys.argv[1:])
    generated = args[args.index("--words-only") + 1:] if "--words-only" in args else []
    paths = [Path(a) for a in args[: len(args) - len(generated) - (1 if "--words-only" in args else 0)]]
    if not paths and not generated:
        print("usage: python -m blkscope.paper.prose FILE.tex ... [--words-only GENERATED.tex ...]", file=sys.stderr)
        return 2
    problems = check(paths) + check([Path(g) for g in generated], words_only=True)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"blkscope: {len(problems)} number(s) or range word(s) in the paper's prose without a macro",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
