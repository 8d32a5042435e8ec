# Parquet -> analysis tables (data/processed/analysis/<name>.{parquet,csv}).


rule page_frequency:
    # one process for every run (--each): per-run tables, listed in one dataset manifest
    input:
        datasets=ingested(FIO_TRACED),
        parts=split_parts(FIO_TRACED),
    output:
        dataset=f"{DATASETS}/frequency.tsv",
    params:
        events=[trace_events(r) for r in FIO_TRACED],
        files=expand(f"{PROC}/{{run}}/frequency/{{t}}.parquet", run=FIO_TRACED, t=["pages", "rank"]),
        page_kib=config["page_kib"],
        action=config["frequency_action"],
        pages=lambda w: f"{PROC}/{{run}}/frequency/pages.parquet",  # a template: `--each` fills in {run}
        rank=lambda w: f"{PROC}/{{run}}/frequency/rank.parquet",
    log:
        "logs/analysis/frequency.log",
    benchmark:
        "benchmarks/analysis/frequency.tsv"
    shell:
        "blkscope frequency --each {params.events} --page-kib {params.page_kib} --action {params.action}"
        " --pages '{params.pages}' --rank '{params.rank}' --check-datasets {input.datasets}"
        " --record-dataset {output.dataset} --dataset-files {params.files} > {log} 2>&1"


rule rank_frequency:
    input:
        runs=config["runs"],
        datasets=f"{DATASETS}/frequency.tsv",
    output:
        table=f"{ANALYSIS}/rank_frequency.parquet",
        csv=f"{ANALYSIS}/rank_frequency.csv",
    params:
        rank=expand(f"{PROC}/{{run}}/frequency/rank.parquet", run=FIO_TRACED),
    log:
        "logs/analysis/rank_frequency.log",
    shell:
        "blkscope rank-frequency --runs {input.runs} -o {output.table} --csv {output.csv} {params.rank}"
        " --check-datasets {input.datasets} > {log} 2>&1"


rule run_summary:
    input:
        runs=config["runs"],
        # each run's events, trace ingest.json, pages, fio and iostat tables
        datasets=[*ingested(FIO_TRACED), f"{DATASETS}/frequency.tsv"],
        parts=split_parts(FIO_TRACED),
    output:
        table=f"{ANALYSIS}/run_summary.parquet",
        csv=f"{ANALYSIS}/run_summary.csv",
    params:
        runs=FIO_TRACED,
        raw=RAW,
        processed=lambda w, input: Path(input.datasets[0]).parents[1],
    log:
        "logs/analysis/run_summary.log",
    shell:
        "blkscope run-summary --runs {input.runs} --raw {params.raw} --processed {params.processed}"
        " -o {output.table} --csv {output.csv} {params.runs} --check-datasets {input.datasets} > {log} 2>&1"


rule iostat_summary:
    input:
        runs=config["runs"],
        datasets=ingested(HOST_RUNS),
    output:
        table=f"{ANALYSIS}/iostat_summary.parquet",
        csv=f"{ANALYSIS}/iostat_summary.csv",
    params:
        iostat=expand(f"{PROC}/{{run}}/iostat/iostat.parquet", run=HOST_RUNS),
    priority: 10  # it gates claims, then the paper numbers and the paper: started with the long jobs
    log:
        "logs/analysis/iostat_summary.log",
    shell:
        "blkscope iostat-summary --runs {input.runs} -o {output.table} --csv {output.csv} {params.iostat}"
        " --check-datasets {input.datasets} > {log} 2>&1"


rule extents_summary:
    input:
        runs=config["runs"],
        datasets=ingested(EXTENT_RUNS),
    output:
        table=f"{ANALYSIS}/extents_summary.parquet",
        csv=f"{ANALYSIS}/extents_summary.csv",
    params:
        extents=expand(f"{PROC}/{{run}}/extents/extents.parquet", run=EXTENT_RUNS),
    log:
        "logs/analysis/extents_summary.log",
    shell:
        "blkscope extents-summary --runs {input.runs} -o {output.table} --csv {output.csv} {params.extents}"
        " --check-datasets {input.datasets} > {log} 2>&1"


rule ycsb_phases:
    input:
        runs=config["runs"],
        datasets=ingested(PHASE_RUNS),
        meta=[raw(r, "run.yaml") for r in PHASE_RUNS],
    output:
        table=f"{ANALYSIS}/ycsb_phases.parquet",
        csv=f"{ANALYSIS}/ycsb_phases.csv",
    params:
        # from the inputs (the linter: a hard-coded prefix of them breaks without a shared filesystem)
        raw=lambda w, input: Path(input.meta[0]).parents[1] if input.meta else RAW,
        series=expand(f"{PROC}/{{run}}/ycsb/ycsb_series.parquet", run=PHASE_RUNS),
    log:
        "logs/analysis/ycsb_phases.log",
    shell:
        "blkscope ycsb-phases --runs {input.runs} --raw {params.raw} -o {output.table} --csv {output.csv}"
        " {params.series} --check-datasets {input.datasets} > {log} 2>&1"


rule workload_metrics:
    input:
        runs=config["runs"],
        datasets=ingested(CAPTURED),  # each run's workload table (blkscope.analysis.summaries.workload_metrics says which)
    output:
        table=f"{ANALYSIS}/workload_metrics.parquet",
        csv=f"{ANALYSIS}/workload_metrics.csv",
    params:
        runs=CAPTURED,
        processed=lambda w, input: Path(input.datasets[0]).parents[1],
    log:
        "logs/analysis/workload_metrics.log",
    shell:
        "blkscope workload-metrics --runs {input.runs} --processed {params.processed}"
        " -o {output.table} --csv {output.csv} {params.runs} --check-datasets {input.datasets} > {log} 2>&1"


rule claims:
    input:
        runs=config["runs"],
        iostat=f"{ANALYSIS}/iostat_summary.parquet",
        metrics=f"{ANALYSIS}/workload_metrics.parquet",
        overhead=f"{ANALYSIS}/overhead.parquet",
        zipf=f"{ANALYSIS}/zipf_cover.parquet",
        # hot pages counted as the SSD study counted them (completions, one hit per 4 KiB step); extents
        datasets=[f"{DATASETS}/access_frequency.ssd-study.tsv", *ingested(EXTENT_RUNS)],
        metadata=f"{ANALYSIS}/metadata_vs_data.parquet",
        phases=f"{ANALYSIS}/ycsb_phases.parquet",
        plan="config/claims_plan.yaml",
        # per run: steady, window (issue P); the scale rows read steady runs only
        steady=f"{ANALYSIS}/steady_state.parquet",
    output:
        table=f"{ANALYSIS}/claims.parquet",
        csv=report(f"{ANALYSIS}/claims.csv", caption="../report/claims.rst", category="Claims"),
        # each row's runs by arm: the machine-load diagnostic beside the claims (rule claims_load)
        arms=f"{ANALYSIS}/claims_arms.parquet",
    params:
        fof=expand(f"{PROC}/{{run}}/frequency/fof.ssd-study.parquet", run=TRACED),
        extents=expand(f"{PROC}/{{run}}/extents/extents.parquet", run=EXTENT_RUNS),
    log:
        "logs/analysis/claims.log",
    shell:
        "blkscope claims --runs {input.runs} --iostat {input.iostat} --metrics {input.metrics}"
        " --overhead {input.overhead} --zipf {input.zipf} --fof {params.fof} --extents {params.extents}"
        " --metadata {input.metadata} --ycsb-phases {input.phases} --plan {input.plan}"
        " --steady-state {input.steady}"
        " -o {output.table} --csv {output.csv} --arms {output.arms} --check-datasets {input.datasets}"
        " > {log} 2>&1"
