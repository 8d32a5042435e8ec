"""`--strict-skips`: a skip the list does not name fails the run; a listed one stays a skip; the list is sound."""

from __future__ import annotations

import fnmatch
import subprocess
import sys
from pathlib import Path

import pytest
from skip_policy import DEFAULT_LIST, load

HERE = Path(__file__).parent
MODULE = '''
import pytest

def test_listed():
    pytest.skip("the lab's spectrometer is not attached")

@pytest.mark.skipif(True, reason="tool X not installed")
def test_unlisted():
    pass

@pytest.mark.parametrize("x", [])
def test_empty_parameters(x):
    pass

def test_runs():
    assert True
'''
LIST = '''
[[skip]]
tests = "test_mod.py::test_listed"
reason = "spectrometer is not attached"
why = "a handmade example"
to_run = "attach it"
'''


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_mod.py").write_text(MODULE)
    (tmp_path / "handmade_allowed.toml").write_text(LIST)
    (tmp_path / "conftest.py").write_text(f"import sys\nsys.path.insert(0, {str(HERE)!r})\n"
                                          "from skip_policy import *  # noqa\n")  # fmt: skip
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-rs",
                           "--allowed-skips", "handmade_allowed.toml", *args, "test_mod.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)  # fmt: skip


def test_an_unlisted_skip_fails_and_a_listed_one_skips(tmp_path):
    p = _pytest(tmp_path, "--strict-skips")
    assert p.returncode == 1, p.stdout
    assert "1 passed, 1 skipped, 2 errors" in p.stdout, p.stdout
    assert "skipped for a reason not on handmade_allowed.toml: tool X not installed" in p.stdout
    assert "got empty parameter set" in p.stdout  # a parameter list that shrank to nothing fails too
    assert "SKIPPED [1] test_mod.py" in p.stdout and "spectrometer is not attached" in p.stdout


def test_without_the_option_skips_are_skips(tmp_path):
    p = _pytest(tmp_path)
    assert p.returncode == 0 and "1 passed, 3 skipped" in p.stdout, p.stdout


def test_a_list_entry_without_what_it_takes_is_refused(tmp_path):
    bad = tmp_path / "handmade_bad.toml"
    bad.write_text(LIST.replace('to_run = "attach it"\n', ""))
    with pytest.raises(pytest.UsageError, match="skip entry 1 lacks to_run"):
        load(bad)


def test_every_entry_of_the_list_names_existing_tests(request):
    # the ids this session collected when it collected every module here (make test's run, and each of its xdist
    # workers, does): a second collection of the whole suite in a subprocess cost ~15 CPU-s
    ids = [item.nodeid for item in request.session.items]
    if not set(HERE.glob("test_*.py")) <= {Path(item.path) for item in request.session.items}:  # a part of it
        ids = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", str(HERE)],
                             cwd=HERE.parent, capture_output=True, text=True, timeout=600).stdout.split()  # fmt: skip
    entries = load(DEFAULT_LIST)
    assert entries and len(entries) <= 10, "the list is meant to stay short"
    for e in entries:
        assert any(fnmatch.fnmatchcase(i, e.tests) for i in ids if "::" in i), e.tests
