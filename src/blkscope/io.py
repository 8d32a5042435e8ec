"""Write outputs atomically: a reader or analysis that fails leaves nothing behind."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import polars as pl


def write_atomic(df: pl.DataFrame, path: str | Path) -> None:
    """Write Parquet (or CSV when the name ends in .csv) via a temp file and rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        if path.suffix == ".csv":
            df.write_csv(tmp)
        else:
            df.write_parquet(tmp, compression="zstd")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(text: str, path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
