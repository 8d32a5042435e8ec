"""`blkscope notebook`: a jupytext .py notebook executed by papermill in one process, as the workflow's notebook
jobs run it. One kernel start per run (~1-2 s)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEADER = """# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---
"""
NB = HEADER + """
# %% tags=["parameters"]
n = 1
name = "x"
fail = False

# %%
print(repr(n), repr(name), type(n).__name__)

# %%
assert not fail, "asked to fail"
print("after")
"""


def notebook(tmp_path: Path, *params: str) -> tuple[subprocess.CompletedProcess, str]:
    (tmp_path / "nb.py").write_text(NB)
    out = tmp_path / "out" / "nb.ipynb"
    out.parent.mkdir()
    p = subprocess.run([sys.executable, "-m", "blkscope", "notebook", "--cwd", tmp_path, tmp_path / "nb.py", out,
                        *params], capture_output=True, text=True)  # fmt: skip
    return p, "".join("".join(o.get("text", "")) for c in json.loads(out.read_text())["cells"]
                      for o in c.get("outputs", []))  # fmt: skip


def test_parameters_reach_the_notebook_typed_as_papermill_types_them(tmp_path: Path) -> None:
    p, text = notebook(tmp_path, "-p", "n", "42", "-p", "name", "SSD study")
    assert p.returncode == 0, p.stderr
    assert "42 'SSD study' int" in text
    assert "after" in text
    meta = json.loads((tmp_path / "out/nb.ipynb").read_text())["metadata"]
    assert meta["papermill"]["input_path"] == str(tmp_path / "nb.py")  # the .py, not a notebook copied in
    assert "jupytext" not in meta  # as `jupytext --to ipynb` converted it


def test_a_failing_cell_exits_nonzero_and_the_notebook_is_written_with_the_error(tmp_path: Path) -> None:
    p, text = notebook(tmp_path, "-p", "fail", "True")
    assert p.returncode == 1
    assert "asked to fail" in p.stderr
    assert "1 'x' int" in text and "after" not in text
    cells = json.loads((tmp_path / "out/nb.ipynb").read_text())["cells"]
    assert any(o.get("ename") == "AssertionError" for c in cells for o in c.get("outputs", []))


def test_the_verb_starts_light() -> None:
    """Its parser alone (its topic's module, blkscope.cli.notebooks): no other topic, and jupytext and papermill
    only in the handler."""
    code = ("import sys; from blkscope.cli import build_parser; build_parser('notebook').parse_args(['notebook',"
            " 'a.py', 'b.ipynb', '-p', 'n', '1']); heavy = ('blkscope.cli.', 'polars', 'papermill', 'jupytext');"
            " print(sorted(m for m in sys.modules if m.startswith(heavy)))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(["blkscope.cli.notebooks", "blkscope.cli.verbs"])
