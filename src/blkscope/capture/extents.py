"""Each file's extents at the end of a run (FIEMAP through e2fsprogs' `filefrag -v`), before the unmount: the SSD
study claims Cassandra's large files fragment on btrfs under random writes (issue L, 4). After `sync -f`, so
delayed allocation has placed every block; paths relative to the mountpoint, so the file names a directory
(`commitlog/...`, `data/...`) and never this run's temporary mountpoint. The raw output is kept as filefrag
printed it (readers/filefrag.py reads it into the table `extents`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from blkscope.capture.sh import sh, version

LOG = "filefrag.txt"
BATCH = 200  # files per filefrag call (argument lists stay short)


def files(mnt: Path, dirs: tuple[str, ...]) -> list[str]:
    """Regular files under mnt/<dir> for each dir, relative to mnt, sorted."""
    out = [p for d in dirs if (mnt / d).is_dir() for p in (mnt / d).rglob("*") if p.is_file() and not p.is_symlink()]
    return sorted(str(p.relative_to(mnt)) for p in out)


def record(mnt: Path, dirs: tuple[str, ...], out: Path) -> dict:
    """filefrag -v of every file under `dirs` into out/filefrag.txt; a summary for run.yaml. The node still runs,
    so a file listed can be gone when filefrag opens it (a recycled commitlog segment, a compacted SSTable): such
    files are counted as `vanished`; any other filefrag error fails the run."""
    sh(["sync", "-f", str(mnt)])
    names = files(mnt, dirs)
    vanished: list[str] = []
    with open(out / LOG, "w") as f:
        for i in range(0, len(names), BATCH):
            batch = names[i : i + BATCH]
            # cwd=mnt: the file names in the output are relative; filefrag exits non-zero on an unreadable file
            p = subprocess.run(["filefrag", "-v", *batch], cwd=mnt, capture_output=True, text=True, timeout=300,
                               process_group=0)  # fmt: skip
            if p.returncode != 0:
                gone = [n for n in batch if not (mnt / n).exists()]
                other = [line for line in p.stderr.splitlines() if "No such file or directory" not in line]
                if not gone or other:
                    raise RuntimeError(f"filefrag -v exit {p.returncode}: {p.stderr.strip()[-300:]}")
                vanished += gone
            f.write(p.stdout)
    return {"command": f"sync -f <mountpoint>; cd <mountpoint> && filefrag -v <every file under {', '.join(dirs)}>",
            "files": len(names) - len(vanished), "vanished": len(vanished), "filefrag": version(["filefrag", "-V"]),
            "log": LOG}  # fmt: skip


def describe(dirs: tuple[str, ...]) -> str:
    return f"sync -f <mnt>; (cd <mnt> && filefrag -v <every file under {', '.join(dirs)}>) > {LOG}"
