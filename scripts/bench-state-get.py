#!/usr/bin/env python3
"""state.get of one leaf beside state.get of the root, in one run, against a daemon binary.

A leaf's get encodes only the deepest model on its path; the root's encodes the whole tree
(the baseline: what every get cost before). Usage:

    scripts/bench-state-get.py .build/release/counterfactd MODELS ROUNDS
"""
import json, os, socket, subprocess, sys, tempfile, time
binary, models, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = tempfile.mkdtemp(); sock = d + "/d.sock"
p = subprocess.Popen([binary, "--socket", sock, "--state-dir", d + "/st", "--fsync", "off"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
while not os.path.exists(sock): time.sleep(0.05)
s = socket.socket(socket.AF_UNIX); s.connect(sock); f = s.makefile("rb")
def call(m, params, n=1):
    batch = [{"jsonrpc":"2.0","id":i,"method":m,"params":params} for i in range(n)]
    s.sendall((json.dumps(batch) + "\n").encode()); return json.loads(f.readline())
call("intent.call", {"intent": "addButtonTapped"}, models)
for path in ["/counters/%d/counter/count" % (models // 2), ""]:
    t = time.perf_counter(); r = call("state.get", {"path": path}, rounds); dt = time.perf_counter() - t
    assert all("result" in x for x in r)
    print("%d models, %d x state.get %r: %.1f us each" % (models, rounds, path or "/", dt / rounds * 1e6))
p.kill()
