"""README.md, read first (issue R item 6): the two commands, then the prerequisites, then using it, in at most about
150 lines; and what it names exists: the files and folders of the checkout, the make targets, the blkscope verbs
and their options. (Outputs of the workflow are checked to be under what `make clean` removes, not to exist.)"""

import re
from pathlib import Path

import pytest

from blkscope.cli import build_parser
from blkscope.cli.verbs import TOPIC_OF

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"(?s)```\n(.*?)```", TEXT) + re.findall(r"(?m)^    (\S.*)$", TEXT)  # fenced and indented code
SPANS = [" ".join(s.split()) for s in re.findall(r"`([^`]+)`", re.sub(r"(?s)```.*?```", "", TEXT))]
# the workflow's outputs (`make clean` removes them): named, not in a fresh checkout
OUTPUTS = re.search(r"(?m)^clean:\n\trm -rf (.*)$", (ROOT / "Makefile").read_text()).group(1).split()
# named for what they will be: made by their first use, or beside the checkout (said so where they are named)
NOT_IN_CHECKOUT = {"config/imported.tsv": "made by the first `blkscope import`", "report.html": "make report",
                   "../shared/samples": "beside the checkout", "../shared/STUDIES.md": "beside the checkout"}


def _braces(s: str) -> list[str]:
    """`a/{b,c}.txt` -> a/b.txt, a/c.txt (one group, as the README writes them)."""
    m = re.search(r"\{([^{}]*,[^{}]*)\}", s)
    return [s[:m.start()] + x + s[m.end():] for x in m.group(1).split(",")] if m else [s]


def _paths() -> list[str]:
    """Backticked words that name a path (a slash in them), without a placeholder (<run_id>, *, ~, ...)."""
    out = []
    for span in SPANS:
        if re.match(r"(blkscope|make|snakemake) ", span):  # a command line: test_every_make_target...
            continue
        for word in span.split():
            if "/" in word and not re.search(r"[<>*~]|\.\.\.|^-|://", word):
                out += _braces(word.rstrip(",;:"))
    return out


def test_the_two_commands_come_first_then_prerequisites_then_using_it():
    lines = TEXT.splitlines()
    assert len(lines) <= 150
    assert [c.split("#")[0].strip() for c in BLOCKS[0].splitlines()] == ["make all", "make test"]
    assert TEXT.index("```") < TEXT.index("\n## ")  # the commands before any section
    assert [x for x in lines if x.startswith("## ")][:2] == ["## Prerequisites", "## Using it"]


def test_every_path_it_names_is_in_the_checkout_or_an_output():
    paths = _paths()
    assert len(paths) > 40  # the check reads what the README names
    missing = []
    for p in paths:
        if p in NOT_IN_CHECKOUT or any(p == o or p.startswith(o.rstrip("/") + "/") for o in OUTPUTS):
            continue
        if not any((base / p).exists() for base in (ROOT, ROOT / "src/blkscope")):  # capture/x.py: the package's
            missing.append(p)
    assert not missing


def test_every_make_target_and_blkscope_verb_and_option_it_names_exists():
    targets = set(re.findall(r"(?m)^([a-z-]+):", (ROOT / "Makefile").read_text()))
    commands = [c.split("#")[0].strip() for b in BLOCKS for c in b.splitlines()] + SPANS
    made = {m for c in commands for m in re.findall(r"^make (\w+)", c)}
    assert made and made <= targets
    used = [c for c in commands if c.startswith("blkscope ") and not c.startswith("blkscope --")]
    assert len(used) >= 6
    for c in used:
        verb = c.split()[1]
        assert verb in TOPIC_OF, c
        sub = build_parser(verb)._subparsers._group_actions[0].choices[verb]
        options = {o for a in sub._actions for o in a.option_strings}
        assert set(re.findall(r"(?<!\w)--[a-z-]+", c)) <= options, c


@pytest.mark.parametrize("path", sorted(NOT_IN_CHECKOUT))
def test_what_is_not_in_the_checkout_is_said_so_where_it_is_named(path):
    assert path in TEXT
    if path.startswith("../"):
        assert re.search(re.escape(path) + r"`[^.]*beside the checkout", " ".join(TEXT.split()))
