"""The recorded random capture order (config/capture_order.tsv): drawn so that no configuration's repeats are all
consecutive, in agreement with the runs sheet, and enforced by the experiments rules (the DAG chains the
captures of a batch in that order)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

from blkscope.capture import order, targets
from blkscope.cli import main
from blkscope.errors import InputError
from blkscope.runs import load_runs

ROOT = Path(__file__).resolve().parents[1]
SHEET = load_runs(ROOT / "config/runs.tsv")
ORDER = order.read(ROOT / "config/capture_order.tsv")


def _sheet(configs: int, repeats: int, batch: str = "b") -> pl.DataFrame:
    rows = [
        {"run_id": f"c{c}-r{r}", "study": "s", "workload": "fio", "job": f"job{c}", "filesystem": "ext4",
         "testbed": "loop", "tracer": "none", "traced": False, "repeat": r, "batch": batch}  # fmt: skip
        for c in range(configs)
        for r in range(1, repeats + 1)
    ]
    return pl.DataFrame(rows)


@pytest.mark.parametrize("configs,repeats", [(2, 2), (2, 3), (5, 3), (19, 3)])
@pytest.mark.parametrize("seed", range(20))
def test_no_configuration_has_its_repeats_in_a_row(configs, repeats, seed):
    sheet = _sheet(configs, repeats)
    drawn = order.draw(sheet, "b", seed)
    ids = drawn["run_id"].to_list()
    assert sorted(ids) == sorted(sheet["run_id"]) and drawn["position"].to_list() == list(range(1, len(ids) + 1))
    assert order.consecutive_configurations(sheet, ids) == []
    # randomised blocks: the k-th block of `configs` runs holds repeat k of every configuration
    for k in range(repeats):
        block = ids[k * configs : (k + 1) * configs]
        assert {i.split("-")[0] for i in block} == {f"c{c}" for c in range(configs)}
        assert {i.split("-")[1] for i in block} == {f"r{k + 1}"}


def test_the_draw_is_the_seed_and_the_runs_only():
    sheet = _sheet(6, 3)
    a = order.draw(sheet, "b", 11)
    assert a.equals(order.draw(sheet.reverse(), "b", 11))  # row order of the sheet does not matter
    assert a["seed"].unique().to_list() == [11]
    orders = {tuple(order.draw(sheet, "b", s)["run_id"]) for s in range(10)}
    assert len(orders) > 5  # a different seed gives a different order


def test_consecutive_configurations_finds_a_bunched_order():
    sheet = _sheet(3, 3)
    bunched = sorted(sheet["run_id"].to_list())  # c0-r1, c0-r2, c0-r3, c1-...: every configuration in a row
    assert len(order.consecutive_configurations(sheet, bunched)) == 3


def test_check_refuses_an_order_that_does_not_match_the_sheet(tmp_path):
    sheet = _sheet(3, 3)
    drawn = order.draw(sheet, "b", 3)
    order.check(sheet, drawn)
    with pytest.raises(InputError, match="unplaced"):
        order.check(sheet, drawn.filter(pl.col("position") != 4))
    with pytest.raises(InputError, match="repeats all in a row"):
        ids = sorted(sheet["run_id"].to_list())
        order.check(sheet, drawn.with_columns(run_id=pl.Series(ids)))
    path = tmp_path / "order.tsv"
    path.write_text(drawn.filter(pl.col("position") != 1).write_csv(separator="\t"))
    with pytest.raises(InputError, match="no place in the order"):
        targets.predecessors(sheet.to_dicts(), path)


def test_a_batch_not_drawn_yet_waits_and_its_capture_refuses(tmp_path):
    """Rows of a batch whose order is not drawn yet are no error for the workflow (`all` reads captured runs):
    predecessors() places the drawn batches, undrawn() names the waiting runs, after() refuses to capture one.
    A batch drawn without some of its runs is still an error."""
    sheet = pl.concat([_sheet(2, 2, "b"), _sheet(2, 3, "w").with_columns(run_id=pl.lit("w") + pl.col("run_id"))])
    path = tmp_path / "order.tsv"
    drawn = order.draw(sheet, "b", 1)
    path.write_text(drawn.write_csv(separator="\t"))
    ids = drawn["run_id"].to_list()
    assert targets.predecessors(sheet.to_dicts(), path) == dict(zip(ids[1:], ids[:-1], strict=True))
    waiting = targets.undrawn(sheet.to_dicts(), path)
    assert waiting == {r: "w" for r in sheet.filter(pl.col("batch") == "w")["run_id"]}
    assert targets.after({}, ids[1], set(ids), tmp_path, waiting, path) == []
    with pytest.raises(InputError, match="batch 'w' has no recorded order yet.*capture-order --batch w"):
        targets.after({}, "wc0-r1", {"wc0-r1"}, tmp_path, waiting, path)
    path.write_text(pl.concat([drawn, order.draw(sheet, "w", 2).head(5)]).write_csv(separator="\t"))
    assert targets.undrawn(sheet.to_dicts(), path) == {}
    with pytest.raises(InputError, match="no place in the order"):
        targets.predecessors(sheet.to_dicts(), path)


def test_experiments_chain_each_batch_in_the_recorded_order(tmp_path):
    """What the experiments rules wait for (targets.predecessors, read without polars): each run of a batch its
    predecessor in the order file, restricted to the sheet's runs; runs of no batch wait for nothing."""
    sheet = pl.concat([_sheet(2, 2, "b"), _sheet(3, 2, "c").with_columns(run_id=pl.lit("x") + pl.col("run_id"))])
    path = tmp_path / "order.tsv"
    drawn = pl.concat([order.draw(sheet, "b", 1), order.draw(sheet, "c", 2)])
    # rows in no particular order in the file: the position decides
    path.write_text(drawn.sample(fraction=1.0, shuffle=True, seed=3).write_csv(separator="\t"))
    want = {}
    for batch in ("b", "c"):
        ids = drawn.filter(pl.col("batch") == batch).sort("position")["run_id"].to_list()
        want.update(zip(ids[1:], ids[:-1], strict=True))
    assert targets.predecessors(sheet.to_dicts(), path) == want
    # a sheet that is a subset (the end-to-end test's): the order of its runs only; unbatched rows wait for nothing
    sub = sheet.filter(pl.col("batch") == "b").to_dicts() + [{"run_id": "lone", "batch": ""}]
    assert targets.predecessors(sub, path) == {k: v for k, v in want.items() if not k.startswith("x")}
    assert targets.predecessors([{"run_id": "lone", "batch": ""}], tmp_path / "absent.tsv") == {}
    path.write_text("batch\trun_id\n")
    with pytest.raises(InputError, match="expected columns"):
        targets.predecessors(sheet.to_dicts(), path)


def test_committed_order_matches_the_sheet():
    # a batch with no recorded order yet (its rows in, drawn just before its capture) must have no run captured
    waiting = set(targets.undrawn(SHEET.to_dicts(), ROOT / "config/capture_order.tsv").values())
    assert waiting <= order.uncaptured_batches(SHEET, ROOT / "data/raw")
    order.check(SHEET, ORDER, "config/capture_order.tsv", batches=set(order.batched(SHEET)["batch"]) - waiting)
    batched = order.batched(SHEET).filter(~pl.col("batch").is_in(list(waiting)))
    assert batched.height and set(batched["run_id"]) == set(ORDER["run_id"])
    for batch in ORDER["batch"].unique().to_list():
        ids = ORDER.filter(pl.col("batch") == batch).sort("position")["run_id"].to_list()
        runs = batched.filter(pl.col("batch") == batch)
        assert order.consecutive_configurations(runs, ids) == [], batch
        assert ORDER.filter(pl.col("batch") == batch)["seed"].n_unique() == 1


def test_cli_records_an_order_and_keeps_it(tmp_path, capsys):
    sheet, out = tmp_path / "runs.tsv", tmp_path / "order.tsv"
    _sheet(4, 3).write_csv(sheet, separator="\t")
    assert main(["capture-order", "--runs", str(sheet), "--batch", "b", "--seed", "5", "-o", str(out)]) == 0
    first = order.read(out)
    assert first.height == 12 and first["seed"].unique().to_list() == [5]
    # drawing a recorded batch again is refused unless forced; the file is left as it was
    assert main(["capture-order", "--runs", str(sheet), "--batch", "b", "-o", str(out)]) == 2
    assert "already has a recorded order" in capsys.readouterr().err
    assert order.read(out).equals(first)
    assert main(["capture-order", "--runs", str(sheet), "--batch", "nope", "-o", str(out)]) == 2


def test_snakemake_chains_a_batch_in_the_recorded_order(tmp_path):
    """`snakemake --dag experiments` on a copy of the workflow with six batched runs and no raw data: each
    capture depends on the one placed before it, and only on that one. Two rows of a batch whose order is not
    drawn yet (the cache sweep's) are left out, and said."""
    for item in ["Snakefile", "workflow", "config", "profiles"]:
        src = ROOT / item
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, tmp_path / item)
    batch = "saturate-2"
    sub = SHEET.filter(pl.col("batch") == batch, pl.col("workload") == "fio", pl.col("traced"),
                       pl.col("filesystem").is_in(["ext4", "xfs"]))  # fmt: skip
    assert sub.height == 6
    waiting = SHEET.filter(pl.col("batch") == "round4-sweep").head(2)
    pl.concat([sub, waiting]).write_csv(tmp_path / "config/runs.tsv", separator="\t")
    drawn = order.draw(sub, batch, 7)
    (tmp_path / "config/capture_order.tsv").write_text(drawn.write_csv(separator="\t"))
    proc = subprocess.run(["snakemake", "--dag", "dot", "--cores", "1", "experiments"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    node = dict(re.findall(r'^\s*(\d+)\[label = "capture_run\\nrun: ([^"]+)"', proc.stdout, re.M))
    edges = {(node[a], node[b]) for a, b in re.findall(r"^\s*(\d+) -> (\d+)$", proc.stdout, re.M)
             if a in node and b in node}  # fmt: skip
    ids = drawn["run_id"].to_list()
    assert edges == set(zip(ids[:-1], ids[1:], strict=True)) and set(node.values()) == set(ids)
    assert "2 run(s) of batch(es) round4-sweep wait for their recorded order" in proc.stderr


def test_uncaptured_batches_are_those_with_no_run_in(tmp_path):
    from blkscope.capture.order import uncaptured_batches

    runs = pl.DataFrame({"run_id": ["a1", "a2", "b1", "c1"], "batch": ["a", "a", "b", ""]})
    (tmp_path / "a1").mkdir()  # batch a has begun: its a2 is missing, not waiting
    assert uncaptured_batches(runs, tmp_path) == {"b"}
    (tmp_path / "b1").mkdir()
    assert uncaptured_batches(runs, tmp_path) == set()


def test_two_configurations_are_not_forced_to_alternate():
    """With two configurations, forbidding the closer of one block to open the next fixes the order of every
    block after the first (a one-slot lead under a drift): from three repeats on, either may lead a block."""
    sheet = _sheet(2, 8)
    leads = set()
    for seed in range(10):
        ids = order.draw(sheet, "b", seed)["run_id"].to_list()
        assert order.consecutive_configurations(sheet, ids) == []
        leads |= {(ids[k - 1].split("-")[0], ids[k].split("-")[0]) for k in range(2, len(ids), 2)}
    assert ("c0", "c0") in leads and ("c1", "c1") in leads  # a block may open with the configuration that closed


def test_a_batch_captured_block_by_block_waits_only_after_its_last_captured_run(tmp_path):
    from blkscope.capture.order import waiting_runs

    runs = pl.DataFrame({"run_id": ["a", "b", "c", "d"], "batch": ["x", "x", "x", "y"]})
    order = tmp_path / "order.tsv"
    pl.DataFrame({"batch": ["x", "x", "x", "y"], "position": [1, 2, 3, 1], "run_id": ["b", "a", "c", "d"],
                  "seed": [1, 1, 1, 2]}).write_csv(order, separator="\t")  # fmt: skip
    raw = tmp_path / "raw"
    raw.mkdir()
    assert waiting_runs(runs, raw, order) == {"a", "b", "c", "d"}  # nothing begun
    (raw / "b").mkdir()
    assert waiting_runs(runs, raw, order) == {"a", "c", "d"}  # the first block: b
    (raw / "c").mkdir()
    assert waiting_runs(runs, raw, order) == {"d"}  # a gap (a) before c's position: a is missing, not waiting
