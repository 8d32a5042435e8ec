"""Figures: `figure` draws one figure from its table; the figure-data verbs (figdata-*) make those tables, small and
thinned, joined with the runs sheet. Per-run inputs are named by their run id (<processed>/<run_id>/<stage>/<file>)."""

from __future__ import annotations

import argparse
from pathlib import Path

from blkscope.cli.common import runs_option, say
from blkscope.cli.verbs import Handler, verb
from blkscope.io import write_table


@verb("figure")
def _figure(p: argparse.ArgumentParser) -> Handler:
    from blkscope.figures import FIGURES

    p.add_argument("name", choices=list(FIGURES), help="which figure")
    p.add_argument("table", type=Path, help="the analysis table it draws (.parquet)")
    p.add_argument("-o", "--prefix", type=Path, required=True, help="output path without extension")
    p.add_argument("--formats", default="pdf,png,svg", help="comma-separated: pdf,png,svg")

    def run(a: argparse.Namespace) -> int:
        import importlib

        import polars as pl

        from blkscope.figures.theme import save

        mod = importlib.import_module(f"blkscope.figures.{FIGURES[a.name]}")
        df = pl.read_parquet(a.table)
        if df.is_empty():  # say why, on stderr and in the figure, from the table's note when it has one
            from blkscope.figures.theme import no_data
            from blkscope.io import table_note

            why = table_note(a.table) or "its table has no rows"
            say(f"figure {a.name}", f"nothing to draw from {a.table}", why)
            save(no_data(f"No data: {why}"), a.prefix, a.formats.split(","))
            return 0
        save(mod.chart(df), a.prefix, a.formats.split(","))
        return 0

    return run


def _common(p: argparse.ArgumentParser) -> None:
    runs_option(p)
    p.add_argument("-o", "--out", type=Path, required=True, help="output table (.parquet)")


def _per_run(files: list[Path]) -> dict:
    import polars as pl

    from blkscope.runs import run_id_of

    return {run_id_of(f): pl.read_parquet(f) for f in files}


def _notes(files: list[Path], per_run: bool = True) -> list[str]:
    """The notes of the inputs (blkscope.io.NOTE_KEY), each named by its run when the inputs are per run."""
    from blkscope.io import table_note
    from blkscope.runs import run_id_of

    return [f"{run_id_of(f)}: {n}" if per_run else n for f in files if (n := table_note(f))]


def _write_figdata(df, out: Path, verb_: str = "figdata", notes: list[str] = ()) -> None:
    """Write the figure data; the inputs' notes go with it (the figure and the notebooks show them), and an
    empty table is said on stderr."""
    note = "; ".join(notes) or None
    if df.is_empty():
        note = note or "its inputs hold no rows"
        say(verb_, f"{out} is empty", note)
    write_table(df, out, note=note)


def _thinned(name: str, points: int, what: str) -> None:
    """figdata-fof and figdata-rank: a frequency table per run, thinned to `points` log-spaced values of `what`."""

    @verb(f"figdata-{name}")
    def _define(p: argparse.ArgumentParser) -> Handler:
        _common(p)
        help_ = f"log-spaced {what} kept per run and op (default {points})"
        p.add_argument("--points", type=int, default=points, help=help_)
        p.add_argument("fof", nargs="*", type=Path, help="<processed>/<run_id>/frequency/fof.<mode>.parquet files")

        def run(a: argparse.Namespace) -> int:
            from blkscope.figures import data
            from blkscope.runs import load_runs

            table = getattr(data, f"{name}_table")(_per_run(a.fof), load_runs(a.runs), a.points)
            _write_figdata(table, a.out, a.verb, _notes(a.fof))
            return 0

        return run


_thinned("fof", 60, "counts")
_thinned("rank", 80, "ranks")


@verb("figdata-ccdf")
def _ccdf(p: argparse.ArgumentParser) -> Handler:
    _common(p)
    p.add_argument("--zipf", type=Path, required=True, help="the `blkscope zipf` table of the same fof files")
    p.add_argument("--points", type=int, default=60, help="log-spaced points kept per run, op and kind")
    p.add_argument("fof", nargs="*", type=Path, help="<processed>/<run_id>/frequency/fof.<mode>.parquet files")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.figures.data import ccdf_table
        from blkscope.runs import load_runs

        df = ccdf_table(_per_run(a.fof), pl.read_parquet(a.zipf), load_runs(a.runs), a.points)
        _write_figdata(df, a.out, a.verb, _notes(a.fof))
        return 0

    return run


@verb("figdata-series")
def _series(p: argparse.ArgumentParser) -> Handler:
    _common(p)
    p.add_argument("--ycsb", nargs="*", type=Path, default=[], help="<processed>/<run_id>/ycsb/ycsb_series.parquet")
    p.add_argument("--max-points", type=int, default=120, help="samples kept per series (longer: group means)")
    p.add_argument("iostat", nargs="*", type=Path, help="<processed>/<run_id>/iostat/iostat.parquet files")

    def run(a: argparse.Namespace) -> int:
        from blkscope.figures.data import series_table
        from blkscope.runs import load_runs

        df = series_table(_per_run(a.iostat), _per_run(a.ycsb), load_runs(a.runs), a.max_points)
        _write_figdata(df, a.out, a.verb, _notes(a.iostat) + _notes(a.ycsb))
        return 0

    return run


@verb("figdata-queue-depth")
def _queue_depth(p: argparse.ArgumentParser) -> Handler:
    _common(p)
    p.add_argument("--series", type=Path, required=True, help="the queue_depth_series table")
    p.add_argument("--dist", type=Path, required=True, help="the queue_depth_dist table")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.figures.data import queue_depth_table
        from blkscope.runs import load_runs

        df = queue_depth_table(pl.read_parquet(a.series), pl.read_parquet(a.dist), load_runs(a.runs))
        _write_figdata(df, a.out, a.verb, _notes([a.series], per_run=False))
        return 0

    return run


@verb("figdata-seek")
def _seek(p: argparse.ArgumentParser) -> Handler:
    _common(p)
    p.add_argument("--seek", type=Path, required=True, help="the seek table")
    p.add_argument("--hist", type=Path, required=True, help="the seek_hist table")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.figures.data import seek_table
        from blkscope.runs import load_runs

        _write_figdata(seek_table(pl.read_parquet(a.seek), pl.read_parquet(a.hist), load_runs(a.runs)), a.out, a.verb,
               _notes([a.seek], per_run=False))
        return 0

    return run


@verb("figdata-join")
def _join(p: argparse.ArgumentParser) -> Handler:
    _common(p)
    p.add_argument("table", type=Path, help="the analysis table (.parquet, with run_id)")

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.figures.data import with_meta
        from blkscope.runs import load_runs

        _write_figdata(with_meta(pl.read_parquet(a.table), load_runs(a.runs)), a.out, a.verb,
                       _notes([a.table], per_run=False))
        return 0

    return run


@verb("figdata-mrc")
def _mrc(p: argparse.ArgumentParser) -> Handler:
    _common(p)
    p.add_argument("--classes", default="all", help="comma-separated classes of requests: all, data, meta "
                   "(default all)")  # fmt: skip
    p.add_argument("--of-record", action="store_true", help="each stream's profile of record alone (exact where "
                   "it ran, else SHARDS), not the curves beside it")  # fmt: skip
    p.add_argument("mrc", nargs="*", type=Path, help="<processed>/<run_id>/characterise/mrc.parquet files; the "
                   "run's reuse summary beside each (reuse.parquet) says which profile is of record")  # fmt: skip

    def run(a: argparse.Namespace) -> int:
        import polars as pl

        from blkscope.figures.data import mrc_table
        from blkscope.runs import load_runs

        classes = tuple(c.strip() for c in a.classes.split(",") if c.strip())
        if not classes or not set(classes) <= {"all", "data", "meta"}:
            raise ValueError(f"--classes must name all, data or meta, not {a.classes!r}")
        summaries = _per_run([s for f in a.mrc if (s := f.with_name("reuse.parquet")).exists()])
        df = mrc_table(_per_run(a.mrc), load_runs(a.runs), summaries, classes=classes, of_record_only=a.of_record)
        # a run without a curve says why in its summary (e.g. a trace without completions): op all, class all
        every = (pl.col("op") == "all") & (pl.col("class") == "all")
        why = [f"{r}: {n}" for r, s in summaries.items() if {"class", "note"} <= set(s.columns)
               for n in s.filter(every)["note"].drop_nulls().unique(maintain_order=True)]  # fmt: skip
        _write_figdata(df, a.out, a.verb, _notes(a.mrc) + why)
        return 0

    return run


@verb("figdata-io-map")
def _io_map(p: argparse.ArgumentParser) -> Handler:
    _common(p)
    p.add_argument("maps", nargs="*", type=Path, help="<processed>/<run_id>/characterise/io_map.parquet files")

    def run(a: argparse.Namespace) -> int:
        from blkscope.figures.data import io_map_table
        from blkscope.runs import load_runs

        _write_figdata(io_map_table(_per_run(a.maps), load_runs(a.runs)), a.out)
        return 0

    return run


def _runs_table_verb(name: str, table: str, keep=None) -> None:
    """A figure-data verb that stacks one characterisation table per run (rows `keep` selects) with the run's
    metadata: the views' figures differ only in the table and the rows."""
    def configure(p: argparse.ArgumentParser) -> Handler:
        _common(p)
        p.add_argument("tables", nargs="*", type=Path, help=f"<processed>/<run_id>/characterise/{table} files")

        def run(a: argparse.Namespace) -> int:
            from blkscope.figures.data import runs_table
            from blkscope.runs import load_runs

            rows = keep() if keep else None
            _write_figdata(runs_table(_per_run(a.tables), load_runs(a.runs), rows), a.out, a.verb, _notes(a.tables))
            return 0

        return run

    verb(name)(configure)


def _pl():
    import polars as pl

    return pl


_runs_table_verb("figdata-latency-windows", "latency_windows.parquet",
                 lambda: (_pl().col("op") == "all") & (_pl().col("class") == "all"))
_runs_table_verb("figdata-request-sizes", "sizes.parquet", lambda: _pl().col("action") == "D")
_runs_table_verb("figdata-arrivals", "arrivals.parquet")
_runs_table_verb("figdata-request-size-over-time", "throughput.parquet", lambda: _pl().col("requests") > 0)


@verb("figdata-views")
def _views(p: argparse.ArgumentParser) -> Handler:
    p.add_argument("commands", nargs="+", help="`blkscope figdata-VERB ...` command lines, one argument each, as "
                   "their own jobs would run them (--check-datasets too)")  # fmt: skip

    def run(a: argparse.Namespace) -> int:
        """An imported run's page draws eleven tables of a few KB: one process for them instead of one each (a
        Python start with polars per table; bench/RESULTS.md, 2026-11-29 "testfast"). Each command is parsed as its
        own verb's and writes what it writes alone."""
        import shlex

        from blkscope import datasets
        from blkscope.cli.verbs import VERBS

        for line in a.commands:
            argv = shlex.split(line)
            name = argv[1] if len(argv) > 1 and argv[0] == "blkscope" else ""
            if not name.startswith("figdata-") or name == a.verb or name not in VERBS:
                raise ValueError(f"not a `blkscope figdata-...` command line: {line!r}")
            sub = argparse.ArgumentParser(prog=f"blkscope {name}")
            VERBS[name](sub)
            sub.add_argument("--check-datasets", nargs="*", type=Path, default=[], metavar="MANIFEST")
            args = sub.parse_args(argv[2:])
            args.verb = name
            for m in args.check_datasets:
                datasets.verify(m)
            if (rc := args._handler(args)) != 0:
                return rc
        return 0

    return run
