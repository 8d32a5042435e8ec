"""Capture: one hardware run from the runs sheet (`capture`), the random capture order of a batch, and the
dataset's manifest of raw files."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from blkscope.cli.verbs import Handler, verb

JVM_OPTS_ENV = "BLKSCOPE_JVM_OPTS"


def _config_capture(path: Path) -> dict:
    if str(path) == "none" or not path.is_file():
        return {}
    from blkscope import yamlio  # here, not at import: every `blkscope` command loads this module (0.02 s)

    return (yamlio.load(path.read_text()) or {}).get("capture") or {}


@verb("capture")
def _capture(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--runs", type=Path, default=Path("config/runs.tsv"), help="runs sheet (default config/runs.tsv)")
    p.add_argument("--run-id", required=True, help="the run_id row to run")
    p.add_argument("-o", "--outdir", required=True, type=Path, help="destination, normally data/raw/RUN_ID")
    p.add_argument("--dry-run", action="store_true", help="print the plan and touch nothing")
    p.add_argument("--workdir", type=Path, help="where backing files live during the run (default: config)")
    p.add_argument(
        "--config",
        type=Path,
        default=Path("config/config.yaml"),
        help="read capture: workdir, allowed_devices ('none')",
    )
    p.add_argument("--allow-device", action="append", default=[], metavar="DEV", help="also allow DEV (repeatable)")
    p.add_argument("--fio-dir", type=Path, default=Path("config/fio"), help="fio job files, JOB.fio")
    p.add_argument("--tools-dir", type=Path, default=Path("tools"), help="journal and ycsb-rocksdb sources")
    p.add_argument("--buffer-size-kb", type=int, default=65536, help="tracefs ring buffer per CPU (default 65536)")
    p.add_argument("--force", action="store_true", help="replace a non-empty OUTDIR")
    p.add_argument(
        "--jvm-options",
        default=os.environ.get(JVM_OPTS_ENV),
        metavar="OPTS",
        help=f"extra options for every JVM the run starts on the host, after the workload's own (default "
        f"${JVM_OPTS_ENV}, else config capture: jvm_options, else none); recorded in run.yaml's workload: block",
    )

    def run(a: argparse.Namespace) -> int:
        from blkscope.capture.run import capture_run, describe, make_plan

        cfg = _config_capture(a.config)
        if a.jvm_options is not None:
            cfg["jvm_options"] = shlex.split(a.jvm_options)
        workdir = a.workdir or Path(cfg.get("workdir") or "/var/tmp/blkscope")
        plan = make_plan(
            a.runs,
            a.run_id,
            a.outdir,
            fio_dir=a.fio_dir,
            workdir=workdir,
            allowed=[*cfg.get("allowed_devices", []), *a.allow_device],
            tools_dir=a.tools_dir,
            settings=cfg,
        )
        plan.buffer_size_kb = a.buffer_size_kb
        if a.dry_run:
            print(describe(plan))
            return 0
        try:
            meta = capture_run(plan, force=a.force)
        except (PermissionError, FileExistsError, RuntimeError, TimeoutError) as e:
            print(f"blkscope capture: error: {e}", file=sys.stderr)
            return 1
        t, wl = meta["tracer"], meta["run"]["workload"]
        print(
            f"{a.run_id}: {t.get('events', 0)} trace events, overruns {t.get('overruns_total', 'n/a')}, "
            f"{meta['iostat']['samples']} iostat samples, {wl} {meta.get('fio', {}).get('ios') or meta.get(wl)} "
            f"-> {a.outdir}",
            file=sys.stderr,
        )
        return 0

    return run


@verb("capture-sweep")
def _capture_sweep(p: argparse.ArgumentParser) -> Handler:
    def run(a: argparse.Namespace) -> int:
        from blkscope.capture import hwlock, ledger, watchdog

        try:
            with hwlock.hardware_lock():  # as a capture does before it starts (capture/watchdog.py)
                swept = watchdog.sweep_stale()
        except (PermissionError, RuntimeError, TimeoutError) as e:
            print(f"blkscope capture-sweep: error: {e}", file=sys.stderr)
            return 1
        print(f"{len(swept)} ledger(s) of dead captures swept in {ledger.LEDGER_DIR}", file=sys.stderr)
        return 0

    return run


@verb("manifest")
def _manifest(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("raw", type=Path, help="the raw data directory (data/raw)")
    p.add_argument("--runs", type=Path, default=Path("config/runs.tsv"), help="the runs sheet")
    p.add_argument("-o", "--out", type=Path, required=True, help="output TSV (data/raw/MANIFEST.tsv)")

    def run(a: argparse.Namespace) -> int:
        from blkscope.capture.manifest import build
        from blkscope.io import write_text_atomic
        from blkscope.runs import load_runs

        df = build(a.raw, load_runs(a.runs))
        write_text_atomic(df.write_csv(separator="\t"), a.out)
        return 0

    return run


@verb("capture-order")
def _capture_order(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("--runs", type=Path, default=Path("config/runs.tsv"), help="the runs sheet (with a batch column)")
    p.add_argument("--batch", required=True, help="the batch to order (runs-sheet column `batch`)")
    p.add_argument("--seed", type=int, help="random seed (default: drawn from the OS, and recorded)")
    p.add_argument("-o", "--out", type=Path, default=Path("config/capture_order.tsv"), help="the order file")
    p.add_argument("--force", action="store_true", help="draw a batch that already has an order again")

    def run(a: argparse.Namespace) -> int:
        import secrets

        from blkscope.capture import order
        from blkscope.io import write_text_atomic
        from blkscope.runs import load_runs

        runs = load_runs(a.runs)
        seed = a.seed if a.seed is not None else secrets.randbelow(2**31)
        new = order.draw(runs, a.batch, seed)
        merged = order.merge(order.read(a.out), new, replace=a.force)
        order.check(runs, merged, a.out, batches=set(merged["batch"].to_list()))
        write_text_atomic(merged.write_csv(separator="\t"), a.out)
        print(f"batch {a.batch}: {new.height} runs, seed {seed} -> {a.out}", file=sys.stderr)
        return 0

    return run
