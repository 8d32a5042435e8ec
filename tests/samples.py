"""../shared/samples: other projects' real logs (its SOURCES.md says where each comes from), beside the checkout
or at $BLKSCOPE_SAMPLES. A prerequisite of the tests, not an option: when it is absent the tests that read it fail
naming the path, and a parameter list of its files never shrinks (`files` then gives one case, the missing one)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = Path(os.environ.get("BLKSCOPE_SAMPLES", ROOT.parent / "shared" / "samples"))


def files(sub: str, pattern: str = "*.txt") -> list[Path]:
    """SAMPLES/sub's files matching pattern, sorted; [SAMPLES/sub/pattern] (a test that fails) when there are none."""
    return sorted((SAMPLES / sub).glob(pattern)) or [SAMPLES / sub / pattern]
