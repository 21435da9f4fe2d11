#!/usr/bin/env bash
# The benchmarks of the exchange core: efficiency near the limit, prefetch on/off, throughput.
# Writes one JSON per configuration into ${1:-bench-results/core} and prints a table of medians.
# Takes about 10 minutes on a 2-core machine. Run nothing else meanwhile: the machine is the instrument.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/bench-results/core}
repeat=${REPEAT:-3}
mkdir -p "$out"
cx="$root/cx"
sleep_load=(--producers 64 --workers 1 --load sleep --decompose-ms 1 --leaf-ms 40 --compose-ms 1)
for n in 13 14 15 16 17 18; do
  "$cx" bench fib --n "$n" "${sleep_load[@]}" --warmup 2 --repeat "$repeat" --json "$out/eff-n$n.json"
  "$cx" bench fib --n "$n" "${sleep_load[@]}" --warmup 2 --repeat "$repeat" --no-prefetch --json "$out/eff-noprefetch-n$n.json"
  "$cx" bench fib --n "$n" "${sleep_load[@]}" --warmup 1 --repeat "$repeat" --local --json "$out/eff-local-n$n.json"
done
"$cx" bench fib --n 25 --producers 2 --load none --warmup 2 --repeat "$repeat" --json "$out/tput-n25.json"
"$cx" bench fib --n 25 --producers 2 --load none --warmup 2 --repeat "$repeat" --local --json "$out/tput-local-n25.json"
echo
echo "medians of $repeat runs (wall time) — $out"
python3 - "$out" <<'PY'
import json, sys, pathlib
d = pathlib.Path(sys.argv[1])
def get(name):
    p = d / name
    return json.loads(p.read_text()) if p.exists() else None
print("| n | ceiling | CX efficiency | ratio | no prefetch | ratio | ForkJoinPool | ratio | executions/tasks |")
print("|---|---|---|---|---|---|---|---|---|")
for n in range(13, 19):
    a, b, c = get(f"eff-n{n}.json"), get(f"eff-noprefetch-n{n}.json"), get(f"eff-local-n{n}.json")
    if not a: continue
    r = lambda x: f"{x['efficiency']:.3f} | {x['efficiency']/x['ceiling']:.3f}" if x else "- | -"
    print(f"| {n} | {a['ceiling']:.3f} | {r(a)} | {r(b)} | {r(c)} | {a['executions']}/{a['tasks']} |")
t, l = get("tput-n25.json"), get("tput-local-n25.json")
if t:
    print(f"\nthroughput n=25, 2 producers, no load: {t['tasks_per_s']:,.0f} tasks/s (runs: "
          + ", ".join(f"{x['tasks_per_s']:,.0f}" for x in t['runs']) + ")")
if l:
    print(f"ForkJoinPool, 2 threads: {l['tasks_per_s']:,.0f} tasks/s")
PY
