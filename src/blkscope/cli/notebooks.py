"""`blkscope notebook`: execute a jupytext .py notebook with papermill, in one process. The workflow's notebook
jobs ran `jupytext --to ipynb` and then `papermill` on its output: two Python starts, jupytext's ~0.5 CPU-s of
each of the main job's 9 notebook jobs. Light (argparse only): jupytext and papermill load in the handler."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from blkscope.cli.verbs import Handler, verb


@verb("notebook")
def _notebook(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("nb", type=Path, help="the notebook, a jupytext .py file (its header names the kernel)")
    p.add_argument("out", type=Path, help="the executed notebook (.ipynb)")
    p.add_argument("--cwd", type=Path, help="the kernel's working directory")
    p.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                   help="a parameter, typed as papermill -p types it (True, False, None, int, float, else a string)")

    def run(a: argparse.Namespace) -> int:
        import logging
        import os
        import warnings

        import jupytext
        from papermill import execute_notebook
        from papermill.cli import _resolve_type
        from papermill.exceptions import PapermillExecutionError
        from papermill.iorw import papermill_io

        if not a.nb.is_file():
            raise ValueError(f"{a.nb}: no such file")
        src = str(a.nb)
        if str(a.out).startswith(src):  # the handler below answers for every path starting with src
            raise ValueError(f"{a.out}: the output's path must not start with the notebook's")

        class FromText:  # papermill reads the notebook through jupytext; its metadata records the .py as input
            def read(self, path):
                return jupytext.writes(jupytext.read(path), fmt="ipynb")  # as `jupytext --to ipynb` writes it

            def pretty_path(self, path):
                return path

        papermill_io.register(src, FromText())
        warnings.filterwarnings("ignore", message=r"The specified file \(.*\) does not end in one of")
        os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # as papermill's command line does
        logging.basicConfig(level=logging.INFO, format="%(message)s")  # papermill's log lines, as its CLI's
        try:
            execute_notebook(src, str(a.out), parameters={k: _resolve_type(v) for k, v in a.parameter},
                             cwd=a.cwd, request_save_on_cell_execute=False, progress_bar=sys.stderr.isatty())
        except PapermillExecutionError as e:  # the notebook is written, with the error marked
            print(f"blkscope notebook: {a.nb}: {e}", file=sys.stderr)
            return 1
        return 0

    return run
