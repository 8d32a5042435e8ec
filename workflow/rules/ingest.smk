# Raw logs -> tidy Parquet, one directory per (run, source), through `blkscope ingest`.


rule ingest_trace:
    input:
        trace=trace_files,
    output:
        events=f"{PROC}/{{run}}/trace/events.parquet",
        report=f"{PROC}/{{run}}/trace/ingest.json",
    params:
        kind=trace_kind,
    log:
        "logs/ingest/{run}.trace.log",
    benchmark:
        "benchmarks/ingest/{run}.trace.tsv"
    shell:
        "blkscope ingest --kind {params.kind} {input.trace} -o $(dirname {output.events}) > {log} 2>&1"


rule ingest_iostat:
    input:
        iostat=raw("{run}", "iostat.json"),
    output:
        iostat=f"{PROC}/{{run}}/iostat/iostat.parquet",
        cpu=f"{PROC}/{{run}}/iostat/iostat_cpu.parquet",
        report=f"{PROC}/{{run}}/iostat/ingest.json",
    log:
        "logs/ingest/{run}.iostat.log",
    shell:
        "blkscope ingest --kind iostat {input.iostat} -o $(dirname {output.iostat}) > {log} 2>&1"


rule ingest_fio:
    input:
        fio=raw("{run}", "fio.json"),
    output:
        jobs=f"{PROC}/{{run}}/fio/fio_jobs.parquet",
        report=f"{PROC}/{{run}}/fio/ingest.json",
    log:
        "logs/ingest/{run}.fio.log",
    shell:
        "blkscope ingest --kind fio {input.fio} -o $(dirname {output.jobs}) > {log} 2>&1"
