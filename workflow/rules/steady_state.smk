# The studies' scale regime (issue P): each run's steady-state window (items 1 and 4: the claims read the steady
# runs), and block skew against the cache-to-data ratio and the key count (item 3). Include after analysis.smk,
# stats.smk and characterise.smk (it reads their tables); add STEADY_OUTPUTS to `rule all`.

STEADY_OUTPUTS = expand(f"{ANALYSIS}/steady_state.{{ext}}", ext=["parquet", "csv"])


rule steady_state:
    input:
        runs=config["runs"],
        # each run's per-second log (YCSB status lines, cassandra-stress and sysbench intervals) or its iostat
        datasets=ingested(CAPTURED),
        phases=f"{ANALYSIS}/ycsb_phases.parquet",
    output:
        table=f"{ANALYSIS}/steady_state.parquet",
        csv=f"{ANALYSIS}/steady_state.csv",
    params:
        runs=CAPTURED,
        processed=lambda w, input: Path(input.datasets[0]).parents[1],
        raw=RAW,  # each traced run's run.yaml (a kept trace window); raw files never change (common.smk: raw())
    log:
        "logs/analysis/steady_state.log",
    benchmark:
        "benchmarks/analysis/steady_state.tsv"
    shell:
        "blkscope steady-state --runs {input.runs} --processed {params.processed} --raw {params.raw}"
        " --ycsb-phases {input.phases}"
        " -o {output.table} --csv {output.csv} {params.runs} --check-datasets {input.datasets} > {log} 2>&1"


# the sweep of issue P item 3, on one filesystem (ext4): traced YCSB runs under a memory cap (runs-sheet memory_cap)
# and the runs of the sweep's batch (config/claims_plan.yaml `descriptive`: its O_DIRECT runs have RocksDB's block
# cache as their cache); the sweep's runs without raw data yet are rows that say so, and its figure says which
# points are missing
# the sweeps' batches (RocksDB's, Cassandra's) and the prefix of each one's paper macros (paper/sweep_numbers.py); a
# later batch of a sweep (+) replaces the earlier one's configurations it ran again in the macros (Cassandra's 70 k
# point with its whole steady window kept: config/claims_plan.yaml `amendments`, 2026-11-30)
SWEEP_BATCHES = {"round4-sweep": "Sweep", "round4-sweep-cassandra+round4-sweep-cassandra-2": "SweepCass"}
SWEEP_BATCH_IDS = [b for spec in SWEEP_BATCHES for b in spec.split("+")]
SWEEP_RUNS = [r for r in TRACED if _row[r]["workload"] in ("ycsb", "cassandra-ycsb") and _row[r]["filesystem"] == "ext4"
              and (_row[r].get("memory_cap") or _row[r].get("batch") in SWEEP_BATCH_IDS)]  # fmt: skip
STEADY_OUTPUTS += [
    *expand(f"{ANALYSIS}/cache_sweep.{{ext}}", ext=["parquet", "csv"]),
    *expand(f"{FIGS}/cache_sweep.{{ext}}", ext=FORMATS),
]


localrules:
    figure_cache_sweep,
    paper_sweep_numbers,


rule cache_sweep:
    input:
        runs=config["runs"],
        meta=[raw(r, "run.yaml") for r in SWEEP_RUNS],
        zipf=f"{ANALYSIS}/zipf_cover.parquet",
        metadata=f"{ANALYSIS}/metadata_vs_data.parquet",
        datasets=f"{DATASETS}/reuse.tsv",  # each run's reuse summary and miss-ratio curve
    output:
        table=f"{ANALYSIS}/cache_sweep.parquet",
        csv=f"{ANALYSIS}/cache_sweep.csv",
    params:
        runs=SWEEP_RUNS,
        planned=" ".join(f"--planned {b}" for b in SWEEP_BATCH_IDS),
        raw=lambda w, input: Path(input.meta[0]).parents[1] if input.meta else RAW,
        processed=lambda w, input: Path(input.datasets).parents[1],
    log:
        "logs/analysis/cache_sweep.log",
    shell:
        "blkscope cache-sweep --runs {input.runs} --raw {params.raw} --processed {params.processed}"
        " --zipf {input.zipf} --metadata {input.metadata} {params.planned}"
        " -o {output.table} --csv {output.csv} {params.runs}"
        " --check-datasets {input.datasets} > {log} 2>&1"


rule figure_cache_sweep:
    input:
        table=f"{ANALYSIS}/cache_sweep.parquet",
    output:
        expand(f"{FIGS}/cache_sweep.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/cache_sweep.log",
    shell:
        "blkscope figure cache-sweep {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule paper_sweep_numbers:
    # the sweep's runs, configurations and ranges, for the Scale paragraph that points at its figure (appendix)
    input:
        sweep=f"{ANALYSIS}/cache_sweep.parquet",
        steady=f"{ANALYSIS}/steady_state.parquet",  # where the redone point's kept trace lies
    output:
        "paper/generated/numbers/sweep.tex",
    params:
        batches=" ".join(f"--batch {b}={prefix}" for b, prefix in SWEEP_BATCHES.items()),
    log:
        "logs/paper/sweep_numbers.log",
    shell:
        "python -m blkscope.paper.sweep_numbers --sweep {input.sweep} --steady {input.steady} {params.batches}"
        " -o {output} > {log} 2>&1"
