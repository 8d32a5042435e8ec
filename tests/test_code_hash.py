"""A rule's code hash (blkscope.code_hash) follows the source its command can import, and only that source: on a
copy of the package, an edit changes the hashes of the commands that can run the edited text and no other."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "zipf": "blkscope zipf a.parquet -o b",
    "latency": "blkscope latency a.parquet -o b",
    "figure": "blkscope figure rank-frequency t.parquet -o f",
    "ingest": "blkscope ingest --kind blktrace x -o y",
    "pdf_text": "python -m blkscope.paper.pdf_text main.pdf --claims c",
    "prose_and_latex": "python -m blkscope.paper.prose a.tex && cd paper && latexmk main.tex",
    "notebook": "blkscope notebook --cwd notebooks NB out.ipynb",
    "capture": "blkscope capture --runs r.tsv --run-id x -o y",
    "guest_build": "python -m blkscope.capture.guest.build -o out",
    "shell": "cp a b",
}


def package_copy(tmp: Path) -> Path:
    """The package and the native program's sources copied under `tmp` (its src/ is a PYTHONPATH entry): the
    same hashes as the checkout's until a copied file is edited."""
    shutil.copytree(ROOT / "src/blkscope", tmp / "src/blkscope", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "native/src", tmp / "native/src")
    for f in ["Cargo.toml", "Cargo.lock"]:
        shutil.copy2(ROOT / "native" / f, tmp / "native" / f)
    return tmp


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """The package, the native program's sources and a notebook, copied."""
    tmp = package_copy(tmp_path_factory.mktemp("code"))
    shutil.copy2(ROOT / "notebooks/all_setups.py", tmp / "all_setups.py")
    return tmp


def _hashes(tmp: Path) -> dict[str, str | None]:
    """Each command's hash, computed by the copy in a fresh interpreter (the module caches what it reads)."""
    code = ("import json, sys; from blkscope import code_hash as c; cmds = json.loads(sys.argv[1]); "
            f"print(json.dumps({{k: c.of_command(v, [{str(tmp / 'all_setups.py')!r}] if k == 'notebook' else []) "
            "for k, v in cmds.items()}))")  # fmt: skip
    p = subprocess.run([sys.executable, "-c", code, json.dumps(COMMANDS)], capture_output=True, text=True,
                       env={"PYTHONPATH": str(tmp / "src"), "PATH": "/usr/bin:/bin"}, check=True)  # fmt: skip
    return json.loads(p.stdout)


def _changed(tmp: Path, rel: str, edit) -> set[str]:
    """The commands whose hash an edit of `rel` (under the copy) changes; the file is restored after."""
    f = tmp / rel
    before, text = _hashes(tmp), f.read_text()
    try:
        f.write_text(edit(text))
        after = _hashes(tmp)
    finally:
        f.write_text(text)
    assert _hashes(tmp) == before  # restored: the hashes are the content's, not the files' times
    return {k for k in COMMANDS if before[k] != after[k]}


def test_commands_without_blkscope_or_that_capture_have_none(copy: Path) -> None:
    h = _hashes(copy)
    assert h["shell"] is None and h["capture"] is None and h["guest_build"] is None
    assert all(h[k] for k in COMMANDS if k not in ("shell", "capture", "guest_build")), h
    assert len({h[k] for k in ("zipf", "latency", "figure", "ingest", "pdf_text")}) == 5, h


def test_an_analysis_module_changes_its_verb_alone(copy: Path) -> None:
    changed = _changed(copy, "src/blkscope/analysis/popularity/discrete_powerlaw.py", lambda t: t + "\n# edit\n")
    assert "zipf" in changed and "latency" not in changed and "figure" not in changed and "ingest" not in changed


def test_a_verbs_own_block_changes_that_verb_and_the_header_every_verb_of_its_topic(copy: Path) -> None:
    cli = "src/blkscope/cli/analyses.py"
    own = _changed(copy, cli, lambda t: t.replace('@verb("zipf")\ndef _zipf(', '@verb("zipf")\ndef _zipf( '))
    assert own == {"zipf"}
    assert {"zipf", "latency"} <= _changed(copy, cli, lambda t: t.replace('"""\n', '"""\n# edit\n', 1))


def test_a_verbs_plain_form_reader_changes_that_verb(copy: Path) -> None:
    """`ingest` in its plain form runs _plain_ingest_args, which its @verb block never names: @plain marks it as
    the verb's own."""
    edit = lambda t: t.replace("def _plain_ingest_args(args", "def _plain_ingest_args( args")  # noqa: E731
    assert _changed(copy, "src/blkscope/cli/logs.py", edit) == {"ingest"}


def test_modules_imported_by_name_count(copy: Path) -> None:
    # blkscope.cli.figures imports each figure's module with import_module(f"blkscope.figures.{...}")
    changed = _changed(copy, "src/blkscope/figures/rank_frequency.py", lambda t: t + "\n# edit\n")
    assert "figure" in changed and "zipf" not in changed and "pdf_text" in changed  # the check reads captions


def test_the_native_programs_sources_count_where_it_runs(copy: Path) -> None:
    rs = next((copy / "native/src").glob("*.rs")).relative_to(copy)
    changed = _changed(copy, str(rs), lambda t: t + "\n// edit\n")
    # the readers (ingest) and the replay of a trace (latency) run it; the figures do not
    assert {"ingest", "latency"} <= changed and "figure" not in changed and "notebook" not in changed, changed


def test_a_notebooks_imports_count_for_the_rule_that_executes_it(copy: Path) -> None:
    changed = _changed(copy, "src/blkscope/figures/io_map.py", lambda t: t + "\n# edit\n")
    assert "notebook" in changed  # all_setups.py imports blkscope.figures.io_map
    assert "notebook" not in _changed(copy, "src/blkscope/analysis/timing/seek.py", lambda t: t + "\n# edit\n")
