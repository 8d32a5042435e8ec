"""`blkscope ingest` in its plain forms is read without argparse (blkscope.cli.verbs.PLAIN): what the plain reader
takes, argparse reads the same way, and the command writes the same files and says the same thing either way."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
import samples

from blkscope.cli import build_parser
from blkscope.cli.logs import _plain_ingest_args

TOKENS = ["--kind", "blktrace", "ftrace", "blkparse", "auto", "iostat", "--kind=blktrace", "--kind=ftrace", "-o",
          "--outdir", "--outdir=out", "--outdir=", "-oout", "-o=out", "--out", "out", "set", "set2", "a/b", "/abs/set",
          "/", "a//b", "./a", "a/.", "a/", "", "-", "-1", "--part", "1/2", "--check-datasets", "-h", "--"]  # fmt: skip


def _argparse(args: list[str]) -> tuple[str, list[str], str] | None:
    """What argparse makes of `ingest ARGS` when it takes them with no option beyond --kind and --outdir."""
    try:
        a = build_parser("ingest").parse_args(["ingest", *args])
    except SystemExit:
        return None
    if a.part or a.check_datasets or a.record_dataset or a.dataset_files:
        return None
    return a.kind, [str(p) for p in a.inputs], str(a.outdir)


@pytest.mark.parametrize("args", [
    ["--kind", "blktrace", "set", "-o", "out"],
    ["-o", "out", "--kind=ftrace", "set", "set2"],
    ["set", "a/b", "--outdir", "/abs/out", "--kind", "blkparse"],
    ["--kind=blktrace", "/abs/set", "--outdir=out"],
])  # fmt: skip
def test_the_plain_forms_are_read_as_argparse_reads_them(args, capsys):
    got = _plain_ingest_args(args)
    assert got is not None and got == _argparse(args)


@pytest.mark.parametrize("args", [
    ["set", "-o", "out"],  # no kind: sniffed, argparse's default
    ["--kind", "iostat", "set", "-o", "out"],  # a reader in Python
    ["--kind", "blktrace", "set", "-o", "out", "--part", "1/2"],
    ["--kind", "blktrace", "set", "-o", "out", "--check-datasets"],
    ["--kind", "blktrace", "set", "--out", "out"],  # an abbreviation
    ["--kind", "blktrace", "set", "-o", "out", "-o", "out2"],  # repeated: argparse keeps the last
    ["--kind", "blktrace", "set", "-o", "out", "set2"],  # inputs split by an option: argparse refuses
    ["--kind", "blktrace", "./set", "-o", "out"],  # pathlib prints `set`
    ["--kind", "blktrace", "set", "-o", "out/"],
    ["--kind", "blktrace", "a//b", "-o", "out"],
    ["--kind", "blktrace", "set", "-o", ""],
    ["--kind", "blktrace", "set", "-oout"],
    ["--kind", "blktrace", "set", "-o", "out", "--"],
])  # fmt: skip
def test_other_forms_are_left_to_argparse(args):
    assert _plain_ingest_args(args) is None



def _draw(rng: random.Random) -> list[str]:
    """A command line near the plain forms: a kind, inputs and an outdir in some order and spelling, now and then
    missing, doubled, split or odd, and a stray token."""
    odd = lambda good, bad: rng.choice(good if rng.random() < 0.85 else bad)  # noqa: E731
    path = lambda: odd(["out", "set", "a/b", "/abs/set", "/", "a=b"], ["a//b", "./a", "a/.", "a/", "", "-", "-1"])  # noqa: E731
    k, d = odd(["blktrace", "ftrace", "blkparse"], ["auto", "iostat", "-", "blktrace2"]), path()
    blocks = [odd([["--kind", k], [f"--kind={k}"]], [[], ["--kind", k, "--kind", "ftrace"]]),
              odd([["-o", d], ["--outdir", d], [f"--outdir={d}"]], [[], ["--out", d], ["-o", d, "-o", "x"]]),
              [path() for _ in range(odd([1, 2, 3], [0]))]]  # fmt: skip
    rng.shuffle(blocks)
    args = [t for b in blocks for t in b]
    for _ in range(odd([0], [1, 2])):
        args.insert(rng.randint(0, len(args)), rng.choice(TOKENS))
    return args


def test_no_plain_reading_differs_from_argparses(capsys):
    """Command lines drawn near the plain forms (fixed seed): whenever the plain reader takes one, argparse reads the
    same kind, inputs and outdir from it (it never takes what argparse refuses or reads otherwise)."""
    rng = random.Random(43)
    taken = 0
    for _ in range(3000):
        args = _draw(rng)
        got = _plain_ingest_args(args)
        if got is not None:
            taken += 1
            assert got == _argparse(args), args
    assert taken >= 100  # the draw reaches the plain forms: the comparison is not vacuous


def _ingest(args: list[str], cwd) -> subprocess.CompletedProcess:
    code = "import sys; from blkscope.cli import main; rc = main(sys.argv[1:]); print(rc, 'argparse' in sys.modules)"
    return subprocess.run([sys.executable, "-c", code, "ingest", *args], cwd=cwd, capture_output=True, text=True)


def test_the_plain_and_the_argparse_path_write_and_say_the_same(tmp_path):
    """A real blktrace set, once in a plain form and once with an option only argparse reads (an empty
    --check-datasets): the same events.parquet and ingest.json bytes, the same stderr, argparse loaded only on the
    second. A set that is not there: the same one-line error and exit status 2, and no output, either way."""
    sda = samples.SAMPLES / "blktrace-bin" / "centos7_notes_sda" / "sda"
    plain = _ingest(["--kind", "blktrace", str(sda), "-o", "plain"], tmp_path)
    full = _ingest(["--kind", "blktrace", str(sda), "-o", "full", "--check-datasets"], tmp_path)
    assert plain.stdout == "0 False\n" and full.stdout == "0 True\n", (plain.stderr, full.stderr)
    assert plain.stderr.replace("-> plain", "-> full") == full.stderr and "events=799" in plain.stderr
    for name in ("events.parquet", "ingest.json"):
        assert (tmp_path / "plain" / name).read_bytes() == (tmp_path / "full" / name).read_bytes()
    gone = tmp_path / "no-such-set"
    plain = _ingest(["--kind", "blktrace", str(gone), "-o", "plain2"], tmp_path)
    full = _ingest(["--kind", "blktrace", str(gone), "-o", "full2", "--check-datasets"], tmp_path)
    assert plain.returncode == full.returncode == 0 and plain.stdout == "2 False\n" and full.stdout == "2 True\n"
    assert plain.stderr == full.stderr and plain.stderr.startswith(f"blkscope ingest: error: {gone}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "plain"]
