# Parquet -> analysis tables (data/processed/analysis/<name>.{parquet,csv}).


rule page_frequency:
    # one process for every run (--each): per-run outputs, as many Python starts saved
    input:
        events=[trace_events(r) for r in FIO_TRACED],
    output:
        pages=expand(f"{PROC}/{{run}}/frequency/pages.parquet", run=FIO_TRACED),
        rank=expand(f"{PROC}/{{run}}/frequency/rank.parquet", run=FIO_TRACED),
    params:
        page_kib=config["page_kib"],
        action=config["frequency_action"],
        pages=lambda w: f"{PROC}/{{run}}/frequency/pages.parquet",  # a template: `--each` fills in {run}
        rank=lambda w: f"{PROC}/{{run}}/frequency/rank.parquet",
    log:
        "logs/analysis/frequency.log",
    benchmark:
        "benchmarks/analysis/frequency.tsv"
    shell:
        "blkscope frequency --each {input.events} --page-kib {params.page_kib} --action {params.action}"
        " --pages '{params.pages}' --rank '{params.rank}' > {log} 2>&1"


rule rank_frequency:
    input:
        runs=config["runs"],
        rank=expand(f"{PROC}/{{run}}/frequency/rank.parquet", run=FIO_TRACED),
    output:
        table=f"{ANALYSIS}/rank_frequency.parquet",
        csv=f"{ANALYSIS}/rank_frequency.csv",
    log:
        "logs/analysis/rank_frequency.log",
    shell:
        "blkscope rank-frequency --runs {input.runs} -o {output.table} --csv {output.csv} {input.rank} > {log} 2>&1"


rule run_summary:
    input:
        runs=config["runs"],
        events=[trace_events(r) for r in FIO_TRACED],
        reports=expand(f"{PROC}/{{run}}/trace/ingest.json", run=FIO_TRACED),
        pages=expand(f"{PROC}/{{run}}/frequency/pages.parquet", run=FIO_TRACED),
        fio=expand(f"{PROC}/{{run}}/fio/fio_jobs.parquet", run=FIO_TRACED),
        iostat=expand(f"{PROC}/{{run}}/iostat/iostat.parquet", run=FIO_TRACED),
    output:
        table=f"{ANALYSIS}/run_summary.parquet",
        csv=f"{ANALYSIS}/run_summary.csv",
    params:
        runs=FIO_TRACED,
        raw=RAW,
        processed=lambda w, input: Path(input.events[0]).parents[2],
    log:
        "logs/analysis/run_summary.log",
    shell:
        "blkscope run-summary --runs {input.runs} --raw {params.raw} --processed {params.processed}"
        " -o {output.table} --csv {output.csv} {params.runs} > {log} 2>&1"


rule iostat_summary:
    input:
        runs=config["runs"],
        iostat=expand(f"{PROC}/{{run}}/iostat/iostat.parquet", run=HOST_RUNS),
    output:
        table=f"{ANALYSIS}/iostat_summary.parquet",
        csv=f"{ANALYSIS}/iostat_summary.csv",
    log:
        "logs/analysis/iostat_summary.log",
    shell:
        "blkscope iostat-summary --runs {input.runs} -o {output.table} --csv {output.csv} {input.iostat} > {log} 2>&1"


rule extents_summary:
    input:
        runs=config["runs"],
        extents=expand(f"{PROC}/{{run}}/extents/extents.parquet", run=EXTENT_RUNS),
    output:
        table=f"{ANALYSIS}/extents_summary.parquet",
        csv=f"{ANALYSIS}/extents_summary.csv",
    log:
        "logs/analysis/extents_summary.log",
    shell:
        "blkscope extents-summary --runs {input.runs} -o {output.table} --csv {output.csv} {input.extents} > {log} 2>&1"


rule ycsb_phases:
    input:
        runs=config["runs"],
        series=expand(f"{PROC}/{{run}}/ycsb/ycsb_series.parquet", run=PHASE_RUNS),
        meta=[raw(r, "run.yaml") for r in PHASE_RUNS],
    output:
        table=f"{ANALYSIS}/ycsb_phases.parquet",
        csv=f"{ANALYSIS}/ycsb_phases.csv",
    params:
        raw=RAW,
    log:
        "logs/analysis/ycsb_phases.log",
    shell:
        "blkscope ycsb-phases --runs {input.runs} --raw {params.raw} -o {output.table} --csv {output.csv}"
        " {input.series} > {log} 2>&1"


rule workload_metrics:
    input:
        runs=config["runs"],
        tables=workload_tables,
    output:
        table=f"{ANALYSIS}/workload_metrics.parquet",
        csv=f"{ANALYSIS}/workload_metrics.csv",
    params:
        runs=CAPTURED,
        processed=lambda w, input: Path(input.tables[0]).parents[2],
    log:
        "logs/analysis/workload_metrics.log",
    shell:
        "blkscope workload-metrics --runs {input.runs} --processed {params.processed}"
        " -o {output.table} --csv {output.csv} {params.runs} > {log} 2>&1"


# runs whose capture listed their files' extents (filefrag, issue L): Cassandra's fragmentation claim reads them
EXTENT_RUNS = [r for r in CAPTURED if Path(RAW, r, "filefrag.txt").exists()]


rule claims:
    input:
        runs=config["runs"],
        iostat=f"{ANALYSIS}/iostat_summary.parquet",
        metrics=f"{ANALYSIS}/workload_metrics.parquet",
        overhead=f"{ANALYSIS}/overhead.parquet",
        zipf=f"{ANALYSIS}/zipf_cover.parquet",
        # hot pages counted as the SSD study counted them (completions, one hit per 4 KiB step)
        fof=expand(f"{PROC}/{{run}}/frequency/fof.ssd-study.parquet", run=TRACED),
        extents=expand(f"{PROC}/{{run}}/extents/extents.parquet", run=EXTENT_RUNS),
        metadata=f"{ANALYSIS}/metadata_vs_data.parquet",
    output:
        table=f"{ANALYSIS}/claims.parquet",
        csv=report(f"{ANALYSIS}/claims.csv", caption="../report/claims.rst", category="Claims"),
    log:
        "logs/analysis/claims.log",
    shell:
        "blkscope claims --runs {input.runs} --iostat {input.iostat} --metrics {input.metrics}"
        " --overhead {input.overhead} --zipf {input.zipf} --fof {input.fof} --extents {input.extents}"
        " --metadata {input.metadata} -o {output.table} --csv {output.csv} > {log} 2>&1"
