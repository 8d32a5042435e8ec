"""The native bootstrap replicate means (native/src/boot.rs) are numpy's, bit for bit: its PCG64 stream, int32
Lemire draws and pairwise row mean, on synthetic and real latency values; mean_ci_boot is unchanged."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from blkscope.analysis.stats import boot_means as bm
from blkscope.analysis.stats.uncertainty import mean_ci, mean_ci_boot

ROOT = Path(__file__).resolve().parents[1]
SIZES = [2, 3, 7, 8, 9, 15, 16, 17, 127, 128, 129, 130, 1000, 8191, 8192, 8193, 16383, 16384, 16385, 20_000]
SIZES += np.random.default_rng(7).integers(2, 20_001, 6).tolist()


def numpy_means(x, n_boot, seed):
    """mean_ci_boot's replicate means as numpy computed them (the reference), a few million indices a draw."""
    rng, n = np.random.default_rng(seed), x.size
    step = max(1, 4_000_000 // n)
    return np.concatenate([x[rng.integers(0, n, (k, n), dtype=np.int32)].mean(axis=1)
                           for k in np.diff(np.r_[0:n_boot:step, n_boot])])  # fmt: skip


def numpy_mean_ci_boot(x, level=0.95, n_boot=1000, seed=0, t_above=20_000):
    """mean_ci_boot before the native means."""
    x = np.asarray(x, np.float64)
    if x.size < 2 or x.size > t_above:
        return mean_ci(x, level)
    means, a = numpy_means(x, n_boot, seed), (1 - level) / 2
    return float(x.mean()), float(np.quantile(means, a)), float(np.quantile(means, 1 - a))


@pytest.mark.parametrize("n", SIZES)
def test_native_means_are_numpys(n):
    data = np.random.default_rng(n)
    for seed, x in ((0, data.lognormal(3, 2, n)), (1, data.integers(1, 5000, n).astype(np.float64)),
                    (12345, np.sort(data.exponential(100.0, n)))):  # fmt: skip
        n_boot = 1000 if n in (8193, 20_000) else 100
        assert np.array_equal(bm.boot_means(x, n_boot, seed), numpy_means(x, n_boot, seed)), (n, seed)


@pytest.fixture(scope="module")
def real_stage_values(tmp_path_factory):
    """Every stage's latencies in us of a real trace, per R/W and all, sorted: what latency.stages bootstraps."""
    from blkscope.analysis.timing.latency import STAGES, per_bio

    raw = ROOT / "data" / "raw" / "host-ext4-fio-randrw-r1" / "trace.txt.zst"
    if not raw.exists():
        pytest.skip(f"{raw} not in this checkout")
    out = tmp_path_factory.mktemp("p")
    subprocess.run([sys.executable, "-m", "blkscope", "ingest", "--kind", "ftrace", str(raw), "-o", str(out)],
                   check=True)  # fmt: skip
    bios = per_bio([out / "events.parquet"])
    values = []
    for st in STAGES:
        b = bios.filter(bios[st].is_not_null())
        is_read = b["rw"].str.contains("R").to_numpy()
        x = b[st].to_numpy().astype(np.float64) / 1e3
        values += [np.sort(v) for v in (x, x[is_read], x[~is_read]) if v.size >= 2]
    return values


def test_native_means_are_numpys_on_real_latencies(real_stage_values):
    assert len(real_stage_values) >= 10 and max(v.size for v in real_stage_values) > 1000
    for x in real_stage_values:
        x = x[:20_000]
        assert np.array_equal(bm.boot_means(x, 1000, 0), numpy_means(x, 1000, 0)), x.size


def test_mean_ci_boot_is_unchanged(real_stage_values):
    for x in [*real_stage_values, np.array([1.0, 2.0]), np.random.default_rng(3).lognormal(2, 1, 20_001)]:
        assert mean_ci_boot(x) == numpy_mean_ci_boot(x), x.size
    x = real_stage_values[0]
    assert mean_ci_boot(x, 0.9, n_boot=333, seed=5) == numpy_mean_ci_boot(x, 0.9, n_boot=333, seed=5)


def test_failing_program_raises(monkeypatch):
    bm.close()
    monkeypatch.setenv("BLKSCOPE_NATIVE", "/bin/false")
    with pytest.raises(RuntimeError, match="boot-means failed"):
        bm.boot_means(np.arange(10.0), 100, 0)
    bm.close()
