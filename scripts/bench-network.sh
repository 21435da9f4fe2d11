#!/usr/bin/env bash
# The benchmarks of the production network: cost of the network (1 vs 7 servers, 64 producers, the sleep load of
# bench-core.sh, n = 13..18), zero-load throughput with 1, 2 (mirroring on) and 3 servers, and recovery after
# kill -9. Writes JSON into ${1:-bench-results/network} and prints the figures. About 10 minutes on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/bench-results/network}
repeat=${REPEAT:-3}
mkdir -p "$out"
cx="$root/cx"
sleep_load=(--producers 64 --workers 1 --load sleep --decompose-ms 1 --leaf-ms 40 --compose-ms 1)
for n in 13 14 15 16 17 18; do
  for s in 1 7; do
    "$cx" bench fib --n "$n" --servers "$s" "${sleep_load[@]}" --warmup 1 --repeat "$repeat" --json "$out/eff-s$s-n$n.json"
  done
done
for s in 1 2 3; do
  "$cx" bench fib --n 25 --servers "$s" --producers 2 --load none --warmup 2 --repeat "$repeat" --json "$out/tput-s$s.json"
done
"$cx" bench recovery --servers 7 --producers-per-server 4 --kills 5 | tee "$out/recovery.txt"
python3 - "$out" <<'PY'
import json, sys, pathlib
d = pathlib.Path(sys.argv[1])
get = lambda name: json.loads((d / name).read_text()) if (d / name).exists() else None
print("| n | ceiling | 1 server | ratio | 7 servers | ratio | difference |")
print("|---|---|---|---|---|---|---|")
for n in range(13, 19):
    a, b = get(f"eff-s1-n{n}.json"), get(f"eff-s7-n{n}.json")
    if a and b:
        print(f"| {n} | {a['ceiling']:.3f} | {a['efficiency']:.3f} | {a['efficiency']/a['ceiling']:.3f} | "
              f"{b['efficiency']:.3f} | {b['efficiency']/b['ceiling']:.3f} | {b['efficiency']-a['efficiency']:+.3f} |")
base = get("tput-s1.json")
for s in (1, 2, 3):
    t = get(f"tput-s{s}.json")
    if t:
        print(f"n=25, {s} server(s), 2 producers, no load: {t['tasks_per_s']:,.0f} tasks/s "
              f"({t['tasks_per_s']/base['tasks_per_s']:.2f} of 1 server; runs "
              + ", ".join(f"{x['tasks_per_s']:,.0f}" for x in t['runs']) + ")")
PY
