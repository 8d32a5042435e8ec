# jupytext .py notebooks -> executed .ipynb through papermill, with parameters.


rule notebook_access_patterns:
    input:
        nb="notebooks/access_patterns.py",
        summary=f"{ANALYSIS}/run_summary.parquet",
        rank=f"{ANALYSIS}/rank_frequency.parquet",
    output:
        "notebooks/executed/access_patterns.ipynb",
    params:
        analysis_dir=lambda w, input: os.path.dirname(os.path.abspath(input.summary)),
        src=lambda w, output: output[0] + ".src.ipynb",
    log:
        "logs/notebooks/access_patterns.log",
    shell:
        "(jupytext --to ipynb -o {params.src} {input.nb}"
        " && papermill --cwd notebooks {params.src} {output} -p analysis_dir {params.analysis_dir}"
        " && rm -f {params.src}) > {log} 2>&1"
