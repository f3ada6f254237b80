#!/usr/bin/env bash
# Allocations per intent of counterfactd, counted by a uprobe on glibc's malloc: one root
# watcher and one client calling incrementTapped, 2,000 calls to warm up, then 5,000 while
# `perf record -e probe_libc:malloc` follows the daemon. Unlike scripts/allocations-per-intent.sh
# (an LD_PRELOAD counter), it can also say where they come from: PROBE_STACKS=FILE keeps
# each allocation's stack (`perf script -i FILE`).
#
#   scripts/allocations-probe.sh [COUNTERFACTD]      (needs perf: apt-get install linux-perf)
set -euo pipefail
daemon=${1:-.build/release/counterfactd}
calls=${CALLS:-5000}
work=$(mktemp -d /tmp/arbor-probe-XXXXXX)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
libc=$(ldconfig -p | awk '/libc.so.6 .*x86-64/ { print $NF; exit }')
perf probe -q -x "$libc" --add malloc 2>/dev/null || true

"$daemon" --socket "$work/d.sock" --state-dir "$work/state" --fsync off --log-level warning &
pid=$!
for _ in $(seq 1 100); do [ -S "$work/d.sock" ] && break; sleep 0.05; done

# One client and one root watcher; `setup` adds the row the calls increment.
drive() {
  python3 - "$work/d.sock" "$1" <<'PY'
import socket, sys
path, calls = sys.argv[1], sys.argv[2]
def connect():
    s = socket.socket(socket.AF_UNIX); s.connect(path); return s.makefile('rwb')
def call(f, line):
    f.write(line + b'\n'); f.flush(); return f.readline()
client, watcher = connect(), connect()
if calls == 'setup':
    call(client, b'{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"addButtonTapped"}}')
    sys.exit(0)
call(watcher, b'{"jsonrpc":"2.0","id":1,"method":"state.watch","params":{"path":""}}')
line = b'{"jsonrpc":"2.0","id":2,"method":"intent.call","params":{"target":"/counters/0/counter","intent":"incrementTapped"}}'
for _ in range(int(calls)):
    call(client, line)
    watcher.readline()
PY
}
drive setup
drive 2000
stacks=${PROBE_STACKS:-$work/malloc.perf}
perf record -q -e probe_libc:malloc ${PROBE_STACKS:+-g} -p "$pid" -o "$stacks" -- sleep 600 2>/dev/null &
recorder=$!
sleep 0.5
drive "$calls"
kill -INT "$recorder"
wait "$recorder" 2>/dev/null || true
count=$(perf script -i "$stacks" -F ip 2>/dev/null | wc -l)
awk -v n="$count" -v calls="$calls" -v d="$daemon" 'BEGIN { printf "%s: %.2f mallocs per intent (%d calls, one watcher)\n", d, n / calls, calls }'
