"""sysbench fileio, random read/write with 4 threads: the MySQL replication-storage study's setting (STUDIES.md, 5).

Scaled to the loop device: the test files take a quarter of it (256 MiB on 1 GiB). O_DIRECT (InnoDB's
innodb_flush_method=O_DIRECT), 16 KiB blocks (an InnoDB page; sysbench's default) and sysbench's default fsync
every 100 requests per file. Rate-limited so a traced run stays small; the same rate untraced gives the overhead.
`prepare` (file creation) is untraced; its output and the run's go to sysbench.txt, one after the other."""

from __future__ import annotations

from pathlib import Path

from blkscope.capture.sh import version
from blkscope.capture.workloads.base import Workload, redirect, run_to_file

OUTPUTS = ("sysbench.txt",)

DEFAULTS = {
    "file_test_mode": "rndrw",
    "threads": 4,
    "file_num": 16,
    "file_block_size": 16384,
    "file_extra_flags": "direct",
    "file_fsync_freq": 100,
    "file_rw_ratio": 1.5,
    "rate": 300,  # requests/s over all threads; 0 = as fast as possible
    "size_fraction": 0.25,  # of the device
    "report_interval": 1,
}
JOBS = {"rndrw": {}, "rndrw-max": {"rate": 0},
        # the volume-size claim (STUDIES.md, 5): the same 256 MiB of files on a 2 TiB and a 16 TiB device (a
        # quarter of either would take hours to lay out), so that only where the filesystem puts them differs
        "rndrw-max-256m": {"rate": 0, "file_total_size_mb": 256}}


class Sysbench(Workload):
    name = "sysbench"
    tools = ("sysbench",)
    jobs = JOBS
    rate_key, defaults = "rate", DEFAULTS  # the load level: job_rate
    outputs = OUTPUTS
    guest_prepare_s = 300
    guest_versions = ("sysbench",)
    guest_inputs = "nothing else (sysbench is in the initramfs)"

    def resolve(self, row: dict) -> dict:
        o = {**DEFAULTS, **JOBS[row["job"]]}
        fraction = o.pop("size_fraction")
        o.setdefault("file_total_size_mb", int(row["device_mb"] * fraction))
        o["time_s"] = int(row["runtime_s"])
        o["rand_seed"] = int(row["repeat"])
        return o

    def args(self) -> list[str]:
        """Options shared by prepare and run (sysbench needs the file layout in both)."""
        o = self.options
        return [
            "fileio",
            f"--file-num={o['file_num']}",
            f"--file-total-size={o['file_total_size_mb']}M",
            f"--file-block-size={o['file_block_size']}",
            f"--file-test-mode={o['file_test_mode']}",
            f"--file-extra-flags={o['file_extra_flags']}",
            f"--file-fsync-freq={o['file_fsync_freq']}",
            f"--file-rw-ratio={o['file_rw_ratio']}",
        ]

    def prepare_command(self) -> list[str]:
        return ["sysbench", *self.args(), "prepare"]

    def run_command(self) -> list[str]:
        o = self.options
        return [
            "sysbench",
            *self.args(),
            f"--threads={o['threads']}",
            f"--time={o['time_s']}",
            "--events=0",
            f"--rate={o['rate']}",
            f"--rand-seed={o['rand_seed']}",
            f"--report-interval={o['report_interval']}",
            "--percentile=95",
            "run",
        ]

    def prepare(self, mnt: Path, out: Path) -> None:
        self.info["version"] = version(["sysbench", "--version"])
        self.info["commands"] = {"prepare": self.prepare_command(), "run": self.run_command(), "cwd": "<mountpoint>"}
        _in(mnt, self.prepare_command(), out / "sysbench.txt", append=False)

    def run(self, mnt: Path, out: Path) -> dict:
        _in(mnt, self.run_command(), out / "sysbench.txt", append=True)
        return self.summarize(out)

    def summarize(self, out: Path) -> dict:
        return {"output": "sysbench.txt"}

    def guest_steps(self, mnt: str, out: str) -> tuple[list[str], list[str]]:
        self.info["commands"] = {"prepare": self.prepare_command(), "run": self.run_command(), "cwd": "<mountpoint>"}
        txt = f"{out}/sysbench.txt"
        prepare = ["export LC_ALL=C", redirect(self.prepare_command(), txt, cwd=mnt)]
        return prepare, ["export LC_ALL=C", redirect(self.run_command(), txt, append=True, cwd=mnt)]

    def describe(self, mnt: Path) -> list[str]:
        return [
            f"cd {mnt}; " + " ".join(self.prepare_command()) + " > sysbench.txt  (untraced)",
            "cd <mnt>; " + " ".join(self.run_command()) + " >> sysbench.txt",
        ]


def _in(cwd: Path, cmd: list[str], out: Path, append: bool) -> None:
    # sysbench fileio works in its current directory: run it in the mounted filesystem.
    run_to_file(cmd, out, append=append, env={"LC_ALL": "C"}, cwd=cwd)
