"""The sockets a client connects to, tried in turn: a daemon alone, or a leader and its
standbys sharing one store; or a daemon on another machine through ssh (``host``, else
``$ARBOR_HOST`` when no socket is given). ``Client`` and ``AsyncClient`` both build on it::

    client = arbor_client.Client(["/run/arbor/a.sock", "/run/arbor/b.sock"])
    print(client.sockets, client.socket)   # both, and the one tried first
    remote = arbor_client.Client(host="ssh://ops@build-1")
    print(remote.socket)                    # ssh://ops@build-1
"""

from __future__ import annotations

import os
from typing import Awaitable, Callable, List, Optional, Sequence, TypeVar, Union

from .errors import CannotConnect
from .socket_path import find_sockets
from .ssh import SSHAddress

#: A client's ``socket`` argument: a socket's path, a list of them, or ``None`` to find it.
SocketArgument = Union[None, str, Sequence[str]]

T = TypeVar("T")


class SocketsInTurn:
    """``sockets``, the paths a client may connect to (``find_sockets(socket)``), and
    ``timeout``; a new connection goes to the socket that answered last, else to the
    next that answers.

    Example::

        client = arbor_client.Client(["/run/arbor/a.sock", "/run/arbor/b.sock"], timeout=5)
        client.connect().close()
        print(client.socket)   # the one that answered
    """

    def __init__(self, socket: SocketArgument = None, timeout: Optional[float] = 10.0, host: Optional[str] = None):
        if host is None and socket is None:
            host = os.environ.get("ARBOR_HOST") or None
        #: The daemon on another machine (``ssh://…``), when that is where it is.
        self.ssh: Optional[SSHAddress] = None
        if host is not None:
            self.ssh = SSHAddress.parse(host)
            if isinstance(socket, str) and self.ssh.socket is None:
                self.ssh.socket = socket
            self.sockets: List[str] = [str(self.ssh)]
        else:
            self.sockets = find_sockets(socket)
        self.timeout = timeout
        self._preferred = 0

    @property
    def socket(self) -> str:
        """The socket tried first."""
        return self.sockets[self._preferred % len(self.sockets)]

    async def _connect_in_turn(self, open_socket: Callable[[str], Awaitable[T]]) -> T:
        """``await open_socket(path)`` for each socket in turn from the one tried first,
        until one does not raise ``CannotConnect``; that one is then tried first. When none
        answers, its ``CannotConnect`` (the last's, naming them all when there are several)."""
        paths = self.sockets
        failure: Optional[CannotConnect] = None
        for offset in range(len(paths)):
            index = (self._preferred + offset) % len(paths)
            try:
                connection = await open_socket(paths[index])
            except CannotConnect as error:
                failure = error
                continue
            self._preferred = index
            return connection
        assert failure is not None
        if len(paths) > 1:
            raise CannotConnect(", ".join(paths), f"none of them answers (the last: {failure.reason})")
        raise failure

