"""The programs the tests and the captures call, each with the Debian package that brings it and the deps/ list
that names the package (`make test` installs deps/debian-{main,test,capture,slurm}.txt; tests/test_deps.py checks
the lists name every package here).

`@pytest.mark.requires("btt", ...)` is a requirement, not a skip: a test whose program is missing fails, naming
the program, its package and list (tests/conftest.py runs `check` before each such test)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DEPS = Path(__file__).resolve().parents[1] / "deps"

# program -> Debian package (bookworm)
PACKAGES = {
    "pdflatex": "texlive-latex-base",
    "latexmk": "latexmk",
    "pdftoppm": "poppler-utils",
    "pdftotext": "poppler-utils",
    "blktrace": "blktrace",
    "blkparse": "blktrace",
    "btt": "blktrace",
    "fio": "fio",
    "iostat": "sysstat",
    "sysbench": "sysbench",
    "gcc": "gcc",
    "zstd": "zstd",
    "losetup": "mount",
    "mount": "mount",
    "umount": "mount",
    "findmnt": "util-linux",
    "mountpoint": "util-linux",
    "unshare": "util-linux",
    "filefrag": "e2fsprogs",
    "mkfs.ext4": "e2fsprogs",
    "mkfs.xfs": "xfsprogs",
    "mkfs.btrfs": "btrfs-progs",
    "mkfs.f2fs": "f2fs-tools",
    "ps": "procps",
    "git": "git",
    "qemu-system-x86_64": "qemu-system-x86",
    "busybox": "busybox-static",
    "cpio": "cpio",
    "dpkg-deb": "dpkg",
    "ldd": "libc-bin",
    "java": "openjdk-17-jdk-headless",
    "javac": "openjdk-17-jdk-headless",
    "jlink": "openjdk-17-jdk-headless",
    "jdeps": "openjdk-17-jdk-headless",
    "mvn": "maven",
    "patch": "patch",
    "munged": "munge",
    "slurmctld": "slurmctld",
    "slurmd": "slurmd",
    "sbatch": "slurm-client",
    "squeue": "slurm-client",
    "scontrol": "slurm-client",
}


def lists(package: str) -> list[str]:
    """The deps/*.txt lists that name a package."""
    return [f"deps/{f.name}" for f in sorted(DEPS.glob("*.txt"))
            if package in (line.split("#")[0].strip() for line in f.read_text().splitlines())]


def check(*programs: str) -> str | None:
    """None when every program is on PATH, else what is missing and where it comes from."""
    gone = [p for p in programs if shutil.which(p) is None]
    if not gone:
        return None
    named = [f"{p} (Debian {PACKAGES.get(p, '?')}, {' '.join(lists(PACKAGES.get(p, '?'))) or 'in no deps/ list'})"
             for p in gone]
    return f"missing {', '.join(named)}: `make test` installs the lists"


def pytest_runtest_setup(item):
    for mark in item.iter_markers("requires"):
        why = check(*mark.args)
        if why:
            pytest.fail(why, pytrace=False)


def require(*programs: str) -> None:
    """The same requirement inside a fixture or test (marks do not reach fixtures)."""
    why = check(*programs)
    if why:
        pytest.fail(why, pytrace=False)
