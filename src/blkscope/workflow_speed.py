"""Three mends of Snakemake's own bookkeeping cost, applied by the Snakefile before the DAG is built.

The workflow declares ~4,100 files (every per-run table), and Snakemake spent much of its time on things that
grow with that number, not on our code (bench/RESULTS.md, "The main job"):

- Metadata records. Each rerun trigger (mtime, params, input, code, software-env) reads every output file's
  record through FilePersistence._read_record_cached, an `lru_cache()` of 128 entries: with thousands of
  files checked trigger by trigger the cache never hits, and each record is read and parsed ~6 times (23,611
  JSON reads for 4,066 files). An unbounded cache for the one process reads each once; the cache is still
  cleared wherever Snakemake clears it (before a job's records are written).
- Finding a file's producer. Rule.is_producer tries a file against every output, log and benchmark of the
  rule, compiling one regular expression per output; an ingest batch declares ~600 plain files. Plain
  (wildcard-free) products are compared as a set instead; patterns still go through their regex.
- Input checksums after a job. Persistence.finished writes one metadata record per output file, and for each
  one hashes every input file below 1 MB again: an ingest batch (~770 outputs, ~300 inputs) hashed 233,613
  files, 14 s of Snakemake's own CPU per batch. A checksum is now computed once per file version (path, inode,
  size, mtime and ctime unchanged) in the process; the records are the same.

All keep Snakemake's answers; `apply` does nothing on a Snakemake other than 9.x (the internals it mends are
those of 9.27; requirements.in keeps Snakemake below 10). One limit: a file rewritten in place during a run with
the same size, mtime and ctime would keep its first checksum in the records (Snakemake's own rerun check
re-reads the file and is not cached).
"""

from __future__ import annotations

import functools
import os


def _cached_records() -> bool:
    from snakemake.persistence.file import FilePersistence

    cached = getattr(FilePersistence, "_read_record_cached", None)
    inner = getattr(cached, "__wrapped__", None)
    if inner is None or getattr(cached, "cache_parameters", lambda: {})().get("maxsize") is None:
        return False
    FilePersistence._read_record_cached = functools.lru_cache(maxsize=None)(inner)
    return True


def _producer_sets() -> bool:
    from snakemake.rules import Rule

    original = getattr(Rule, "is_producer", None)
    if original is None or getattr(original, "_blkscope", False):
        return False

    def is_producer(self, requested_output):
        split = self.__dict__.get("_blkscope_products")
        if split is None:  # rules are complete once the DAG is built: their products no longer change
            products = list(self.products())
            plain = {str(p) for p in products if not p.get_wildcard_names()}
            split = self.__dict__["_blkscope_products"] = (plain, [p for p in products if str(p) not in plain])
        if requested_output in split[0]:
            return True
        if not split[1]:
            return False
        return original(self, requested_output)  # a pattern: Snakemake's own matching (and its errors)

    is_producer._blkscope = True
    Rule.is_producer = is_producer
    return True


def _checksum_once() -> bool:
    from snakemake.io import _IOFile

    original = getattr(_IOFile, "checksum", None)
    if original is None or getattr(original, "_blkscope", False):
        return False
    known: dict[tuple, str | None] = {}

    async def checksum(self, threshold=None, force=False, algorithm=None):
        if force or algorithm is not None or self.is_storage:
            return await original(self, threshold, force, algorithm)
        try:
            st = os.stat(self.file)
        except OSError:
            return await original(self, threshold, force, algorithm)
        key = (self.file, threshold, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if key not in known:
            known[key] = await original(self, threshold, force, algorithm)
        return known[key]

    checksum._blkscope = True
    _IOFile.checksum = checksum
    return True


def apply() -> dict[str, bool]:
    """Install the mends; says which were installed (none on a second call, or on another Snakemake major)."""
    import snakemake

    if not str(getattr(snakemake, "__version__", "")).startswith("9."):
        return {"records": False, "producers": False, "checksums": False}
    return {"records": _cached_records(), "producers": _producer_sets(), "checksums": _checksum_once()}
