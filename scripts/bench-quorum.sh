#!/usr/bin/env bash
# What validation by redundant execution costs: interleaved runs of F(16) on 1 server with 64 producers and the
# paper's task times / 40, without validation and with a quorum of 2 (each producer its own credential).
#   scripts/bench-quorum.sh [OUT_DIR]
# Prints paired medians. About 6 minutes on 2 cores with ROUNDS=3; run nothing else meanwhile.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/bench-results/quorum}
rounds=${ROUNDS:-3}
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for quorum in 1 2; do
    "$root/cx" bench fib --n 16 --servers 1 --producers 64 --load sleep --decompose-ms 1 --leaf-ms 40 \
        --compose-ms 1 --warmup 5 --repeat 5 --quorum "$quorum" \
        --json "$out/eff-q$quorum-$round.json" > "$out/eff-q$quorum-$round.txt" 2>&1
    echo "round $round, quorum $quorum done" >&2
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def figure(q, r, key):
    return json.load(open(f"{out}/eff-q{q}-{r}.json"))[key]
for key in ("efficiency", "ceiling", "wall_s", "executions"):
    one = [figure(1, r, key) for r in range(1, rounds + 1)]
    two = [figure(2, r, key) for r in range(1, rounds + 1)]
    ratios = [b / a for a, b in zip(one, two)]
    print(f"{key}: quorum 1 {statistics.median(one):.4g}, quorum 2 {statistics.median(two):.4g}; "
          f"quorum 2 / quorum 1 per round {', '.join(f'{x:.3f}' for x in ratios)} (median {statistics.median(ratios):.3f})")
PY
