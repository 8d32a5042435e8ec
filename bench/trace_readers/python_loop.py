"""Baseline: the plain Python loop users write (split each line, count actions, sum D sectors)."""

import sys

counts: dict[str, int] = {}
dsum = 0
with open(sys.argv[1]) as f:
    for line in f:
        t = line.split()
        if len(t) < 6:
            continue
        a = t[4]
        counts[a] = counts.get(a, 0) + 1
        if a == "D" and len(t) >= 9 and t[7] == "+":
            dsum += int(t[8])
print(sum(counts.values()), "events", dsum, "D sectors")
