#!/usr/bin/env bash
# Allocations per intent of counterfactd: the daemon runs under an LD_PRELOAD malloc counter
# (scripts/malloccount.c) and serves N1, then (a fresh daemon) N2 synchronous intents from
# one client (`arbor-benchmarks __load`); start-up and shutdown cancel out in
# (count(N2) - count(N1)) / (N2 - N1). Allocation counts hardly move with the machine's
# noise, so they are a figure to steer by where instruction counts cannot be had.
#
#   scripts/allocations-per-intent.sh [COUNTERFACTD] [ARBOR_BENCHMARKS]   (make bench-allocations)
set -euo pipefail
daemon=${1:-.build/release/counterfactd}
load=${2:-.build/release/arbor-benchmarks}
runs=${RUNS:-3}
n1=${N1:-10000}
n2=${N2:-60000}
work=$(mktemp -d /tmp/arbor-allocations-XXXXXX)
trap 'rm -rf "$work"' EXIT
gcc -O2 -shared -fPIC -o "$work/malloccount.so" "$(dirname "$0")/malloccount.c"

# Allocations of a daemon that served $1 intents, and its frees.
count() {
  local requests=$1 dir
  dir=$(mktemp -d "$work/run-XXXXXX")
  LD_PRELOAD="$work/malloccount.so" MALLOC_COUNT_FILE="$dir/count" "$daemon" --socket "$dir/d.sock" \
    --state-dir "$dir/state" --fsync off --snapshot-every 100000000 --snapshot-interval 100000 --log-level warning &
  local pid=$!
  for _ in $(seq 1 300); do [ -S "$dir/d.sock" ] && break; sleep 0.05; done
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"addButtonTapped"}}' |
    socat -t 5 - "UNIX-CONNECT:$dir/d.sock" > /dev/null
  "$load" __load "$dir/d.sock" 1 "$requests" > /dev/null
  kill -TERM "$pid"
  wait "$pid"
  cat "$dir/count"
}

echo "allocations per intent: $daemon, $n1 and $n2 intents (fsync off, one client), $runs runs"
for run in $(seq 1 "$runs"); do
  read -r a1 f1 < <(count "$n1")
  read -r a2 f2 < <(count "$n2")
  awk -v a1="$a1" -v a2="$a2" -v f1="$f1" -v f2="$f2" -v n1="$n1" -v n2="$n2" -v run="$run" \
    'BEGIN { printf "run %d: %.2f allocations and %.2f frees per intent\n", run, (a2 - a1) / (n2 - n1), (f2 - f1) / (n2 - n1) }'
done
