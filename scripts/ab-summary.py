#!/usr/bin/env python3
"""Paired medians of an interleaved A/B made by scripts/bench-ab.sh: python3 scripts/ab-summary.py OUT_DIR."""
import json
import pathlib
import re
import statistics
import sys

out = pathlib.Path(sys.argv[1])


def runs(pattern):
    """{round: value} for files matching pattern (a glob with {side})."""
    found = {}
    for side in "AB":
        for f in sorted(out.glob(pattern.format(side=side))):
            round_ = int(re.search(r"-(\d+)\.json$", f.name).group(1))
            found.setdefault(round_, {})[side] = json.loads(f.read_text())
    return {r: v for r, v in found.items() if len(v) == 2}


def row(name, pattern, key, fmt):
    paired = runs(pattern)
    if not paired:
        return
    a = [paired[r]["A"][key] for r in sorted(paired)]
    b = [paired[r]["B"][key] for r in sorted(paired)]
    ratios = [y / x for x, y in zip(a, b) if x]
    print(f"| {name} | {' '.join(fmt(x) for x in a)} | {' '.join(fmt(x) for x in b)} | "
          f"{fmt(statistics.median(a))} → {fmt(statistics.median(b))} | {statistics.median(ratios):.3f} |")


print("| measure | A rounds | B rounds | median A → B | paired median B/A |")
print("|---|---|---|---|---|")
row("F(25) zero load, 1 server, tasks/s", "zero-{side}-*.json", "tasks_per_s", lambda x: f"{x:,.0f}")
for n in (13, 16):
    for s in (1, 7):
        row(f"F({n}), {s} server{'s' if s > 1 else ''}, ratio to ceiling", f"eff-n{n}-s{s}-{{side}}-*.json",
            "efficiency_over_ceiling", lambda x: f"{x:.3f}")
for n in (13, 16):
    row(f"F({n}), 7 servers, servers' CPU s per run", f"eff-n{n}-s7-{{side}}-*.json", "server_cpu_s",
        lambda x: f"{x:.3f}")
for side in "AB":
    for f in sorted(out.glob(f"recovery-{side}-*.txt")):
        last = [line for line in f.read_text().splitlines() if line.startswith("median of")]
        print(f"recovery {side} {f.name}: {last[-1] if last else 'no result'}")
