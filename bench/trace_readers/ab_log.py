"""ab_binary.sh's log, read for ab_summary.py and ab_noise.py: the lines "TIME set step wall user sys pair_before
pair_after" grouped by run of the script (each starts with its `seed` line), and issue 43's targets."""

from collections import defaultdict
from pathlib import Path

TARGET = {"1": 25, "2": 40}  # issue 43 item 2, by the step's cores
# cpu_pair.c's round trip was bimodal on the AMD VM, 50-85 ns (the vCPUs share a cache) or 330-430 ns (apart);
# an Intel VM whose vCPUs share one L3 gives 130-235 ns. 250 ns: apart only as on the AMD VM, as in native/src/cpus.rs
APART_NS = 250

Runs = dict[str, dict[str, list[float]]]  # set -> step -> seconds, in the log's order (rounds in order)


Apart = dict[tuple[str, str], list[bool]]


def sections(path: Path, cpu: bool = False, apart_ns: float = APART_NS) -> list[tuple[Runs, Apart | None]]:
    """Per run of ab_binary.sh: its times (wall, or user + sys when `cpu`), and (set, step) -> per run whether the
    vCPUs were apart: a probe before or after the step over `apart_ns` (None: a log without probes)."""
    out: list[tuple[Runs, Apart | None]] = []
    for line in path.read_text().splitlines():
        t = line.split()
        if t and t[0] == "seed":
            out.append((defaultdict(lambda: defaultdict(list)), None))
        elif t and t[0] == "TIME":
            runs, apart = out[-1]
            runs[t[1]][t[2]].append(float(t[4]) + float(t[5]) if cpu else float(t[3]))
            if len(t) > 7:
                if apart is None:
                    apart = defaultdict(list)
                    out[-1] = (runs, apart)
                apart[t[1], t[2]].append(max(float(t[6]), float(t[7])) > apart_ns)
    return out
