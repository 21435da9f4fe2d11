#!/usr/bin/env bash
# Code distribution and discovery. (1) Code distribution: time from submission until the last of 64 producers (7
# servers) runs a task of an application none of them had, for 1 MiB and 20 MiB bundles, and the bytes the consumer
# sent. (2) Discovery: time from starting 'cx producer --lookup' to its first task, JVM start included, over
# ${REPEAT:-5} producers started one after another. Writes into ${1:-bench-results/code}.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/bench-results/code}
repeat=${REPEAT:-5}
mkdir -p "$out"
cx="$root/cx"
"$cx" --version >/dev/null # builds once if needed, before anything is timed
for mb in 1 20; do
  "$cx" bench code --servers 7 --producers 64 --bundle-mb "$mb" --runs 3 | tee "$out/code-${mb}mb.txt"
done

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
lookup_port=$(port); server_port=$(port)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
"$cx" lookup --port "$lookup_port" > "$out/lookup.log" 2>&1 & pids+=($!)
until grep -q "listening" "$out/lookup.log"; do sleep 0.2; done
"$cx" server --port "$server_port" --lookup "127.0.0.1:$lookup_port" > "$out/server.log" 2>&1 & pids+=($!)
until grep -q "listening" "$out/server.log"; do sleep 0.2; done
# A long computation keeps tasks ready for every producer that arrives.
"$cx" run fib --server "127.0.0.1:$server_port" --n 28 --load sleep --leaf-ms 1 > "$out/run.log" 2>&1 & pids+=($!)
sleep 2
: > "$out/producer-first-task.txt"
for i in $(seq 1 "$repeat"); do
  log="$out/producer-$i.log"
  "$cx" producer --lookup "127.0.0.1:$lookup_port" --name "bench-$i" > "$log" 2>&1 & p=$!
  until grep -q "ran its first task" "$log"; do sleep 0.05; done
  kill "$p"; wait "$p" 2>/dev/null || true
  grep -o "ran its first task [0-9]* ms" "$log" | grep -o "[0-9]*" | tee -a "$out/producer-first-task.txt"
done
python3 - "$out/producer-first-task.txt" <<'PY'
import statistics, sys
v = [int(x) for x in open(sys.argv[1]).read().split()]
print(f"producer --lookup to first task, JVM start included: median {statistics.median(v)} ms over {len(v)} ({v})")
PY
