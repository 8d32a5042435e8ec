# Load, tracer cost, Cassandra and the macros of their paper sections (issue H items 2-4, issue G item 4).
# Include after stats.smk (it reads the claims, overhead, skew and summary tables); add LOAD_OUTPUTS to `rule all`.
# cassandra-stress logs are ingested by ingest.smk's ingest_cstress (branch cassandra).

TRACED_HOST = runs_where(traced=True, testbed="loop")
CASSANDRA_HOST = runs_where(workload="cassandra", testbed="loop")
# under a device cap: S2-ops-cap's secondary measure reads their ops/s over the saturated window
CASSANDRA_CAPPED = [r for r in CASSANDRA_HOST if _row[r].get("device_cap")]
LOAD_OUTPUTS = [
    *expand(f"{ANALYSIS}/{{name}}.{{ext}}", name=["cassandra_summary", "cassandra_versus"], ext=["parquet", "csv"]),
    *([f"{ANALYSIS}/tracer_load.parquet", f"{ANALYSIS}/tracer_load_by_load.parquet"] if TRACED_HOST else []),
    "paper/generated/numbers/load.tex",
    "notebooks/executed/study_commitlog.ipynb",
    "paper/generated/tables/claims_plan.tex",
    "paper/generated/tables/deviations.tex",
    *expand(f"{ANALYSIS}/claims_load.{{ext}}", ext=["parquet", "csv"]),
]


localrules:
    load_numbers,
    claims_plan_tex,
    claims_load,


rule claims_deviations:
    # each change of a claim's measure made after its estimate was seen, undone and redone on today's tables
    input:
        runs=config["runs"],
        plan="config/claims_plan.yaml",
        iostat=f"{ANALYSIS}/iostat_summary.parquet",
        metrics=f"{ANALYSIS}/workload_metrics.parquet",
        overhead=f"{ANALYSIS}/overhead.parquet",
        zipf=f"{ANALYSIS}/zipf_cover.parquet",
        datasets=[f"{DATASETS}/access_frequency.ssd-study.tsv", *ingested(EXTENT_RUNS)],
        metadata=f"{ANALYSIS}/metadata_vs_data.parquet",
        phases=f"{ANALYSIS}/ycsb_phases.parquet",
        saturated=f"{ANALYSIS}/cassandra_saturated.parquet",
    output:
        table=f"{ANALYSIS}/claims_deviations.parquet",
        csv=f"{ANALYSIS}/claims_deviations.csv",
        # the secondary measures (S2-ops-cap over the saturated window) beside the planned ones
        secondary=f"{ANALYSIS}/claims_secondary.parquet",
        secondary_csv=f"{ANALYSIS}/claims_secondary.csv",
    params:
        fof=expand(f"{PROC}/{{run}}/frequency/fof.ssd-study.parquet", run=TRACED),
        extents=expand(f"{PROC}/{{run}}/extents/extents.parquet", run=EXTENT_RUNS),
    log:
        "logs/analysis/claims_deviations.log",
    shell:
        "blkscope claims-deviations --runs {input.runs} --iostat {input.iostat} --metrics {input.metrics}"
        " --overhead {input.overhead} --zipf {input.zipf} --fof {params.fof} --extents {params.extents}"
        " --metadata {input.metadata} --ycsb-phases {input.phases} --plan {input.plan} -o {output.table}"
        " --csv {output.csv} --saturated {input.saturated} --secondary {output.secondary}"
        " --secondary-csv {output.secondary_csv} --check-datasets {input.datasets} > {log} 2>&1"


rule claims_plan_tex:
    input:
        plan="config/claims_plan.yaml",
        claims=f"{ANALYSIS}/claims.parquet",
        deviations=f"{ANALYSIS}/claims_deviations.parquet",
        secondary=f"{ANALYSIS}/claims_secondary.parquet",
    output:
        macros="paper/generated/tables/claims_plan.tex",
        table="paper/generated/tables/deviations.tex",
    log:
        "logs/paper/claims_plan_tex.log",
    shell:
        "blkscope claims-plan-tex --plan {input.plan} --claims {input.claims} --deviations {input.deviations}"
        " --secondary {input.secondary} -o {output.macros} --table {output.table} > {log} 2>&1"


rule cassandra_saturated:
    # each capped Cassandra run's ops/s from the device's saturation onset (iostat_summary's sat_onset_s, S2-aqu-cap's
    # window) to the run's end, cassandra-stress's clock placed by run.yaml's workload end
    input:
        iostat=f"{ANALYSIS}/iostat_summary.parquet",
        datasets=ingested(CASSANDRA_CAPPED),  # each run's iostat reports and cassandra-stress intervals
        meta=[raw(r, "run.yaml") for r in CASSANDRA_CAPPED],
    output:
        table=f"{ANALYSIS}/cassandra_saturated.parquet",
        csv=f"{ANALYSIS}/cassandra_saturated.csv",
    params:
        runs=CASSANDRA_CAPPED,
    log:
        "logs/analysis/cassandra_saturated.log",
    shell:
        "python -m blkscope.analysis.summaries.cassandra_saturated --iostat-summary {input.iostat}"
        f" --processed {PROC} --raw {RAW} -o {{output.table}} --csv {{output.csv}} {{params.runs}} > {{log}} 2>&1"


rule cassandra_summary:
    input:
        runs=config["runs"],
        metrics=f"{ANALYSIS}/workload_metrics.parquet",
        iostat=f"{ANALYSIS}/iostat_summary.parquet",
        datasets=ingested(CASSANDRA_HOST),
    output:
        table=f"{ANALYSIS}/cassandra_summary.parquet",
        csv=f"{ANALYSIS}/cassandra_summary.csv",
        versus=f"{ANALYSIS}/cassandra_versus.parquet",
        versus_csv=f"{ANALYSIS}/cassandra_versus.csv",
    params:
        intervals=expand(f"{PROC}/{{run}}/cstress/cstress_intervals.parquet", run=CASSANDRA_HOST),
    log:
        "logs/stats/cassandra_summary.log",
    shell:
        "blkscope cassandra-summary --runs {input.runs} --metrics {input.metrics} --iostat {input.iostat}"
        " -o {output.table} --csv {output.csv} --versus {output.versus} --versus-csv {output.versus_csv}"
        " {params.intervals} --check-datasets {input.datasets} > {log} 2>&1"


rule tracer_load:
    input:
        runs=config["runs"],
        meta=[raw(r, "run.yaml") for r in TRACED_HOST],
        iostat=f"{ANALYSIS}/iostat_summary.parquet",
    output:
        table=f"{ANALYSIS}/tracer_load.parquet",
        csv=f"{ANALYSIS}/tracer_load.csv",
        by_load=f"{ANALYSIS}/tracer_load_by_load.parquet",
    params:
        runs=TRACED_HOST,
        raw=lambda w, input: Path(input.meta[0]).parents[1],
    log:
        "logs/stats/tracer_load.log",
    shell:
        "blkscope tracer-load --runs {input.runs} --raw {params.raw} --iostat {input.iostat} {params.runs}"
        " -o {output.table} --csv {output.csv} --by-load {output.by_load} > {log} 2>&1"


rule claims_load:
    # the machine's load before each run, per arm of each judged claim row: a diagnostic beside the claims
    input:
        claims=f"{ANALYSIS}/claims.parquet",
        arms=f"{ANALYSIS}/claims_arms.parquet",
        meta=[raw(r, "run.yaml") for r in CAPTURED],
    output:
        macros="paper/generated/numbers/claims_load.tex",
        table=f"{ANALYSIS}/claims_load.parquet",
        csv=f"{ANALYSIS}/claims_load.csv",
    log:
        "logs/paper/claims_load.log",
    shell:
        f"python -m blkscope.paper.claim_load --claims {{input.claims}} --arms {{input.arms}} --raw {RAW}"
        " -o {output.macros} --table {output.table} --csv {output.csv} > {log} 2>&1"


rule load_numbers:
    input:
        runs=config["runs"],
        claims=f"{ANALYSIS}/claims.parquet",
        overhead=f"{ANALYSIS}/overhead.parquet",
        tracer=f"{ANALYSIS}/tracer_load_by_load.parquet",
        tracer_runs=f"{ANALYSIS}/tracer_load.parquet",
        skew=f"{ANALYSIS}/skew_cover.parquet",
        metrics=f"{ANALYSIS}/workload_metrics.parquet",
        iostat=f"{ANALYSIS}/iostat_summary.parquet",
        cassandra=f"{ANALYSIS}/cassandra_summary.parquet",
        versus=f"{ANALYSIS}/cassandra_versus.parquet",
        # the claims table at 19e2942 (before issue M): the verdicts section says what moved since
        claims_before="paper/reference/claims-19e2942.csv",
    output:
        "paper/generated/numbers/load.tex",
    log:
        "logs/paper/load_numbers.log",
    shell:
        "blkscope load-numbers --runs {input.runs} --claims {input.claims} --overhead {input.overhead}"
        " --tracer-load {input.tracer} --tracer-runs {input.tracer_runs} --skew {input.skew} --metrics {input.metrics} --iostat {input.iostat}"
        " --cassandra {input.cassandra} --cassandra-versus {input.versus} --claims-before {input.claims_before}"
        " -o {output} > {log} 2>&1"


rule notebook_study_commitlog:
    input:
        nb="notebooks/study_commitlog.py",
        claims=f"{ANALYSIS}/claims.parquet",
        cassandra=f"{ANALYSIS}/cassandra_summary.parquet",
        versus=f"{ANALYSIS}/cassandra_versus.parquet",
        overhead=f"{ANALYSIS}/overhead.parquet",
        iostat=f"{ANALYSIS}/iostat_summary.parquet",
    output:
        "notebooks/executed/study_commitlog.ipynb",
    params:
        analysis_dir=lambda w, input: os.path.dirname(os.path.abspath(input.claims)),
    log:
        "logs/notebooks/study_commitlog.log",
    shell:
        f"{NOTEBOOK} {{input.nb}} {{output}} -p analysis_dir {{params.analysis_dir}} > {{log}} 2>&1"
