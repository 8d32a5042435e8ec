# Characterisation (issue N): reuse distance and LRU miss-ratio curves, metadata against data, and the views of
# iowatcher, blkiomon and btt, per traced run ({PROC}/<run>/characterise/*.parquet), the metadata table across
# runs, and their figures. Include after common.smk, stats.smk and figures.smk; add CHARACTERISE_OUTPUTS to `all`.
# The per-run metadata tables (metadata_hot, metadata_rank) come from stats.smk's access_frequency job, which counts
# the pages by class for the access frequency anyway.

CHARACTERISE_FIGURES = [
    "miss_ratio_curve",
    "metadata_vs_data",
    "io_map",
    "latency_windows",
    "request_sizes",
    "arrivals",
    "request_size_over_time",
    "miss_ratio_by_class",
]
CHAR = f"{PROC}/{{run}}/characterise"
REUSE_TABLES = ["reuse", "mrc", "wss", "distance"]
# latency_windows and latency_hist come from the latency job (stats.smk), which replays the trace anyway
VIEW_TABLES = ["io_map", "throughput", "sizes", "merges", "processes", "arrivals", "dispersion"]
SHARDS_SIZE = 8192  # sampled pages of the fixed-size SHARDS curve drawn beside the exact one
CHARACTERISE_OUTPUTS = [
    *expand(f"{ANALYSIS}/metadata_vs_data.{{ext}}", ext=["parquet", "csv"]),
    *expand(f"{FIGS}/{{name}}.{{ext}}", name=CHARACTERISE_FIGURES, ext=FORMATS),
    f"{DATASETS}/characterise_views.tsv",
    "paper/generated/numbers/characterise.tex",
    f"{ANALYSIS}/characterisation.csv",
]
# the paper's Characterisation section draws these figures (paper.smk is included after this file)
FIGURE_NAMES += CHARACTERISE_FIGURES
# the miss-ratio captions say which profile is of record (exact or SHARDS), and these figures' captions which setups
# they draw: read from their figure data
FIGURE_TABLES |= {name: f"{FIGDATA}/{name}.parquet" for name in ["miss_ratio_curve", "miss_ratio_by_class",
                                                                 "request_sizes", "request_size_over_time"]}


localrules:
    characterise_numbers,
    figure_io_map,
    figure_latency_windows,
    figure_request_sizes,
    figure_arrivals,
    figure_miss_ratio_curve,
    figure_metadata_vs_data,
    figure_request_size_over_time,
    figure_miss_ratio_by_class,


# the per-run analyses, once per scope (common.smk, SCOPES): the study's traced runs, and each imported traced run
# alone; their figure data: figures.smk (figdata_views)
for _s in SCOPES:

    rule:
        name:
            f"reuse{_s.suffix}"
        # one process for every traced run (--each); exact and fixed-size SHARDS curves in one pass per run, of every
        # op (all, read, write) by class (all, data, meta: M in RWBS); --auto: the exact curve up to 25 M page accesses
        # (blkscope.analysis.characterise.reuse.AUTO_EXACT_MAX_ACCESSES: its memory), the SHARDS one alone above (of_record says)
        input:
            datasets=ingested(_s.traced),
            parts=split_parts(_s.traced),
        output:
            dataset=f"{_s.datasets}/reuse.tsv",
        params:
            events=[trace_events(r) for r in _s.traced],
            files=expand(f"{CHAR}/{{table}}.parquet", run=_s.traced, table=REUSE_TABLES),
            page_kib=config["page_kib"],
            shards=SHARDS_SIZE,
            out=lambda w: {t: f"{PROC}/{{run}}/characterise/{t}.parquet" for t in REUSE_TABLES},
        priority: 10  # with characterise_views and access_frequency, they gate characterise_numbers and all_setups
        log:
            f"{_s.logs}/characterise/reuse.log",
        benchmark:
            f"{_s.benchmarks}/characterise/reuse.tsv"
        shell:
            "blkscope reuse --each {params.events} --page-kib {params.page_kib} --shards-size {params.shards} --auto"
            " --streams all,read,write --classes all,data,meta"
            " -o '{params.out[reuse]}' --mrc '{params.out[mrc]}' --wss '{params.out[wss]}'"
            " --distance '{params.out[distance]}' --check-datasets {input.datasets}"
            " --record-dataset {output.dataset} --dataset-files {params.files} > {log} 2>&1"

    rule:
        name:
            f"characterise_views{_s.suffix}"
        input:
            datasets=ingested(_s.traced),
            parts=split_parts(_s.traced),
        output:
            dataset=f"{_s.datasets}/characterise_views.tsv",
        params:
            events=[trace_events(r) for r in _s.traced],
            files=expand(f"{CHAR}/{{table}}.parquet", run=_s.traced, table=VIEW_TABLES),
            out=lambda w: table_templates(VIEW_TABLES),
        # heads the longest chain (characterise_numbers, then the all_setups notebook): started first. At the other long
        # jobs' 10 it waited for two of the 8 cores while they took them, and started last (at 168 s of 207 in a run)
        priority: 20
        log:
            f"{_s.logs}/characterise/views.log",
        benchmark:
            f"{_s.benchmarks}/characterise/views.tsv"
        threads: 2  # runs in parallel processes: it ends last, and the chain after it waits for it
        shell:
            "blkscope characterise --each {params.events} {params.out} -j {threads}"
            " --check-datasets {input.datasets} --record-dataset {output.dataset} --dataset-files {params.files}"
            " > {log} 2>&1"

    rule:
        name:
            f"metadata_vs_data{_s.suffix}"
        input:
            runs=_s.sheet,
            datasets=f"{_s.datasets}/metadata.tsv",
        output:
            table=f"{_s.analysis}/metadata_vs_data.parquet",
            csv=f"{_s.analysis}/metadata_vs_data.csv",
        params:
            hot=expand(f"{CHAR}/metadata_hot.parquet", run=_s.traced),
        log:
            f"{_s.logs}/characterise/metadata_vs_data.log",
        shell:
            "blkscope metadata-vs-data --runs {input.runs} -o {output.table} --csv {output.csv} {params.hot}"
            " --check-datasets {input.datasets} > {log} 2>&1"


rule characterise_numbers:
    input:
        runs=config["runs"],
        datasets=expand(f"{DATASETS}/{{name}}.tsv",
                        name=["reuse", "characterise_views", "metadata", "latency_windows"]),
    output:
        tex="paper/generated/numbers/characterise.tex",
        table=f"{ANALYSIS}/characterisation.parquet",
        csv=f"{ANALYSIS}/characterisation.csv",
    params:
        # one file per run names its directory (the verb reads the run's tables there): every table on the
        # command line would pass bash's 128 KiB limit on one argument
        one=expand(f"{CHAR}/reuse.parquet", run=TRACED),
    log:
        "logs/characterise/numbers.log",
    threads: 2  # runs read in parallel processes: on the main job's last chain (views, this, all_setups)
    # a 2-thread job starts only when both cores are free: at priority 0 the one-core jobs kept taking them and it
    # ran just before the paper, which waits for it (8 s on the main job's tail, bench/RESULTS.md)
    priority: 10
    shell:
        "blkscope characterise-numbers --runs {input.runs} -o {output.tex} --table {output.table} --csv {output.csv}"
        " {params.one} --check-datasets {input.datasets} -j {threads} > {log} 2>&1"


rule figure_miss_ratio_curve:
    input:
        table=f"{FIGDATA}/miss_ratio_curve.parquet",
    output:
        expand(f"{FIGS}/miss_ratio_curve.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/miss_ratio_curve.log",
    shell:
        "blkscope figure miss-ratio-curve {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_metadata_vs_data:
    input:
        table=f"{ANALYSIS}/metadata_vs_data.parquet",
    output:
        expand(f"{FIGS}/metadata_vs_data.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/metadata_vs_data.log",
    shell:
        "blkscope figure metadata-vs-data {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_io_map:
    input:
        table=f"{FIGDATA}/io_map.parquet",
    output:
        expand(f"{FIGS}/io_map.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/io_map.log",
    shell:
        "blkscope figure io-map {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_latency_windows:
    input:
        table=f"{FIGDATA}/latency_windows.parquet",
    output:
        expand(f"{FIGS}/latency_windows.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/latency_windows.log",
    shell:
        "blkscope figure latency-windows {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_request_sizes:
    input:
        table=f"{FIGDATA}/request_sizes.parquet",
    output:
        expand(f"{FIGS}/request_sizes.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/request_sizes.log",
    shell:
        "blkscope figure request-sizes {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_arrivals:
    input:
        table=f"{FIGDATA}/arrivals.parquet",
    output:
        expand(f"{FIGS}/arrivals.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/arrivals.log",
    shell:
        "blkscope figure arrivals {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_request_size_over_time:
    input:
        table=f"{FIGDATA}/request_size_over_time.parquet",
    output:
        expand(f"{FIGS}/request_size_over_time.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/request_size_over_time.log",
    benchmark:
        "benchmarks/figures/request_size_over_time.tsv"
    shell:
        "blkscope figure request-size-over-time {input.table} -o {params.prefix} --formats {params.formats}"
        " > {log} 2>&1"


rule figure_miss_ratio_by_class:
    input:
        table=f"{FIGDATA}/miss_ratio_by_class.parquet",
    output:
        expand(f"{FIGS}/miss_ratio_by_class.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/miss_ratio_by_class.log",
    benchmark:
        "benchmarks/figures/miss_ratio_by_class.tsv"
    shell:
        "blkscope figure miss-ratio-by-class {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"
