"""Dataset manifests: what the workflow declares in place of every per-run table.

A job that writes one table per run (an ingest batch, a per-run analysis run with `--each`) declares one file,
its manifest (<processed>/datasets/<name>.tsv): a line per table it wrote, with the path relative to the
manifest, its size, sha256 and modification time. Jobs that read those tables take the manifests as inputs and
verify them before they start, so a table removed, truncated or rewritten behind the workflow's back stops the job
with the file named, instead of being read. A table whose size and mtime (ns) are the recorded ones is taken as
written, as make and Snakemake take a file by its mtime; only one whose mtime moved is hashed (a copy that kept
no times passes when its bytes are the same): hashing every table for every reading job was ~3.3 GB, ~150,000
files, in the main job. Declaring a manifest rather than its ~thousand tables keeps Snakemake's own
bookkeeping small (bench/RESULTS.md, "The main job"): the tables stay where they were, one directory per run.

Plain Python only (no polars): `blkscope ingest-runs` records its batch's manifest and starts fast.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from blkscope.errors import InputError

HEADER = ["path", "bytes", "sha256", "mtime_ns"]


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def record(manifest: Path, files: list[Path]) -> int:
    """Write `manifest` listing `files` (each must exist: a file the job should have written and did not is an
    error, not a short manifest). Written to a temporary name and renamed, so a reader never sees half of it.
    Returns the number of files."""
    manifest = Path(manifest)
    lines = ["\t".join(HEADER)]
    for f in sorted(set(map(Path, files))):
        if not f.is_file():
            raise InputError(f, None, f"not written, but listed for the dataset {manifest}")
        st = f.stat()
        lines.append(f"{os.path.relpath(f, manifest.parent)}\t{st.st_size}\t{sha256(f)}\t{st.st_mtime_ns}")
    manifest.parent.mkdir(parents=True, exist_ok=True)
    tmp = manifest.with_name(f".{manifest.name}.tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(manifest)
    return len(lines) - 1


def verify(manifest: Path) -> list[Path]:
    """The files `manifest` lists, each checked against its recorded size, and mtime or else sha256; the first
    that differs (or a malformed line) is an InputError naming the manifest's line and the file."""
    manifest = Path(manifest)
    lines = manifest.read_text().splitlines()
    head = lines[0].split("\t") if lines else []
    if head not in (HEADER, HEADER[:3]):  # three columns: written before the mtime was (every file hashed)
        raise InputError(manifest, "line 1", f"not a dataset manifest (expected the header {' '.join(HEADER)})")
    files = []
    for n, line in enumerate(lines[1:], start=2):
        parts = line.split("\t")
        if len(parts) != len(head) or not all(p.isdigit() for p in parts[1::2]) or len(parts[2]) != 64:
            raise InputError(manifest, f"line {n}", f"expected {', '.join(head)}: {line!r}")
        f = Path(os.path.normpath(manifest.parent / parts[0]))
        try:
            st = f.stat()
        except FileNotFoundError:
            st = None
        if st is None or not stat.S_ISREG(st.st_mode):
            raise InputError(manifest, f"line {n}", f"{f} is missing (rerun the job that writes {manifest.name})")
        if st.st_size != int(parts[1]):
            raise InputError(manifest, f"line {n}", f"{f} has {st.st_size} bytes, the manifest {parts[1]}: "
                             "changed since")  # fmt: skip
        if parts[3:] != [str(st.st_mtime_ns)] and sha256(f) != parts[2]:
            raise InputError(manifest, f"line {n}", f"{f} has another sha256 than the manifest's: changed since")
        files.append(f)
    return files
