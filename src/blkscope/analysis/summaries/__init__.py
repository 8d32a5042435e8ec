"""One table across runs of what each run's logs report: run summaries, workload metrics, iostat means, extents,
YCSB phases, Cassandra per configuration, filesystems compared over repeats, and the run groups (load level,
commitlog mode) they are read by."""
