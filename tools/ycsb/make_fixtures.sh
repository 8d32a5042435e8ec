#!/bin/bash
# Make the YCSB fixtures in tests/fixtures/ycsb/ with YCSB core 0.17.0 from Maven Central and its BasicDB.
# Jars are copied to a temporary directory (never committed); only the text output is kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../tests/fixtures/ycsb}
jars=$(mktemp -d)
trap 'rm -rf "$jars"' EXIT
mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies -DoutputDirectory="$jars"
cp="$jars/*"
# workloada / workloadf of the YCSB distribution, spelled out (the jar does not ship the workload files)
common=(-db site.ycsb.BasicDB -p workload=site.ycsb.workloads.CoreWorkload -p recordcount=1000 -p operationcount=1000
        -p basicdb.verbose=false -p status.interval=1 -s)
wa=(-p readproportion=0.5 -p updateproportion=0.5 -p scanproportion=0 -p insertproportion=0
    -p requestdistribution=zipfian)
wf=(-p readproportion=0.5 -p readmodifywriteproportion=0.5 -p updateproportion=0 -p insertproportion=0
    -p requestdistribution=zipfian)
mkdir -p "$out"
ycsb() { java -cp "$cp" site.ycsb.Client "$@"; }
ycsb -load "${common[@]}" "${wa[@]}" -p basicdb.simulatedelay=8 -threads 2 > "$out/load_workloada_basicdb.txt" 2>&1
ycsb -t "${common[@]}" "${wa[@]}" -p operationcount=3000 -p basicdb.simulatedelay=4 -threads 2 \
  > "$out/run_workloada_basicdb_status.txt" 2>&1
ycsb -t "${common[@]}" "${wf[@]}" -p operationcount=2000 -p measurementtype=histogram -p histogram.buckets=20 \
  -p basicdb.simulatedelay=2 -threads 2 > "$out/run_workloadf_histogram.txt" 2>&1
ycsb -t "${common[@]}" "${wa[@]}" -p operationcount=1500 -p measurement.interval=both -target 500 -threads 2 \
  > "$out/run_workloada_target_intended.txt" 2>&1
ycsb -t "${common[@]}" "${wa[@]}" -p operationcount=1500 -p measurementtype=timeseries \
  -p timeseries.granularity=500 -p basicdb.simulatedelay=2 -threads 2 > "$out/run_workloada_timeseries.txt" 2>&1
