"""The paper's and the study's outputs of a workspace, one line each: group, path, bytes, mtime (ns), sha256.

bench/import/run.sh diffs two snapshots (before and after one more imported run) by group: `paper` (paper/main.pdf,
paper/generated/), `study` (data/processed/analysis/ and figures/, the study's dataset manifests, the study's
notebooks: every executed notebook but the run explorers and the imported runs' pages)."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path


def group(rel: str) -> str | None:
    if rel == "paper/main.pdf" or rel.startswith("paper/generated/"):
        return "paper"
    if rel.startswith(("data/processed/analysis/", "data/processed/figures/")):
        return "study"
    if rel.startswith("data/processed/datasets/") and "imported" not in rel:
        return "study"
    name = Path(rel).name
    if rel.startswith("notebooks/executed/") and not name.startswith(("run_", "imported_")):
        return "study"
    return None


def main(root: Path) -> None:
    for top in ("paper", "data/processed/analysis", "data/processed/figures", "data/processed/datasets",
                "notebooks/executed"):  # fmt: skip
        for f in sorted((root / top).rglob("*")):
            rel = f.relative_to(root).as_posix()
            if f.is_file() and (g := group(rel)):
                st = f.stat()
                digest = hashlib.sha256(f.read_bytes()).hexdigest()
                print(f"{g}\t{rel}\t{st.st_size}\t{st.st_mtime_ns}\t{digest}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
