"""Set-up that names what it needs: every program the tests and the captures call has its Debian package in a
deps/ list that `make test` installs, and a missing one fails naming it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from plans import snakemake
from requires import PACKAGES, check, lists

from blkscope.capture import run
from blkscope.capture.guest import build
from blkscope.capture.workloads import _CLASSES, _class

ROOT = Path(__file__).resolve().parents[1]
MAKE_TEST = ("debian-main.txt", "debian-test.txt", "debian-capture.txt", "debian-slurm.txt")


def _listed(*names: str) -> set[str]:
    return {line.split("#")[0].strip() for n in names for line in (ROOT / "deps" / n).read_text().splitlines()} - {""}


def test_make_test_installs_every_list_it_names():
    make = (ROOT / "Makefile").read_text()
    lists_ = " ".join(re.findall(r"^\t?scripts/ensure-debs\.sh (.*)$", make, re.M))
    assert {f"deps/{n}" for n in MAKE_TEST} <= set(lists_.split())


def test_every_program_of_the_tests_has_its_package_listed():
    installed = _listed(*MAKE_TEST)
    assert {p: pkg for p, pkg in PACKAGES.items() if pkg not in installed} == {}


def _called(shell: list[str], code: list[str]) -> set[str]:
    """The programs of PACKAGES that shell command lines start a command with (at a line's start or after `&&`,
    `|`, `;`, `(`), and that code's argv lists start with."""
    words = [w for s in shell for w in re.findall(r"(?:^|&&|\|\||;|\()\s*([\w.+-]+)", s)]
    words += [w for c in code for w in re.findall(r'\[\s*"([\w.+-]+)"', c)]
    return {w for w in words if w in PACKAGES}


def test_every_program_the_main_job_calls_is_in_the_main_list():
    """`make all` installs debian-main.txt alone: a program of the main job's rules (`snakemake -n -p --forceall
    all`) or of the paper's code (the PDF check runs pdftotext) that only `make test`'s lists bring fails the main
    job on a fresh machine."""
    plan = snakemake(ROOT, "-n", "-p", "--forceall", "--nolock", "all")
    shell = [s.removeprefix("Shell command: ") for s in plan.splitlines() if s.startswith("Shell command: ")]
    # latexmk runs pdflatex
    called = _called(shell, [f.read_text() for f in ROOT.glob("src/blkscope/paper/*.py")]) | {"pdflatex"}
    assert {"latexmk", "pdftotext"} <= called
    main = _listed("debian-main.txt")
    assert {p: PACKAGES[p] for p in called if PACKAGES[p] not in main} == {}


def test_every_program_a_capture_calls_is_in_the_capture_list():
    capture = _listed("debian-capture.txt")
    programs = {*run.TOOLS, *build.TOOLS, "gcc", "filefrag", "zstd", "git", "findmnt"}
    programs |= {t for name in _CLASSES for t in _class(name).tools}
    programs |= {f"mkfs.{fs}" for fs in ("ext4", "xfs", "btrfs", "f2fs")}
    assert sorted(p for p in programs if p not in PACKAGES) == []
    assert {p: PACKAGES[p] for p in programs if PACKAGES[p] not in capture} == {}


def test_a_missing_program_fails_with_its_name_package_and_list(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    why = check("btt", "pdflatex")
    assert why.startswith("missing btt (Debian blktrace, deps/debian-capture.txt deps/debian-test.txt)")
    assert "pdflatex (Debian texlive-latex-base, deps/debian-main.txt)" in why
    assert lists("no-such-package") == []


def test_the_mark_fails_rather_than_skips(tmp_path):
    (tmp_path / "conftest.py").write_text(f"import sys\nsys.path.insert(0, {str(Path(__file__).parent)!r})\n"
                                          "from requires import pytest_runtest_setup  # noqa\n")  # fmt: skip
    (tmp_path / "test_mod.py").write_text("import pytest\n\n@pytest.mark.requires('no-such-program', 'sh')\n"
                                          "def test_x():\n    pass\n")  # fmt: skip
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "test_mod.py"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert p.returncode == 1 and "1 error" in p.stdout and "skipped" not in p.stdout, p.stdout
    assert "missing no-such-program (Debian ?, in no deps/ list)" in p.stdout, p.stdout
