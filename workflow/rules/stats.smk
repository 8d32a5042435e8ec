# Statistics over the ingested runs (issue D): Zipf fits, latency stages, queue depth, seeks, tracing cost and
# overhead, cross-filesystem comparison. Every table: data/processed/analysis/<name>.{parquet,csv}.
# Include after common.smk and ingest.smk; add STATS_OUTPUTS to `rule all`.

FREQUENCY_MODES = ["cover", "ssd-study"]
LATENCY_WINDOW_S = 0.1  # the saturating runs last a few seconds: 100-ms latency windows draw their tail over time
# per run, from the latency job's replay of the trace (one read of it for the stages and the windows)
LATENCY_WINDOW_TABLES = ["latency_windows", "latency_hist"]
ZIPF_N_BOOT = 200  # bootstrap replicates of the goodness-of-fit p (CSN suggest 2500 for +-0.01)


wildcard_constraints:
    mode="|".join(FREQUENCY_MODES),


# fio runs on the host, traced or not: throughput for the overhead and comparison tables
FIO_HOST = runs_where(workload="fio", testbed="loop")
STATS_OUTPUTS = expand(
    f"{ANALYSIS}/{{name}}.{{ext}}",
    name=["latency", "queue_depth", "seek", "trace_cost", "compare", "compare_pairs", "overhead"]
    + [f"zipf_{m}" for m in FREQUENCY_MODES]
    + [f"skew_{m}" for m in FREQUENCY_MODES],
    ext=["parquet", "csv"],
)


# once per scope (common.smk, SCOPES): the study's traced runs, and each imported traced run alone
for _s in SCOPES:

    rule:
        # one process for every traced run (--each) and both modes, with the metadata tables (characterise.smk's
        # metadata_vs_data reads them): the metadata's per-page counts, by class, give the cover mode's summed over
        # the class, so each run's events are counted twice (cover by class, ssd-study), not three times, by one
        # process instead of three (bench/RESULTS.md, 2026-11-29 "One count of each run's events"). Each of the
        # three manifests lists its own tables, as the three jobs' did
        name:
            f"access_frequency{_s.suffix}"
        input:
            datasets=ingested(_s.traced),
            parts=split_parts(_s.traced),
        output:
            cover=f"{_s.datasets}/access_frequency.cover.tsv",
            ssd=f"{_s.datasets}/access_frequency.ssd-study.tsv",
            metadata=f"{_s.datasets}/metadata.tsv",
        params:
            events=[trace_events(r) for r in _s.traced],
            modes=",".join(FREQUENCY_MODES),
            cover=expand(f"{PROC}/{{run}}/frequency/{{t}}.cover.parquet", run=_s.traced, t=["fof", "rank"]),
            ssd=expand(f"{PROC}/{{run}}/frequency/{{t}}.ssd-study.parquet", run=_s.traced, t=["fof", "rank"]),
            metadata=expand(f"{PROC}/{{run}}/characterise/{{t}}.parquet", run=_s.traced, t=["metadata_hot", "metadata_rank"]),
            page_kib=config["page_kib"],
            # templates: `--each` fills in {run}, the verb {mode}
            fof=lambda w: f"{PROC}/{{run}}/frequency/fof.{{mode}}.parquet",
            rank=lambda w: f"{PROC}/{{run}}/frequency/rank.{{mode}}.parquet",
            hot=lambda w: f"{PROC}/{{run}}/characterise/metadata_hot.parquet",
            meta_rank=lambda w: f"{PROC}/{{run}}/characterise/metadata_rank.parquet",
        priority: 10  # the longest chain after ingest: started first, the short jobs fill around it
        log:
            f"{_s.logs}/stats/access_frequency.log",
        benchmark:
            f"{_s.benchmarks}/stats/access_frequency.tsv"
        shell:
            "blkscope access-frequency --each {params.events} --mode {params.modes} --action C"
            " --page-kib {params.page_kib} --fof '{params.fof}' --rank '{params.rank}'"
            " --metadata-hot '{params.hot}' --metadata-rank '{params.meta_rank}' --check-datasets {input.datasets}"
            " --record-dataset {output.cover} --dataset-files {params.cover}"
            " --record-dataset {output.ssd} --dataset-files {params.ssd}"
            " --record-dataset {output.metadata} --dataset-files {params.metadata} > {log} 2>&1"

    rule:
        name:
            f"zipf{_s.suffix}"
        input:
            datasets=f"{_s.datasets}/access_frequency.{{mode}}.tsv",
        output:
            table=f"{_s.analysis}/zipf_{{mode}}.parquet",
            csv=f"{_s.analysis}/zipf_{{mode}}.csv",
        params:
            fof=mode_paths(f"{PROC}/{{run}}/frequency/fof.{{mode}}.parquet", _s.traced),
            n_boot=ZIPF_N_BOOT,
        priority: 10  # the longest chain after ingest: started first, the short jobs fill around it
        log:
            f"{_s.logs}/stats/zipf_{{mode}}.log",
        benchmark:
            f"{_s.benchmarks}/stats/zipf_{{mode}}.tsv"
        threads: 2  # runs in parallel processes: the longest per-run analyses, on the critical path
        shell:
            "blkscope zipf {params.fof} -j {threads} --n-boot {params.n_boot} --seed 0 -o {output.table}"
            " --csv {output.csv} --check-datasets {input.datasets} > {log} 2>&1"

    rule:
        name:
            f"latency{_s.suffix}"
        input:
            datasets=ingested(_s.traced),
            parts=split_parts(_s.traced),
        output:
            table=f"{_s.analysis}/latency.parquet",
            csv=f"{_s.analysis}/latency.csv",
            dataset=f"{_s.datasets}/latency_windows.tsv",
        params:
            events=[trace_events(r) for r in _s.traced],
            files=expand(f"{PROC}/{{run}}/characterise/{{t}}.parquet", run=_s.traced, t=LATENCY_WINDOW_TABLES),
            out=lambda w: table_templates(LATENCY_WINDOW_TABLES),
            window_s=LATENCY_WINDOW_S,
        priority: 10  # the longest chain after ingest: started first, the short jobs fill around it
        log:
            f"{_s.logs}/stats/latency.log",
        benchmark:
            f"{_s.benchmarks}/stats/latency.tsv"
        threads: 2  # runs in parallel processes: the longest per-run analyses, on the critical path
        shell:
            "blkscope latency {params.events} -j {threads} --by-rw -o {output.table} --csv {output.csv}"
            " {params.out} --latency-window-s {params.window_s} --check-datasets {input.datasets}"
            " --record-dataset {output.dataset} --dataset-files {params.files} > {log} 2>&1"

    rule:
        name:
            f"seek{_s.suffix}"
        input:
            datasets=ingested(_s.traced),
            parts=split_parts(_s.traced),
        output:
            table=f"{_s.analysis}/seek.parquet",
            csv=f"{_s.analysis}/seek.csv",
            hist=f"{_s.analysis}/seek_hist.parquet",
        params:
            events=[trace_events(r) for r in _s.traced],
        priority: 10  # the longest chain after ingest: started first, the short jobs fill around it
        log:
            f"{_s.logs}/stats/seek.log",
        benchmark:
            f"{_s.benchmarks}/stats/seek.tsv"
        threads: 2  # runs in parallel processes: the longest per-run analyses, on the critical path
        shell:
            "blkscope seek {params.events} -j {threads} --action D -o {output.table} --csv {output.csv}"
            " --hist {output.hist} --check-datasets {input.datasets} > {log} 2>&1"


rule queue_depth:
    input:
        datasets=ingested(FIO_TRACED),  # each run's events and iostat
        parts=split_parts(FIO_TRACED),
    output:
        table=f"{ANALYSIS}/queue_depth.parquet",
        csv=f"{ANALYSIS}/queue_depth.csv",
        dist=f"{ANALYSIS}/queue_depth_dist.parquet",
        series=f"{ANALYSIS}/queue_depth_series.parquet",
    params:
        events=[trace_events(r) for r in FIO_TRACED],
        iostat=expand(f"{PROC}/{{run}}/iostat/iostat.parquet", run=FIO_TRACED),
    log:
        "logs/stats/queue_depth.log",
    benchmark:
        "benchmarks/stats/queue_depth.tsv"
    shell:
        "blkscope queue-depth {params.events} --iostat {params.iostat} -o {output.table} --csv {output.csv}"
        " --dist {output.dist} --series {output.series} --check-datasets {input.datasets} > {log} 2>&1"


rule trace_cost:
    input:
        traces=[raw(r, "trace.txt.zst") for r in FIO_TRACED],
        datasets=ingested(FIO_TRACED),
        parts=split_parts(FIO_TRACED),
    output:
        table=f"{ANALYSIS}/trace_cost.parquet",
        csv=f"{ANALYSIS}/trace_cost.csv",
    params:
        raw=lambda w, input: os.path.dirname(os.path.dirname(input.traces[0])),
        events=[trace_events(r) for r in FIO_TRACED],
    log:
        "logs/stats/trace_cost.log",
    shell:
        "blkscope trace-cost --raw {params.raw} {params.events} -o {output.table} --csv {output.csv}"
        " --check-datasets {input.datasets} > {log} 2>&1"


rule overhead:
    input:
        runs=config["runs"],
        metrics=f"{ANALYSIS}/workload_metrics.parquet",
    output:
        table=f"{ANALYSIS}/overhead.parquet",
        csv=f"{ANALYSIS}/overhead.csv",
    log:
        "logs/stats/overhead.log",
    shell:
        "blkscope overhead --runs {input.runs} --metrics {input.metrics} -o {output.table} --csv {output.csv}"
        " > {log} 2>&1"


rule compare:
    input:
        runs=config["runs"],
        datasets=ingested(FIO_TRACED),
        latency=f"{ANALYSIS}/latency.parquet",
    output:
        table=f"{ANALYSIS}/compare.parquet",
        csv=f"{ANALYSIS}/compare.csv",
        pairs=f"{ANALYSIS}/compare_pairs.parquet",
        pairs_csv=f"{ANALYSIS}/compare_pairs.csv",
    params:
        fio=expand(f"{PROC}/{{run}}/fio/fio_jobs.parquet", run=FIO_TRACED),
    log:
        "logs/stats/compare.log",
    shell:
        "blkscope compare --runs {input.runs} {params.fio} --latency {input.latency} -o {output.table}"
        " --csv {output.csv} --pairs {output.pairs} --pairs-csv {output.pairs_csv} --check-datasets {input.datasets}"
        " > {log} 2>&1"


rule skew:
    input:
        runs=config["runs"],
        zipf=f"{ANALYSIS}/zipf_{{mode}}.parquet",
    output:
        table=f"{ANALYSIS}/skew_{{mode}}.parquet",
        csv=f"{ANALYSIS}/skew_{{mode}}.csv",
    params:
        raw=RAW,
    log:
        "logs/stats/skew_{mode}.log",
    shell:
        "blkscope skew --runs {input.runs} --raw {params.raw} {input.zipf} -o {output.table} --csv {output.csv}"
        " > {log} 2>&1"
