#!/usr/bin/env bash
# What the task box costs: interleaved runs of this checkout with task code in the producers' JVM (in-process) and
# in worker processes, plain (process) and in bubblewrap (sandbox).
#   scripts/bench-box.sh [OUT_DIR]
# Each round runs, for each mode: zero-load F(20) on 1 server and 2 producers, and F(16) on 1 server with 16
# producers and the paper's task times / 40. Prints paired figures against in-process. About 10 minutes on 2 cores
# with ROUNDS=3; run nothing else meanwhile.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/bench-results/box}
rounds=${ROUNDS:-3}
modes=(in-process process sandbox)
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for mode in "${modes[@]}"; do
    "$root/cx" bench fib --n 20 --servers 1 --producers 2 --load none --warmup 3 --repeat 5 \
        --task-isolation "$mode" --json "$out/zero-$mode-$round.json" > "$out/zero-$mode-$round.txt" 2>&1
    "$root/cx" bench fib --n 16 --servers 1 --producers 16 --load sleep --decompose-ms 1 --leaf-ms 40 \
        --compose-ms 1 --warmup 5 --repeat 5 --task-isolation "$mode" \
        --json "$out/eff-$mode-$round.json" > "$out/eff-$mode-$round.txt" 2>&1
    echo "round $round, $mode done" >&2
  done
done
python3 - "$out" "$rounds" "${modes[@]}" <<'PY'
import json, statistics, sys
out, rounds, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def figure(kind, mode, r, key):
    return json.load(open(f"{out}/{kind}-{mode}-{r}.json"))[key]
for kind, key, label in (("zero", "tasks_per_s", "zero-load F(20) tasks/s"), ("eff", "efficiency", "F(16) efficiency"),
                          ("eff", "ceiling", "F(16) ceiling")):
    base = [figure(kind, modes[0], r, key) for r in range(1, rounds + 1)]
    print(f"{label}: {modes[0]} {statistics.median(base):.4g}")
    for mode in modes[1:]:
        fig = [figure(kind, mode, r, key) for r in range(1, rounds + 1)]
        ratios = [f / b for f, b in zip(fig, base)]
        diffs = [f - b for f, b in zip(fig, base)]
        print(f"  {mode} {statistics.median(fig):.4g}; against {modes[0]} per round "
              f"{', '.join(f'{x:.3f}' for x in ratios)} (median {statistics.median(ratios):.3f}); "
              f"difference median {statistics.median(diffs):+.4f}")
PY
