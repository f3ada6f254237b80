"""A throwaway OpenSSH server for the ``host="ssh://…"`` tests, as the Swift tests'
SSHServer starts it: ``/usr/sbin/sshd -D -e`` on a free loopback port, in a temporary
directory with a host key and a user key of its own (ssh-keygen), the user key authorized
for every user (``AuthorizedKeysFile`` there, ``StrictModes no``). It needs root (sshd
switches to the user who logs in) and Debian's openssh-server; ``SKIP_REASON`` says why
the tests are skipped without them.

Example::

    with SSHServer() as server, Daemon() as daemon:
        with mock.patch.dict(os.environ, server.environment()):
            client = arbor_client.Client(host=server.address(daemon.socket))
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from typing import Dict, List, Optional

from daemons import ROOT, _die_with_the_tests, eventually, temporary_directory

SKIP_REASON: Optional[str] = None
if os.geteuid() != 0:
    SKIP_REASON = "needs root: sshd switches to the user who logs in"
elif not all(os.access(path, os.X_OK) for path in ("/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen")):
    SKIP_REASON = "needs /usr/sbin/sshd, ssh and ssh-keygen (Debian's openssh-server, in the Makefile's APT_PACKAGES)"


def arborctl() -> str:
    """The arborctl the remote side runs: $ARBOR_ARBORCTL, else .build/debug."""
    return os.environ.get("ARBOR_ARBORCTL") or str(ROOT / ".build" / "debug" / "arborctl")


class SSHServer:
    def __init__(self) -> None:
        self.directory = temporary_directory()
        self.port = 0
        self.process: Optional[subprocess.Popen] = None

    def __enter__(self) -> "SSHServer":
        for key in ("host_key", "user_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "arbor-test", "-f", f"{self.directory}/{key}"],
                           check=True, timeout=30, stdout=subprocess.DEVNULL)
        shutil.copy(f"{self.directory}/user_key.pub", f"{self.directory}/authorized_keys")
        os.makedirs("/run/sshd", exist_ok=True)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        with open(f"{self.directory}/sshd_config", "w") as config:
            config.write("\n".join([
                f"Port {self.port}", "ListenAddress 127.0.0.1", f"HostKey {self.directory}/host_key",
                f"AuthorizedKeysFile {self.directory}/authorized_keys", "StrictModes no", "PasswordAuthentication no",
                "KbdInteractiveAuthentication no", "UsePAM no", "PermitRootLogin prohibit-password",
                f"PidFile {self.directory}/sshd.pid", "LogLevel VERBOSE", ""]))
        with open(f"{self.directory}/sshd.log", "ab") as log:
            self.process = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", f"{self.directory}/sshd_config"],
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                                            preexec_fn=_die_with_the_tests)
        eventually(f"sshd to listen on 127.0.0.1:{self.port}",
                   lambda: f"port {self.port}" in self.log() or self.process.poll() is not None, seconds=30)
        if self.process.poll() is not None:
            raise AssertionError(f"sshd did not start:\n{self.log()}")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(10)
        shutil.rmtree(self.directory, ignore_errors=True)

    def address(self, socket_path: str = "", user: str = "root") -> str:
        return f"ssh://{user}@127.0.0.1:{self.port}{socket_path}"

    def environment(self) -> Dict[str, str]:
        """What makes ssh use the test's key, trust the throwaway host key, and run the
        built arborctl on the other side."""
        return {
            "ARBOR_SSH_COMMAND": f"ssh -F /dev/null -i {self.directory}/user_key -o BatchMode=yes -o StrictHostKeyChecking=no "
                                 "-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR",
            "ARBOR_REMOTE_ARBORCTL": arborctl(),
        }

    def sessions(self) -> List[int]:
        """The sessions: the listening sshd's children."""
        assert self.process is not None
        children = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as stat:
                        fields = stat.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == self.process.pid:
                    children.append(int(entry))
        return children

    def log(self) -> str:
        try:
            with open(f"{self.directory}/sshd.log", encoding="utf-8", errors="replace") as file:
                return file.read()[-4000:]
        except OSError:
            return "(no log)"
