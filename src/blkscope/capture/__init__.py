"""Hardware runs: testbed (loop device + filesystem), tracer (tracefs blk), iostat and the workload (fio).

Every module here touches the host only through allow-listed devices and always tears down; see safety.py,
loop.py and signals.py. `run.capture_run` is the one entry point (`blkscope capture`).
"""
