#!/usr/bin/env python3
"""The longest a client waits across upgrades without a gap, measured from outside.

Usage: scripts/bench-upgrade.py BIN ROWS UPGRADES [WATCHERS] [CLIENTS]

BIN is the directory of release builds of counterfactd and arborctl. Starts counterfactd
(--fsync always) on a temporary directory, fills ROWS counter rows (restored whole from a
record made here: two models a row), connects WATCHERS root watchers (default 100; read in
one thread here, their lines counted, a resync or an end of connection noted), and runs
`arborctl bench` with CLIENTS clients (default 50) calling `incrementTapped` on one
counter, one request in flight each: its latencies run from writing a request to reading
its reply, the maximum included.

First a baseline: the same bench with no upgrade. Then the same bench while the daemon is
upgraded UPGRADES times (SIGUSR2, 3 s apart; each new process restores the state while the
old one serves, follows its journal, and takes the connections). Prints both benches'
figures side by side, each upgrade's pid, and what the watchers saw. A plain stop and
start closes every connection, so it has no such figure: scripts/restart-gap.py measures
how long it leaves the socket unanswered.
"""
import json, os, selectors, signal, socket, subprocess, sys, tempfile, threading, time

bin_dir, rows, upgrades = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
watchers = int(sys.argv[4]) if len(sys.argv) > 4 else 100
clients = int(sys.argv[5]) if len(sys.argv) > 5 else 50
d = tempfile.mkdtemp()
sock = d + "/d.sock"
log = open(d + "/daemon.log", "a")
daemon = subprocess.Popen(
    [bin_dir + "/counterfactd", "--socket", sock, "--state-dir", d + "/state", "--fsync", "always", "--max-connections", "4096"],
    stdout=subprocess.DEVNULL, stderr=log)


def call(method, params=None):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    request = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        request["params"] = params
    s.sendall((json.dumps(request) + "\n").encode())
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        buf += chunk
    s.close()
    reply = json.loads(buf)
    if "result" not in reply:
        sys.exit("%s: %s" % (method, buf[:300]))
    return reply["result"]


deadline = time.monotonic() + 60
while True:
    try:
        call("daemon.status")
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("the daemon did not answer within 60 s; its log: " + d + "/daemon.log")
        time.sleep(0.05)

record = call("state.snapshot")
record["state"]["counters"] = [
    {"id": "f%015x" % (2 * i), "counter": {"id": "f%015x" % (2 * i + 1), "count": 0, "alert": None, "isLoadingFact": False}}
    for i in range(rows)
]
call("state.restore", {"record": record})
start = call("daemon.status")["revision"]

# The watchers: lines counted, resyncs and ends noted, in one thread.
selector = selectors.DefaultSelector()
seen = {"lines": 0, "resyncs": 0, "ended": 0}
for i in range(watchers):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.sendall(('{"jsonrpc":"2.0","id":1,"method":"state.watch","params":{"since":%d}}\n' % start).encode())
    s.setblocking(False)
    selector.register(s, selectors.EVENT_READ)
stop_reading = threading.Event()


def read_watchers():
    while not stop_reading.is_set():
        for key, _ in selector.select(timeout=0.2):
            try:
                chunk = key.fileobj.recv(1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                seen["ended"] += 1
                selector.unregister(key.fileobj)
                continue
            seen["lines"] += chunk.count(b"\n")
            seen["resyncs"] += chunk.count(b'"resync"')


reader = threading.Thread(target=read_watchers)
reader.start()


def bench(requests):
    out = subprocess.run(
        [bin_dir + "/arborctl", "--socket", sock, "--timeout", "120", "--json", "bench", "-c", str(clients), "-n", str(requests),
         "--intent", "incrementTapped", "--target", "/counters/7/counter"],
        capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("arborctl bench failed: " + out.stderr[-500:])
    return json.loads(out.stdout)


baseline = bench(20_000)
seconds = upgrades * 3 + 4
upgraded = []
problems = []


def upgrade_all():
    try:
        upgrade_each()
    except BaseException as error:  # a failed call, or a daemon that did not upgrade in time
        problems.append(repr(error))


def upgrade_each():
    pid = call("daemon.status")["pid"]
    for _ in range(upgrades):
        time.sleep(3)
        os.kill(pid, signal.SIGUSR2)
        deadline = time.monotonic() + 120
        while True:
            status = call("daemon.status")
            if status["pid"] != pid:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("no upgrade within 120 s")
            time.sleep(0.05)
        pid = status["pid"]
        upgraded.append((pid, status["generation"]))


upgrader = threading.Thread(target=upgrade_all)
upgrader.start()
under_upgrades = bench(int(baseline["rps"] * seconds * 1.5))
upgrader.join()
time.sleep(0.5)
stop_reading.set()
reader.join()
final = call("daemon.status")
os.kill(final["pid"], signal.SIGTERM)


def line(name, b):
    return "%-22s %8d requests  %7d/s  p50 %7.3f ms  p99 %8.3f ms  max %8.3f ms" % (
        name, b["requests"], b["rps"], b["p50Ms"], b["p99Ms"], b["maxMs"])


print("%d rows (%d models), %d clients incrementing, %d root watchers, --fsync always" % (rows, 2 * rows + 1, clients, watchers))
print(line("no upgrade", baseline))
print(line("%d upgrades" % len(upgraded), under_upgrades))
print("upgrades: " + ", ".join("pid %d (generation %d)" % u for u in upgraded))
print("watchers: %d lines read, %d resyncs, %d connections ended; revision %d" % (seen["lines"], seen["resyncs"], seen["ended"], final["revision"]))
for problem in problems:
    print("the upgrades stopped: " + problem)
print("the daemon's log: " + d + "/daemon.log")
if problems or len(upgraded) < upgrades:
    sys.exit(1)
