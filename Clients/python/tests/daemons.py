"""Real daemons for the tests: counterfactd and todosd from the repository's debug build
(or $ARBOR_COUNTERFACTD, $ARBOR_TODOSD), each on a socket and a state directory of its
own in a new temporary directory, as the Swift tests' DaemonUnderTest starts them.

Every wait has a deadline and says what it waited for.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Optional

#: The repository: this file is Clients/python/tests/daemons.py.
ROOT = Path(__file__).resolve().parents[3]

#: How long a daemon may take to listen, and a test's waits for updates.
START_SECONDS = 30.0
WAIT_SECONDS = 15.0


def binary(name: str) -> str:
    """The daemon binary: $ARBOR_COUNTERFACTD / $ARBOR_TODOSD, else .build/debug."""
    configured = os.environ.get("ARBOR_" + name.upper())
    path = configured or str(ROOT / ".build" / "debug" / name)
    if not os.access(path, os.X_OK):
        raise RuntimeError(
            f"{name} is not at {path}: build it (swift build --product {name}) or set ARBOR_{name.upper()}"
        )
    return path


def _die_with_the_tests() -> None:
    """In the daemon's process before it runs: SIGKILL when the test process ends
    (prctl PR_SET_PDEATHSIG), so that a test run stopped by its deadline, or by Ctrl-C,
    leaves no daemon behind."""
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def temporary_directory() -> str:
    """A new directory with a short path (a socket's path is limited to 107 bytes),
    readable by other users (the reader-role test runs a client as another user)."""
    directory = tempfile.mkdtemp(prefix="arbor-py-", dir="/tmp")
    os.chmod(directory, 0o755)
    return directory


def eventually(what: str, condition: Callable[[], bool], seconds: float = WAIT_SECONDS) -> None:
    """Waits until `condition()` holds, at most `seconds`; fails naming `what`."""
    deadline = time.monotonic() + seconds
    pause = 0.01
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds} s for {what}, in vain")
        time.sleep(pause)
        pause = min(0.1, pause * 1.5)


class Daemon:
    """A daemon process on `directory`/d.sock with its state in `directory`/state.

    Example::

        with Daemon("counterfactd", ["--fsync", "always"]) as daemon:
            client = arbor_client.Client(daemon.socket)
    """

    def __init__(self, name: str = "counterfactd", arguments: Optional[List[str]] = None, directory: Optional[str] = None):
        self.name = name
        self.arguments = list(arguments or [])
        self.owns_directory = directory is None
        self.directory = directory or temporary_directory()
        self.socket = os.path.join(self.directory, "d.sock")
        self.state = os.path.join(self.directory, "state")
        self.log_path = os.path.join(self.directory, "daemon.log")
        self.process: Optional[subprocess.Popen] = None

    def __enter__(self) -> "Daemon":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if self.owns_directory:
            shutil.rmtree(self.directory, ignore_errors=True)

    def start(self) -> None:
        """Starts the daemon and waits until it accepts a connection."""
        command = [binary(self.name), "--socket", self.socket, "--state-dir", self.state] + self.arguments
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                                            preexec_fn=_die_with_the_tests)
        deadline = time.monotonic() + START_SECONDS
        pause = 0.01
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"{self.name} exited with {self.process.returncode} before it listened:\n{self.log()}")
            if os.path.exists(self.socket) and self._accepts():
                return
            if time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"{self.name} did not listen on {self.socket} within {START_SECONDS} s:\n{self.log()}")
            time.sleep(pause)
            pause = min(0.1, pause * 1.5)

    def _accepts(self) -> bool:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.settimeout(1)
        try:
            probe.connect(self.socket)
            return True
        except OSError:
            return False
        finally:
            probe.close()

    def kill(self) -> None:
        """SIGKILL, then waits (10 s at most) until the process is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"{self.name} (pid {self.process.pid}) outlived SIGKILL by 10 s") from None

    def stop(self) -> Optional[int]:
        """SIGTERM, waiting 20 s at most before SIGKILL; the exit status."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.process.returncode

    def log(self, characters: int = 4000) -> str:
        """The end of the daemon's standard error, for a failure message."""
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as file:
                return file.read()[-characters:]
        except OSError:
            return "(no log)"
