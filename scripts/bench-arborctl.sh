#!/usr/bin/env bash
# `arborctl bench` against counterfactd next to `redis-benchmark -s` against redis-server,
# both on Unix sockets on this machine, in the same run (`make bench-arborctl`).
#
# Release-builds counterfactd and arborctl, starts counterfactd (a temporary socket and state
# directory) and redis-server (a Unix socket in a temporary directory, no persistence), adds
# one counter, then RUNS times (default 3):
#   arborctl bench -c 1 -n 20000 --target /counters/0/counter --intent incrementTapped   redis-benchmark -s … -t set -c 1 -n 20000 --csv
#   arborctl bench -c 50 -n 100000 --target /counters/0/counter --intent incrementTapped redis-benchmark -s … -t set -c 50 -n 100000 --csv
# and prints every run, then the ranges (min–max over the runs) side by side.
#
# Needs Debian's redis-server and redis-tools (`make redis`) and python3 for the summary.
set -euo pipefail

RUNS=${RUNS:-3}
SWIFT_BUILD_FLAGS=${SWIFT_BUILD_FLAGS:---disable-experimental-prebuilts}
cd "$(dirname "$0")/.."

for tool in redis-server redis-benchmark redis-cli python3; do
  command -v "$tool" >/dev/null || { echo "bench-arborctl: $tool is missing (make redis installs Redis)" >&2; exit 1; }
done

# shellcheck disable=SC2086 # the flags are words
swift build $SWIFT_BUILD_FLAGS -c release --product counterfactd
# shellcheck disable=SC2086
swift build $SWIFT_BUILD_FLAGS -c release --product arborctl
# shellcheck disable=SC2086
BIN=$(swift build $SWIFT_BUILD_FLAGS -c release --show-bin-path)

WORK=$(mktemp -d /tmp/arbor-bench.XXXXXX)
SOCKET=$WORK/counterfactd.sock
REDIS_SOCKET=$WORK/redis.sock
DAEMON_PID=""

cleanup() {
  if [ -f "$WORK/redis.pid" ]; then kill -KILL "$(cat "$WORK/redis.pid")" 2>/dev/null || true; fi
  if [ -n "$DAEMON_PID" ]; then
    kill -TERM "$DAEMON_PID" 2>/dev/null || true
    wait "$DAEMON_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$BIN/counterfactd" --socket "$SOCKET" --state-dir "$WORK/state" 2>"$WORK/counterfactd.log" &
DAEMON_PID=$!
redis-server --port 0 --unixsocket "$REDIS_SOCKET" --save '' --daemonize yes \
  --dir "$WORK" --pidfile "$WORK/redis.pid" --logfile "$WORK/redis.log"

export ARBOR_SOCKET=$SOCKET
arborctl() { "$BIN/arborctl" "$@"; }

for _ in $(seq 100); do
  if arborctl status >/dev/null 2>&1 && redis-cli -s "$REDIS_SOCKET" ping >/dev/null 2>&1; then break; fi
  sleep 0.1
done
arborctl status >/dev/null || { echo "counterfactd did not start:" >&2; cat "$WORK/counterfactd.log" >&2; exit 1; }
redis-cli -s "$REDIS_SOCKET" ping >/dev/null || { echo "redis-server did not start:" >&2; cat "$WORK/redis.log" >&2; exit 1; }
arborctl call / addButtonTapped >/dev/null

echo "# arborctl bench vs redis-benchmark -s (SET), $RUNS runs; $(nproc) cores; $(redis-server --version | cut -d' ' -f1-3)"
for run in $(seq "$RUNS"); do
  for load in "1 20000" "50 100000"; do
    read -r clients requests <<<"$load"
    line=$(arborctl bench -c "$clients" -n "$requests" --target /counters/0/counter --intent incrementTapped)
    echo "arbor $run $clients $line" | tee -a "$WORK/results"
    line=$(redis-benchmark -s "$REDIS_SOCKET" -t set -c "$clients" -n "$requests" --csv | grep '^"SET"')
    echo "redis $run $clients $line" | tee -a "$WORK/results"
  done
done

python3 - "$WORK/results" <<'EOF'
import json, sys

# arborctl: {"rps":…,"p50Ms":…,…}; redis-benchmark --csv:
# "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
runs = {}
for text in open(sys.argv[1]):
    who, _, clients, rest = text.rstrip("\n").split(" ", 3)
    if who == "arbor":
        figures = json.loads(rest)
        row = (figures["rps"], figures["p50Ms"], figures["p99Ms"])
    else:
        fields = [field.strip('"') for field in rest.split(",")]
        row = (float(fields[1]), float(fields[4]), float(fields[6]))
    runs.setdefault((int(clients), who), []).append(row)

def span(values, format):
    low, high = min(values), max(values)
    return format.format(low) if format.format(low) == format.format(high) else format.format(low) + "–" + format.format(high)

print()
print("| clients | Arbor rps | Redis rps | Arbor p50 ms | Redis p50 ms | Arbor p99 ms | Redis p99 ms |")
print("|---|---|---|---|---|---|---|")
for clients in sorted({key[0] for key in runs}):
    arbor, redis = runs[(clients, "arbor")], runs[(clients, "redis")]
    cells = [str(clients)]
    for column, format in ((0, "{:,.0f}"), (1, "{:.3f}"), (2, "{:.3f}")):
        cells += [span([row[column] for row in arbor], format), span([row[column] for row in redis], format)]
    print("| " + " | ".join(cells) + " |")
EOF
