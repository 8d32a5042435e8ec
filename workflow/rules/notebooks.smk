# jupytext .py notebooks -> executed .ipynb through papermill, with parameters (`blkscope notebook`,
# one process each).


rule notebook_access_patterns:
    input:
        nb="notebooks/access_patterns.py",
        summary=f"{ANALYSIS}/run_summary.parquet",
        rank=f"{ANALYSIS}/rank_frequency.parquet",
    output:
        "notebooks/executed/access_patterns.ipynb",
    params:
        analysis_dir=lambda w, input: os.path.dirname(os.path.abspath(input.summary)),
    log:
        "logs/notebooks/access_patterns.log",
    shell:
        f"{NOTEBOOK} {{input.nb}} {{output}} -p analysis_dir {{params.analysis_dir}} > {{log}} 2>&1"


rule notebook_study:
    input:
        nb="notebooks/study.py",
        claims=f"{ANALYSIS}/claims.parquet",
        metrics=f"{ANALYSIS}/workload_metrics.parquet",
        iostat=f"{ANALYSIS}/iostat_summary.parquet",
    output:
        "notebooks/executed/study_{study}.ipynb",
    wildcard_constraints:
        study="|".join(STUDY_NOTEBOOKS),
    params:
        name=lambda w: STUDY_NOTEBOOKS[w.study],
        analysis_dir=lambda w, input: os.path.dirname(os.path.abspath(input.claims)),
    log:
        "logs/notebooks/study_{study}.log",
    shell:
        f"{NOTEBOOK} {{input.nb}} {{output}} -p study '{{params.name}}' -p analysis_dir {{params.analysis_dir}}"
        " > {log} 2>&1"


rule notebook_run_explorer:
    input:
        nb="notebooks/run_explorer.py",
        meta=raw("{run}", "run.yaml"),
        # the run's iostat, workload and (traced) events tables
        datasets=lambda w: ingested([w.run]),
        parts=lambda w: split_parts([w.run]),
    output:
        "notebooks/executed/run_{run}.ipynb",
    params:
        raw_dir=lambda w, input: os.path.dirname(os.path.dirname(os.path.abspath(input.meta))),
        processed_dir=lambda w, input: Path(os.path.abspath(input.datasets[0])).parents[1],
    log:
        "logs/notebooks/run_{run}.log",
    shell:
        f"{NOTEBOOK} {{input.nb}} {{output}} -p run_id {{wildcards.run}}"
        " -p raw_dir {params.raw_dir} -p processed_dir {params.processed_dir} > {log} 2>&1"


# each imported run's pages: its run explorer, and its views where it has any (an imported workload log alone has
# only the explorer)
IMPORTED_OUTPUTS = [
    *expand("notebooks/executed/run_{run}.ipynb", run=IMPORTED),
    *[page(s) for s in SCOPES if s.run and view_tables(s)],
]


for _s in SCOPES:

    rule:
        name:
            f"notebook_all_setups{_s.suffix}"
        input:
            nb="notebooks/all_setups.py",
            tables=expand(f"{_s.figdata}/{{name}}.parquet", name=view_tables(_s)),
            metadata=[f"{_s.analysis}/metadata_vs_data.parquet"] if _s.traced else [],
            # the characterisation per setup: the study's (characterise.smk); an imported run's page goes without
            characterisation=[] if _s.run else f"{ANALYSIS}/characterisation.parquet",
        output:
            page(_s),
        params:
            figures_dir=lambda w, input: os.path.dirname(os.path.abspath(input.tables[0])),
        log:
            f"{_s.logs}/notebooks/all_setups.log",
        shell:
            f"{NOTEBOOK} {{input.nb}} {{output}} -p figures_dir {{params.figures_dir}} > {{log}} 2>&1"
