#!/usr/bin/env python3
"""Runs a command and counts the processes it starts, sampling /proc every 50 ms.

    scripts/process-census.py [--label NAME] -- COMMAND [ARGUMENTS...]

Prints, when the command ends (on standard error, so that the command's own output is
untouched): how many distinct processes ran under it, the most that ran at once, the
most at once in each 10-second window of the run, and the programs started most often.
Exits with the command's status. `make test-fresh` and `make test-busy` run the suite
under it (Docs/Testing.md, "A fresh machine").
"""
import collections
import os
import subprocess
import sys
import time


def snapshot():
    """{pid: (ppid, start time, name)} of every process now."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                data = f.read().decode("utf-8", "replace")
        except OSError:
            continue
        # The name is in parentheses and may hold spaces: split after the last ')'.
        close = data.rfind(")")
        name = data[data.find("(") + 1 : close]
        fields = data[close + 2 :].split()
        table[int(entry)] = (int(fields[1]), int(fields[19]), name)
    return table


def descendants(root, table):
    children = collections.defaultdict(list)
    for pid, (ppid, _, _) in table.items():
        children[ppid].append(pid)
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def main():
    arguments = sys.argv[1:]
    label = "the command"
    if arguments[:1] == ["--label"]:
        label, arguments = arguments[1], arguments[2:]
    if arguments[:1] == ["--"]:
        arguments = arguments[1:]
    if not arguments:
        print(__doc__, file=sys.stderr)
        return 2
    started = time.monotonic()
    child = subprocess.Popen(arguments)
    seen = {}
    most, most_at = 0, 0.0
    windows = collections.defaultdict(int)
    while child.poll() is None:
        table = snapshot()
        # The command itself (the test binary, or `timeout` and then it) and what it started.
        now = descendants(child.pid, table)
        # `timeout` and `make` are not what we count: count what they run below them.
        running = [pid for pid in now if table[pid][2] not in ("timeout",)]
        test_processes = {pid for pid in running if table[pid][2].endswith(".xctest") or table[pid][2].startswith("ArborPackageTe")}
        counted = [pid for pid in running if pid not in test_processes]
        elapsed = time.monotonic() - started
        for pid in counted:
            seen.setdefault((pid, table[pid][1]), table[pid][2])
        if len(counted) > most:
            most, most_at = len(counted), elapsed
        window = int(elapsed // 10) * 10
        windows[window] = max(windows[window], len(counted))
        time.sleep(0.05)
    status = child.wait()
    elapsed = time.monotonic() - started
    names = collections.Counter(seen.values())
    print(f"\nprocess census of {label}: {elapsed:.1f} s, exit status {status}", file=sys.stderr)
    print(f"  processes started under it (sampled every 50 ms): {len(seen)}", file=sys.stderr)
    print(f"  the most running at once: {most}, {most_at:.1f} s after the start", file=sys.stderr)
    print("  the most at once in each 10 s: " + ", ".join(f"{w}s:{n}" for w, n in sorted(windows.items())), file=sys.stderr)
    print("  started most often: " + ", ".join(f"{name} {count}" for name, count in names.most_common(8)), file=sys.stderr)
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    sys.exit(main())
