"""The statistics verbs end to end on a real embedded run laid out as the workflow lays it out."""

from pathlib import Path

import polars as pl
import pytest

from blkscope.cli import main

ROOT = Path(__file__).resolve().parents[1]
RUN = "host-ext4-fio-randrw-r1"


@pytest.fixture(scope="module")
def proc(tmp_path_factory):
    raw = ROOT / "data" / "raw" / RUN
    if not (raw / "trace.txt.zst").exists():
        pytest.skip("embedded run not in this checkout")
    p = tmp_path_factory.mktemp("proc")
    for kind, src, stage in (("ftrace", "trace.txt.zst", "trace"), ("iostat", "iostat.json", "iostat"),
                             ("fio", "fio.json", "fio")):  # fmt: skip
        assert main(["ingest", "--kind", kind, str(raw / src), "-o", str(p / RUN / stage)]) == 0
    return p


@pytest.mark.parametrize(
    "verb", ["access-frequency", "zipf", "latency", "queue-depth", "seek", "overhead", "trace-cost", "compare"]
)
def test_help(verb, capsys):
    with pytest.raises(SystemExit) as e:
        main([verb, "--help"])
    assert e.value.code == 0 and "usage" in capsys.readouterr().out


def test_verbs_write_their_tables(proc):
    ev, a = str(proc / RUN / "trace" / "events.parquet"), proc / "analysis"
    fof = proc / RUN / "frequency" / "fof.parquet"
    assert main(["access-frequency", ev, "--mode", "ssd-study", "--fof", str(fof), "--rank", str(a / "r.parquet")]) == 0
    assert main(["zipf", str(fof), "-o", str(a / "zipf.parquet"), "--n-boot", "10"]) == 0
    assert main(["latency", ev, "-o", str(a / "lat.parquet"), "--by-rw"]) == 0
    io = str(proc / RUN / "iostat" / "iostat.parquet")
    assert main(["queue-depth", ev, "--iostat", io, "-o", str(a / "qd.parquet"), "--series", str(a / "s.parquet")]) == 0
    assert main(["seek", ev, "-o", str(a / "seek.parquet"), "--hist", str(a / "h.parquet")]) == 0
    assert main(["trace-cost", "--raw", str(ROOT / "data" / "raw"), ev, "-o", str(a / "tc.parquet")]) == 0
    fio = str(proc / RUN / "fio" / "fio_jobs.parquet")
    runs = str(ROOT / "config" / "runs.tsv")
    assert main(["compare", "--runs", runs, fio, "--latency", str(a / "lat.parquet"), "-o", str(a / "c.parquet"),
                 "--pairs", str(a / "p.parquet")]) == 0  # fmt: skip
    assert main(["overhead", "--runs", runs, fio, "-o", str(a / "o.parquet")]) == 0
    lat = pl.read_parquet(a / "lat.parquet")
    q2c = lat.filter((pl.col("stage") == "q2c") & (pl.col("rw") == "all")).row(0, named=True)
    assert q2c["run_id"] == RUN and q2c["n"] == 4013  # what the real btt counts on this trace
    assert pl.read_parquet(a / "qd.parquet")["run_id"].to_list() == [RUN]
    z = pl.read_parquet(a / "zipf.parquet")  # fio randrw touches pages once or twice: nothing to fit
    assert set(z["op"]) == {"read", "write", "all"} and z["note"].is_not_null().all()
    c = pl.read_parquet(a / "c.parquet")
    assert "block_d2c_mean_us" in c["metric"].to_list()


def test_bad_mode_is_one_clear_error(proc, capsys):
    ev = str(proc / RUN / "trace" / "events.parquet")
    rc = main(["access-frequency", ev, "--action", "D", "--mode", "ssd-study", "--fof", str(proc / "x.parquet")])
    assert rc == 2 and "ssd-study" in capsys.readouterr().err
    assert not (proc / "x.parquet").exists()


def test_parallel_runs_give_the_same_tables_in_the_same_order(proc):
    """-j 2 (runs in spawned processes, largest first) writes what -j 1 writes, rows in the order of the files."""
    other = "host-xfs-fio-randrw-r1"
    raw = ROOT / "data" / "raw" / other
    if not (raw / "trace.txt.zst").exists():
        pytest.skip("embedded run not in this checkout")
    assert main(["ingest", "--kind", "ftrace", str(raw / "trace.txt.zst"), "-o", str(proc / other / "trace")]) == 0
    evs = [str(proc / r / "trace" / "events.parquet") for r in (other, RUN)]
    a = proc / "parallel"
    for j in ("1", "2"):
        assert main(["latency", *evs, "--by-rw", "-j", j, "-o", str(a / f"lat{j}.parquet")]) == 0
        assert main(["seek", *evs, "-j", j, "-o", str(a / f"seek{j}.parquet"), "--hist", str(a / f"h{j}.parquet")]) == 0
    for name in ("lat", "seek", "h"):
        one, two = pl.read_parquet(a / f"{name}1.parquet"), pl.read_parquet(a / f"{name}2.parquet")
        assert one["run_id"].unique(maintain_order=True).to_list() == [other, RUN]
        assert one.equals(two), name
