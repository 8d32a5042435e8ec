"""Time trace -> events.parquet with three programs, every configuration REPEATS times in one shuffled order:

  native  blkscope-native (what `blkscope ingest` runs: our writer)
  ours    parquet-check ingest ... ours   (the same decoders and writer, built in the checker's crate)
  arrow   parquet-check ingest ... arrow  (the same decoders, arrow-rs's ArrowWriter)

`ours` against `arrow` isolates the writer (one binary, one build); `native` shows that the checker's build
of our path runs as fast as the production one. One core each (taskset -c 0), `sync` before each run, the
load average read before each. Writes one TSV row per run and prints the order, medians and ratios.

Usage: timing.py --repeats R --out timing.tsv --native BIN --check BIN KIND="INPUT..." ...
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import time
from pathlib import Path

WRITERS = ("native", "ours", "arrow")


def command(writer: str, kind: str, inputs: list[str], out: Path, a) -> list[str]:
    rep = str(out.with_suffix(".json"))
    if writer == "native":
        return [a.native, kind, "--out", str(out), "--report", rep, *inputs]
    return [a.check, "ingest", kind, writer, "--out", str(out), "--report", rep, *inputs]


def one(cmd: list[str]) -> dict:
    subprocess.run(["sync"], check=True)
    load = Path("/proc/loadavg").read_text().split()[:3]
    p = subprocess.run(["taskset", "-c", "0", "/usr/bin/time", "-f", "TIME %e %U %S %M", *cmd],
                       capture_output=True, text=True)  # fmt: skip
    if p.returncode:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    wall, user, sys_, rss = p.stderr.strip().splitlines()[-1].split()[1:]
    return {"wall": float(wall), "user": float(user), "sys": float(sys_), "rss_kib": int(rss),
            "load1": load[0], "load5": load[1], "load15": load[2]}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--native", required=True)
    ap.add_argument("--check", required=True)
    ap.add_argument("sets", nargs="+", help='KIND="INPUT ..."')
    a = ap.parse_args()
    sets = {k: v.split() for k, v in (s.split("=", 1) for s in a.sets)}
    seed = int(time.time())
    runs = [(w, k, r) for k in sets for w in WRITERS for r in range(a.repeats)]
    random.Random(seed).shuffle(runs)
    print(f"seed {seed}; order: {' '.join(f'{w}-{k}#{r}' for w, k, r in runs)}")
    Path("out").mkdir(exist_ok=True)
    rows = []
    with open(a.out, "w") as f:
        f.write("i\twriter\tkind\trepeat\twall_s\tuser_s\tsys_s\tcpu_s\trss_kib\tbytes\tload1\tload5\tload15\tutc\n")
        for i, (w, k, r) in enumerate(runs):
            out = Path("out", f"{w}-{k}.parquet")
            out.unlink(missing_ok=True)
            m = one(command(w, k, sets[k], out, a))
            m.update(i=i, writer=w, kind=k, repeat=r, cpu=round(m["user"] + m["sys"], 2), bytes=out.stat().st_size,
                     utc=time.strftime("%H:%M:%S", time.gmtime()))  # fmt: skip
            rows.append(m)
            cols = ("i", "writer", "kind", "repeat", "wall", "user", "sys", "cpu", "rss_kib", "bytes", "load1",
                    "load5", "load15", "utc")  # fmt: skip
            f.write("\t".join(str(m[c]) for c in cols) + "\n")
            f.flush()
            print(f"{i:2d} {w:6s} {k:8s} wall {m['wall']:.2f} s, CPU {m['cpu']:.2f} s, {m['bytes']} bytes, "
                  f"load {m['load1']}", flush=True)  # fmt: skip
    print("\n| input | program | wall s (median; all) | CPU user+sys s (median; all) | file bytes | peak RSS MiB |")
    print("|---|---|---|---|---|---|")
    med = {}
    for k in sets:
        for w in WRITERS:
            rs = [m for m in rows if (m["writer"], m["kind"]) == (w, k)]
            wall, cpu = [m["wall"] for m in rs], [m["cpu"] for m in rs]
            med[w, k] = (statistics.median(wall), statistics.median(cpu), rs[0]["bytes"])
            walls, cpus = ", ".join(f"{x:.2f}" for x in wall), ", ".join(f"{x:.2f}" for x in cpu)
            rss = max(m["rss_kib"] for m in rs) // 1024
            mw, mc = med[w, k][:2]
            print(f"| {k} | {w} | {mw:.2f}; {walls} | {mc:.2f}; {cpus} | {rs[0]['bytes']:,} | {rss} |")
    for k in sets:
        (ow, oc, ob), (aw, ac, ab) = med["ours", k], med["arrow", k]
        print(f"{k}: arrow-rs / ours (median): wall {aw / ow:.2f}x, CPU {ac / oc:.2f}x, file {ab / ob:.2f}x")
    loads = [float(m["load1"]) for m in rows]
    print(f"load average (1 min) before the runs: {min(loads):.2f}-{max(loads):.2f}; {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
