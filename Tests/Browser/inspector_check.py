#!/usr/bin/env python3
"""Drives the inspector page of a running counterfactd in headless Chromium and checks it
against what the daemon's Unix socket says.

    python3 Tests/Browser/inspector_check.py --url http://127.0.0.1:PORT/ \
        --socket /tmp/c.sock --token TOKEN --screenshot /tmp/inspector.png

Needs selenium (python3 -m pip install --target .build/python-packages selenium), Debian's
chromium and chromium-driver. Exits 0 when every check passes, 1 with the reason otherwise.

The checks: the page connects and shows a leaf as state.get gives it; an intent called over
the socket shows up in the tree and the timeline; the slider shows a past revision as
state.at gives it, and going live shows the live value again; a wrong token is refused and
the page goes on read-only; with the token, the page's intent forms change the state; a
screenshot is saved.
"""

import argparse
import json
import os
import socket
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, ".build", "python-packages"))

WAIT = 15.0  # seconds allowed for each thing the page must show


class CheckFailed(Exception):
    pass


# ---------------------------------------------------------------- the daemon's socket


class Daemon:
    """A JSON-RPC client of the Unix socket: one request at a time, newline-delimited."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(WAIT)
        try:
            self.sock.connect(path)
        except OSError as error:
            raise CheckFailed(f"cannot connect to the daemon's socket {path}: {error}")
        self.file = self.sock.makefile("rwb")
        self.next_id = 0

    def call(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.file.write(json.dumps(message).encode() + b"\n")
        self.file.flush()
        while True:
            line = self.file.readline()
            if not line:
                raise CheckFailed(f"the daemon closed the socket during {method}")
            reply = json.loads(line)
            if reply.get("id") != self.next_id:
                continue  # a notification
            if "error" in reply:
                raise CheckFailed(f"{method} {json.dumps(params)} failed: {reply['error'].get('message')}")
            return reply["result"]

    def get(self, path):
        return self.call("state.get", {"path": path})["value"]

    def intent(self, target, intent, params=None):
        request = {"intent": intent}
        if target:
            request["target"] = target
        if params:
            request["params"] = params
        return self.call("intent.call", request)


# ---------------------------------------------------------------- waiting


def wait_for(what, probe, timeout=WAIT):
    """Polls `probe` until it returns something true; fails naming `what` and the last value seen."""
    from selenium.common.exceptions import WebDriverException

    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = probe()
            if last:
                return last
        except (WebDriverException, CheckFailed, ValueError) as error:
            last = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        if time.monotonic() > deadline:
            raise CheckFailed(f"timed out after {timeout:.0f}s waiting for {what} (last seen: {last!r})")
        time.sleep(0.1)


# ---------------------------------------------------------------- the page


class Page:
    def __init__(self, driver):
        self.driver = driver

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def text(self, selector):
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", selector)

    def value_at(self, path):
        """The JSON shown for the node at `path` (its `.value` element), decoded; raises if not drawn."""
        text = self.js(
            "const n = document.querySelector('.node[data-path=\"' + CSS.escape(arguments[0]) + '\"] > .row > .value');"
            "return n ? n.textContent : null;",
            path,
        )
        if text is None:
            raise CheckFailed(f"no node drawn at {path!r}")
        return json.loads(text)

    def set_filter(self, path):
        field = self.driver.find_element("css selector", "#path-filter")
        field.clear()
        field.send_keys(path + "\n")

    def click_row(self, path):
        self.js(
            "document.querySelector('.node[data-path=\"' + CSS.escape(arguments[0]) + '\"] > .row > .key').click();",
            path,
        )

    def set_slider(self, revision):
        self.js(
            "const s = document.querySelector('#timeline-slider'); s.value = String(arguments[0]);"
            "s.dispatchEvent(new Event('input', {bubbles: true})); s.dispatchEvent(new Event('change', {bubbles: true}));",
            revision,
        )

    def click(self, selector):
        self.driver.find_element("css selector", selector).click()

    def form(self, intent):
        return f'form.intent[data-intent="{intent}"]'

    def submit_intent(self, intent, fields=None):
        form = self.driver.find_element("css selector", self.form(intent))
        for name, value in (fields or {}).items():
            field = form.find_element("css selector", f'[name="{name}"]')
            field.clear()
            field.send_keys(value)
        form.find_element("css selector", 'button[type="submit"]').click()
        result = self.form(intent) + " .intent-result"
        status = wait_for(
            f"the result of {intent} in {result}",
            lambda: self.js(
                "const e = document.querySelector(arguments[0]);"
                "return e && (e.dataset.status === 'ok' || e.dataset.status === 'error') ? e.dataset.status + ': ' + e.textContent : null;",
                result,
            ),
        )
        if not status.startswith("ok"):
            raise CheckFailed(f"{intent} called from the page failed: {status}")
        return status


def start_browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as error:
        raise CheckFailed(
            f"selenium is missing ({error}): python3 -m pip install --target {REPO}/.build/python-packages selenium"
        )
    for path in ("/usr/bin/chromium", "/usr/bin/chromedriver"):
        if not os.path.exists(path):
            raise CheckFailed(f"{path} is missing: apt-get install -y chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def page_errors(driver):
    """Uncaught script errors from the browser's console."""
    try:
        entries = driver.get_log("browser")
    except Exception:
        return []
    return [entry["message"] for entry in entries if entry.get("level") == "SEVERE" and "Uncaught" in entry.get("message", "")]


# ---------------------------------------------------------------- the checks


def run(args):
    daemon = Daemon(args.socket)
    # Two counter rows at least: the first is watched, the last is removed from the page.
    while len(daemon.get("/counters")) < 2:
        daemon.intent("", "addButtonTapped")
    counter = "/counters/0/counter"
    leaf = counter + "/count"

    driver = start_browser()
    try:
        page = Page(driver)
        driver.set_page_load_timeout(WAIT)
        driver.get(args.url)

        # a. The page connects and shows a leaf as state.get gives it.
        wait_for("#conn to say connected", lambda: "connected" in (page.text("#conn") or ""))
        status = daemon.call("daemon.status")
        wait_for(f"#daemon-name to be {status['name']!r}", lambda: page.text("#daemon-name") == status["name"])
        page.set_filter(counter)
        truth = daemon.get(leaf)
        wait_for(f"{leaf} to show {truth} (state.get)", lambda: page.value_at(leaf) == truth)
        print(f"ok: connected; {leaf} shows {truth}, as state.get")
        # The path typed is the node the Intents panel shows.
        wait_for(f"#intents-target to name {counter}, the path typed", lambda: counter in (page.text("#intents-target") or ""))
        # The timeline says how many revisions it has, never "oldest kept" beside the newest.
        wait_for("#timeline-note to count revisions", lambda: "revision" in (page.text("#timeline-note") or ""))
        if "oldest kept 0" in (page.text("#timeline-note") or ""):
            raise CheckFailed(f"#timeline-note says {page.text('#timeline-note')!r}")
        print(f"ok: typing {counter} selected it for the Intents panel; the timeline says {page.text('#timeline-note')!r}")

        # The events panel says that only live events appear, until one comes; a long
        # event name has the whole name as its tooltip.
        if "while this page is open" not in (page.text("#events-empty") or ""):
            raise CheckFailed(f"#events-empty says {page.text('#events-empty')!r} before any event")
        daemon.intent("", "addButtonTapped")
        rows = daemon.get("/counters")
        daemon.intent(f"/counters/{len(rows) - 1}", "removeButtonTapped")
        wait_for("an event in #events", lambda: page.js("return !!document.querySelector('#events .ev-type');"))
        wait_for("#events-empty to be gone", lambda: page.text("#events-empty") is None)
        titled = page.js("const e = document.querySelector('#events .ev-type'); return [e.textContent, e.title];")
        if not titled[0] or titled[0] != titled[1]:
            raise CheckFailed(f"the event's type {titled[0]!r} has the tooltip {titled[1]!r}")
        print(f"ok: the events panel said it shows live events, then showed {titled[0]} with its name as tooltip")

        # b. An intent over the socket: the tree follows and the timeline has the revision.
        revision = daemon.intent(counter, "incrementTapped")["revision"]
        truth = daemon.get(leaf)
        wait_for(f"{leaf} to show {truth} after revision {revision}", lambda: page.value_at(leaf) == truth)
        row = f'#timeline li[data-revision="{revision}"]'
        wait_for(f"{row} in the timeline", lambda: page.text(row))
        wait_for(f"{row} to name incrementTapped", lambda: "incrementTapped" in (page.text(row) or ""))
        # Every revision the journal holds is a row that names its intent and target.
        journal = daemon.call("history.changes", {"since": 0, "limit": 1000})["changes"]
        for change in journal:
            at = f'#timeline li[data-revision="{change["revision"]}"]'
            wait_for(f"{at} in the timeline (history.changes)", lambda: page.text(at))
            shown = page.text(at) or ""
            for part in (change.get("intent"), change.get("target")):
                if part and part not in shown:
                    raise CheckFailed(f"{at} shows {shown!r}, but history.changes says {part!r}")
        print(f"ok: revision {revision} is live in the tree; the timeline's {len(journal)} rows match history.changes")

        # c. The slider shows an older revision as state.at gives it; going live shows the live value.
        past = revision - 1
        then = daemon.call("state.at", {"revision": past, "path": leaf})["value"]
        page.set_slider(past)
        wait_for(f"#mode to say 'viewing revision {past}'", lambda: page.text("#mode") == f"viewing revision {past}")
        wait_for(f"{leaf} to show {then} at revision {past} (state.at)", lambda: page.value_at(leaf) == then)
        page.click("#go-live")
        wait_for("#mode to say 'live'", lambda: page.text("#mode") == "live")
        wait_for(f"{leaf} to show {truth} again", lambda: page.value_at(leaf) == truth)
        newest = int(page.js("return document.querySelector('#timeline-slider').max;"))
        page.click("#step-back")
        wait_for(f"#step-back to show revision {newest - 1}", lambda: page.text("#mode") == f"viewing revision {newest - 1}")
        page.click("#go-live")
        wait_for("#mode to say 'live' again", lambda: page.text("#mode") == "live")
        print(f"ok: the slider showed revision {past} ({leaf} = {then}), then live again")

        # d. Without a token the forms are disabled; a wrong token is refused; the right one calls intents.
        page.click_row(counter)
        form = page.form("incrementTapped")
        wait_for(f"{form} for the selected counter", lambda: page.text(form) is not None)
        wait_for(
            "the forms to be disabled and say read-only",
            lambda: page.js("return document.querySelector(arguments[0] + ' fieldset').disabled;", form)
            and "read-only" in (page.text("#intents-readonly") or "")
            and page.js("return !document.querySelector('#intents-readonly').hidden;"),
        )
        token = driver.find_element("css selector", "#token")
        token.clear()
        token.send_keys("not-the-token-" + "x" * 16)
        page.click("#connect")
        wait_for("the page to say 'wrong token'", lambda: "wrong token" in (page.text("#token-status") or ""))
        wait_for("a read-only connection after the wrong token", lambda: page.text("#conn") == "connected (reader)")
        token.clear()
        token.send_keys(args.token)
        page.click("#connect")
        wait_for("#conn to say operator", lambda: page.text("#conn") == "connected (operator)")
        wait_for(
            f"{form} to be enabled",
            lambda: page.js("const f = document.querySelector(arguments[0] + ' fieldset'); return f && !f.disabled;", form),
        )
        before = daemon.get(leaf)
        page.submit_intent("incrementTapped")
        wait_for(f"state.get {leaf} to be {before + 1} after the page's incrementTapped", lambda: daemon.get(leaf) == before + 1)
        wait_for(f"{leaf} to show {before + 1}", lambda: page.value_at(leaf) == before + 1)
        print(f"ok: incrementTapped from the page made {leaf} {before + 1}")

        # A form with a parameter: the root's removeButtonTapped(id:) removes the last row.
        page.set_filter("")
        wait_for("the root node", lambda: page.text('.node[data-path=""] > .row'))
        page.click_row("")
        form = page.form("removeButtonTapped")
        wait_for(f"{form} for the root", lambda: page.js("return !!document.querySelector(arguments[0] + ' [name=\"id\"]');", form))
        rows = daemon.get("/counters")
        victim = rows[-1]["id"]
        page.submit_intent("removeButtonTapped", {"id": victim})
        wait_for(
            f"state.get /counters to lose {victim}",
            lambda: [row["id"] for row in daemon.get("/counters")] == [row["id"] for row in rows[:-1]],
        )
        print(f"ok: removeButtonTapped(id: {victim}) from the page removed the row")

        errors = page_errors(driver)
        if errors:
            raise CheckFailed("the page had script errors: " + "; ".join(errors))

        # e. A screenshot, of the tree opened at the first counter.
        page.set_filter(counter)
        wait_for(f"{leaf} before the screenshot", lambda: page.value_at(leaf) == daemon.get(leaf))
        os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
        if not driver.save_screenshot(args.screenshot) or os.path.getsize(args.screenshot) == 0:
            raise CheckFailed(f"the screenshot could not be saved to {args.screenshot}")
        print(f"ok: screenshot saved to {args.screenshot}")
    finally:
        driver.quit()


def main():
    parser = argparse.ArgumentParser(description="Checks the inspector page of a running counterfactd in headless Chromium.")
    parser.add_argument("--url", required=True, help="the inspector, e.g. http://127.0.0.1:8080/")
    parser.add_argument("--socket", required=True, help="the daemon's Unix socket")
    parser.add_argument("--token", required=True, help="the token of --http-token-file")
    parser.add_argument("--screenshot", required=True, help="where to save a PNG of the page")
    args = parser.parse_args()
    try:
        run(args)
    except CheckFailed as failure:
        print(f"FAIL: {failure}", file=sys.stderr)
        return 1
    except Exception as error:  # a crash of the check itself still says what happened
        print(f"FAIL: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print("PASS: the inspector page works")
    return 0


if __name__ == "__main__":
    sys.exit(main())
