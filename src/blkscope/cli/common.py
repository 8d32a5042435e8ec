"""What the verbs' arguments and handlers share: the per-run templates of --each, the output options, a note on
stderr. The verbs write their tables with blkscope.io.write_table and run runs in parallel with
blkscope.parallel.map_runs."""

from __future__ import annotations

import argparse
from pathlib import Path

EACH_HELP = ("each EVENTS file is a run of its own (<processed>/<run>/trace/events.parquet): one process for many "
             "runs; output paths are templates with {run}")


def each_run(events: list[Path], each: bool, **outputs: Path | None) -> list[tuple[list[Path], dict[str, Path | None]]]:
    """(events, outputs) per unit of work: all `events` as one run, or with `each` one run per file, its outputs
    the templates filled with its run id (the directory two levels above the file). Every file must exist: a missing
    one stops the verb before it writes anything."""
    for e in events:
        if not Path(e).exists():
            raise ValueError(f"{e}: no such file")
    if not each:
        return [(events, outputs)]
    for name, t in outputs.items():
        if t is not None and "{run}" not in str(t):
            raise ValueError(f"--{name.replace('_', '-')}: a table per run needs a {{run}} template, got {t}")
    return [([e], {k: None if t is None else Path(str(t).replace("{run}", e.parent.parent.name))
                   for k, t in outputs.items()}) for e in events]


def say(verb_: str, what: str, note: str) -> None:
    """Nothing to compute: say so on stderr, one line (the table written says it too: blkscope.io.NOTE_KEY)."""
    import sys

    print(f"blkscope {verb_}: {what}: {note}", file=sys.stderr)


def names(v: str) -> list[str]:
    """A comma-separated option's names."""
    return [x.strip() for x in v.split(",") if x.strip()]


def jobs_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("-j", "--jobs", type=int, default=1, help="runs analysed in parallel processes (default 1)")


def runs_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--runs", type=Path, required=True, help="the runs sheet (config/runs.tsv)")


def table_options(p: argparse.ArgumentParser, required: bool = True) -> None:
    """-o/--out and --csv: the verb's table, and a CSV copy of it (blkscope.io.write_table)."""
    p.add_argument("-o", "--out", type=Path, required=required, help="output table (.parquet)")
    p.add_argument("--csv", type=Path, help="also write the table as CSV here")
