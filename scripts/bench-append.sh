#!/usr/bin/env bash
# The cost of one `addButtonTapped` (one row appended to CounterFact's undo-tracked
# `counters`) as the tree grows: the release daemon and arborctl bench with one client.
#
#   swift build -c release --product counterfactd && swift build -c release --product arborctl
#   ROWS="0 1000 10000 30000" scripts/bench-append.sh
#
# BIN: the directory of both binaries (default: the release build); FSYNC: the daemon's
# --fsync (default off); N: appends measured at each size (default 200).
set -euo pipefail
BIN="${BIN:-$(cd "$(dirname "$0")/.." && pwd)/.build/release}"
FSYNC="${FSYNC:-off}"
dir=$(mktemp -d)
"$BIN/counterfactd" --socket "$dir/s" --state-dir "$dir/state" --fsync "$FSYNC" 2>"$dir/log" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do [ -S "$dir/s" ] && break; sleep 0.1; done
ctl() { "$BIN/arborctl" --socket "$dir/s" --timeout 600 "$@"; }
have=0
for rows in ${ROWS:-0 1000 10000 30000}; do
  if [ "$rows" -gt "$have" ]; then ctl bench -c 4 -n $((rows - have)) --intent addButtonTapped >/dev/null; have=$rows; fi
  echo "== $rows rows"
  ctl bench -c 1 -n "${N:-200}" --intent addButtonTapped 2>&1 | tail -1
  have=$((have + ${N:-200}))
done
