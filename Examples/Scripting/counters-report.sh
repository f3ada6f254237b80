#!/usr/bin/env bash
# Adds two counters, counts the first of them up N times (default 3), then prints a
# report computed with jq from `arborctl get /counters`.
#
#   ARBOR_SOCKET=/path/to/daemon.sock bash counters-report.sh [N]
#
# arborctl reads $ARBOR_SOCKET itself; $ARBORCTL is the arborctl to run.
set -euo pipefail

arborctl="${ARBORCTL:-arborctl}"
times="${1:-3}"

# Is a daemon there? arborctl's exit code says what went wrong (it prints why on
# standard error): 3 cannot connect, 4 timeout, 5 permission denied.
status=0
"$arborctl" status --json >/dev/null || status=$?
if [ "$status" -ne 0 ]; then
  echo "no daemon to talk to (arborctl exited $status)" >&2
  exit "$status"
fi

# The new rows go at the end of the list: their indexes start at its current length.
# `get` prints {"revision":R,"value":V}, `call` prints {"result":…,"revision":R}.
first=$("$arborctl" get /counters --json | jq '.value | length')
"$arborctl" call / addButtonTapped --json >/dev/null
revision=$("$arborctl" call / addButtonTapped --json | jq '.revision')
echo "added counters $first and $((first + 1)) at revision $revision"

for ((i = 0; i < times; i++)); do
  "$arborctl" call "/counters/$first/counter" incrementTapped --json >/dev/null
done

# One line per counter, then the total.
"$arborctl" get /counters --json | jq -r '
  "revision \(.revision)",
  (.value | to_entries[] | "counter \(.key): \(.value.counter.count)"),
  "total: \([.value[].counter.count] | add // 0)"'

# A call the daemon refuses exits 1; with --json, its error is JSON on standard error.
missing=$((first + 2))
status=0
error=$("$arborctl" call "/counters/$missing/counter" incrementTapped --json 2>&1 >/dev/null) || status=$?
echo "counter $missing: exit $status, $(jq -r '.data.name' <<<"$error")"
