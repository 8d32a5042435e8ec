# Analysis tables -> one figure per rule (paper/generated/figures/<name>.{pdf,png,svg}).

# Every figure of the study: `all` builds them and the paper rule depends on their PDFs.
FIGURE_NAMES = ["rank_frequency", "iostat_compare"]



localrules:
    figure_rank_frequency,
    figure_iostat_compare,


rule figure_rank_frequency:
    input:
        table=f"{ANALYSIS}/rank_frequency.parquet",
    output:
        expand(f"{FIGS}/rank_frequency.{{ext}}", ext=FORMATS),
    params:
        prefix=lambda w, output: os.path.splitext(output[0])[0],
        formats=",".join(FORMATS),
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
        prefix=lambda w, output: os.path.splitext(output[0])[0],
        formats=",".join(FORMATS),
    log:
        "logs/figures/iostat_compare.log",
    shell:
        "blkscope figure iostat-compare {input.table} -o {params.prefix} --formats {params.formats} > {log} 2>&1"
