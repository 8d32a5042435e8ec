"""qemu-system-x86_64 under TCG (no KVM on this host): the command, and a process that is always killed.

The guest writes nothing on the host but the two image files it is given; its console goes to a file."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from blkscope.capture import procs

BINARY = "qemu-system-x86_64"


def command(
    vmlinuz: Path, initrd: Path, disks: list[Path], append: str, *, memory_mb: int = 1536, cpus: int = 2
) -> list[str]:
    cmd = [BINARY, "-nographic", "-no-reboot", "-accel", "tcg", "-m", str(memory_mb), "-smp", str(cpus)]
    cmd += ["-nic", "none", "-monitor", "none", "-rtc", "base=utc"]
    cmd += ["-kernel", str(vmlinuz), "-initrd", str(initrd), "-append", append]
    for d in disks:
        # cache=none: O_DIRECT on the image, so the host page cache does not absorb the guest's writes
        cmd += ["-drive", f"file={d},format=raw,if=virtio,cache=none"]
    return cmd


class Guest:
    """A running qemu; `with Guest(...) as g: g.wait(timeout)`. Leaving the block kills qemu if it still runs."""

    def __init__(self, cmd: list[str], console: Path) -> None:
        self.cmd = cmd
        self.console = console
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Guest:
        self.proc = procs.start(self.cmd, self.console)
        return self

    def wait(self, timeout_s: float) -> int:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"guest did not power off within {timeout_s:.0f} s (console: {self.console})") from None

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            print(f"+ kill qemu (pid {self.proc.pid})", file=sys.stderr, flush=True)
            procs.stop(self.proc, grace_s=5)  # SIGINT: qemu exits at once; SIGKILL after 5 s otherwise


def describe(cmd: list[str]) -> str:
    return shlex.join(cmd)
