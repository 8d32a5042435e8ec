"""The recorded capture order of a batch of runs: repeats of all configurations interleaved at random.

This machine's speed drifts (other jobs, thermal state, page cache): captured configuration by configuration,
a drift would show up as a filesystem or workload effect. So a batch (the runs sheet's `batch` column) is
captured in randomised blocks: block k holds repeat k of every configuration of the batch, in its own random
order. Each configuration then meets every stretch of the batch's time line once per repeat, and its repeats
are never all consecutive (unless the batch has a single configuration). The order is drawn once, from a
recorded seed, into config/capture_order.tsv (batch, position, run_id, seed); the experiments rules chain the
captures of a batch in that order (blkscope.capture.targets.predecessors reads the file for them), so what ran
when is a file under review, not an accident of the scheduler."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import polars as pl

from blkscope.errors import InputError

COLUMNS = ["batch", "position", "run_id", "seed"]
# Sheet columns that do not make a configuration (what varies between repeats of one configuration)
NOT_CONFIG = ("run_id", "repeat", "batch")


def batched(runs: pl.DataFrame) -> pl.DataFrame:
    """Rows of the sheet that belong to a batch (empty or null: none; Snakemake's validate() fills in "")."""
    if "batch" not in runs.columns:
        return runs.clear()
    return runs.filter(pl.col("batch").is_not_null() & (pl.col("batch") != ""))


def configuration(runs: pl.DataFrame) -> list[str]:
    """The columns that define a configuration: everything but the run id, the repeat and the batch."""
    return [c for c in runs.columns if c not in NOT_CONFIG]


def draw(runs: pl.DataFrame, batch: str, seed: int) -> pl.DataFrame:
    """The order of `batch`: randomised blocks by repeat number (see the module's docstring)."""
    if "batch" not in runs.columns:
        raise ValueError("the runs sheet has no `batch` column")
    sel = runs.filter(pl.col("batch") == batch)
    if sel.is_empty():
        known = sorted(batched(runs)["batch"].unique().to_list())
        raise ValueError(f"no run of batch {batch!r} in the runs sheet (batches: {', '.join(known) or 'none'})")
    # run ids sorted first, so the draw depends on the seed and the set of runs only, not on row order
    sel = sel.sort("run_id")
    keys = configuration(sel)
    cfg = {r["run_id"]: tuple(str(r[k]) for k in keys) for r in sel.iter_rows(named=True)}
    dup = sel.group_by([*keys, "repeat"]).len().filter(pl.col("len") > 1)
    if dup.height:
        raise ValueError(f"batch {batch!r}: {dup.height} configuration(s) have a repeat number twice")
    reps = Counter(cfg.values())  # repeats per configuration
    rng = random.Random(seed)
    order: list[str] = []
    for rep in sorted(sel["repeat"].unique().to_list()):
        block = sel.filter(pl.col("repeat") == rep)["run_id"].to_list()
        rng.shuffle(block)
        # a configuration that closes one block does not open the next (no back-to-back repeats); with two
        # configurations that rule would force strict alternation (a fixed one-slot lead under a drift), so
        # there it holds only where it must: two repeats, where a second back-to-back pair is all of them
        two = len(block) == 2 and all(reps[cfg[r]] > 2 for r in block)
        if order and len(block) > 1 and not two and cfg[block[0]] == cfg[order[-1]]:
            block[0], block[1] = block[1], block[0]
        order += block
    return pl.DataFrame(
        {"batch": [batch] * len(order), "position": range(1, len(order) + 1), "run_id": order,
         "seed": [seed] * len(order)},  # fmt: skip
        schema={"batch": pl.Utf8, "position": pl.Int64, "run_id": pl.Utf8, "seed": pl.Int64},
    )


SCHEMA = {"batch": pl.Utf8, "position": pl.Int64, "run_id": pl.Utf8, "seed": pl.Int64}


def read(path: str | Path) -> pl.DataFrame:
    """The order file; an absent file is an empty order."""
    path = Path(path)
    if not path.exists():
        return pl.DataFrame(schema=SCHEMA)
    # the schema is given: a file with its header only would otherwise read as all-string columns
    df = pl.read_csv(path, separator="\t", schema_overrides=SCHEMA)
    if df.columns != COLUMNS:
        raise InputError(path, "line 1", f"expected columns {', '.join(COLUMNS)}, found {', '.join(df.columns)}")
    return df


def merge(old: pl.DataFrame, new: pl.DataFrame, *, replace: bool) -> pl.DataFrame:
    """The order file with `new`'s batch added; a batch already recorded is kept unless `replace`."""
    batch = new["batch"][0]
    if batch in old["batch"].to_list() and not replace:
        raise ValueError(f"batch {batch!r} already has a recorded order (pass --force to draw it again)")
    return pl.concat([old.filter(pl.col("batch") != batch), new]).sort("batch", "position")


def check(
    runs: pl.DataFrame, order: pl.DataFrame, path: str | Path = "capture_order.tsv", batches: set | None = None
) -> None:
    """The order file and the sheet agree: every run of every batch (or of `batches`) is placed once, positions
    are 1..n, and no batch with more than one configuration has a configuration's repeats all in a row."""
    if "batch" not in runs.columns:
        if order.height:
            raise InputError(path, None, "records an order but the runs sheet has no `batch` column")
        return
    sheet = batched(runs)
    every = set(sheet["batch"].to_list()) | set(order["batch"].to_list())
    for batch in sorted(every if batches is None else every & batches):
        want = set(sheet.filter(pl.col("batch") == batch)["run_id"].to_list())
        got = order.filter(pl.col("batch") == batch).sort("position")
        ids = got["run_id"].to_list()
        if len(ids) != len(set(ids)) or set(ids) != want:
            extra, missing = sorted(set(ids) - want), sorted(want - set(ids))
            raise InputError(
                path, None,
                f"batch {batch!r} does not match the runs sheet (not in the sheet's batch: {extra[:3]}, "
                f"unplaced: {missing[:3]}, placed twice: {len(ids) - len(set(ids))}); "
                f"draw it again: blkscope capture-order --batch {batch} --force",
            )  # fmt: skip
        if got["position"].to_list() != list(range(1, len(ids) + 1)):
            raise InputError(path, None, f"batch {batch!r}: positions are not 1..{len(ids)}")
        runs_of = sheet.filter(pl.col("batch") == batch)
        bunched = consecutive_configurations(runs_of, ids)
        if bunched:
            raise InputError(path, None, f"batch {batch!r}: repeats all in a row for {bunched[:3]}")


def consecutive_configurations(runs: pl.DataFrame, ids: list[str]) -> list[tuple]:
    """Configurations (with more than one repeat, in a batch of more than one) whose runs sit in one unbroken
    stretch of `ids`."""
    keys = configuration(runs)
    cfg = {r["run_id"]: tuple(str(r[k]) for k in keys) for r in runs.iter_rows(named=True)}
    at: dict[tuple, list[int]] = {}
    for i, run in enumerate(ids):
        at.setdefault(cfg[run], []).append(i)
    if len(at) < 2:
        return []
    return [c for c, pos in at.items() if len(pos) > 1 and pos[-1] - pos[0] == len(pos) - 1]


def uncaptured_batches(runs: pl.DataFrame, raw_dir: str | Path) -> set[str]:
    """Batches of the sheet none of whose runs has a raw directory yet: rows drawn into an order that waits for
    its capture (the dataset's tests check a batch once its first run is in)."""
    sheet = batched(runs)
    return {b for b in set(sheet["batch"].to_list())
            if not any(Path(raw_dir, r).is_dir() for r in sheet.filter(pl.col("batch") == b)["run_id"])}  # fmt: skip


def waiting_runs(runs: pl.DataFrame, raw_dir: str | Path, order_path: str | Path) -> set[str]:
    """Runs of the sheet that wait for their capture: every run of a batch none of whose runs is in, and of a batch
    begun, the runs after its last captured position in the recorded order (a batch captured block by block). A
    gap before that position is not waiting: the dataset's tests then find the run missing."""
    recorded, waiting = read(order_path), set()
    for (batch,), rows in batched(runs).group_by("batch"):
        # the recorded order; a batch not drawn yet waits whole (its sheet rows)
        seq = recorded.filter(pl.col("batch") == batch).sort("position")["run_id"].to_list()
        seq = seq or rows["run_id"].to_list()
        done = [i for i, r in enumerate(seq) if Path(raw_dir, r).is_dir()]
        waiting |= set(seq[done[-1] + 1:] if done else seq)
    return waiting
