#!/usr/bin/env python3
"""Measures the inspector page on a large tree, for Docs/Performance.md: a measurement, not a test.

    python3 Tests/Browser/inspector_first_paint.py [--daemon PATH] [--models N] [--runs R]

Starts its own counterfactd (in a temporary directory, with --http 127.0.0.1:0), fills it with
N counter rows through state.snapshot and state.restore, calls 200 intents (so that every run's
page finds a full page of history), then for each run opens the page in a fresh headless
Chromium and measures:

  first paint   navigation start to the root's children in the tree (#conn connected)
  DOM           elements on the page and tree nodes (.node), once the page has settled
  heap          the page's JS heap in use after a forced garbage collection
  intents       1,000 incrementTapped called one after another over the Unix socket, then
                the time from the last reply until the tree's label says the final revision
  slider        the slider moved 500 revisions back: until #mode says so, and until the
                tree is drawn at that revision

Prints each figure as min - median - max over the runs. Needs what inspector_check.py needs
(selenium in .build/python-packages, Debian's chromium and chromium-driver). Exits 1 with the
reason when a step fails or a wait runs past its deadline.
"""

import argparse
import json
import os
import secrets
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # importing the check writes no __pycache__ next to it
from inspector_check import REPO, CheckFailed, Daemon, page_errors, start_browser, wait_for  # noqa: E402

INTENTS = 1000      # intents called over the socket in each run
WARM_UP = 200       # intents before the first run: the page loads its timeline 200 revisions at a time
SLIDER_BACK = 500   # how many revisions the slider goes back
START_WAIT = 60.0   # seconds for the daemon to start and for its HTTP listener
PAGE_WAIT = 120.0   # seconds for the page to show something on a large tree
CALL_WAIT = 300.0   # seconds for one socket call (a snapshot or a restore of a large tree)
LINE_LIMIT = 16 * 1024 * 1024  # the daemon's default --max-line-bytes


class DaemonExited(Exception):
    """Not one of the errors wait_for retries: a daemon that exited ends the wait at once."""


def say(text):
    """Progress, on stderr: stdout holds the table only."""
    print(text, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the daemon


class DaemonProcess:
    """counterfactd in a temporary directory: started, then stopped and removed whatever happens."""

    def __init__(self, binary, max_line_bytes):
        self.binary = binary
        self.dir = tempfile.mkdtemp(prefix="inspector-first-paint-")
        self.socket = os.path.join(self.dir, "c.sock")
        self.stderr_path = os.path.join(self.dir, "counterfactd.stderr")
        self.command = [
            binary, "--socket", self.socket, "--state-dir", os.path.join(self.dir, "state"),
            "--http", "127.0.0.1:0", "--fsync", "off", "--log-level", "warning",
        ]
        self.max_line_bytes = max(max_line_bytes, LINE_LIMIT)
        if max_line_bytes > LINE_LIMIT:
            self.command += ["--max-line-bytes", str(max_line_bytes)]
        self.process = None

    def start(self):
        with open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)

    def stderr_tail(self, lines=20):
        try:
            with open(self.stderr_path, "r", errors="replace") as file:
                return "".join(file.readlines()[-lines:]).strip()
        except OSError:
            return ""

    def check_alive(self):
        if self.process and self.process.poll() is not None:
            raise DaemonExited(f"counterfactd exited with status {self.process.returncode}: {self.stderr_tail() or '(no stderr)'}")

    def connect(self):
        """A socket client, once the socket accepts connections."""
        def attempt():
            self.check_alive()
            if not os.path.exists(self.socket):
                return None
            return Daemon(self.socket)
        client = wait_for(f"counterfactd to accept connections on {self.socket}", attempt, timeout=START_WAIT)
        client.sock.settimeout(CALL_WAIT)
        return client

    def http_url(self, client):
        def probe():
            self.check_alive()
            return client.call("daemon.status").get("http")
        return wait_for("the http field of daemon.status (the HTTP listener)", probe, timeout=START_WAIT)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                say(f"counterfactd (pid {self.process.pid}) still runs 10 s after SIGTERM: SIGKILL")
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------- filling the tree


def fresh_ids(value, taken):
    """A deep copy of `value` in which every model id (16 hexadecimal digits under "id") is new."""
    if isinstance(value, list):
        return [fresh_ids(item, taken) for item in value]
    if not isinstance(value, dict):
        return value
    copy = {}
    for key, item in value.items():
        if key == "id" and isinstance(item, str) and len(item) == 16:
            while True:
                new = secrets.token_hex(8)
                if new not in taken:
                    break
            taken.add(new)
            copy[key] = new
        else:
            copy[key] = fresh_ids(item, taken)
    return copy


def ids_in(value, found):
    if isinstance(value, list):
        for item in value:
            ids_in(item, found)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == "id" and isinstance(item, str):
                found.add(item)
            else:
                ids_in(item, found)
    return found


def fill(client, models, line_limit):
    """Makes /counters hold `models` rows shaped like one made by addButtonTapped; returns the step times."""
    steps = {}
    started = time.monotonic()
    client.intent("", "addButtonTapped")
    record = client.call("state.snapshot")
    steps["state.snapshot"] = time.monotonic() - started

    started = time.monotonic()
    rows = record["state"]["counters"]
    if not rows:
        raise CheckFailed("addButtonTapped left /counters empty: no row to copy")
    template = rows[-1]
    taken = ids_in(record["state"], set())
    record["state"]["counters"] = [fresh_ids(template, taken) for _ in range(models)]
    size = len(json.dumps(record))
    steps["build the record"] = time.monotonic() - started
    if size + 1024 > line_limit:
        raise CheckFailed(f"the record of {models:,} rows is {size:,} bytes: more than the daemon's --max-line-bytes {line_limit:,}")

    started = time.monotonic()
    revision = client.call("state.restore", {"record": record})["revision"]
    steps["state.restore"] = time.monotonic() - started
    del record

    started = time.monotonic()
    count = len(client.get("/counters"))
    steps["state.get /counters"] = time.monotonic() - started
    if count != models:
        raise CheckFailed(f"state.get /counters holds {count} rows after the restore, not {models}")

    # So that the first run's page finds a full page of history, as the later runs do.
    started = time.monotonic()
    for _ in range(WARM_UP):
        client.intent("/counters/0/counter", "incrementTapped")
    steps[f"{WARM_UP} intents"] = time.monotonic() - started
    return revision, size, steps


# ---------------------------------------------------------------- one run in the browser

# Installed before the page's own script: notes when the root's children are first in the
# tree while #conn says connected, in ms since navigation start, and the frame after.
FIRST_TREE_OBSERVER = """
(() => {
  const marks = window.__bench = { tree: null, painted: null };
  const observer = new MutationObserver(() => {
    if (marks.tree !== null) return;
    const conn = document.getElementById('conn');
    if (!conn || !conn.classList.contains('connected')) return;
    if (!document.querySelector('#tree .node[data-path="/counters"]')) return;
    marks.tree = performance.now();
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => { marks.painted = performance.now(); }, 0));
  });
  observer.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
})();
"""

# Notes the wall-clock time (ms since the epoch) at which #tree-note first shows each text.
TREE_NOTE_OBSERVER = """
const seen = window.__bench.treeNote = {};
const note = document.getElementById('tree-note');
const record = () => { if (!(note.textContent in seen)) seen[note.textContent] = performance.timeOrigin + performance.now(); };
new MutationObserver(record).observe(note, { childList: true, characterData: true, subtree: true });
record();
"""

# Moves the slider to arguments[0] as a user's drag ends (input, then change) and notes, in ms
# since the move, when #mode says so and when the tree is drawn at that revision.
SLIDER_MOVE = """
const revision = arguments[0];
const marks = window.__bench.slider = { mode: null, tree: null };
const started = performance.now();
const mode = document.getElementById('mode');
const tree = document.getElementById('tree');
const note = document.getElementById('tree-note');
const check = () => {
  const now = performance.now() - started;
  if (marks.mode === null && mode.textContent === 'viewing revision ' + revision) marks.mode = now;
  if (marks.tree === null && marks.mode !== null && note.textContent === 'at revision ' + revision
      && tree.querySelector('.node[data-path="/counters"]')) marks.tree = now;
  if (marks.mode !== null && marks.tree !== null) observer.disconnect();
};
const observer = new MutationObserver(check);
observer.observe(document.body, { childList: true, characterData: true, subtree: true });
const slider = document.getElementById('timeline-slider');
slider.value = String(revision);
slider.dispatchEvent(new Event('input', { bubbles: true }));
slider.dispatchEvent(new Event('change', { bubbles: true }));
check();
return slider.value;
"""

COUNT_DOM = "return [document.getElementsByTagName('*').length, document.querySelectorAll('#tree .node').length];"

# Resolves after two animation frames: what was drawn has been painted.
TWO_FRAMES = "const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));"


def heap_used(driver):
    """The page's JS heap in use, in bytes, after a forced garbage collection."""
    driver.execute_cdp_cmd("HeapProfiler.collectGarbage", {})
    metrics = driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    for metric in metrics:
        if metric["name"] == "JSHeapUsedSize":
            return metric["value"]
    raise CheckFailed("Performance.getMetrics gave no JSHeapUsedSize")


def js(driver, script, *args):
    return driver.execute_script(script, *args)


def settled(driver):
    """The schema is read (the root has its type tag) and no timeline row waits for the journal."""
    return js(driver, "return !!document.querySelector('#tree .node[data-path=\"\"] > .row > .type-tag')"
                      " && !document.querySelector('#timeline li.pending');")


def one_run(number, url, client, models):
    figures = {}
    driver = start_browser()
    try:
        driver.set_page_load_timeout(PAGE_WAIT)
        driver.set_script_timeout(PAGE_WAIT)
        driver.execute_cdp_cmd("Performance.enable", {})
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FIRST_TREE_OBSERVER})
        version = driver.capabilities.get("browserVersion", "?")

        # (a) First paint of the tree.
        driver.get(url)
        wait_for("the root's children in #tree (.node[data-path=\"/counters\"]) with #conn connected",
                 lambda: js(driver, "return window.__bench && window.__bench.tree;"), timeout=PAGE_WAIT)
        wait_for("the frame after the tree's first paint",
                 lambda: js(driver, "return window.__bench.painted;"), timeout=PAGE_WAIT)
        marks = js(driver, "return window.__bench;")
        figures["first_tree"] = marks["tree"]
        figures["first_painted"] = marks["painted"]
        shown = js(driver, "const v = document.querySelector('#tree .node[data-path=\"/counters\"] > .row > .value');"
                           "return v ? v.textContent : null;")
        if shown != f"[{models}]":
            raise CheckFailed(f"the tree shows /counters as {shown!r}, not [{models}]")

        # (b), (c) Once the page has settled.
        wait_for("the page to settle (the root's type tag; no pending timeline row)", lambda: settled(driver), timeout=PAGE_WAIT)
        driver.execute_async_script(TWO_FRAMES)
        figures["dom_first"], figures["nodes_first"] = js(driver, COUNT_DOM)
        figures["heap_first"] = heap_used(driver)

        # (d) Intents over the socket, then the tree's label at the final revision.
        js(driver, TREE_NOTE_OBSERVER)
        started = time.time()
        for _ in range(INTENTS):
            reply = client.intent("/counters/0/counter", "incrementTapped")
        replied = time.time()
        final = reply["revision"]
        figures["intents"] = (replied - started) * 1000
        label = f"revision {final}"
        seen_at = wait_for(f"#tree-note to say {label!r} after {INTENTS} intents",
                           lambda: js(driver, "return window.__bench.treeNote[arguments[0]];", label), timeout=PAGE_WAIT)
        figures["lag"] = max(0.0, seen_at - replied * 1000)
        wait_for("the page to settle after the intents", lambda: settled(driver), timeout=PAGE_WAIT)
        driver.execute_async_script(TWO_FRAMES)
        figures["dom_after"], _ = js(driver, COUNT_DOM)
        figures["heap_after"] = heap_used(driver)

        # (e) The slider back to an older revision.
        target = final - SLIDER_BACK
        value = js(driver, SLIDER_MOVE, target)
        if str(value) != str(target):
            bounds = js(driver, "const s = document.querySelector('#timeline-slider'); return s.min + '..' + s.max;")
            raise CheckFailed(f"the slider took the value {value}, not {target} (its range: {bounds})")
        wait_for(f"#mode to say 'viewing revision {target}'",
                 lambda: js(driver, "return window.__bench.slider.mode;") is not None, timeout=PAGE_WAIT)
        wait_for(f"the tree drawn at revision {target} (#tree-note 'at revision {target}' and /counters)",
                 lambda: js(driver, "return window.__bench.slider.tree;") is not None, timeout=PAGE_WAIT)
        slider = js(driver, "return window.__bench.slider;")
        figures["slider_mode"] = slider["mode"]
        figures["slider_tree"] = slider["tree"]
        driver.execute_async_script(TWO_FRAMES)
        figures["heap_past"] = heap_used(driver)

        errors = page_errors(driver)
        if errors:
            raise CheckFailed("the page had script errors: " + "; ".join(errors))
        say(f"run {number}: first paint {figures['first_tree']:.0f} ms, revision {final} shown "
            f"{figures['lag']:.0f} ms after the last reply, slider {figures['slider_tree']:.0f} ms")
        return figures, version
    finally:
        driver.quit()


# ---------------------------------------------------------------- the table

ROWS = [
    ("first_tree", "(a) first paint: navigation start to the root's children in the tree", "ms", 0),
    ("first_painted", "    and to the frame after it", "ms", 0),
    ("dom_first", "(b) DOM elements, page settled", "", 0),
    ("nodes_first", "    tree nodes (.node), page settled", "", 0),
    ("heap_first", "(c) JS heap used after GC, page settled", "MB", 1),
    ("intents", f"(d) {INTENTS:,} incrementTapped over the socket, one after another", "ms", 0),
    ("lag", "    last reply to #tree-note showing the final revision", "ms", 0),
    ("dom_after", "    DOM elements after them", "", 0),
    ("heap_after", "    JS heap used after GC after them", "MB", 1),
    ("slider_mode", f"(e) slider {SLIDER_BACK} revisions back: #mode says 'viewing revision N'", "ms", 0),
    ("slider_tree", "    the tree drawn at revision N", "ms", 0),
    ("heap_past", "    JS heap used after GC, viewing revision N", "MB", 1),
]


def figure(value, unit, digits):
    if unit == "MB":
        value = value / 1e6
    return f"{value:,.{digits}f}"


def print_table(args, command, daemon, version, daemon_version, revision, size, steps, fill_seconds, runs):
    print(f"inspector on {args.models:,} models, {len(runs)} run(s), each figure min - median - max")
    print(f"command:  {command}")
    print(f"daemon:   {os.path.abspath(args.daemon)} ({daemon_version})")
    print(f"          {' '.join(shlex.quote(part) for part in daemon.command[1:])}")
    print(f"chromium: {version} (headless), on {os.cpu_count()} cores")
    print(f"fill:     {fill_seconds:.1f} s, restored at revision {revision}, record {size / 1e6:.1f} MB: "
          + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in steps.items()))
    width = max(len(label) for _, label, _, _ in ROWS)
    print()
    print(f"{'':{width}}  {'unit':>4}  {'min':>9}  {'median':>9}  {'max':>9}")
    for key, label, unit, digits in ROWS:
        values = [run[key] for run in runs]
        low, middle, high = (figure(value, unit, digits) for value in (min(values), statistics.median(values), max(values)))
        print(f"{label:{width}}  {unit:>4}  {low:>9}  {middle:>9}  {high:>9}")


# ---------------------------------------------------------------- main


def default_daemon():
    for mode in ("release", "debug"):
        path = os.path.join(REPO, ".build", mode, "counterfactd")
        if os.path.exists(path):
            return path
    return os.path.join(REPO, ".build", "release", "counterfactd")


def on_sigterm(signum, frame):
    raise SystemExit(128 + signum)  # so that the daemon is stopped and the directory removed


def main():
    parser = argparse.ArgumentParser(description="Measures the inspector page of counterfactd on a large tree in headless Chromium.")
    parser.add_argument("--daemon", default=default_daemon(), help="a counterfactd binary (default: .build/release, else .build/debug)")
    parser.add_argument("--models", type=int, default=100000, help="counter rows in the tree (default 100000)")
    parser.add_argument("--runs", type=int, default=3, help="runs, each in a fresh browser (default 3)")
    args = parser.parse_args()
    if args.models < 1 or args.runs < 1:
        parser.error("--models and --runs must be at least 1")
    if not os.access(args.daemon, os.X_OK):
        print(f"FAIL: {args.daemon} is not an executable counterfactd", file=sys.stderr)
        return 1
    command = " ".join(shlex.quote(part) for part in [sys.executable, *sys.argv])
    signal.signal(signal.SIGTERM, on_sigterm)

    # A row is about 120 bytes of JSON: past about 130,000 rows the record needs a longer line.
    daemon = DaemonProcess(args.daemon, 128 * args.models + 1024 * 1024)
    try:
        daemon_version = subprocess.run([args.daemon, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
        daemon.start()
        client = daemon.connect()
        url = daemon.http_url(client)
        say(f"counterfactd at {url}, filling {args.models:,} rows")
        started = time.monotonic()
        revision, size, steps = fill(client, args.models, daemon.max_line_bytes)
        fill_seconds = time.monotonic() - started
        say(f"filled in {fill_seconds:.1f} s: " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in steps.items()))
        runs = []
        version = "?"
        for number in range(1, args.runs + 1):
            figures, version = one_run(number, url, client, args.models)
            runs.append(figures)
            daemon.check_alive()
        print_table(args, command, daemon, version, daemon_version, revision, size, steps, fill_seconds, runs)
    except (CheckFailed, DaemonExited) as failure:
        print(f"FAIL: {failure}", file=sys.stderr)
        return 1
    except Exception as error:  # a crash of the script itself still says what happened
        print(f"FAIL: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    finally:
        daemon.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
