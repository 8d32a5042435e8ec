# Raw logs -> tidy Parquet: data/raw/<run>/* -> data/processed/<run>/<source>/ (tables + ingest.json), through
# `blkscope ingest-runs`: one job per batch of runs (INGEST_BATCHES in common.smk: testbed x filesystem), each
# declaring its dataset manifest, which lists every table of its runs (blkscope.run_logs says which logs a run
# has and what they become; blkscope.datasets what a manifest holds).

for _batch, _runs in INGEST_BATCHES.items():

    rule:
        name:
            f"ingest_{_batch}"
        input:
            sheet=ancient(BATCH_SHEET[_batch]),  # the embedded runs sheet, or an imported run's (config imported)
            raw=ingest_inputs(_runs),
        output:
            dataset=ingest_dataset(_batch),
        params:
            runs=_runs,
            split=" ".join(r for r in _runs if r in SPLIT_RUNS),
            files=ingest_outputs(_runs),
            # the directories, from the files (snakemake --lint: no hard-coded path prefixes)
            raw=lambda w, input: raw_dir_of(input.raw),
            processed=lambda w, output: Path(output.dataset).parents[1],
        log:
            f"logs/ingest/{_batch}.log",
        benchmark:
            f"benchmarks/ingest/{_batch}.tsv"
        shell:
            "blkscope ingest-runs --sheet {input.sheet} --raw {params.raw} -o {params.processed} {params.runs}"
            " --split {params.split} --record-dataset {output.dataset} --dataset-files {params.files} > {log} 2>&1"
