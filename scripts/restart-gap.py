#!/usr/bin/env python3
"""How long a plain stop and start leaves a daemon's socket unanswered.

Usage: scripts/restart-gap.py COUNTERFACTD ROWS RUNS

Starts COUNTERFACTD on a temporary directory (--fsync always), adds ROWS counter rows in
batches (more than 2,000 restored whole from a record made here), then RUNS times sends SIGTERM, starts the binary again and polls daemon.status
every 2 ms until it answers; prints each gap. The baseline of Docs/Performance.md's
hand-over figures (a restart that keeps the connections).
"""
import json, os, socket, subprocess, sys, tempfile, time
binary = sys.argv[1]; rows = int(sys.argv[2]); runs = int(sys.argv[3])
d = tempfile.mkdtemp(); sock = d + "/d.sock"
args = [binary, "--socket", sock, "--state-dir", d + "/state", "--fsync", "always"]
def start():
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=open(d + "/log", "a"))
    return p
def call(line):
    s = socket.socket(socket.AF_UNIX); s.connect(sock); s.sendall((line + "\n").encode())
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(1 << 20)
        if not chunk: break
        buf += chunk
    s.close(); return json.loads(buf)
def answered():
    try:
        return "result" in call('{"jsonrpc":"2.0","id":1,"method":"daemon.status"}')
    except OSError:
        return False
p = start()
while not answered(): time.sleep(0.01)
filled = 0
if rows > 2000:
    # Restored whole from a record made here: appending 50,000 rows one at a time takes minutes.
    record = call('{"jsonrpc":"2.0","id":1,"method":"state.snapshot"}')["result"]
    record["state"]["counters"] = [
        {"id": "f%015x" % (2 * i), "counter": {"id": "f%015x" % (2 * i + 1), "count": 0, "alert": None, "isLoadingFact": False}}
        for i in range(rows)]
    call(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "state.restore", "params": {"record": record}}))
    filled = rows
while filled < rows:
    n = min(250, rows - filled)
    call("[" + ",".join('{"jsonrpc":"2.0","id":%d,"method":"intent.call","params":{"intent":"addButtonTapped"}}' % (i + 1) for i in range(n)) + "]")
    filled += n
gaps = []
for _ in range(runs):
    t = time.monotonic(); p.terminate(); p.wait(); p = start()
    while not answered(): time.sleep(0.002)
    gaps.append(time.monotonic() - t)
p.terminate(); p.wait()
print("plain stop and start, %d rows: socket unanswered %s s" % (rows, ", ".join("%.3f" % g for g in gaps)))
