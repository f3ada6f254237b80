"""One blocking connection to a daemon's socket: calls matched to their replies by id,
and the notifications of its watches in the order they came.

Most scripts use ``Client``, which keeps a connection of this kind for its calls and
opens one per watch. A connection serves one thread at a time::

    with Connection.open("/run/arbor/counterfactd.sock") as connection:
        connection.call("state.watch", {"path": "/counters"})
        print(connection.next_notification(timeout=5))
"""

from __future__ import annotations

import collections
import select
import socket
import time
from typing import Any, Deque, Dict, List, Optional, Sequence, Set

from . import protocol
from .errors import CannotConnect, ConnectionClosed, MalformedReply, Timeout

_READ_SIZE = 1 << 16


class Connection:
    """A connection to one socket. ``timeout`` (seconds) bounds each call's wait for
    its reply unless the call gives its own; ``None`` waits forever."""

    def __init__(self, sock: socket.socket, path: str, timeout: Optional[float] = 10.0):
        self.path = path
        self.timeout = timeout
        self._sock = sock
        self._buffer = bytearray()
        self._numbering = protocol.Numbering()
        self._pending: Set[Any] = set()
        self._replies: Dict[Any, Any] = {}
        self._notifications: Deque[Dict[str, Any]] = collections.deque()
        #: Lines that were neither a reply to a call of this connection nor a notification
        #: (the last 100).
        self.others: Deque[Any] = collections.deque(maxlen=100)
        self.closed = False

    @classmethod
    def open(cls, path: str, timeout: Optional[float] = 10.0) -> "Connection":
        """Connects to the socket at ``path``; ``CannotConnect`` when nothing listens there.

        Example::

            connection = Connection.open("/tmp/arbor-1000/counterfactd.sock")
        """
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect(path)
        except OSError as error:
            sock.close()
            raise CannotConnect(path, error.strerror or str(error)) from None
        except Exception:
            sock.close()
            raise
        return cls(sock, path, timeout)

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection (its watches end with it)."""
        if not self.closed:
            self.closed = True
            try:
                self._sock.close()
            except OSError:
                pass

    def fileno(self) -> int:
        return self._sock.fileno()

    def is_alive(self) -> bool:
        """Whether the daemon has not closed its end, asked without waiting: a connection
        kept between calls is stale once its daemon restarted."""
        if self.closed:
            return False
        try:
            readable, _, _ = select.select([self._sock], [], [], 0)
            if not readable:
                return True
            return self._sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
        except BlockingIOError:
            return True
        except (OSError, ValueError):
            return False

    # Calls.

    def call(self, method: str, params: Any = None, timeout: Optional[float] = None) -> Any:
        """Calls a method and returns its result; the daemon's error is raised as its
        ``ArborError`` subclass.

        Example::

            state = connection.call("state.get", {"path": "/counters"})
            print(state["revision"], state["value"])
        """
        return protocol.result_of(self.request(method, params, timeout))

    def request(self, method: str, params: Any = None, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Calls a method and returns its whole response object."""
        request_id = self._numbering.take()
        reply = self._exchange(protocol.encode(protocol.request(request_id, method, params)), request_id, method, timeout)
        if not isinstance(reply, dict):
            raise MalformedReply(f"an array came back for the single call {request_id}")
        return reply

    def batch(self, calls: Sequence[protocol.CallSpec], timeout: Optional[float] = None) -> List[Any]:
        """Sends the calls as one JSON-RPC batch (one line) and returns their outcomes in
        order: each a result, or the ``ArborError`` it failed with (returned, not raised).

        Example::

            counters, status = connection.batch([("state.get", {"path": "/counters"}), ("daemon.status",)])
        """
        calls = list(calls)
        if not calls:
            return []
        first = self._numbering.take(len(calls))
        line = protocol.encode(protocol.batch_message(first, calls))
        reply = self._exchange(line, first, f"a batch of {len(calls)}", timeout)
        return protocol.batch_outcomes(first, len(calls), reply)

    def notify(self, method: str, params: Any = None) -> None:
        """Sends a notification (a request without id, never answered)."""
        self._send(protocol.encode(protocol.request(None, method, params)), self._deadline(None))

    def send_raw(self, data: bytes) -> None:
        """Sends bytes as they are; replies to them land in ``others`` (or a watch's
        notifications)."""
        self._send(data, self._deadline(None))

    # Notifications.

    def next_notification(self, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Dict[str, Any]:
        """The next notification (``state.changed``, ``events.emitted``, ``watch.closed``),
        waiting at most ``timeout`` seconds (or until the monotonic ``deadline``);
        ``Timeout`` when none came, ``ConnectionClosed`` once the daemon closed the
        connection and every notification before has been taken."""
        if self._notifications:
            return self._notifications.popleft()
        if deadline is None and timeout is not None:
            deadline = time.monotonic() + timeout
        while not self._notifications:
            self._read(deadline, "notification")
        return self._notifications.popleft()

    def pending_notifications(self) -> int:
        """How many notifications have arrived and not been taken."""
        return len(self._notifications)

    # The line's way out and the replies' way in.

    def _deadline(self, timeout: Optional[float]) -> Optional[float]:
        seconds = self.timeout if timeout is None else timeout
        return None if seconds is None else time.monotonic() + seconds

    def _exchange(self, line: bytes, key: int, what: str, timeout: Optional[float]) -> Any:
        deadline = self._deadline(timeout)
        self._pending.add(key)
        try:
            self._send(line, deadline)
            while key not in self._replies:
                self._read(deadline, f"reply to {what}")
            reply = self._replies.pop(key)
            if protocol.closes_connection(reply):
                self.close()
            return reply
        finally:
            self._pending.discard(key)

    def _send(self, data: bytes, deadline: Optional[float]) -> None:
        if self.closed:
            raise ConnectionClosed()
        try:
            self._sock.settimeout(None if deadline is None else max(deadline - time.monotonic(), 0.001))
            self._sock.sendall(data)
        except socket.timeout:
            self.close()
            raise Timeout(f"could not send to {self.path} in time (the daemon does not read)") from None
        except OSError as error:
            self.close()
            raise ConnectionClosed(f"the connection to {self.path} closed: {error.strerror or error}") from None

    def _read(self, deadline: Optional[float], what: str) -> None:
        """Reads at least one more chunk and files every whole line in it."""
        if self.closed:
            raise ConnectionClosed()
        if deadline is None:
            self._sock.settimeout(None)
        else:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Timeout(f"no {what} from {self.path} in time")
            self._sock.settimeout(remaining)
        try:
            chunk = self._sock.recv(_READ_SIZE)
        except socket.timeout:
            raise Timeout(f"no {what} from {self.path} in time") from None
        except OSError as error:
            self.close()
            raise ConnectionClosed(f"the connection to {self.path} closed: {error.strerror or error}") from None
        if not chunk:
            self.close()
            raise ConnectionClosed(f"the daemon at {self.path} closed the connection")
        buffer = self._buffer
        start = len(buffer)
        buffer += chunk
        end = buffer.find(b"\n", start)
        if end == -1:
            return
        begin = 0
        while end != -1:
            line = bytes(buffer[begin:end])
            begin = end + 1
            if line.strip():
                self._file(line)
            end = buffer.find(b"\n", begin)
        del buffer[:begin]

    def _file(self, line: bytes) -> None:
        kind, key, message = protocol.route(line, self._pending, self._replies)
        if kind == protocol.NOTIFICATION:
            self._notifications.append(message)
        elif kind == protocol.REPLY:
            self._replies[key] = message
        else:
            self.others.append(message)
