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


rule ingest_sysbench:
    input:
        log=raw("{run}", "sysbench.txt"),
    output:
        table=f"{PROC}/{{run}}/sysbench/sysbench_fileio.parquet",
        report=f"{PROC}/{{run}}/sysbench/ingest.json",
    log:
        "logs/ingest/{run}.sysbench.log",
    shell:
        "blkscope ingest --kind sysbench {input.log} -o $(dirname {output.table}) > {log} 2>&1"


rule ingest_journal:
    input:
        log=raw("{run}", "journal.json"),
    output:
        summary=f"{PROC}/{{run}}/journal/journal_summary.parquet",
        latency=f"{PROC}/{{run}}/journal/journal_latency.parquet",
        report=f"{PROC}/{{run}}/journal/ingest.json",
    log:
        "logs/ingest/{run}.journal.log",
    shell:
        "blkscope ingest --kind journal {input.log} -o $(dirname {output.summary}) > {log} 2>&1"


rule ingest_ycsb:
    input:
        load=raw("{run}", "ycsb-load.txt"),
        run=raw("{run}", "ycsb-run.txt"),
    output:
        summary=f"{PROC}/{{run}}/ycsb/ycsb_summary.parquet",
        series=f"{PROC}/{{run}}/ycsb/ycsb_series.parquet",
        report=f"{PROC}/{{run}}/ycsb/ingest.json",
    log:
        "logs/ingest/{run}.ycsb.log",
    shell:
        "blkscope ingest --kind ycsb {input.load} {input.run} -o $(dirname {output.summary}) > {log} 2>&1"


# Cassandra runs: the measured cassandra-stress run (cstress.txt; the untraced prepare's cstress-prepare.txt stays raw).
rule ingest_cstress:
    input:
        log=raw("{run}", "cstress.txt"),
    output:
        summary=f"{PROC}/{{run}}/cstress/cstress_summary.parquet",
        intervals=f"{PROC}/{{run}}/cstress/cstress_intervals.parquet",
        report=f"{PROC}/{{run}}/cstress/ingest.json",
    log:
        "logs/ingest/{run}.cstress.log",
    shell:
        "blkscope ingest --kind cassandra-stress {input.log} -o $(dirname {output.summary}) > {log} 2>&1"
