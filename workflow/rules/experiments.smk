# Hardware runs (root): `snakemake --cores 1 experiments` captures, through `blkscope capture`, every run of the
# runs sheet that has no raw data yet, into data/raw/<run>/. Never part of `all`.
#
# Why `all` can never start a capture: the capture rules only match runs without data/raw/<run>/run.yaml (or
# runs named in config `capture: recapture: [...]`), so committed raw files are plain source files to every other
# rule, whatever their mtimes in a fresh clone or the .snakemake metadata; and `all` only analyses CAPTURED runs
# (common.smk). To capture a run again: delete data/raw/<run>/, or name it in config `capture: recapture` and
# add `--forcerun capture_run`.
# Captures are serialised by the `testbed` resource (profiles/default sets testbed: 1) and, inside blkscope, by
# flock on /tmp/blkscope-hw.lock: the tracefs blk tracer is global to the host.
from blkscope.capture import targets as capture_targets

_RECAPTURE = config["capture"].get("recapture", [])
_HOST = ("loop", "device")
CAPTURE_TRACED = capture_targets.to_capture(ROWS, RAW, traced=True, recapture=_RECAPTURE, testbeds=_HOST)
CAPTURE_UNTRACED = capture_targets.to_capture(ROWS, RAW, traced=False, recapture=_RECAPTURE, testbeds=_HOST)
CAPTURE_GUEST = capture_targets.to_capture(ROWS, RAW, traced=True, recapture=_RECAPTURE, testbeds=["guest"])
CAPTURE_GUEST_UNTRACED = capture_targets.to_capture(
    ROWS, RAW, traced=False, recapture=_RECAPTURE, testbeds=["guest"]
)
# A batch of the runs sheet is captured in its recorded random order (config/capture_order.tsv, drawn by
# `blkscope capture-order`): each capture of a batch waits for the run.yaml of the run before it, as long as that
# run is still to be captured. Runs of no batch (the light dataset) keep the scheduler's order.
ORDER_FILE = config["capture"]["order"]
_PENDING = set(CAPTURE_TRACED + CAPTURE_UNTRACED + CAPTURE_GUEST + CAPTURE_GUEST_UNTRACED)
_PREVIOUS = capture_targets.predecessors(ROWS, ORDER_FILE)
# A batch whose rows are in the sheet but whose order is not drawn yet: no error for `all`; `experiments` leaves
# its runs out (said here) and a capture of one of them, asked for by name, refuses.
_UNDRAWN = capture_targets.undrawn(ROWS, ORDER_FILE)
if _UNDRAWN:
    print(f"blkscope: {len(_UNDRAWN)} run(s) of batch(es) {', '.join(sorted(set(_UNDRAWN.values())))} wait for their "
          f"recorded order (blkscope capture-order --batch BATCH); `experiments` leaves them out", file=sys.stderr)


# run_metas (common.smk) but for the runs of batches whose order is not drawn yet
drawn_run_metas = lambda wildcards: [  # noqa: E731
    f for f, r in zip(run_metas(wildcards), RUN_IDS, strict=True) if r not in _UNDRAWN
]


after_previous = lambda wildcards: capture_targets.after(  # noqa: E731
    _PREVIOUS, wildcards.run, _PENDING, RAW, _UNDRAWN, ORDER_FILE
)


GUEST = "build/guest"  # git-ignored: the guest kernel, its initramfs and their manifest
from blkscope.capture.guest.testbed import GuestPlan

GUEST_CPUS = GuestPlan.cpus  # qemu -smp: blktrace writes one file per CPU
# The Snakemake config is the only source of capture settings here, hence --config none.
CAPTURE_CMD = (
    "blkscope capture --runs {input.runs} --run-id {wildcards.run} --config none {params.allow}"
    " --workdir {params.workdir} -o $(dirname {output.meta}) > {log} 2>&1"
)


rule experiments:
    input:
        drawn_run_metas,
        f"{RAW}/MANIFEST.tsv",


# The dataset's manifest (committed with it): every raw file with its run, size and sha256.
rule dataset_manifest:
    input:
        runs=config["runs"],
        meta=drawn_run_metas,
    output:
        f"{RAW}/MANIFEST.tsv",
    log:
        "logs/experiments/manifest.log",
    shell:
        "blkscope manifest $(dirname {output}) --runs {input.runs} -o {output} > {log} 2>&1"


# Host runs of every workload (fio, sysbench, journal, YCSB-RocksDB), traced or not: what lands in the run's
# directory depends on the workload (trace.txt.zst when traced, iostat.json, fio.json / sysbench.txt /
# journal.json / ycsb logs), so run.yaml, written last, is the output that says the capture finished.
rule capture_run:
    input:
        runs=config["runs"],
        job=lambda w: capture_targets.job_inputs(ROWS, w.run),
        after=after_previous,
    output:
        meta=f"{RAW}/{{run}}/run.yaml",
    params:
        allow=capture_targets.allow_options(config["capture"]["allowed_devices"]),
        workdir=config["capture"]["workdir"],
    wildcard_constraints:
        run=capture_targets.pattern(CAPTURE_TRACED + CAPTURE_UNTRACED),
    resources:
        testbed=1,
    log:
        "logs/experiments/{run}.log",
    benchmark:
        "benchmarks/experiments/{run}.tsv"
    shell:
        CAPTURE_CMD


# The emulated guest (qemu TCG): Debian's current 6.1 kernel package and an initramfs with its modules, busybox,
# fio, blktrace, iostat and mkfs.{ext4,xfs,btrfs,f2fs} from this host's Debian packages (deps/debian-capture.txt).
rule guest_build:
    input:
        init="src/blkscope/capture/guest/init.sh",
    output:
        kernel=f"{GUEST}/vmlinuz",
        initramfs=f"{GUEST}/initramfs.cpio",
        manifest=f"{GUEST}/manifest.json",
    log:
        "logs/experiments/guest_build.log",
    benchmark:
        "benchmarks/experiments/guest_build.tsv"
    shell:
        "python -m blkscope.capture.guest.build -o $(dirname {output.manifest}) > {log} 2>&1"


# Guest runs: binary per-CPU blktrace files (zstd), iostat and fio JSON, the guest's dmesg, run.yaml.
rule capture_guest:
    input:
        runs=config["runs"],
        job=lambda w: capture_targets.job_inputs(ROWS, w.run),
        after=after_previous,
        kernel=f"{GUEST}/vmlinuz",
        initramfs=f"{GUEST}/initramfs.cpio",
        manifest=f"{GUEST}/manifest.json",
    output:
        # one file per guest CPU (blktrace.GUEST_CPUS; plain files, so no .snakemake_timestamp lands in raw data)
        blktrace=[f"{RAW}/{{run}}/blktrace/vda.blktrace.{cpu}.zst" for cpu in range(GUEST_CPUS)],
        dmesg=f"{RAW}/{{run}}/dmesg.txt.zst",
        meta=f"{RAW}/{{run}}/run.yaml",
    params:
        allow="",
        workdir=config["capture"]["workdir"],
    wildcard_constraints:
        run=capture_targets.pattern(CAPTURE_GUEST),
    resources:
        testbed=1,
    log:
        "logs/experiments/{run}.log",
    benchmark:
        "benchmarks/experiments/{run}.tsv"
    shell:
        CAPTURE_CMD


use rule capture_guest as capture_guest_untraced with:
    output:
        dmesg=f"{RAW}/{{run}}/dmesg.txt.zst",
        meta=f"{RAW}/{{run}}/run.yaml",
    wildcard_constraints:
        run=capture_targets.pattern(CAPTURE_GUEST_UNTRACED),
