"""Tracer: the tracefs `blk` tracer (blktrace's ring-buffer twin; blktrace itself needs debugfs, which kernel
lockdown blocks on this host). Events of one device are read from trace_pipe, in blkparse-like text
(`blk_classic`), into a plain file; run.py compresses it afterwards so the workload does not compete with zstd.

The tracer is global to the host: start() refuses when current_tracer is not `nop` (someone else is tracing)
and callers hold hwlock.hardware_lock(). stop() always returns the host to `nop`, the device's trace disabled,
and the previous buffer size and trace clock."""

from __future__ import annotations

import errno
import os
import re
import sys
import threading
import time
from pathlib import Path

from blkscope.capture import ledger
from blkscope.capture.sh import CommandFailed, sh

TRACEFS = Path("/sys/kernel/tracing")
OPTIONS = ["blk_classic"]
CLOCK = "mono"  # CLOCK_MONOTONIC: run.yaml records its value against UTC, so trace and iostat times align
# The reader empties trace_pipe every 50 ms; 2 s either side of a kept window covers its lag at saturation.
WINDOW_MARGIN_S = 2.0


class TracerBusy(RuntimeError):
    pass


def ensure_mounted(root: Path = TRACEFS) -> bool:
    """Mount tracefs at root when it is not; True if we mounted it. Another process may mount it between our look
    and our mount (pytest-xdist's workers import the root tests at once after a boot): mount(8) then refuses with
    "already mounted", which is no failure. That refusal made the root tests skip on a machine's first run."""
    if (root / "current_tracer").exists():
        return False
    try:
        sh(["mount", "-t", "tracefs", "nodev", str(root)])
    except CommandFailed:
        if (root / "current_tracer").exists():
            return False
        raise
    return True


def blk_available(root: Path = TRACEFS) -> bool:
    """Whether the kernel offers the blk tracer; as root, mounts tracefs first (a fresh boot may lack it)."""
    if os.geteuid() == 0:
        try:
            ensure_mounted(root)
        except Exception:  # noqa: BLE001 - no tracefs in this kernel or container: simply unavailable
            return False
    f = root / "available_tracers"
    return f.exists() and "blk" in f.read_text().split()


STAT_KEYS = ("entries", "overrun", "commit_overrun", "dropped_events", "read_events")


def read_cpu_stats(root: Path = TRACEFS) -> dict[int, dict[str, int]]:
    """per_cpu/cpuN/stats counters: entries (left unread), overrun, commit_overrun, dropped_events, read_events."""
    stats: dict[int, dict[str, int]] = {}
    for d in sorted((root / "per_cpu").glob("cpu[0-9]*"), key=lambda p: int(p.name[3:])):
        row: dict[str, int] = {}
        for line in (d / "stats").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip().replace(" ", "_")
            if key in STAT_KEYS:
                row[key] = int(value.strip())
        stats[int(d.name[3:])] = row
    return stats


class BlkTracer:
    def __init__(self, device_name: str, raw_out: Path, buffer_size_kb: int = 65536, root: Path = TRACEFS) -> None:
        self.dev = device_name
        self.raw_out = raw_out
        self.buffer_size_kb = buffer_size_kb
        self.root = root
        self.enable = Path("/sys/block", device_name, "trace", "enable")
        self.info: dict = {"name": "tracefs-blk", "tracer": "blk", "options": OPTIONS, "clock": CLOCK}
        self._saved: dict[str, str] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bytes = 0
        self._error: BaseException | None = None
        self._enabled = False
        self.started = False
        # A kept window (monotonic seconds, keep_window()): chunks read outside it, with a margin for the reader's
        # lag, are counted by their lines and not written; window.cut() trims the file to the window exactly.
        self._window: tuple[float, float] | None = None
        self._outside_lines = {"before": 0, "after": 0}

    def _w(self, name: str, value: str) -> None:
        print(f"+ echo {value or '(empty)'} > {self.root / name}", file=sys.stderr, flush=True)
        (self.root / name).write_text(value + "\n")

    def _r(self, name: str) -> str:
        return (self.root / name).read_text().strip()

    def start(self) -> None:
        try:
            self._start()
        except BaseException:
            try:
                self.stop()
            except Exception as e:  # noqa: BLE001 - the original error matters more
                print(f"blkscope: {e}", file=sys.stderr)
            raise

    def _start(self) -> None:
        self.info["mounted_tracefs"] = ensure_mounted(self.root)
        current = self._r("current_tracer")
        if current != "nop":
            raise TracerBusy(f"{self.root}/current_tracer is {current!r}, not 'nop': another trace is running")
        if "blk" not in self._r("available_tracers").split():
            raise TracerBusy(f"{self.root}/available_tracers lacks 'blk' (kernel without CONFIG_BLK_DEV_IO_TRACE)")
        enables = Path("/sys/block").glob("*/trace/enable")
        others = [p.parent.parent.name for p in enables if p.read_text().strip() == "1"]
        self.info["other_devices_enabled"] = sorted(set(others) - {self.dev})
        if self.info["other_devices_enabled"]:
            print(f"blkscope: warning: blk trace also enabled on {others}", file=sys.stderr)
        size, clock = _buffer_kb(self._r("buffer_size_kb")), _selected(self._r("trace_clock"))
        self._saved = {"buffer_size_kb": size, "trace_clock": clock}
        ledger.note("tracer", device=self.dev, saved=self._saved, root=self.root)
        self.started = True  # from here on stop() has something to undo
        self._w("buffer_size_kb", str(self.buffer_size_kb))
        self._w("trace_clock", CLOCK)
        self._w("trace", "")  # empty the ring buffer and its overrun counters
        self.info["buffer_size_kb"] = int(self._r("buffer_size_kb"))
        print(f"+ echo 1 > {self.enable}", file=sys.stderr)
        self.enable.write_text("1\n")
        self._enabled = True
        self.info["act_mask"] = Path(self.enable.parent, "act_mask").read_text().strip()
        self._w("current_tracer", "blk")
        for opt in OPTIONS:
            self._w("trace_options", opt)
        self._w("tracing_on", "1")
        self.info["overruns_at_start"] = sum(c.get("overrun", 0) for c in read_cpu_stats(self.root).values())
        fd = os.open(self.root / "trace_pipe", os.O_RDONLY | os.O_NONBLOCK)
        self._thread = threading.Thread(target=self._pump, args=(fd,), name="trace_pipe", daemon=True)
        self._thread.start()

    def _pump(self, fd: int) -> None:
        # Non-blocking reads: trace_pipe's poll() waits for buffer_percent of a page set, so poll is no use here.
        try:
            with open(self.raw_out, "wb") as out:
                while True:
                    try:
                        chunk = os.read(fd, 1 << 20)
                    except BlockingIOError:
                        chunk = b""
                    except OSError as e:
                        if e.errno != errno.EINTR:
                            raise
                        chunk = b""
                    if chunk:
                        self._bytes += len(chunk)
                        side = self._side(time.monotonic())
                        if side is None:
                            out.write(chunk)
                        else:
                            self._outside_lines[side] += chunk.count(b"\n")
                    elif self._stop.is_set():
                        break  # stop was asked and the buffer is drained
                    else:
                        time.sleep(0.05)
        except BaseException as e:  # noqa: BLE001 - reported by stop()
            self._error = e
        finally:
            os.close(fd)

    def keep_window(self, start_mono: float, end_mono: float) -> None:
        """Keep only events of [start, end) (CLOCK_MONOTONIC, the trace clock); the tracer stays on throughout."""
        self._window = (start_mono, end_mono)
        self.info["window"] = {"start_monotonic_s": round(start_mono, 6), "end_monotonic_s": round(end_mono, 6),
                               "reader_margin_s": WINDOW_MARGIN_S}  # fmt: skip

    def _side(self, now: float) -> str | None:
        """None while the chunk read now is kept; else which side of the window it lies on."""
        w = self._window
        if w is None or w[0] - WINDOW_MARGIN_S <= now <= w[1] + WINDOW_MARGIN_S:
            return None
        return "before" if now < w[0] else "after"

    def stop(self) -> dict:
        """Disable, drain, record overruns, restore. Every step is tried; the first error is raised at the end."""
        errors: list[str] = []

        def step(what: str, fn) -> None:
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - keep restoring the host
                errors.append(f"{what}: {e}")

        if not self.started:
            return self.info
        if self._enabled:
            step("disable device trace", lambda: self.enable.write_text("0\n"))
            self._enabled = False
        time.sleep(0.2)  # events already emitted reach the ring buffer
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
            if self._thread.is_alive():
                errors.append("trace_pipe reader did not finish")
        if self._error is not None:
            errors.append(f"trace_pipe reader: {self._error}")
        try:
            stats = read_cpu_stats(self.root)
            self.info["per_cpu"] = stats
            self.info["overruns_per_cpu"] = {c: s.get("overrun", 0) for c, s in stats.items()}
            self.info["overruns_total"] = sum(self.info["overruns_per_cpu"].values())
            lost = {c: s.get("dropped_events", 0) + s.get("commit_overrun", 0) for c, s in stats.items()}
            self.info["dropped_total"] = sum(lost.values())
            self.info["read_events_total"] = sum(s.get("read_events", 0) for s in stats.values())
            self.info["entries_left"] = sum(s.get("entries", 0) for s in stats.values())
        except OSError as e:
            errors.append(f"read per_cpu stats: {e}")
        self.info["bytes_read"] = self._bytes
        if self._window is not None:
            self.info["window"]["lines_read_outside_margin"] = dict(self._outside_lines)
        for _ in range(10):  # EBUSY while a trace_pipe reader is still open (ours closes in _pump)
            try:
                self._w("current_tracer", "nop")
                break
            except OSError as e:
                if e.errno != errno.EBUSY:
                    errors.append(f"current_tracer=nop: {e}")
                    break
                time.sleep(0.3)
        else:
            errors.append("current_tracer=nop: busy (another trace_pipe reader is open)")
        for name, value in self._saved.items():
            step(f"restore {name}", lambda n=name, v=value: self._w(n, v))
        self.started = False
        if errors:
            raise RuntimeError("tracer stop: " + "; ".join(errors))
        return self.info

    def __enter__(self) -> BlkTracer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        from blkscope.capture import signals

        with signals.deferred():
            if exc[0] is None:
                self.stop()
            else:
                try:
                    self.stop()
                except Exception as e:  # noqa: BLE001 - the original error matters more
                    print(f"blkscope: {e}", file=sys.stderr)


def reset(device: str, saved: dict[str, str], root: Path = TRACEFS) -> None:
    """Undo the tracer of a capture that died (watchdog.py) as stop() would; its reader died with it. Another
    tracer than blk (or nop) is someone else's: then only this device's switch is turned off."""
    t = BlkTracer(device, Path(os.devnull), root=root)
    t._saved, t.started, t._enabled = dict(saved), True, t.enable.exists()
    if t._r("current_tracer") not in ("blk", "nop"):
        if t._enabled:
            t.enable.write_text("0\n")
        return
    t.stop()


def _buffer_kb(text: str) -> str:
    """buffer_size_kb as it can be written back: a fresh tracefs reads '7 (expanded: 1408)' (the ring buffer
    grows to 1408 KiB on first use), which the kernel refuses as input; the size it would use is the second."""
    m = re.fullmatch(r"(\d+)(?: \(expanded: (\d+)\))?", text.strip())
    if not m:
        raise RuntimeError(f"buffer_size_kb reads {text!r}: not a size")
    return m.group(2) or m.group(1)


def _selected(choices: str) -> str:
    """'[local] global mono' -> 'local'."""
    for word in choices.split():
        if word.startswith("["):
            return word.strip("[]")
    return choices.split()[0]


# blk_classic: "  7,1    1 17288.500557940 28114  Q  RS 1796524 + 238 [Thread-13]" (device, CPU, time, pid, ...)
_TIME = re.compile(rb"^\s*\d+,\d+\s+\d+\s+(\d+\.\d+)\s")


def cut_window(raw: Path, start: float, end: float) -> dict[str, int]:
    """Keep the lines of `raw` whose time is in [start, end) (rewritten in place); count the rest: before, after,
    and partial lines (a chunk's edge at the reader's margin, where the reader started or stopped writing)."""
    counts = {"kept": 0, "before": 0, "after": 0, "partial": 0}
    tmp = raw.with_suffix(".window")
    with open(raw, "rb") as src, open(tmp, "wb") as dst:
        for line in src:
            m = _TIME.match(line)
            if m is None or not line.endswith(b"\n"):
                counts["partial"] += 1
                continue
            t = float(m.group(1))
            side = "before" if t < start else "after" if t >= end else "kept"
            counts[side] += 1
            if side == "kept":
                dst.write(line)
    tmp.replace(raw)
    return counts
