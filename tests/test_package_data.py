"""Every non-Python file the package reads at run time ships in the wheel (e.g. capture/guest/init.sh, the guest's
/init): pyproject.toml's package-data must name it, or a wheel install finds no file there."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def test_every_data_file_under_src_is_declared_package_data() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    data = [p for p in (SRC / "blkscope").rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")
            and "__pycache__" not in p.parts and ".egg-info" not in str(p)]
    assert any(p.name == "init.sh" for p in data)
    for p in data:
        pkg = ".".join(p.parent.relative_to(SRC).parts)
        patterns = declared.get(pkg, []) + declared.get("*", [])
        assert any(fnmatch.fnmatch(p.name, pat) for pat in patterns), f"{p.relative_to(ROOT)}: not in package-data"
