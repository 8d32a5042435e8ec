# The Snakefile with parts of Snakemake's own work switched off, for A/B runs of its CPU (bench/dag/profile_master.sh):
# copied beside the Snakefile of a tree and run as `snakemake -s ab.smk ...`. AB_NOBENCH=1: the benchmark timer
# (psutil's process tree, memory_full_info and io_counters of each process every 0.5 s, then every 30 s, per
# benchmarked job) never starts; the benchmark files are still written, their measures empty. AB_NOREEVAL=1: the
# job rate limiter's re-evaluation (--max-jobs-per-timespan, 100/1s by default: a scheduling pass every second while
# a job waits for a core) is not armed; a job that ends still wakes the scheduler.
import os

if os.environ.get("AB_NOBENCH") == "1":
    import snakemake.benchmark

    snakemake.benchmark.BenchmarkTimer.start = lambda self: None

if os.environ.get("AB_NOREEVAL") == "1":
    from snakemake.scheduling.job_scheduler import JobScheduler

    JobScheduler._schedule_reevalutation = lambda self, delay: None


include: "Snakefile"
