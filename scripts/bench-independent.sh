#!/usr/bin/env bash
# An independent client's view of the daemon, beside Redis and the NIO floor in the same run:
# rpcbench, a load generator that is not part of this repository (one thread and one
# blocking connection per client, one request in flight each; C, `gcc -O2 -pthread`), drives
# `SET` on redis-server, the intent line on `arbor-benchmarks __line-echo` (the floor) and
# `incrementTapped` on counterfactd (`--fsync off`, one row), at 1 and 50 clients, then one
# change reaching 1,000 root watchers of the floor and of the daemon (FANOUT=1), then one
# client with every server pinned to CPU 0 and the client on CPU 0, then on CPU 1 (PINNED=1):
# on a machine where waking a thread on another CPU is dear, where the scheduler puts the
# client's thread decides a one-client round trip more than the server does.
#
#   scripts/bench-independent.sh RPCBENCH [COUNTERFACTD] [ARBOR_BENCHMARKS]
#
# SECONDS_EACH (default 5) is each call run's length, RUNS (default 3) how many times the
# set is repeated, ROUNDS (default 200) the fan-out's changes. The server's CPU per request
# is its user + system time over the run (/proc/PID/stat, every thread).
set -euo pipefail
rpcbench=$1
daemon=${2:-.build/release/counterfactd}
benchmarks=${3:-.build/release/arbor-benchmarks}
seconds=${SECONDS_EACH:-5}
runs=${RUNS:-3}
rounds=${ROUNDS:-200}
ulimit -n 16384

work=$(mktemp -d /tmp/arbor-independent-XXXXXX)
"$daemon" --socket "$work/d.sock" --state-dir "$work/state" --fsync off --log-level warning --max-connections 4096 &
daemon_pid=$!
redis-server --port 0 --unixsocket "$work/r.sock" --save '' --appendonly no >/dev/null &
redis_pid=$!
"$benchmarks" __line-echo "$work/f.sock" &
floor_pid=$!
trap 'kill -9 $daemon_pid $redis_pid $floor_pid 2>/dev/null || true; rm -rf "$work"' EXIT
for name in d r f; do
  for _ in $(seq 1 100); do [ -S "$work/$name.sock" ] && break; sleep 0.1; done
done

intent='{"jsonrpc":"2.0","id":%ld,"method":"intent.call","params":{"target":"/counters/0/counter","intent":"incrementTapped"}}'
watch='{"jsonrpc":"2.0","id":%ld,"method":"state.watch","params":{"path":""}}'
set_line=$'SET key%ld 1\r'
python3 - "$work/d.sock" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile('rwb')
f.write(b'{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"addButtonTapped"}}\n'); f.flush(); f.readline()
PY

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# name pid socket clients line
call() {
  local before after out requests
  before=$(cpu_ticks "$2")
  out=$("$rpcbench" call "$3" "$4" "$seconds" "$5")
  after=$(cpu_ticks "$2")
  requests=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$out")
  printf '%-6s %s cpu_us=%s\n' "$1" "$out" "$(awk -v b="$before" -v a="$after" -v n="$requests" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", (a - b) / hz / (n > 0 ? n : 1) * 1e6 }')"
}

for run in $(seq 1 "$runs"); do
  echo "# run $run"
  for clients in 1 50; do
    call redis "$redis_pid" "$work/r.sock" "$clients" "$set_line"
    call floor "$floor_pid" "$work/f.sock" "$clients" "$intent"
    call arbor "$daemon_pid" "$work/d.sock" "$clients" "$intent"
  done
done
if [ "${FANOUT:-1}" = 1 ]; then
  for run in $(seq 1 "$runs"); do
    echo "floor  $("$rpcbench" fanout "$work/f.sock" 1000 "$watch" "$intent" "$rounds" 2>&1)"
    echo "arbor  $("$rpcbench" fanout "$work/d.sock" 1000 "$watch" "$intent" "$rounds" 2>&1)"
  done
fi
if [ "${PINNED:-1}" = 1 ] && [ "$(nproc)" -ge 2 ]; then
  for pid in $daemon_pid $redis_pid $floor_pid; do taskset -apc 0 "$pid" >/dev/null; done
  rpcbench_on_cpu() { local cpu=$1; shift; taskset -c "$cpu" "$rpcbench" "$@"; }
  for run in $(seq 1 "$runs"); do
    for cpu in 0 1; do
      echo "client on CPU $cpu, servers on CPU 0"
      printf '%-6s %s\n' redis "$(rpcbench_on_cpu "$cpu" call "$work/r.sock" 1 "$seconds" "$set_line")"
      printf '%-6s %s\n' floor "$(rpcbench_on_cpu "$cpu" call "$work/f.sock" 1 "$seconds" "$intent")"
      printf '%-6s %s\n' arbor "$(rpcbench_on_cpu "$cpu" call "$work/d.sock" 1 "$seconds" "$intent")"
    done
  done
fi
