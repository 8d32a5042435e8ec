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
    log:
        "logs/analysis/steady_state.log",
    benchmark:
        "benchmarks/analysis/steady_state.tsv"
    shell:
        "blkscope steady-state --runs {input.runs} --processed {params.processed} --ycsb-phases {input.phases}"
        " -o {output.table} --csv {output.csv} {params.runs} --check-datasets {input.datasets} > {log} 2>&1"
