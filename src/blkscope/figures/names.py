"""Plain names of the runs' setups, for the figures' labels and the runs appendix's conditions table: the runs
sheet's job names (`workloada-zipfian-buffered-sat-long`) are the capture's, not a reader's. One mapping, here;
a job it does not know keeps its sheet name after the workload's plain name.

    plain("ycsb", "workloada-zipfian-buffered-sat-long")          -> "RocksDB capped, long"
    plain_setup("cassandra-ycsb workloada-zipfian-small (guest)")  -> "Cassandra YCSB small (guest)"

NOTE says what the shorter words stand for; a caption that prints the names gives it.
"""

from __future__ import annotations

import re

# the workload as the figures name it: the database, or the tool where there is none
WORKLOADS = {"ycsb": "RocksDB", "cassandra-ycsb": "Cassandra YCSB", "cassandra": "Cassandra", "fio": "fio",
             "sysbench": "sysbench", "journal": "journal"}  # fmt: skip

# a database as a column or an arm names it (claims_arms, cache_sweep's `database`) -> as the text names it
DATABASES = {"rocksdb": "RocksDB", "cassandra": "Cassandra"}

# (workload, job) -> the setup's plain name (the workload's name included).
JOBS: dict[tuple[str, str], str] = {
    ("fio", "append"): "fio appends",
    ("fio", "randrw"): "fio r/w",
    ("fio", "randrw-sat"): "fio r/w, saturating",
    ("fio", "atime"): "fio atime test",
    ("fio", "ceiling"): "fio device ceiling",
    ("sysbench", "rndrw"): "sysbench r/w",
    ("sysbench", "rndrw-max"): "sysbench r/w, saturating",
    ("sysbench", "rndrw-max-256m"): "sysbench volume test",
    ("journal", "none"): "journal no prealloc",
    ("journal", "sparse"): "journal sparse",
    ("journal", "prealloc"): "journal prefilled",
    ("journal", "none-reader"): "journal+reader no prealloc",
    ("journal", "sparse-reader"): "journal+reader sparse",
    ("journal", "prealloc-reader"): "journal+reader prefilled",
    ("cassandra", "write"): "Cassandra writes",
    ("cassandra", "mixed"): "Cassandra mixed",
    ("cassandra", "write-n"): "Cassandra fixed writes",
    ("cassandra", "write-threads"): "Cassandra thread sweep",
    ("cassandra-ycsb", "workloada-zipfian-small"): "Cassandra YCSB small",
    ("cassandra-ycsb", "workloada-c-zipfian-sat"): "Cassandra YCSB A then C",
    ("cassandra-ycsb", "workloada-zipfian-capped"): "Cassandra YCSB capped",
    ("ycsb", "workloada-zipfian"): "RocksDB light",
    ("ycsb", "workloada-zipfian-small"): "RocksDB small",
    ("ycsb", "workloada-zipfian-sat"): "RocksDB saturating",
    ("ycsb", "workloada-c-zipfian-sat"): "RocksDB A then C",
    ("ycsb", "workloada-zipfian-buffered-sat"): "RocksDB capped",
    ("ycsb", "workloada-zipfian-buffered-sat-long"): "RocksDB capped, long",
    **{("ycsb", f"workloada-zipfian-{how}-sweep-{n}"): f"RocksDB sweep {n.upper() if n == '4m' else n} {how}"
       for how in ("buffered", "direct") for n in ("4m", "400k", "40k")},
    **{("cassandra-ycsb", f"workloada-zipfian-capped-sweep-{n}"): f"Cassandra sweep {n.upper() if n == '7m' else n}"
       for n in ("7m", "700k", "70k")},
    ("cassandra-ycsb", "workloada-zipfian-capped-sweep-70k-long"): "Cassandra sweep 70k long",
}  # fmt: skip

NOTE = ("RocksDB and Cassandra YCSB run YCSB workload A, or A then C; capped: under a memory cap smaller "
        "than the data, long: the longer such runs; light: rate-limited; small: fewer records at a lower rate; fixed "
        "writes: a fixed number of writes; guest: the emulated guest")  # fmt: skip

# the suffixes a figure adds after workload and job (tracing_overhead: the device cap's write rate, mount options,
# the commitlog's compression), as a reader reads them
_SUFFIX = [(re.compile(r"^(\d+)M$"), r"\1 MiB/s"), (re.compile(r"^none$"), ""), (re.compile(r"^lz4$"), "LZ4"),
           (re.compile(r"^data=writeback$"), "writeback")]  # fmt: skip


def plain(workload: str, job: str) -> str:
    """The plain name of a workload's job (JOBS); an unknown one: the workload's plain name and the job."""
    return JOBS.get((workload, job)) or f"{WORKLOADS.get(workload, workload)} {job}"


def _suffix(word: str) -> str:
    for pat, repl in _SUFFIX:
        if pat.match(word):
            return pat.sub(repl, word)
    return word


def plain_setup(setup: str) -> str:
    """A figure's setup label (`workload job [suffix ...] [(testbed)]`, blkscope.runs.run_meta) in plain words: the
    workload and job by plain(), each suffix word as a reader reads it, the testbed kept."""
    m = re.match(r"^(\S+) (\S+)(.*?)( \([^)]*\))?$", setup)
    if not m:
        return setup
    workload, job, rest, testbed = m.group(1), m.group(2), m.group(3), m.group(4) or ""
    words = [w for w in (_suffix(w) for w in rest.split()) if w]
    return " ".join([plain(workload, job), *words]) + testbed


# the tool a run sheet's job follows in a cell's words ("cassandra-stress write-n", "sysbench rndrw-max-256m"): it
# goes with the job, whose plain name names the workload already
_TOOLS = {"cassandra": "cassandra-stress", "sysbench": "sysbench", "fio": "fio", "journal": "journal"}
# jobs whose id is no word (a hyphen in it): a cell's words never mean anything else by them
_JOB_IDS = sorted(((w, j) for w, j in JOBS if "-" in j), key=lambda k: -len(k[1]))
_JOB_WORD = re.compile(r"\bjob ([a-z][\w-]*)")


def plain_jobs(text: str) -> str:
    """A sentence's (a claims-table cell's) job ids in plain words: "cassandra-stress write-n" and "capped write-n"
    -> "Cassandra fixed writes", "sysbench rndrw-max-256m" -> "sysbench volume test" (a job id with a hyphen, with
    its tool's name before it where there is one), "job prealloc" -> "the journal prefilled setup" (a job named as
    one, of exactly one workload)."""
    for w, j in _JOB_IDS:
        tool = re.escape(_TOOLS.get(w, w))
        text = re.sub(rf"(?<![\w-])(?:{tool} )?{re.escape(j)}(?![\w-])", plain(w, j), text)

    def named(m: re.Match) -> str:
        owners = [w for w, j in JOBS if j == m.group(1)]
        return f"the {plain(owners[0], m.group(1))} setup" if len(owners) == 1 else m.group()

    return _JOB_WORD.sub(named, text)


def vega_lookup(value: str = "datum.value") -> str:
    """A Vega expression giving the plain name of the setup label `value` (a figure's header, axis or text
    layer): a lookup in every known setup's plain name, host and guest; an unknown label prints as it is."""
    import json

    table = {f"{w} {j}{t}": plain(w, j) + t for (w, j) in JOBS for t in ("", " (guest)")}
    return f"({json.dumps(table, sort_keys=True)})[{value}] || {value}"


def guest_strata(guest: list[str], k: int) -> str:
    """Which of a claim's `k` strata ran in the emulated guest, by rule and in plain words (the strata as the claims
    table names them, "ycsb workloada-zipfian-small" or with a "guest " prefix): "one of the three strata (RocksDB
    small) ran in the guest", as the claims table's runs-read cells say it (blkscope.paper.claims.guest_strata)."""
    from blkscope.paper.latex import count_word, join_and

    names = join_and([plain_setup(re.sub(r"^guest\s+", "", g)) for g in guest])
    n, of = count_word(len(guest)), count_word(k)
    if len(guest) == k:
        every = {1: "the stratum", 2: "both strata"}.get(k, f"all {of} strata")
        return f"{every} ({names}) ran in the guest"
    return f"{n} of the {of} strata ({names}) ran in the guest"
