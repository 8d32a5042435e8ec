# Analysis tables -> one figure per rule (paper/generated/figures/<name>.{pdf,png,svg}).
# Figures that need run metadata or thinning read a small figure-data table ({PROC}/figures/<name>.parquet,
# written by a `blkscope figdata-*` verb); the others read their analysis table directly.
import shlex

# Every figure of the study: `all` builds them and the paper rule depends on their PDFs.
FIGURE_NAMES = [
    "rank_frequency",
    "iostat_compare",
    "frequency_of_frequency",
    "zipf_ccdf",
    "tracing_overhead",
    "trace_cost",
    "io_over_time",
    "latency_stages",
    "queue_depth",
    "seek_distance",
    "cache_sweep",  # the appendix's (rule figure_cache_sweep, steady_state.smk)
]
FIGDATA = f"{PROC}/figures"
# figures whose caption is read from their figure data (blkscope.figures.<module>.caption): name -> its table,
# given to `blkscope paper-figure --table` (characterise.smk adds the miss-ratio curves)
FIGURE_TABLES = {
    "cache_sweep": f"{ANALYSIS}/cache_sweep.parquet",
    "io_over_time": f"{FIGDATA}/io_over_time.parquet",  # the per-setup figures name the setups they draw
    "latency_windows": f"{FIGDATA}/latency_windows.parquet",  # the setups with too few completions per window
    "rank_frequency": f"{FIGDATA}/rank_frequency.parquet",
    "seek_distance": f"{FIGDATA}/seek_distance.parquet",
    "tracing_overhead": f"{ANALYSIS}/overhead.parquet",  # the batches that hold one arm only, counted
    "zipf_ccdf": f"{FIGDATA}/zipf_ccdf.parquet",  # the setups whose every page is accessed once, named
}
FIG_MODE = "cover"  # the access-frequency mode the figures show (see stats.smk FREQUENCY_MODES)
FIG_FOF = f"{PROC}/{{run}}/frequency/fof.{FIG_MODE}.parquet"  # expanded over a scope's traced runs
FIG_PREFIX = lambda w, output: os.path.splitext(output[0])[0]  # `blkscope figure -o` takes the path sans extension
FIG_FORMATS = ",".join(FORMATS)


wildcard_constraints:
    joined="latency|trace_cost",


localrules:
    figdata_fof,
    figdata_rank,
    figdata_ccdf,
    figdata_series,
    figdata_seek,
    figdata_mrc,
    figdata_io_map,
    figdata_latency_windows,
    figdata_request_sizes,
    figdata_arrivals,
    figdata_request_size_over_time,
    figdata_mrc_by_class,
    figdata_queue_depth,
    figdata_join,
    figure_rank_frequency,
    figure_iostat_compare,
    figure_frequency_of_frequency,
    figure_zipf_ccdf,
    figure_tracing_overhead,
    figure_trace_cost,
    figure_io_over_time,
    figure_latency_stages,
    figure_queue_depth,
    figure_seek_distance,


# The study's figure data of the per-run views: a job each, as its figures are drawn one by one
for _v in figdata_views(STUDY):

    rule:
        name:
            _v.rule
        input:
            runs=STUDY.sheet,
            datasets=_v.datasets,
            tables=_v.inputs,
        output:
            _v.out,
        params:
            # a param, not the shell's text: Snakemake evaluates a rule's `shell:` again when the job runs, where
            # the loop's variable is its last value (the Snakefile hashes the code it runs from the params too)
            cmd=_v.cmd,
        log:
            f"logs/figures/{_v.rule}.log",
        benchmark:
            f"benchmarks/figures/{_v.rule}.tsv"
        shell:
            "{params.cmd} > {log} 2>&1"


# An imported run's figure data (what its page draws, view_tables): one job, `blkscope figdata-views` running each
# table's command in one process, where a job per table started a Python with polars eleven times for tables of a
# few KB (bench/RESULTS.md, 2026-11-29 "testfast")
for _s in SCOPES[1:]:
    _views = [v for v in figdata_views(_s) if v.table in view_tables(_s)]
    if not _views:
        continue

    rule:
        name:
            f"figdata_views{_s.suffix}"
        input:
            runs=_s.sheet,
            datasets=sorted({d for v in _views for d in v.datasets}),
            tables=[t for v in _views for t in v.inputs],
        output:
            [v.out for v in _views],
        params:
            commands=" ".join(shlex.quote(v.cmd) for v in _views),
        log:
            f"{_s.logs}/figures/figdata_views.log",
        benchmark:
            f"{_s.benchmarks}/figures/figdata_views.tsv"
        shell:
            "blkscope figdata-views {params.commands} > {log} 2>&1"


rule figdata_queue_depth:
    input:
        runs=config["runs"],
        series=f"{ANALYSIS}/queue_depth_series.parquet",
        dist=f"{ANALYSIS}/queue_depth_dist.parquet",
    output:
        f"{FIGDATA}/queue_depth.parquet",
    log:
        "logs/figures/figdata_queue_depth.log",
    shell:
        "blkscope figdata-queue-depth --runs {input.runs} --series {input.series} --dist {input.dist} -o {output}"
        " > {log} 2>&1"


rule figdata_join:
    input:
        runs=config["runs"],
        table=f"{ANALYSIS}/{{joined}}.parquet",
    output:
        f"{FIGDATA}/{{joined}}.parquet",
    log:
        "logs/figures/figdata_{joined}.log",
    shell:
        "blkscope figdata-join --runs {input.runs} {input.table} -o {output} > {log} 2>&1"


rule figure_rank_frequency:
    input:
        table=f"{FIGDATA}/rank_frequency.parquet",
    output:
        expand(f"{FIGS}/rank_frequency.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/rank_frequency.log",
    shell:
        "blkscope figure rank-frequency {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_iostat_compare:
    input:
        table=f"{ANALYSIS}/iostat_summary.parquet",
    output:
        expand(f"{FIGS}/iostat_compare.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/iostat_compare.log",
    shell:
        "blkscope figure iostat-compare {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_frequency_of_frequency:
    input:
        table=f"{FIGDATA}/frequency_of_frequency.parquet",
    output:
        expand(f"{FIGS}/frequency_of_frequency.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/frequency_of_frequency.log",
    shell:
        "blkscope figure frequency-of-frequency {input.table} -o {params.prefix} --formats {params.formats}"
        " > {log} 2>&1"


rule figure_zipf_ccdf:
    input:
        table=f"{FIGDATA}/zipf_ccdf.parquet",
    output:
        expand(f"{FIGS}/zipf_ccdf.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/zipf_ccdf.log",
    shell:
        "blkscope figure zipf-ccdf {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_tracing_overhead:
    input:
        table=f"{ANALYSIS}/overhead.parquet",
    output:
        expand(f"{FIGS}/tracing_overhead.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/tracing_overhead.log",
    shell:
        "blkscope figure tracing-overhead {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_trace_cost:
    input:
        table=f"{FIGDATA}/trace_cost.parquet",
    output:
        expand(f"{FIGS}/trace_cost.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/trace_cost.log",
    shell:
        "blkscope figure trace-cost {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_io_over_time:
    input:
        table=f"{FIGDATA}/io_over_time.parquet",
    output:
        expand(f"{FIGS}/io_over_time.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/io_over_time.log",
    shell:
        "blkscope figure io-over-time {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_latency_stages:
    input:
        table=f"{FIGDATA}/latency.parquet",
    output:
        expand(f"{FIGS}/latency_stages.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/latency_stages.log",
    shell:
        "blkscope figure latency-stages {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_queue_depth:
    input:
        table=f"{FIGDATA}/queue_depth.parquet",
    output:
        expand(f"{FIGS}/queue_depth.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/queue_depth.log",
    shell:
        "blkscope figure queue-depth {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"


rule figure_seek_distance:
    input:
        table=f"{FIGDATA}/seek_distance.parquet",
    output:
        expand(f"{FIGS}/seek_distance.{{ext}}", ext=FORMATS),
    params:
        prefix=FIG_PREFIX,
        formats=FIG_FORMATS,
    log:
        "logs/figures/seek_distance.log",
    shell:
        "blkscope figure seek-distance {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"
