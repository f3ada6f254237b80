"""A daemon on another machine, reached through ssh, as ``arborctl --host`` reaches it:
``ssh -o BatchMode=yes [-p PORT] [user@]host -- arborctl bridge [--socket PATH]``, the
protocol spoken over ssh's standard input and output. ``$ARBOR_SSH_COMMAND`` replaces
``ssh -o BatchMode=yes`` (split as a shell does), ``$ARBOR_REMOTE_ARBORCTL`` the remote
``arborctl``. The remote user's role is the one the daemon decides::

    client = arbor_client.Client(host="ssh://ops@build-1/run/arbor/counterfactd.sock")
    print(client.get("/counters").value)

ssh's standard input and output are one end of a socket pair, so that the blocking and
the asyncio connections read and write it as they do a daemon's socket. A connection is
open once the daemon has answered a first ``daemon.status`` through the tunnel; ssh that
cannot log in, or a bridge that finds no daemon, raise ``CannotConnect`` with the last
line ssh (or the remote arborctl) wrote on standard error. ssh that ends later (the
network, sshd) ends the connection with ``ConnectionClosed`` whose message names the host
and gives that line; a watch then connects again with a new ssh.
"""

from __future__ import annotations

import asyncio
import collections
import os
import shlex
import socket
import subprocess
import threading
from typing import Deque, List, Mapping, Optional

from .aio_connection import _LINE_LIMIT, AsyncConnection
from .connection import Connection
from .errors import CannotConnect, ConnectionClosed

#: The ssh program and options when ``$ARBOR_SSH_COMMAND`` is not set: never a prompt.
DEFAULT_SSH = ["ssh", "-o", "BatchMode=yes"]


class SSHAddress:
    """``ssh://[user@]host[:port][/path/to.sock]``; ``ValueError`` for anything else (a
    host or user that starts with ``-`` too: ssh would take it for an option).

    Example::

        address = SSHAddress.parse("ssh://ops@build-1:2222/run/arbor/counterfactd.sock")
        print(address.user, address.host, address.port, address.socket)   # ops build-1 2222 /run/arbor/counterfactd.sock
    """

    def __init__(self, host: str, user: Optional[str] = None, port: Optional[int] = None, socket: Optional[str] = None):
        self.host = host
        self.user = user
        self.port = port
        self.socket = socket

    @staticmethod
    def is_ssh(text: object) -> bool:
        """Whether ``text`` is an ``ssh://`` address."""
        return isinstance(text, str) and text.lower().startswith("ssh://")

    @classmethod
    def parse(cls, text: str) -> "SSHAddress":
        def fail(why: str) -> ValueError:
            return ValueError(f"{text!r} is not an ssh address (ssh://[user@]host[:port][/path/to.sock]): {why}")

        if not cls.is_ssh(text):
            raise fail("it does not start with ssh://")
        rest = text[len("ssh://"):]
        slash = rest.find("/")
        authority, path = (rest, "") if slash == -1 else (rest[:slash], rest[slash:])
        user = None
        if "@" in authority:
            user, authority = authority.rsplit("@", 1)
            if not user:
                raise fail("the user before @ is empty")
            if user.startswith("-"):
                raise fail("a user may not start with '-'")
        port_text = None
        if authority.startswith("["):
            close = authority.find("]")
            if close == -1:
                raise fail("an IPv6 address needs its closing ]")
            host, after = authority[1:close], authority[close + 1:]
            if after:
                if not after.startswith(":"):
                    raise fail("only :PORT may follow ]")
                port_text = after[1:]
        elif ":" in authority:
            host, port_text = authority.rsplit(":", 1)
        else:
            host = authority
        if not host:
            raise fail("the host is missing")
        if host.startswith("-"):
            raise fail("a host may not start with '-'")
        if any(c.isspace() or c in "/@" for c in host):
            raise fail("the host has a space, '/' or '@' in it")
        port = None
        if port_text is not None:
            if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
                raise fail(f"the port must be a number from 1 to 65535, not {port_text!r}")
            port = int(port_text)
        if "?" in path or "#" in path:
            raise fail("it may not have a query or a fragment")
        return cls(host, user, port, path if len(path) > 1 else None)

    @property
    def destination(self) -> str:
        """``[user@]host``, as ssh is given it."""
        return f"{self.user}@{self.host}" if self.user else self.host

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        user = f"{self.user}@" if self.user else ""
        port = f":{self.port}" if self.port else ""
        return f"ssh://{user}{host}{port}{self.socket or ''}"

    def __repr__(self) -> str:
        return f"SSHAddress({str(self)!r})"


def ssh_command(address: SSHAddress, environ: Optional[Mapping[str, str]] = None) -> List[str]:
    """The ssh process's arguments for ``address``, as ``arborctl --host`` builds them.

    Example::

        ssh_command(SSHAddress.parse("ssh://ops@build-1:2222"), {})
        # ['ssh', '-o', 'BatchMode=yes', '-p', '2222', 'ops@build-1', '--', 'arborctl bridge']
    """
    environ = os.environ if environ is None else environ
    ssh = shlex.split(environ.get("ARBOR_SSH_COMMAND", "")) or list(DEFAULT_SSH)
    remote = [environ.get("ARBOR_REMOTE_ARBORCTL", "").strip() or "arborctl", "bridge"]
    if address.socket:
        remote += ["--socket", shlex.quote(address.socket)]
    port = ["-p", str(address.port)] if address.port else []
    return ssh + port + [address.destination, "--", " ".join(remote)]


class SSHProcess:
    """The ssh process of one connection: its standard input and output one end of a
    socket pair (``socket`` is the other), its standard error kept, the last lines, by a
    thread of its own."""

    def __init__(self, address: SSHAddress):
        self.address = address
        ours, theirs = socket.socketpair()
        try:
            self.process = subprocess.Popen(
                ssh_command(address), stdin=theirs.fileno(), stdout=theirs.fileno(), stderr=subprocess.PIPE, close_fds=True)
        except OSError as error:
            ours.close()
            raise CannotConnect(str(address), f"cannot run ssh: {error.strerror or error}") from None
        finally:
            theirs.close()
        self.socket = ours
        self._tail: Deque[str] = collections.deque(maxlen=20)
        self._read_errors = threading.Thread(target=self._keep_errors, name="arbor-ssh-stderr", daemon=True)
        self._read_errors.start()

    def _keep_errors(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            text = line.decode("utf-8", "replace").strip()
            if text:
                self._tail.append(text)
        self.process.stderr.close()
        # Reaped here, whoever ended it.
        self.process.wait()

    def ended(self, seconds: float = 2.0) -> str:
        """Waits for ssh to end (terminates it after ``seconds``) and says why it ended:
        its last line on standard error, else its status."""
        try:
            self.process.wait(seconds)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            self.process.wait()
        self._read_errors.join(1.0)
        if self._tail:
            return self._tail[-1]
        status = self.process.returncode
        return f"ssh was ended by signal {-status}" if status < 0 else f"ssh exited with status {status}"

    def lost(self) -> Optional[str]:
        """Why the connection ended, when ssh ended on its own (not the daemon's close:
        the bridge's status 0 or 3); None when it was the daemon."""
        reason = self.ended()
        return None if self.process.returncode in (0, 3) else reason

    def terminate(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()


class SSHConnection(Connection):
    """A blocking ``Connection`` through ssh (see the module)."""

    def __init__(self, ssh: SSHProcess, timeout: Optional[float]):
        super().__init__(ssh.socket, str(ssh.address), timeout)
        self.ssh = ssh

    @classmethod
    def open_ssh(cls, address: SSHAddress, timeout: Optional[float] = 10.0) -> "SSHConnection":
        """Starts ssh and waits for the daemon's first answer; ``CannotConnect`` with ssh's
        (or the remote arborctl's) last line when none comes."""
        connection = cls(SSHProcess(address), timeout)
        try:
            connection.request("daemon.status")
        except ConnectionClosed:
            connection.close()
            raise CannotConnect(str(address), connection.ssh.ended()) from None
        except BaseException:
            connection.close()
            raise
        return connection

    def close(self) -> None:
        super().close()
        # Closed by this side: ssh goes at once (left to notice its closed pipe, it would
        # stay until the daemon next wrote to a watch). Not while reading: there the end
        # came from ssh, whose status and last words are still to be read.
        if not self._reading:
            self.ssh.terminate()

    _reading = False

    def _read(self, deadline, what):  # type: ignore[no-untyped-def]
        if self.closed:
            return super()._read(deadline, what)
        self._reading = True
        try:
            super()._read(deadline, what)
        except ConnectionClosed:
            reason = self.ssh.lost()
            if reason is not None:
                raise ConnectionClosed(f"the connection to {self.path} ended: {reason}") from None
            raise
        finally:
            self._reading = False


class AsyncSSHConnection(AsyncConnection):
    """An asyncio ``AsyncConnection`` through ssh (see the module)."""

    ssh: SSHProcess

    @classmethod
    async def open_ssh(cls, address: SSHAddress, timeout: Optional[float] = 10.0) -> "AsyncSSHConnection":
        """Starts ssh and waits for the daemon's first answer; ``CannotConnect`` with ssh's
        (or the remote arborctl's) last line when none comes."""
        ssh = SSHProcess(address)
        reader, writer = await asyncio.open_connection(sock=ssh.socket, limit=_LINE_LIMIT)
        connection = cls(reader, writer, str(address), timeout)
        connection.ssh = ssh
        try:
            await connection.request("daemon.status")
        except ConnectionClosed:
            await connection.close()
            reason = await asyncio.get_running_loop().run_in_executor(None, ssh.ended)
            raise CannotConnect(str(address), reason) from None
        except BaseException:
            await connection.close()
            raise
        return connection

    async def close(self) -> None:
        await super().close()
        self.ssh.terminate()
