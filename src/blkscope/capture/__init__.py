"""Hardware runs, in one direction (tests/test_capture_layers.py checks it):

- base: sh, procs, signals, hwlock, safety, record (run.yaml, publication), iostat, tracefs, blktrace, filesystem;
- testbeds: loop.py and device.py (a mounted filesystem on the host), guest/ (the emulated guest under qemu);
- workloads, beside them: fio.py and workloads/ (each a Workload: what it builds, prepares, runs, leaves);
- the orchestrator on top: run.py (host) with run_guest.py (guest); `run.capture_run` is the one entry point
  (`blkscope capture`), and nothing in capture/ imports it.

Every run touches the host only through allow-listed devices and always tears down; see safety.py, loop.py and
signals.py.
"""
