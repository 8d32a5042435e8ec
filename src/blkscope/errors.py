"""One error type for bad input: it names the file and where in it."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's, without importing typing (blkscope.io says why)
if TYPE_CHECKING:
    from pathlib import Path


class InputError(Exception):
    """Bad input. `where` is e.g. 'line 12' or 'byte offset 4096'."""

    def __init__(self, path: str | Path, where: str | None, message: str) -> None:
        self.path = str(path)
        self.where = where
        self.message = message
        loc = f"{self.path}: {where}" if where else self.path
        super().__init__(f"{loc}: {message}")

    def __reduce__(self):  # rebuilt whole in a parent process (analyses of runs in parallel processes)
        return (type(self), (self.path, self.where, self.message))
