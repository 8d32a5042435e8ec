"""Testbed: a file-backed loop device with a fresh filesystem, mounted for one run, always torn down.

Teardown (umount, losetup -d of every loop device backed by our file, remove the file) runs on success, on any
exception and on SIGINT/SIGTERM (signals.raise_on_signals turns them into exceptions); it finds the loop device
by its backing file, so a signal that lands while losetup runs still leaves nothing behind.

With `medium=True` (a run with a device cap) the filesystem's loop device is backed not by the file but by a second
loop device over it, the medium. The cap (throttle.py) goes on the medium: capped there, the filesystem's device
waits for it, so its own queue and busy time show the limit (measured here: a 300 write-IOPS cap on the device
itself held fio at 302 IOPS with %util 2-5 and aqu-sz < 1, the throttled bios waiting above the device; on the
medium, the device above it was 99-100 % busy with aqu-sz 16 at the same 300 IOPS)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from blkscope.capture import ledger
from blkscope.capture.filesystem import commands, finish_teardown, mounted_at
from blkscope.capture.safety import check_device
from blkscope.capture.sh import CommandFailed, sh
from blkscope.datasets import sha256


@dataclass
class LoopFs:
    fstype: str
    size_mb: int
    mkfs_cmd: list[str]
    mount_cmd: list[str]
    rundir: Path
    backing_file: Path
    mountpoint: Path
    device: str | None = None
    medium: str | None = None  # the loop device under `device` when the run has a device cap
    allowed_because: str | None = None
    direct_io: str | None = None
    mount_options_effective: str | None = None
    mkfs_output: str = ""
    notes: list[str] = field(default_factory=list)
    image: dict | None = None  # started from a copy of a loaded image (image.py): its copy's record
    keep: Path | None = None  # after a clean teardown the backing file is moved here (an image being made)

    @property
    def name(self) -> str:
        return os.path.basename(self.device or "")

    def testbed_meta(self, backing_fs: str | None) -> dict:
        """run.yaml's testbed: block (backing_fs: the filesystem the backing file lives on)."""
        st = self.backing_file.stat()
        return {
            "kind": "loop",
            "device": self.device,
            "allowed_because": self.allowed_because,
            "backing_file_bytes": st.st_size,
            "backing_file_allocated_bytes": st.st_blocks * 512,
            "backing_fs": backing_fs,
            "direct_io": self.direct_io,
            "workdir": str(self.rundir.parent),
            **({"medium": self.medium, "medium_backing_file": str(self.backing_file)} if self.medium else {}),
        }


def loops_backed_by(backing: Path) -> list[str]:
    out = sh(["losetup", "--noheadings", "--output", "NAME", "--associated", str(backing)], check=False)
    return [line.strip() for line in out.splitlines() if line.strip().startswith("/dev/loop")]


@contextmanager
def loop_filesystem(
    workdir: Path,
    *,
    fstype: str,
    size_mb: int,
    mkfs_options: str = "",
    mount_options: str = "",
    allowed: list[str] | None = None,
    direct_io: bool = True,
    medium: bool = False,
    image: Path | None = None,
    keep: Path | None = None,
) -> Iterator[LoopFs]:
    """`image`: start from a copy of that backing file (a filesystem made and loaded earlier, image.py) instead of
    a fresh sparse file and mkfs; `keep`: keep the backing file there after a clean teardown."""
    workdir.mkdir(parents=True, exist_ok=True)
    prefix = f"run-{os.getpid()}-"  # the pid: a sweep (watchdog.py) removes only a dead capture's own
    ledger.note("loop", workdir=workdir, prefix=prefix)
    rundir = Path(tempfile.mkdtemp(prefix=prefix, dir=workdir))
    backing, mnt = rundir / "backing.img", rundir / "mnt"
    mkfs_cmd, mount_cmd = commands(fstype, mkfs_options, mount_options, "DEVICE", mnt)
    fs = LoopFs(fstype, size_mb, mkfs_cmd, mount_cmd, rundir, backing, mnt, keep=keep)
    try:
        if image is not None:
            fs.image = copy_image(image, backing)
        else:
            with open(backing, "wb") as f:
                f.truncate(size_mb << 20)  # sparse: only what the filesystem writes takes space
        mnt.mkdir()
        dio = ["--direct-io=on"] if direct_io else []  # O_DIRECT on the backing file: no second page cache
        under = backing
        if medium:
            fs.medium = sh(["losetup", "--find", "--show", *dio, str(backing)]).strip()
            check_device(fs.medium, ours=backing)
            under = Path(fs.medium)
        fs.device = sh(["losetup", "--find", "--show", *dio, str(under)]).strip()
        fs.allowed_because = check_device(fs.device, ours=under, allowed=allowed or [])
        fs.direct_io = _read(Path("/sys/block", fs.name, "loop", "dio"))
        fs.mkfs_cmd, fs.mount_cmd = commands(fstype, mkfs_options, mount_options, fs.device, mnt)
        if image is None:
            fs.mkfs_output = sh(fs.mkfs_cmd)
        sh(fs.mount_cmd)
        fs.mount_options_effective = mounted_at(mnt)
        yield fs
    finally:
        finish_teardown(teardown, fs)


def teardown(fs: LoopFs) -> list[str]:
    """Undo everything loop_filesystem did; every step is tried even when an earlier one failed."""
    errors: list[str] = []
    if fs.mountpoint.exists() and mounted_at(fs.mountpoint) is not None:
        for attempt in range(5):
            try:
                sh(["umount", str(fs.mountpoint)])
                break
            except CommandFailed as e:
                if attempt == 4:
                    errors.append(str(e))
                time.sleep(0.5 * (attempt + 1))  # a process that just exited may still hold the mount briefly
    if fs.backing_file.exists():
        media = set(loops_backed_by(fs.backing_file))
        if fs.medium:
            media.add(fs.medium)
        # the devices stacked on a medium go first: a medium in use cannot be detached
        upper = {(d, Path(m)) for m in sorted(media) for d in loops_backed_by(Path(m))}
        lower = {(d, fs.backing_file) for d in media}
        if fs.device:
            (upper if fs.medium else lower).add((fs.device, Path(fs.medium) if fs.medium else fs.backing_file))
        for group in (upper, lower):
            for dev, ours in sorted(group):
                try:
                    check_device(dev, ours=ours)  # never detach a loop device we did not create
                    sh(["losetup", "--detach", dev])
                except Exception as e:  # noqa: BLE001 - collect, keep tearing down
                    errors.append(str(e))
    if errors:
        errors.append(f"left {fs.rundir} in place for inspection")
    else:
        if fs.keep is not None and fs.backing_file.exists():
            fs.backing_file.replace(fs.keep)
        shutil.rmtree(fs.rundir, ignore_errors=True)
    return errors


def copy_image(image: Path, backing: Path) -> dict:
    """Copy a loaded image to a run's backing file, holes kept (`cp --sparse=always`), and hash the copy: the run
    starts from the image's bytes, and run.yaml can show it (image.py hashed the image when it was made)."""
    t0 = time.monotonic()
    sh(["cp", "--sparse=always", str(image), str(backing)], timeout=1800)
    copied_s = time.monotonic() - t0
    st = backing.stat()
    return {"copied_with": f"cp --sparse=always {image} <rundir>/backing.img", "copy_s": round(copied_s, 2),
            "copy_bytes": st.st_size, "copy_allocated_bytes": st.st_blocks * 512,
            "copy_sha256": sha256(backing), "hash_s": round(time.monotonic() - t0 - copied_s, 2)}  # fmt: skip


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None
