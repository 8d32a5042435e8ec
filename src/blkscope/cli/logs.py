"""Logs and import: `blkscope ingest` (raw logs into tidy Parquet tables), `ingest-runs` (every log of captured
runs) and `import` (logs blkscope did not capture, as runs). Light: argparse and pathlib load only as a verb's
parser is built, and `blkscope ingest` of a trace in its plain form (`_ingest_plain`) needs neither: its native
reader starts 43 ms after the command instead of 64 (bench/RESULTS.md, eighteenth session; issues B and 43 time the
whole command against blkparse)."""

from __future__ import annotations

import sys

from blkscope.cli.verbs import Handler, plain, verb

TYPE_CHECKING = False  # typing's, without importing typing (blkscope.io says why)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable


@plain("ingest")
def _ingest_plain(args: list[str]) -> Callable[[], int] | None:
    """`ingest` in a plain form (_plain_ingest_args), read without argparse: the handler argparse's would be."""
    got = _plain_ingest_args(args)
    return None if got is None else lambda: _ingest_say(*got)


def _plain_ingest_args(args: list[str]) -> tuple[str, list[str], str] | None:
    """(kind, inputs, outdir) of `[--kind[=]K] INPUT... -o|--outdir[=] OUTDIR`, options before or after the inputs,
    K one of blkscope.native.KINDS, as argparse reads them (tests/test_cli_plain.py holds the two together). None
    for anything else: another kind or none (sniffing), --part, dataset options, --help, abbreviations, a repeated
    option, an option's value or an input that starts with '-', inputs split by an option, and paths pathlib would
    print otherwise (`a//b`, `./a`, `a/`), as ingest.json records them."""
    from blkscope.native import KINDS  # here: `ingest --help` and the other verbs of this topic do without it

    opts: dict[str, str] = {}
    inputs: list[str] = []
    i, after_inputs = 0, False
    while i < len(args):
        name, eq, value = args[i].partition("=") if args[i].startswith("--") else (args[i], "", "")
        name = {"-o": "--outdir"}.get(name, name)
        if name in ("--kind", "--outdir") and name not in opts:
            if not eq:
                i += 1
                value = args[i] if i < len(args) else "-"
            if value.startswith("-") or (name == "--outdir" and not _printed_as_given(value)):
                return None
            opts[name] = value
            after_inputs = bool(inputs)
        elif args[i].startswith("-") or after_inputs or not _printed_as_given(args[i]):
            return None
        else:
            inputs.append(args[i])
        i += 1
    if opts.get("--kind") not in KINDS or "--outdir" not in opts or not inputs:
        return None
    return opts["--kind"], inputs, opts["--outdir"]


def _printed_as_given(path: str) -> bool:
    """Does pathlib print `path` as it is (str(Path(path)) == path)? No empty, '.' or doubled '/' part, and no
    trailing '/' (but '/' itself)."""
    parts = path.split("/")
    return path == "/" or (path != "" and "." not in parts and "" not in parts[1:])


def _ingest_say(kind: str, inputs: list, outdir, part: str | None = None) -> int:
    if part:
        from blkscope.parts import ingest_part, parse_part

        rep = ingest_part(kind, inputs, *parse_part(part), outdir)
    else:
        from blkscope.ingest import run_ingest

        rep = run_ingest(kind, inputs, outdir)
    _say(rep, f"{rep.kind}: ", f" -> {outdir}")
    return 0


@verb("ingest")
def _ingest(p: argparse.ArgumentParser) -> Handler:
    from pathlib import Path

    from blkscope.readers import KINDS

    p.add_argument("--kind", default="auto", choices=["auto", *KINDS], help="input format (default: sniff)")
    p.add_argument("inputs", nargs="+", type=Path, metavar="INPUT")
    p.add_argument("-o", "--outdir", required=True, type=Path, help="output directory (replaced atomically)")
    p.add_argument("--part", metavar="K/N", help="ingest only part K of N of a large trace (blkscope.parts: CPU "
                   "files of a blktrace set, cut at record starts when N exceeds them, or a byte range of a text "
                   "trace cut at line starts)")  # fmt: skip

    return lambda a: _ingest_say(a.kind, a.inputs, a.outdir, a.part)


def _say(rep, prefix: str, suffix: str = "") -> None:
    """An ingest's rows and warnings on stderr, each line led by `prefix`."""
    rows = ", ".join(f"{k}={v}" for k, v in rep.rows.items())
    print(f"{prefix}{rows}{suffix}", file=sys.stderr)
    for w in rep.warnings:
        print(f"{prefix}warning: {w}", file=sys.stderr)


@verb("ingest-runs")
def _ingest_runs(p: argparse.ArgumentParser) -> Handler:
    from pathlib import Path

    p.add_argument("runs", nargs="+", metavar="RUN", help="run ids (directories under --raw)")
    p.add_argument("--sheet", required=True, type=Path, help="the runs sheet (config/runs.tsv): each run's workload")
    p.add_argument("--raw", required=True, type=Path, help="raw data directory (data/raw)")
    p.add_argument("-o", "--processed", required=True, type=Path, help="processed data directory (data/processed)")
    p.add_argument("--split", nargs="*", default=[], metavar="RUN",
                   help="runs whose trace is ingested in parts (workflow/rules/parts.smk): their other logs only")

    def run(a: argparse.Namespace) -> int:
        """One process for many runs: the workflow's unit of ingest is a batch of runs, since a Python process
        costs more to start than most of these logs take to read (bench/RESULTS.md, "The main job")."""
        from blkscope.ingest import run_ingest
        from blkscope.run_logs import sources
        from blkscope.runs import load_runs

        sheet = load_runs(a.sheet)
        workload = dict(zip(sheet["run_id"].to_list(), sheet["workload"].to_list(), strict=True))
        for r in a.runs:
            if r not in workload:
                raise ValueError(f"{a.sheet}: no run {r!r}")
            for sub, kind, files in sources(a.raw, r, workload[r]):
                if sub == "trace" and r in a.split:
                    continue
                _say(run_ingest(kind, files, a.processed / r / sub), f"{r} {kind}: ")
        return 0

    return run


@verb("import")
def _import(p: argparse.ArgumentParser) -> Handler:
    from pathlib import Path

    p.add_argument("run_id", help="the new run's id (letters, digits, . _ -), e.g. mylab-ext4-ycsb-a-r1")
    g = p.add_argument_group("what you state about the run (its runs-sheet row; run.yaml keeps them)")
    g.add_argument("--filesystem", required=True, help="ext4, xfs, btrfs or f2fs")
    g.add_argument("--workload", help="fio, sysbench, journal, ycsb, cassandra, other (default: the kind of --log; "
                                      "without one, other)")  # fmt: skip
    g.add_argument("--job", required=True, help="the workload's job, e.g. workloada, randrw, write")
    g.add_argument("--database", help="the database under the workload (e.g. redis, rocksdb, cassandra)")
    g.add_argument("--testbed", default="external", help="default external: a machine blkscope did not drive")
    g.add_argument("--study", default="imported", help="the runs sheet's study column (default imported)")
    g.add_argument("--mkfs-options", help="how the filesystem was made")
    g.add_argument("--mount-options", help="how it was mounted")
    g.add_argument("--repeat", type=int, default=1, help="repeat number of this configuration (default 1)")
    g.add_argument("--origin", help="where the logs come from: a URL, a paper, a machine (run.yaml)")
    f = p.add_argument_group("the logs (each read once before anything is written)")
    f.add_argument("--trace", nargs="+", type=Path, default=[],
                   help="a blktrace set (its per-CPU *.blktrace.N files), a blkparse text or a tracefs blk text")
    f.add_argument("--iostat", type=Path, help="an iostat log (text, -t or not, or -o JSON)")
    f.add_argument("--log", nargs="+", type=Path, default=[],
                   help="the workload's log: YCSB run output, cassandra-stress, fio JSON or sysbench output")
    f.add_argument("--load-log", type=Path, help="YCSB's load-phase output (beside the run's --log)")
    p.add_argument("--raw", type=Path, default=Path("data/raw"), help="raw data directory (default data/raw)")
    p.add_argument("--sheet", type=Path, default=Path("config/runs.tsv"),
                   help="the runs sheet (the embedded dataset): its columns, and run ids not to take again")
    p.add_argument("--imported", type=Path, help="the sheet of imported runs the row joins (config `imported`; "
                                                 "default: imported.tsv beside --sheet; made at the first import)")
    p.add_argument("--schema", type=Path, help="runs-sheet schema (default: the package's, blkscope/runs.schema.yaml)")

    def run(a: argparse.Namespace) -> int:
        from blkscope.importing import import_run

        statements = {"study": a.study, "database": a.database, "job": a.job, "filesystem": a.filesystem,
                      "mkfs_options": a.mkfs_options, "mount_options": a.mount_options, "testbed": a.testbed,
                      "repeat": a.repeat, "workload": a.workload}  # fmt: skip
        from blkscope.runs import SCHEMA

        schema = a.schema or SCHEMA
        imported = a.imported or a.sheet.with_name("imported.tsv")
        dest = import_run(a.run_id, statements, trace=a.trace, iostat=a.iostat, logs=a.log, load_log=a.load_log,
                          origin=a.origin, raw=a.raw, sheet=a.sheet, imported=imported, schema=schema)  # fmt: skip
        print(f"imported {a.run_id} -> {dest} (provenance in {dest / 'run.yaml'}; a row in {imported})")
        return 0

    return run
