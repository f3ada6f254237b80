"""One asyncio connection to a daemon's socket, read by a task of its own: replies go to
the calls waiting for them (several may be under way at once, matched by id),
notifications to ``next_notification``. ``AsyncClient`` keeps one for its calls and
opens one per watch::

    async with await AsyncConnection.open("/run/arbor/counterfactd.sock") as connection:
        await connection.call("state.watch", {"path": "/counters"})
        print(await connection.next_notification())
"""

from __future__ import annotations

import asyncio
import collections
import select
import socket
from typing import Any, Deque, Dict, List, Optional, Sequence

from . import protocol
from .errors import CannotConnect, ConnectionClosed, MalformedReply, Timeout

_LINE_LIMIT = 64 << 20
_CLOSED = object()


class AsyncConnection:
    """One connection to a daemon's socket, read by a task of its own: replies go to the
    calls waiting for them, notifications to ``next_notification``.

    Example::

        connection = await AsyncConnection.open("/run/arbor/counterfactd.sock")
        print(await connection.call("state.get", {"path": ""}))
        await connection.close()
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str, timeout: Optional[float]):
        self.path = path
        self.timeout = timeout
        self._reader = reader
        self._writer = writer
        self._numbering = protocol.Numbering()
        self._pending: Dict[Any, asyncio.Future] = {}
        self._notifications: asyncio.Queue = asyncio.Queue()
        self._write_lock = asyncio.Lock()
        #: Lines that were neither a reply to a call of this connection nor a
        #: notification (the last 100).
        self.others: Deque[Any] = collections.deque(maxlen=100)
        self.closed = False
        self._task = asyncio.ensure_future(self._read_lines())

    @classmethod
    async def open(cls, path: str, timeout: Optional[float] = 10.0) -> "AsyncConnection":
        """Connects to the socket at ``path``; ``CannotConnect`` when nothing listens there."""
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(path, limit=_LINE_LIMIT), timeout)
        except asyncio.TimeoutError:
            raise CannotConnect(path, "the connection was not accepted in time") from None
        except OSError as error:
            raise CannotConnect(path, error.strerror or str(error)) from None
        return cls(reader, writer, path, timeout)

    async def __aenter__(self) -> "AsyncConnection":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def close(self) -> None:
        """Closes the connection; calls still waiting fail with ``ConnectionClosed``."""
        self._shut()
        if not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass

    def _shut(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self._writer.close()
        except Exception:
            pass
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionClosed(f"the daemon at {self.path} closed the connection"))
        self._pending.clear()
        self._notifications.put_nowait(_CLOSED)

    def is_alive(self) -> bool:
        """Whether the daemon has not closed its end, asked without waiting (the reading
        task may not have run since the daemon went)."""
        if self.closed:
            return False
        transport_socket = self._writer.get_extra_info("socket")
        if transport_socket is None:
            return True
        try:
            readable, _, _ = select.select([transport_socket.fileno()], [], [], 0)
            if not readable:
                return True
            with socket.fromfd(transport_socket.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                return probe.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
        except BlockingIOError:
            return True
        except (OSError, ValueError):
            return False

    async def _read_lines(self) -> None:
        try:
            while True:
                line = await self._reader.readline()
                if not line:
                    break
                if line.strip():
                    self._file(line)
        except (OSError, ValueError, asyncio.IncompleteReadError):
            pass
        finally:
            self._shut()

    def _file(self, line: bytes) -> None:
        waiting = [key for key, future in self._pending.items() if not future.done()]
        kind, key, message = protocol.route(line, waiting)
        if kind == protocol.NOTIFICATION:
            self._notifications.put_nowait(message)
            return
        if kind == protocol.REPLY:
            self._pending[key].set_result(message)
        else:
            self.others.append(message)
        if protocol.closes_connection(message):
            self._shut()

    async def _exchange(self, line: bytes, key: int, what: str, timeout: Optional[float]) -> Any:
        if self.closed:
            raise ConnectionClosed()
        future = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            async with self._write_lock:
                try:
                    self._writer.write(line)
                    await self._writer.drain()
                except OSError as error:
                    self._shut()
                    raise ConnectionClosed(f"the connection to {self.path} closed: {error.strerror or error}") from None
            seconds = self.timeout if timeout is None else timeout
            try:
                return await asyncio.wait_for(future, seconds)
            except asyncio.TimeoutError:
                raise Timeout(f"no {what} from {self.path} in time") from None
        finally:
            self._pending.pop(key, None)

    async def request(self, method: str, params: Any = None, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Calls a method and returns its whole response object."""
        request_id = self._numbering.take()
        line = protocol.encode(protocol.request(request_id, method, params))
        reply = await self._exchange(line, request_id, f"reply to {method}", timeout)
        if not isinstance(reply, dict):
            raise MalformedReply(f"an array came back for the single call {request_id}")
        return reply

    async def call(self, method: str, params: Any = None, timeout: Optional[float] = None) -> Any:
        """Calls a method and returns its result; an error is raised as its ``ArborError``
        subclass."""
        return protocol.result_of(await self.request(method, params, timeout))

    async def batch(self, calls: Sequence[protocol.CallSpec], timeout: Optional[float] = None) -> List[Any]:
        """One JSON-RPC batch: the outcomes in order, each a result or an ``ArborError``."""
        calls = list(calls)
        if not calls:
            return []
        first = self._numbering.take(len(calls))
        line = protocol.encode(protocol.batch_message(first, calls))
        reply = await self._exchange(line, first, f"reply to a batch of {len(calls)}", timeout)
        return protocol.batch_outcomes(first, len(calls), reply)

    async def next_notification(self) -> Dict[str, Any]:
        """The next notification; ``ConnectionClosed`` once the connection closed and every
        notification before has been taken."""
        message = await self._notifications.get()
        if message is _CLOSED:
            self._notifications.put_nowait(_CLOSED)
            raise ConnectionClosed(f"the daemon at {self.path} closed the connection")
        return message
