# blkscope: raw logs -> tidy Parquet -> analyses -> figures -> paper. See README.md.
import sys

# validate() imports jsonschema, which imports rfc3987_syntax when installed (a Jupyter dependency) only to check
# "iri" formats, which our schemas do not use; it builds 38 lark grammars on import, 3 s of every Snakemake start.
sys.modules.setdefault("rfc3987_syntax", None)

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"


onstart:
    # every job is a new Python process that imports blkscope; where PYTHONDONTWRITEBYTECODE is set (as on the
    # project's machine), each compiled the modules it imports, ~0.1-0.2 s of ~110 processes: compiled once here
    # (Python still reads bytecode it may not write, and recompiles a module whose source is newer)
    import compileall
    import blkscope

    compileall.compile_dir(Path(blkscope.__file__).parent, quiet=1)

    # Snakemake's job rate limit (--max-jobs-per-timespan, 100 a second by default) re-runs its scheduler every
    # second while any job waits for a core, and each pass stats every input of every waiting job and solves the
    # ILP again: most of Snakemake's own CPU in a local run (bench/RESULTS.md, "Snakemake's own CPU, profiled").
    # A local run has no submission rate to limit, and a job that ends wakes the scheduler anyway: no limiter
    # here (the scheduler is built before onstart runs). A cluster's executor (profiles/slurm) keeps it.
    if workflow.local_exec and hasattr(getattr(workflow, "scheduler", None), "job_rate_limiter"):
        workflow.scheduler.job_rate_limiter = None
    # a local run's threads at most its CPUs plus its largest job's threads less one, whatever --cores asks
    # (blkscope.local_cores says why)
    if workflow.local_exec and hasattr(getattr(workflow, "scheduler", None), "global_resources"):
        from blkscope import local_cores

        local_cores.cap(workflow)


wildcard_constraints:
    run=RUN_PATTERN,


include: "workflow/rules/ingest.smk"
include: "workflow/rules/parts.smk"
include: "workflow/rules/analysis.smk"
include: "workflow/rules/stats.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/characterise.smk"
include: "workflow/rules/paper.smk"
include: "workflow/rules/notebooks.smk"
include: "workflow/rules/load_claims.smk"
include: "workflow/rules/experiments.smk"
include: "workflow/rules/cassandra.smk"
include: "workflow/rules/steady_state.smk"


rule all:
    default_target: True
    input:
        "paper/main.pdf",
        analysis_outputs(),
        STATS_OUTPUTS,
        figure_outputs(),
        notebook_outputs(),
        LOAD_OUTPUTS,
        CHARACTERISE_OUTPUTS,
        STEADY_OUTPUTS,
        IMPORTED_OUTPUTS,


# A rule reruns when the source its command can import changes, not only its command (blkscope.code_hash): a
# built tree would otherwise keep figures and numbers made by older code.
from blkscope import code_hash

# The command: the shell's text and the rule's fixed string params (a rule defined in a loop passes its command as
# a param: figures.smk's figure data).
for _rule in workflow.rules:
    _scripts = [f for f in _rule.input if isinstance(f, str) and f.endswith(".py")]  # notebooks it executes
    _command = " ".join([_rule.shellcmd or "", *(p for p in _rule.params if isinstance(p, str))])
    if _rule.shellcmd and (_code := code_hash.of_command(_command, _scripts)):
        _rule.set_params(code=_code)
