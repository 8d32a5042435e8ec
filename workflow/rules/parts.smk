# Large traces ingested as N parts in parallel jobs (scatter) and read back as one dataset (gather):
# `blkscope ingest --part K/N` per part (a blktrace set's CPU files in N groups, or N byte ranges of a text
# trace cut at line starts), then parts.json, which the whole-trace analyses (frequency, latency stages,
# queue depth, seeks, run summary) read in place of events.parquet (trace_events() in common.smk). Runs whose raw trace is smaller than
# config trace_parts.min_bytes are ingested whole (ingest.smk). Include after common.smk, before the analyses.

wildcard_constraints:
    k=r"\d+",
    n=r"\d+",


rule decompress_trace:
    # byte ranges need the plain text; temp(): removed once every part is ingested
    input:
        trace=lambda w: trace_files(w)[0],
    output:
        text=temp(f"{PROC}/{{run}}/trace_parts/trace.txt"),
    log:
        "logs/ingest/{run}.decompress.log",
    shell:
        "zstd -dqf {input.trace} -o {output.text} > {log} 2>&1"


rule ingest_trace_part:
    input:
        trace=part_inputs,
    output:
        events=f"{PROC}/{{run}}/trace_parts/part-{{k}}-of-{{n}}/events.parquet",
        report=f"{PROC}/{{run}}/trace_parts/part-{{k}}-of-{{n}}/ingest.json",
    params:
        kind=trace_kind,
        inputs=lambda w, input: Path(input.trace[0]).parent if trace_kind(w) == "blktrace" else input.trace,
    log:
        "logs/ingest/{run}.trace.part-{k}-of-{n}.log",
    benchmark:
        "benchmarks/ingest/{run}.trace.part-{k}-of-{n}.tsv"
    shell:
        "blkscope ingest --kind {params.kind} --part {wildcards.k}/{wildcards.n} {params.inputs}"
        " -o $(dirname {output.events}) > {log} 2>&1"


rule gather_trace_parts:
    input:
        reports=expand(f"{PROC}/{{{{run}}}}/trace_parts/part-{{k}}-of-{PARTS_N}/ingest.json", k=range(1, PARTS_N + 1)),
    output:
        parts=f"{PROC}/{{run}}/trace_parts/parts.json",
    log:
        "logs/ingest/{run}.trace.gather.log",
    shell:
        "blkscope gather-parts $(dirname {input.reports}) -o {output.parts} > {log} 2>&1"
