# Macros + tables + figures -> paper/main.pdf (latexmk).


localrules:
    paper_data_availability,
    paper_figure,
    paper_numbers,
    paper_table_runs,
    paper_table_claims,
    paper_table_conditions,
    paper_scale_numbers,
    paper_characterise_phrases,
    paper_advice,
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


# the memory-capped traced runs: how often their kept trace windows re-read a page (the scale rows' skew)
CAPPED_TRACED = [r for r in TRACED if _row[r].get("memory_cap")]


rule paper_scale_numbers:
    # run lengths, windows and the memory-capped batches, for the text about the scale regime
    input:
        steady=f"{ANALYSIS}/steady_state.parquet",
        zipf=f"{ANALYSIS}/zipf_cover.parquet",
        # counted as the scale rows' hot-page shares count them (the claims rule's fof, listed by its dataset)
        datasets=f"{DATASETS}/access_frequency.ssd-study.tsv",
        plan="config/claims_plan.yaml",  # the batches the skew rows read
    output:
        "paper/generated/numbers/scale.tex",
    params:
        fof=expand(f"{PROC}/{{run}}/frequency/fof.ssd-study.parquet", run=CAPPED_TRACED),
    log:
        "logs/paper/scale_numbers.log",
    shell:
        "python -m blkscope.paper.scale_numbers --steady {input.steady} --zipf {input.zipf} --fof {params.fof}"
        " --plan {input.plan} -o {output} > {log} 2>&1"


rule paper_characterise_phrases:
    # the Characterisation section's words that compare filesystems, picked from its table by rule
    input:
        table=f"{ANALYSIS}/characterisation.parquet",
    output:
        "paper/generated/numbers/char_phrases.tex",
    log:
        "logs/paper/characterise_phrases.log",
    shell:
        "python -m blkscope.paper.characterise_phrases --table {input.table} -o {output} > {log} 2>&1"


rule paper_advice:
    # what an engineer can choose, each on one claim row, in words the verdicts pick (abstract and conclusion)
    input:
        claims=f"{ANALYSIS}/claims.parquet",
    output:
        "paper/generated/numbers/advice.tex",
    log:
        "logs/paper/advice.log",
    shell:
        "python -m blkscope.paper.advice --claims {input.claims} -o {output} > {log} 2>&1"


rule paper_table_conditions:
    # every condition's runs, run length and measured window (the runs appendix)
    input:
        steady=f"{ANALYSIS}/steady_state.parquet",
    output:
        "paper/generated/tables/conditions.tex",
    log:
        "logs/paper/table_conditions.log",
    shell:
        "python -m blkscope.paper.run_conditions --steady {input.steady} -o {output} > {log} 2>&1"


rule paper_data_availability:
    # where the runs are and how they were captured (the appendix): from the runs sheet and each run.yaml. The run
    # summary changes with every run captured: the sheet lists a batch before its runs exist, so alone it left the
    # appendix at an older capture (1,184 runs beside the abstract's 1,194)
    input:
        runs=config["runs"],
        captured=f"{ANALYSIS}/run_summary.parquet",
    output:
        text="paper/generated/data_availability.tex",
        kernels="paper/generated/numbers/kernels.tex",  # the kernels the Method names, from the same run.yaml
    log:
        "logs/paper/data_availability.log",
    shell:
        "python -m blkscope.paper.data_availability --runs {input.runs} --raw data/raw -o {output.text}"
        " --macros {output.kernels} > {log} 2>&1"


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
        numbers_scale="paper/generated/numbers/scale.tex",
        numbers_sweep="paper/generated/numbers/sweep.tex",  # rule paper_sweep_numbers (steady_state.smk)
        numbers_char_phrases="paper/generated/numbers/char_phrases.tex",
        numbers_advice="paper/generated/numbers/advice.tex",
        numbers_claims_load="paper/generated/numbers/claims_load.tex",  # rule claims_load (load_claims.smk)
        tables=[
            "paper/generated/tables/runs.tex",
            "paper/generated/tables/claims.tex",
            "paper/generated/tables/conditions.tex",
            # the plan's macros (read in the main text too) and its deviations (load_claims.smk)
            "paper/generated/tables/claims_plan.tex",
            "paper/generated/tables/deviations.tex",
        ],
        data="paper/generated/data_availability.tex",
        numbers_kernels="paper/generated/numbers/kernels.tex",  # rule paper_data_availability
        figures=expand(f"{FIGS}/{{name}}.pdf", name=FIGURE_NAMES),
        figure_tex=expand("paper/generated/figures/{name}.tex", name=FIGURE_NAMES),
        claims=f"{ANALYSIS}/claims.parquet",
    output:
        pdf=report("paper/main.pdf", caption="../report/paper.rst", category="Paper"),
        layout="paper/generated/layout.json",
    log:
        prose="logs/paper/prose.log",
        latex="logs/paper/latexmk.log",
        check="logs/paper/pdf_check.log",
    # Before LaTeX: no number typed in the prose, no range word in it, the captions or the advice
    # (blkscope.paper.prose).
    # After: every claim with every printed column in the PDF (each judged row stating its condition, window and
    # n), the abstract's counts, the advice as the verdicts give it, no internal word, at most 14 pages of main
    # text (blkscope.paper.pdf_text); the PDF is kept only when both pass, so `make all` fails otherwise.
    # threads: the PDF check in parallel processes (pdfminer reading every page and figure); the main job's last job
    threads: 2
    shell:
        "python -m blkscope.paper.prose {input.tex} {input.sections} --words-only {input.figure_tex}"
        " {input.numbers_advice}"
        " > {log.prose} 2>&1"
        " && cd paper && latexmk -pdf -interaction=nonstopmode -halt-on-error -outdir=generated/build main.tex"
        " > ../{log.latex} 2>&1 && cd .."
        " && python -m blkscope.paper.pdf_text paper/generated/build/main.pdf --claims {input.claims}"
        " --layout {output.layout} --figures {input.figures} -j {threads} > {log.check} 2>&1"
        " && cp paper/generated/build/main.pdf {output.pdf}"
