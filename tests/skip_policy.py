"""`--strict-skips` (`make test`, `.ci/run`): a skip fails the run unless tests/allowed_skips.toml lists it.

Each entry of the list names the tests (`tests`: an fnmatch pattern of node ids), the skip's reason (`reason`: a
regular expression searched in it), why it may skip (`why`) and what it would take to run it (`to_run`). A skip
that no entry matches is reported as a failure with its reason and where it was raised; `-rs` prints the others.
tests/conftest.py imports the hooks below."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

DEFAULT_LIST = Path(__file__).with_name("allowed_skips.toml")
FIELDS = ("tests", "reason", "why", "to_run")
ALLOWED = pytest.StashKey["list[Allowed] | None"]()


@dataclass(frozen=True)
class Allowed:
    tests: str
    reason: re.Pattern
    why: str
    to_run: str

    def matches(self, nodeid: str, reason: str) -> bool:
        return fnmatch.fnmatchcase(nodeid, self.tests) and self.reason.search(reason) is not None


def load(path: Path) -> list[Allowed]:
    """The list's entries; a malformed one stops the run naming the file and entry."""
    entries = tomllib.loads(path.read_text()).get("skip", [])
    out = []
    for i, e in enumerate(entries, 1):
        missing = [f for f in FIELDS if not str(e.get(f, "")).strip()]
        if missing:
            raise pytest.UsageError(f"{path}: skip entry {i} lacks {', '.join(missing)}")
        out.append(Allowed(e["tests"], re.compile(e["reason"]), e["why"], e["to_run"]))
    return out


def pytest_addoption(parser):
    parser.addoption("--strict-skips", action="store_true",
                     help="fail every skip whose reason tests/allowed_skips.toml does not list")
    parser.addoption("--allowed-skips", type=Path, default=DEFAULT_LIST, help="the list (default: %(default)s)")


def pytest_configure(config):
    config.stash[ALLOWED] = load(config.getoption("allowed_skips")) if config.getoption("strict_skips") else None


def _enforce(config, report, nodeid: str) -> None:
    allowed = config.stash.get(ALLOWED, None)
    if allowed is None or not report.skipped or hasattr(report, "wasxfail"):
        return
    where, reason = "", str(report.longrepr)
    if isinstance(report.longrepr, tuple):  # (path, line, "Skipped: reason")
        path, line, reason = report.longrepr
        where = f" ({path}:{line})"
    reason = reason.removeprefix("Skipped: ")
    if any(a.matches(nodeid, reason) for a in allowed):
        return
    report.outcome = "failed"
    report.longrepr = (f"skipped for a reason not on {config.getoption('allowed_skips')}: {reason}{where}\n"
                       "a skip of something `make` sets up is a failure; list it only with why and what it takes")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _enforce(item.config, outcome.get_result(), item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _enforce(collector.config, outcome.get_result(), collector.nodeid)
