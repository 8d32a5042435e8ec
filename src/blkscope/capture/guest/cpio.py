"""A minimal writer of the cpio `newc` format (what the kernel unpacks as an initramfs).

Written here rather than by cpio(1) so that the archive is byte-for-byte reproducible: entries sorted, owner
root, mtime 0, inode numbers in order."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import BinaryIO

TRAILER = "TRAILER!!!"


def _header(ino: int, mode: int, nlink: int, size: int, name: bytes) -> bytes:
    fields = [ino, mode, 0, 0, nlink, 0, size, 0, 0, 0, 0, len(name) + 1, 0]
    return b"070701" + b"".join(f"{v:08X}".encode() for v in fields)


def _pad(f: BinaryIO, n: int) -> None:
    f.write(b"\0" * (-n % 4))


def _entry(f: BinaryIO, ino: int, mode: int, name: str, data: bytes = b"") -> None:
    nm = name.encode()
    head = _header(ino, mode, 2 if stat.S_ISDIR(mode) else 1, len(data), nm) + nm + b"\0"
    f.write(head)
    _pad(f, len(head))
    f.write(data)
    _pad(f, len(data))


def write_tree(root: Path, out: Path) -> int:
    """Archive every file, directory and symlink under root (paths relative to it); returns the entry count."""
    paths = sorted(p for p in root.rglob("*"))
    with open(out, "wb") as f:
        for ino, p in enumerate(paths, 1):
            rel = p.relative_to(root).as_posix()
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode):
                _entry(f, ino, stat.S_IFLNK | 0o777, rel, str(p.readlink()).encode())
            elif stat.S_ISDIR(st.st_mode):
                _entry(f, ino, stat.S_IFDIR | 0o755, rel)
            elif stat.S_ISREG(st.st_mode):
                _entry(f, ino, stat.S_IFREG | (0o755 if st.st_mode & 0o111 else 0o644), rel, p.read_bytes())
            else:
                raise ValueError(f"{p}: only files, directories and symlinks go into the initramfs")
        _entry(f, len(paths) + 1, 0, TRAILER)
        f.write(b"\0" * (-f.tell() % 512))
    return len(paths)


def names(archive: Path) -> list[str]:
    """Entry names of a newc archive (for tests and the manifest check)."""
    data, pos, out = archive.read_bytes(), 0, []
    while pos + 110 <= len(data):
        h = data[pos : pos + 110]
        if h[:6] != b"070701":
            raise ValueError(f"{archive}: byte {pos}: not a newc header")
        size, namesize = int(h[54:62], 16), int(h[94:102], 16)
        name = data[pos + 110 : pos + 110 + namesize - 1].decode()
        if name == TRAILER:
            break
        out.append(name)
        pos += 110 + namesize
        pos += -pos % 4
        pos += size + (-size % 4)
    return out
