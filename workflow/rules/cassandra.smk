# cassandra-stress for the Cassandra runs (tools/cassandra/README.md): built from the Apache Cassandra source tree
# named in config `capture: cassandra_source` (never part of `all`; `snakemake cassandra_stress`). The capture
# rules run `blkscope capture --config none`, so the configured paths reach it through the environment.
from blkscope.capture.workloads.base import MAVEN_OPTS
from blkscope.capture.workloads.cassandra_stress import export_configured

_CS_SOURCE = config["capture"].get("cassandra_source")
export_configured(_CS_SOURCE, config["capture"].get("cassandra_stress"))


# The node's jars (Maven Central), then tools/stress compiled against them; the output names the build directory.
rule cassandra_stress:
    input:
        pom="tools/cassandra/pom.xml",
        patch="tools/cassandra/stress-snakeyaml2.patch",
    output:
        "build/cassandra-stress/build-dir.txt",
    params:
        source=_CS_SOURCE or "(set capture: cassandra_source in config/config.yaml)",
        # Maven's own JVM C1-only with the serial collector, as every other Maven build of the project runs
        # (workloads/base.maven_env: about half the CPU, the same jars), unless the environment sets MAVEN_OPTS
        maven_opts=MAVEN_OPTS,
    log:
        "logs/experiments/cassandra_stress.log",
    shell:
        "MAVEN_OPTS=\"${{MAVEN_OPTS-{params.maven_opts}}}\" mvn -q -B -f {input.pom} package > {log} 2>&1"
        " && python -m blkscope.capture.workloads.cassandra_stress"
        " --source {params.source} --patch {input.patch} -o $(dirname {output}) > {output} 2>> {log}"
