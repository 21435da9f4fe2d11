#!/usr/bin/env bash
# Interleaved A/B of two checkouts on this machine: the regression set of docs/benchmarks.md.
#   scripts/bench-ab.sh BASE_CHECKOUT [OUT_DIR]
# BASE_CHECKOUT is another clone of this repository at the commit to compare against (A); this checkout is B.
# Each round runs, on A then on B: zero-load F(25) on 1 server and 2 producers, and F(13) and F(16) on 1 and 7
# servers with 64 producers and the paper's task times / 40; then two rounds of 'cx bench recovery --servers 7'.
# Prints paired medians (B against A). About 20 minutes on 2 cores; run nothing else meanwhile.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base=$(cd "${1:?usage: scripts/bench-ab.sh BASE_CHECKOUT [OUT_DIR]}" && pwd)
out=${2:-$root/bench-results/ab}
rounds=${ROUNDS:-3}
mkdir -p "$out"
load=(--producers 64 --load sleep --decompose-ms 1 --leaf-ms 40 --compose-ms 1 --warmup 5 --repeat 5)
side_dir() { [ "$1" = A ] && echo "$base" || echo "$root"; }
for round in $(seq 1 "$rounds"); do
  for side in A B; do
    cx="$(side_dir $side)/cx"
    "$cx" bench fib --n 25 --servers 1 --producers 2 --load none --warmup 3 --repeat 5 \
        --json "$out/zero-$side-$round.json" > "$out/zero-$side-$round.txt" 2>&1
    for n in 13 16; do
      for s in 1 7; do
        "$cx" bench fib --n "$n" --servers "$s" "${load[@]}" \
            --json "$out/eff-n$n-s$s-$side-$round.json" > "$out/eff-n$n-s$s-$side-$round.txt" 2>&1
      done
    done
    echo "round $round, $side done" >&2
  done
done
for round in 1 2; do
  for side in A B; do
    "$(side_dir $side)/cx" bench recovery --servers 7 --seed $((1000 + round)) > "$out/recovery-$side-$round.txt" 2>&1
    echo "recovery round $round, $side done" >&2
  done
done
python3 "$root/scripts/ab-summary.py" "$out"
