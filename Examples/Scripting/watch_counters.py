#!/usr/bin/env python3
"""Watch /counters while calling intents, and rebuild its value from the patches.

    python3 watch_counters.py [SOCKET]        (default: $ARBOR_SOCKET)

One connection watches /counters (state.watch); a second one calls intents
(intent.call). Each state.changed notification carries a JSON Patch (RFC 6902) that
turns the value of the previous revision into the next one: applied in order to the
value the watch started with, they give the value of every revision. At the end, the
value built that way is compared with a fresh state.get. Standard library only.
"""

import copy
import json
import os
import re
import socket
import sys


class Connection:
    """One connection to the daemon: one JSON-RPC message per line, both ways."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)  # never wait for the daemon forever
        self.sock.connect(path)
        self.lines = self.sock.makefile("r", encoding="utf-8", newline="\n")
        self.next_id = 1
        self.notifications = []  # those that arrived while waiting for a reply

    def request(self, method, params=None):
        """Sends a request and returns its result (or raises its error)."""
        request_id = self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.sock.sendall((json.dumps(message) + "\n").encode("utf-8"))
        while True:
            message = self.receive()
            if "id" not in message:
                self.notifications.append(message)
            elif message["id"] == request_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']['message']}")
                return message["result"]

    def notification(self):
        """The next notification (a message without an id)."""
        if self.notifications:
            return self.notifications.pop(0)
        return self.receive()

    def receive(self):
        line = self.lines.readline()
        if not line:
            raise ConnectionError("the daemon closed the connection")
        return json.loads(line)

    def close(self):
        self.lines.close()
        self.sock.close()


# JSON Pointer (RFC 6901) and JSON Patch (RFC 6902).


def tokens(pointer):
    """'/a~1b/0' -> ['a/b', '0']: '~1' is '/', '~0' is '~', undone in that order."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"{pointer!r} is not a JSON Pointer")
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def index(array, token, past_end=False):
    """An array index: digits without leading zeros, or '-' (past the end) for add."""
    if past_end and token == "-":
        return len(array)
    if not re.fullmatch(r"0|[1-9][0-9]*", token):
        raise ValueError(f"{token!r} is not an array index")
    i = int(token)
    if i > len(array) or (i == len(array) and not past_end):
        raise ValueError(f"index {i} is out of range")
    return i


def resolve(document, path):
    """The value at a list of tokens (a KeyError or ValueError when there is none)."""
    for token in path:
        if isinstance(document, list):
            document = document[index(document, token)]
        elif isinstance(document, dict):
            document = document[token]
        else:
            raise ValueError(f"{token!r}: a {type(document).__name__} has no members")
    return document


def get(document, pointer):
    return resolve(document, tokens(pointer))


def container(document, pointer):
    """The array or object that holds the value at the pointer, and the last token."""
    path = tokens(pointer)
    if not path:
        raise ValueError("the whole document has no container")
    return resolve(document, path[:-1]), path[-1]


def add(document, pointer, value):
    if pointer == "":
        return value
    parent, key = container(document, pointer)
    if isinstance(parent, list):
        parent.insert(index(parent, key, past_end=True), value)
    else:
        parent[key] = value
    return document


def remove(document, pointer):
    parent, key = container(document, pointer)
    if isinstance(parent, list):
        del parent[index(parent, key)]
    else:
        del parent[key]
    return document


def replace(document, pointer, value):
    if pointer == "":
        return value
    get(document, pointer)  # it must exist
    parent, key = container(document, pointer)
    parent[index(parent, key) if isinstance(parent, list) else key] = value
    return document


def equal(a, b):
    """JSON equality: 1 == 1.0, but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    return a == b


def apply_patch(document, patch):
    """The document after the patch; all or nothing (the input is left unchanged)."""
    document = copy.deepcopy(document)
    for operation in patch:
        op, path = operation["op"], operation["path"]
        if op == "add":
            document = add(document, path, copy.deepcopy(operation["value"]))
        elif op == "remove":
            document = remove(document, path)
        elif op == "replace":
            document = replace(document, path, copy.deepcopy(operation["value"]))
        elif op == "move":
            value = get(document, operation["from"])
            document = add(remove(document, operation["from"]), path, value)
        elif op == "copy":
            document = add(document, path, copy.deepcopy(get(document, operation["from"])))
        elif op == "test":
            if not equal(get(document, path), operation["value"]):
                raise ValueError(f"test failed at {path!r}")
        else:
            raise ValueError(f"unknown op {op!r}")
    return document


def counts(rows):
    return [row["counter"]["count"] for row in rows]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ARBOR_SOCKET")
    if not path:
        sys.exit("usage: watch_counters.py SOCKET (or set $ARBOR_SOCKET)")
    watcher, caller = Connection(path), Connection(path)

    watch = watcher.request("state.watch", {"path": "/counters"})
    value, revision = watch["value"], watch["revision"]
    print(f"watching /counters from revision {revision}: counts = {counts(value)}")

    # Two new rows at the end of the list, count them up, then remove the first one.
    first = len(value)
    caller.request("intent.call", {"intent": "addButtonTapped"})
    caller.request("intent.call", {"intent": "addButtonTapped"})
    for row in [first, first, first + 1]:
        caller.request("intent.call", {"target": f"/counters/{row}/counter", "intent": "incrementTapped"})
    row_id = caller.request("state.get", {"path": f"/counters/{first}/id"})["value"]
    last = caller.request("intent.call", {"intent": "removeButtonTapped", "params": {"id": row_id}})["revision"]

    # Every revision up to the last call's, each one patch (or a resync: a whole value).
    while revision < last:
        change = watcher.notification()
        if change.get("method") != "state.changed":
            continue
        params = change["params"]
        if params.get("resync"):
            value = params["value"]
        else:
            value = apply_patch(value, params["patch"])
        revision = params["revision"]
        print(f"revision {revision}: counts = {counts(value)}")

    fresh = caller.request("state.get", {"path": "/counters"})
    same = equal(value, fresh["value"])
    print(f"state.get at revision {fresh['revision']}: {'equal' if same else 'NOT equal'} to the value built from the patches")
    watcher.close()
    caller.close()
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
