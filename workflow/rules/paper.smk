# Macros + tables + figures -> paper/main.pdf (latexmk).


localrules:
    paper_figure,
    paper_numbers,
    paper_table_runs,
    paper_table_claims,
    paper,


rule paper_numbers:
    input:
        summary=f"{ANALYSIS}/run_summary.parquet",
        iostat=f"{ANALYSIS}/iostat_summary.parquet",
        runs=config["runs"],
        queue_depth=f"{ANALYSIS}/queue_depth.parquet",
        trace_cost=f"{ANALYSIS}/trace_cost.parquet",
        overhead=f"{ANALYSIS}/overhead.parquet",
        zipf=f"{ANALYSIS}/zipf_cover.parquet",
        metrics=f"{ANALYSIS}/workload_metrics.parquet",
        latency=f"{ANALYSIS}/latency.parquet",
        claims=f"{ANALYSIS}/claims.parquet",
        skew=f"{ANALYSIS}/skew_cover.parquet",
        phases=f"{ANALYSIS}/ycsb_phases.parquet",
    output:
        "paper/generated/numbers/runs.tex",
    log:
        "logs/paper/numbers.log",
    shell:
        "blkscope paper-numbers --summary {input.summary} --iostat {input.iostat} --runs {input.runs}"
        " --queue-depth {input.queue_depth} --trace-cost {input.trace_cost} --overhead {input.overhead}"
        " --zipf {input.zipf} --metrics {input.metrics} --latency {input.latency} --claims {input.claims}"
        " --skew {input.skew} --ycsb-phases {input.phases} -o {output} > {log} 2>&1"


rule paper_table_runs:
    input:
        summary=f"{ANALYSIS}/run_summary.parquet",
    output:
        "paper/generated/tables/runs.tex",
    log:
        "logs/paper/table_runs.log",
    shell:
        "blkscope paper-table runs {input.summary} -o {output} > {log} 2>&1"


rule paper_table_claims:
    input:
        claims=f"{ANALYSIS}/claims.parquet",
    output:
        "paper/generated/tables/claims.tex",
    log:
        "logs/paper/table_claims.log",
    shell:
        "blkscope paper-table claims {input.claims} -o {output} > {log} 2>&1"


rule paper_figure:
    # every figure's LaTeX environment in one process (each costs an Altair import, not the figure)
    input:
        pdf=expand(f"{FIGS}/{{name}}.pdf", name=FIGURE_NAMES),
        tables=list(FIGURE_TABLES.values()),  # the figure data of the captions read from them
    output:
        expand("paper/generated/figures/{name}.tex", name=FIGURE_NAMES),
    params:
        names=FIGURE_NAMES,
        out=lambda w: "paper/generated/figures/{name}.tex",  # a template the verb fills in
        tables=[f"{name}={table}" for name, table in FIGURE_TABLES.items()],
    log:
        "logs/paper/figures.log",
    shell:
        "blkscope paper-figure {params.names} -o '{params.out}' --table {params.tables} > {log} 2>&1"


rule paper:
    input:
        tex="paper/main.tex",
        sections=paper_sections(),
        bib="paper/refs.bib",
        numbers="paper/generated/numbers/runs.tex",
        numbers_load="paper/generated/numbers/load.tex",
        numbers_char="paper/generated/numbers/characterise.tex",
        tables=["paper/generated/tables/runs.tex", "paper/generated/tables/claims.tex"],
        figures=expand(f"{FIGS}/{{name}}.pdf", name=FIGURE_NAMES),
        figure_tex=expand("paper/generated/figures/{name}.tex", name=FIGURE_NAMES),
    output:
        report("paper/main.pdf", caption="../report/paper.rst", category="Paper"),
    log:
        "logs/paper/latexmk.log",
    shell:
        "cd paper && latexmk -pdf -interaction=nonstopmode -halt-on-error -outdir=generated/build main.tex"
        " > ../{log} 2>&1 && cp generated/build/main.pdf main.pdf"
