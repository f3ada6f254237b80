#!/usr/bin/env python3
"""Clients that connect through upgrades, measured from outside.

Usage: scripts/connect-through-upgrades.py BIN UPGRADES

BIN is the directory of a build of counterfactd. Starts it on a temporary directory, runs
four threads that each connect, call daemon.status and close, in a loop, and upgrades the
daemon UPGRADES times (SIGUSR2, 0.7 s apart), waiting each time for the new pid. Prints
how many calls were answered and the first calls that failed (a reset, an end of
connection): there should be none.
"""
import json, os, signal, socket, subprocess, sys, tempfile, threading, time
bin_dir = sys.argv[1]; upgrades = int(sys.argv[2])
d = tempfile.mkdtemp(); sock = d + "/d.sock"
log = open(d + "/daemon.log", "a")
p = subprocess.Popen([bin_dir + "/counterfactd", "--socket", sock, "--state-dir", d + "/state"], stdout=subprocess.DEVNULL, stderr=log)
def call(method):
    s = socket.socket(socket.AF_UNIX); s.connect(sock)
    s.sendall(('{"jsonrpc":"2.0","id":1,"method":"%s"}\n' % method).encode())
    buf = b""
    while not buf.endswith(b"\n"):
        c = s.recv(1 << 20)
        if not c: break
        buf += c
    s.close()
    return json.loads(buf)["result"]
for _ in range(200):
    try: call("daemon.status"); break
    except OSError: time.sleep(0.05)
stop = False; errors = []; calls = [0]
def hammer():
    while not stop:
        try: call("daemon.status"); calls[0] += 1
        except Exception as e: errors.append((time.time(), repr(e)))
ts = [threading.Thread(target=hammer) for _ in range(4)]
for t in ts: t.start()
pid = call("daemon.status")["pid"]
for i in range(upgrades):
    time.sleep(0.7)
    os.kill(pid, signal.SIGUSR2)
    while True:
        try:
            st = call("daemon.status")
            if st["pid"] != pid: pid = st["pid"]; break
        except Exception as e: errors.append((time.time(), "poll " + repr(e)))
        time.sleep(0.02)
stop = True
for t in ts: t.join()
os.kill(pid, signal.SIGTERM)
print("calls", calls[0], "errors", len(errors), errors[:5], "log", d)
