#!/usr/bin/env bash
# What security costs: interleaved runs of this checkout with TLS (the default) and with --insecure.
#   scripts/bench-tls.sh [OUT_DIR]
# Each round runs, plain then TLS: zero-load F(25) on 1 server and 2 producers, and F(16) on 1 server with 64
# producers and the paper's task times / 40. Prints paired medians (TLS against plain). About 5 minutes on 2 cores
# with ROUNDS=3; run nothing else meanwhile.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/bench-results/tls}
rounds=${ROUNDS:-3}
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for side in plain tls; do
    flag=(); [ "$side" = plain ] && flag=(--insecure)
    "$root/cx" bench fib --n 25 --servers 1 --producers 2 --load none --warmup 3 --repeat 5 "${flag[@]}" \
        --json "$out/zero-$side-$round.json" > "$out/zero-$side-$round.txt" 2>&1
    "$root/cx" bench fib --n 16 --servers 1 --producers 64 --load sleep --decompose-ms 1 --leaf-ms 40 \
        --compose-ms 1 --warmup 5 --repeat 5 "${flag[@]}" \
        --json "$out/eff-$side-$round.json" > "$out/eff-$side-$round.txt" 2>&1
    echo "round $round, $side done" >&2
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def figure(kind, side, r, key):
    return json.load(open(f"{out}/{kind}-{side}-{r}.json"))[key]
for kind, key, label in (("zero", "tasks_per_s", "zero-load F(25) tasks/s"), ("eff", "efficiency", "F(16) efficiency"),
                          ("eff", "ceiling", "F(16) ceiling")):
    plain = [figure(kind, "plain", r, key) for r in range(1, rounds + 1)]
    tls = [figure(kind, "tls", r, key) for r in range(1, rounds + 1)]
    ratios = [t / p for t, p in zip(tls, plain)]
    diffs = [t - p for t, p in zip(tls, plain)]
    print(f"{label}: plain {statistics.median(plain):.4g}, TLS {statistics.median(tls):.4g}; "
          f"TLS/plain per round {', '.join(f'{x:.3f}' for x in ratios)} (median {statistics.median(ratios):.3f}); "
          f"TLS - plain median {statistics.median(diffs):+.4f}")
PY
