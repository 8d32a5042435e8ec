"""Print a conda environment file pinned to exactly the versions of requirements.lock.

Conda installs Python itself; every package comes through pip with the lock's pins so
cluster users get the same versions as the virtual environment.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(lock: str) -> None:
    pins = [ln.strip() for ln in Path(lock).read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    out = [
        "# Generated from requirements.lock by scripts/lock_to_conda.py (`make lock`); do not edit.",
        "name: blkscope",
        "channels:",
        "  - conda-forge",
        "dependencies:",
        "  - python=3.11",
        "  - pip",
        "  - pip:",
        *[f"      - {p}" for p in pins],
    ]
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "requirements.lock")
