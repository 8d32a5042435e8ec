"""envs/blkscope.yaml (conda, for cluster users) pins exactly the versions of requirements.lock."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _lock() -> dict[str, str]:
    pins = {}
    for ln in (ROOT / "requirements.lock").read_text().splitlines():
        ln = ln.strip()
        if ln and not ln.startswith("#"):
            name, version = ln.split("==")
            pins[name.lower()] = version
    return pins


def test_conda_env_matches_lock():
    env = yaml.safe_load((ROOT / "envs" / "blkscope.yaml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    conda_pins = {p.split("==")[0].lower(): p.split("==")[1] for p in pip}
    assert conda_pins == _lock()
    assert "python=3.11" in env["dependencies"]


def test_lock_pins_every_direct_dependency():
    lock = _lock()
    direct = [ln.split(">")[0].split("<")[0].split("=")[0].strip().lower()
              for ln in (ROOT / "requirements.in").read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    assert direct and all(d in lock for d in direct), [d for d in direct if d not in lock]
    assert lock["snakemake"].startswith("9.")
