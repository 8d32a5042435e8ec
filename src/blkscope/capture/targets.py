"""What the experiments rules may produce (used by workflow/rules/experiments.smk).

A capture rule matches only runs that have no data/raw/<run>/run.yaml yet, or that the config names for
recapture: committed raw data is then a plain source file to the rest of the workflow, so `snakemake all` can
never start a hardware run, whatever the mtimes of a fresh clone or the .snakemake metadata say.

Every Snakemake start runs these (the experiments rules are parsed for `all` too), so they take the runs sheet
as the workflow holds it, plain rows (blkscope.runs.rows), and read the capture order with the csv module: no polars
(bench/RESULTS.md, "issue O1")."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from blkscope.errors import InputError

NOTHING = "(?!x)x"  # a wildcard pattern that matches no run id
ORDER_COLUMNS = ["batch", "position", "run_id", "seed"]  # blkscope.capture.order.COLUMNS


def to_capture(
    rows: Iterable[Mapping],
    raw_dir: str | Path,
    *,
    traced: bool,
    recapture: Iterable[str] = (),
    testbeds: Iterable[str] | None = None,
) -> list[str]:
    """Runs (traced or not, on the given testbeds; None: any) that have no raw data yet or are to be redone."""
    again = set(recapture)
    beds = None if testbeds is None else set(testbeds)
    ids = [r["run_id"] for r in rows if r["traced"] == traced and (beds is None or r["testbed"] in beds)]
    return [r for r in ids if r in again or not Path(raw_dir, r, "run.yaml").exists()]


def pattern(run_ids: Iterable[str]) -> str:
    """Wildcard constraint matching exactly these run ids: one alternation per shared prefix (a trie), which
    Python's re compiles in a fraction of the time of a flat alternation of ~1,000 ids, and matches the same."""
    ids = sorted(set(run_ids))
    return _trie(ids) if ids else NOTHING


def _trie(ids: list[str]) -> str:
    """A regex matching exactly `ids` (sorted, distinct, non-empty)."""
    if ids == [""]:
        return ""
    groups: dict[str, list[str]] = {}
    end = False
    for s in ids:
        if s:
            groups.setdefault(s[0], []).append(s[1:])
        else:
            end = True
    alts = []
    for first, rests in groups.items():
        # a run of single-child nodes becomes one literal
        prefix = first
        while len(rests) > 1 and all(rests) and len({s[0] for s in rests}) == 1:
            prefix += rests[0][0]
            rests = [s[1:] for s in rests]
        if len(rests) == 1:
            alts.append(re.escape(prefix + rests[0]))
        else:
            alts.append(re.escape(prefix) + f"(?:{_trie(rests)})")
    if end:
        alts.append("")
    return alts[0] if len(alts) == 1 else "|".join(alts)


def job_inputs(rows: Iterable[Mapping], run_id: str, fio_dir: str = "config/fio") -> list[str]:
    """Files a capture reads besides the runs sheet: the fio job file of fio runs (other workloads: none)."""
    row = next((r for r in rows if r["run_id"] == run_id), None)
    return [fio_job(row, fio_dir)] if row is not None and row["workload"] == "fio" else []


def fio_job(row: Mapping, fio_dir: str = "config/fio") -> str:
    return f"{fio_dir}/{row['job']}.fio"


def allow_options(devices: Iterable[str]) -> str:
    """Config `capture: allowed_devices` as `blkscope capture` options (empty: loop devices only)."""
    return " ".join(f"--allow-device {d}" for d in devices)


def predecessors(rows: Iterable[Mapping], order_path: str | Path) -> dict[str, str]:
    """run_id -> the run captured just before it in its batch, by the recorded order (config/capture_order.tsv,
    blkscope.capture.order) restricted to the sheet's runs (a sheet may be a subset, as the end-to-end test's is).
    A batched run of the sheet that the order does not place is an error, as it would be captured out of any
    order, unless its batch has no recorded order at all (undrawn(): rows waiting for their draw, whose capture
    after() refuses). An absent order file is an empty order."""
    rows = list(rows)
    order = _read_order(order_path)
    placed = {r for _, _, r in order}
    waiting = undrawn(rows, order_path, order)
    batched = [r["run_id"] for r in rows if r.get("batch") and r["run_id"] not in waiting]
    unplaced = sorted(set(batched) - placed)
    if unplaced:
        raise InputError(
            order_path, None,
            f"{len(unplaced)} batched run(s) of the runs sheet have no place in the order ({', '.join(unplaced[:3])}"
            f"{', ...' if len(unplaced) > 3 else ''}): blkscope capture-order --batch BATCH [--force]",
        )  # fmt: skip
    sheet = {r["run_id"] for r in rows}
    by_batch: dict[str, list[tuple[int, str]]] = {}
    for batch, position, run in order:
        if run in sheet:
            by_batch.setdefault(batch, []).append((position, run))
    out = {}
    for placed_runs in by_batch.values():
        ids = [r for _, r in sorted(placed_runs)]
        out.update(zip(ids[1:], ids[:-1], strict=True))
    return out


def _read_order(path: str | Path) -> list[tuple[str, int, str]]:
    """(batch, position, run_id) of the order file, as blkscope.capture.order.read checks it."""
    path = Path(path)
    if not path.exists():
        return []
    out = []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f, delimiter="\t")
        header = next(reader, [])
        if header != ORDER_COLUMNS:
            raise InputError(path, "line 1", f"expected columns {', '.join(ORDER_COLUMNS)}, found {', '.join(header)}")
        for cells in reader:
            if not cells:
                continue
            if len(cells) != len(ORDER_COLUMNS) or not cells[1].strip().lstrip("+-").isdigit():
                raise InputError(path, f"line {reader.line_num}", "expected batch, an integer position, run_id, seed")
            out.append((cells[0], int(cells[1]), cells[2]))
    return out


def undrawn(rows: Iterable[Mapping], order_path: str | Path, order: list | None = None) -> dict[str, str]:
    """run_id -> batch of the sheet's batched runs whose batch has no run in the recorded order: rows added before
    the order is drawn (`blkscope capture-order --batch BATCH`, just before the batch's capture). They are no error
    for `all`, which reads captured runs only; their capture waits for the draw (after())."""
    drawn = {b for b, _, _ in (_read_order(order_path) if order is None else order)}
    return {r["run_id"]: r["batch"] for r in rows if r.get("batch") and r["batch"] not in drawn}


def after(previous: dict[str, str], run_id: str, pending: set[str], raw_dir: str | Path,
          waiting: Mapping[str, str] | None = None, order_path: str | Path = "capture_order.tsv") -> list[str]:
    """The run.yaml a capture of `run_id` waits for: its predecessor's (`previous`, from predecessors()), when
    that one is still to be captured (a captured predecessor is no constraint, so one recaptured run does not
    drag its batch along). A run of a batch with no recorded order (`waiting`, from undrawn()) is refused: it
    would be captured out of any order."""
    if waiting and run_id in waiting:
        raise InputError(order_path, None, f"run {run_id}: its batch {waiting[run_id]!r} has no recorded order yet; "
                         f"draw it first: blkscope capture-order --batch {waiting[run_id]}")
    prev = previous.get(run_id)
    return [f"{raw_dir}/{prev}/run.yaml"] if prev in pending else []
