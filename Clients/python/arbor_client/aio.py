"""The asyncio client: ``AsyncClient`` does what ``Client`` does, with ``await``; calls
share one connection (several may be under way at once, matched by id), and each
watch is an async iterator on a connection of its own.

Example::

    import asyncio, arbor_client

    async def main():
        async with arbor_client.AsyncClient() as client:
            await client.intent("/", "addButtonTapped")
            async with client.watch("/counters") as updates:
                async for update in updates:
                    print(update.revision, len(update.value))

    asyncio.run(main())
"""

from __future__ import annotations

import asyncio
import collections
import select
import socket
import time
from typing import Any, AsyncIterator, Deque, Dict, Generator, List, Optional, Sequence

from . import protocol
from .errors import ArborError, CannotConnect, ClientError, ConnectionClosed, MalformedReply, Timeout
from .follow import EventFollower, StateFollower
from .reconnect import Reconnect
from .results import Change, Event, HistoryPage, IntentResult, State, Update
from .socket_path import find_sockets
from .watch import ConnectionCallback

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
        try:
            message = protocol.decode(line)
        except MalformedReply:
            self.others.append(line)
            return
        kind, key = protocol.classify(message)
        if kind == protocol.NOTIFICATION:
            self._notifications.put_nowait(message)
            return
        if kind not in (protocol.REPLY, protocol.BATCH) or key not in self._pending:
            key = protocol.pending_key_for_other(message, [k for k, f in self._pending.items() if not f.done()])
        future = self._pending.get(key) if key is not None else None
        if future is not None and not future.done():
            future.set_result(message)
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


async def _drive(steps: Generator, connection: AsyncConnection, timeout: Optional[float]) -> Any:
    try:
        call = next(steps)
        while True:
            try:
                result = await connection.call(call[0], call[1], timeout=timeout)
            except ArborError as error:
                call = steps.throw(error)
            else:
                call = steps.send(result)
    except StopIteration as done:
        return done.value


class _AsyncWatch:
    def __init__(self, client: "AsyncClient", follower: Any, reconnect: Any, on_connection: Optional[ConnectionCallback]):
        self._client = client
        self._follower = follower
        self._policy = Reconnect.of(reconnect)
        self._on_connection = on_connection
        self._connection: Optional[AsyncConnection] = None
        self._ready: Deque[Any] = collections.deque()
        self._started = False
        self._finished = False
        self._lost_at: Optional[float] = None
        self._delay = self._policy.initial_delay
        self._next_attempt = 0.0

    def __aiter__(self) -> "_AsyncWatch":
        return self

    async def __anext__(self) -> Any:
        return await self.next()

    async def __aenter__(self) -> "_AsyncWatch":
        await self.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def start(self) -> None:
        """Subscribes now (else the first ``next`` does); the first connection must succeed."""
        if not self._started:
            await self._open(None)

    async def close(self) -> None:
        """Ends the watch and closes its connection."""
        self._finished = True
        if self._connection is not None:
            connection, self._connection = self._connection, None
            await connection.close()

    async def next(self, timeout: Optional[float] = None) -> Any:
        """The next update, waiting at most ``timeout`` seconds (``None``: as long as it
        takes); ``Timeout`` when none came, the watch going on. ``StopAsyncIteration``
        once the watch was closed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._ready:
                return self._ready.popleft()
            if self._finished:
                raise StopAsyncIteration
            if self._connection is None:
                await self._open(deadline)
                continue
            try:
                if deadline is None:
                    notification = await self._connection.next_notification()
                else:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise Timeout("no update in time")
                    try:
                        notification = await asyncio.wait_for(self._connection.next_notification(), remaining)
                    except asyncio.TimeoutError:
                        raise Timeout("no update in time") from None
                item = self._follower.handle(notification)
            except Timeout:
                raise
            except ConnectionClosed as error:
                await self._lose(error)
                continue
            except ClientError:
                await self.close()
                raise
            if item is not None:
                return item

    async def _open(self, deadline: Optional[float]) -> None:
        if not self._started:
            self._started = True
            try:
                await self._subscribe(await self._client.connect())
            except ConnectionClosed as error:
                await self._lose(error)
            except BaseException:
                await self.close()
                raise
            return
        wait = self._next_attempt - time.monotonic()
        if wait > 0:
            if deadline is not None and deadline - time.monotonic() < wait:
                await asyncio.sleep(max(deadline - time.monotonic(), 0))
                raise Timeout("no update in time: the watch is waiting to reconnect")
            await asyncio.sleep(wait)
        try:
            connection = await self._client.connect()
        except CannotConnect as error:
            assert self._lost_at is not None
            limit = self._policy.give_up_after
            if limit is not None and time.monotonic() - self._lost_at >= limit:
                await self.close()
                raise
            self._report("lost", error)
            self._delay = min(self._delay * 2, self._policy.max_delay)
            self._next_attempt = time.monotonic() + self._delay
            return
        try:
            await self._subscribe(connection)
        except ConnectionClosed as error:
            await self._lose(error)
        except BaseException:
            await self.close()
            raise

    async def _subscribe(self, connection: AsyncConnection) -> None:
        self._connection = connection
        try:
            updates = await _drive(self._follower.subscribe(), connection, self._client.timeout)
        except Timeout:
            await connection.close()
            raise ConnectionClosed("the daemon did not answer the watch's subscription in time") from None
        self._ready.extend(updates)
        self._lost_at = None
        self._delay = self._policy.initial_delay
        self._report("subscribed", getattr(self._follower, "revision", None))

    async def _lose(self, error: ClientError) -> None:
        if self._connection is not None:
            connection, self._connection = self._connection, None
            await connection.close()
        self._report("lost", error)
        if not self._policy.enabled:
            await self.close()
            raise error
        if self._lost_at is None:
            self._lost_at = time.monotonic()
            self._delay = self._policy.initial_delay
        self._next_attempt = time.monotonic() + self._delay

    def _report(self, event: str, detail: Any) -> None:
        if self._on_connection is not None:
            self._on_connection(event, detail)


class AsyncStateWatch(_AsyncWatch):
    """``StateWatch`` for asyncio: an async iterator of ``Update``s that resumes across
    daemon restarts. It subscribes at ``start()``, ``async with``, or the first ``next``.

    Example::

        async with client.watch("/counters/0/counter/count") as watch:
            first = await watch.next(timeout=5)
            async for update in watch:
                print(update.revision, update.value)
    """

    def __init__(self, client: "AsyncClient", path: str = "", since: Optional[int] = None, reconnect: Any = None,
                 on_connection: Optional[ConnectionCallback] = None):
        super().__init__(client, StateFollower(path, since), reconnect, on_connection)
        self.path = path

    @property
    def value(self) -> Any:
        """The value as of the latest update built."""
        return self._follower.value

    @property
    def revision(self) -> Optional[int]:
        """The revision of the latest update built."""
        return self._follower.revision

    async def __anext__(self) -> Update:
        return await super().__anext__()


class AsyncEventWatch(_AsyncWatch):
    """``EventWatch`` for asyncio: an async iterator of ``Event``s.

    Example::

        async for event in client.events(types=["CounterRowModel.Event"]):
            print(event.source_path, event.event)
    """

    def __init__(self, client: "AsyncClient", path: str = "", types: Optional[Sequence[str]] = None, reconnect: Any = None,
                 on_connection: Optional[ConnectionCallback] = None):
        super().__init__(client, EventFollower(path, types), reconnect, on_connection)
        self.path = path

    async def __anext__(self) -> Event:
        return await super().__anext__()


class AsyncClient:
    """``Client`` for asyncio: the same methods, each a coroutine (``changes`` an async
    generator, ``watch`` and ``events`` async iterators).

    Example::

        async with arbor_client.AsyncClient(socket, timeout=5) as client:
            reply = await client.intent("/counters/0/counter", "incrementTapped")
            print(reply.revision, (await client.get("/counters/0/counter/count")).value)
    """

    def __init__(self, socket: Any = None, timeout: Optional[float] = 10.0):
        self.sockets: List[str] = find_sockets(socket)
        self.timeout = timeout
        self._preferred = 0
        self._connection: Optional[AsyncConnection] = None
        self._opening: Optional[asyncio.Lock] = None

    @property
    def socket(self) -> str:
        """The socket tried first."""
        return self.sockets[self._preferred % len(self.sockets)]

    def __repr__(self) -> str:
        return f"AsyncClient({self.socket!r})"

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def close(self) -> None:
        """Closes the calls' connection (watches have their own)."""
        if self._connection is not None:
            connection, self._connection = self._connection, None
            await connection.close()

    async def connect(self) -> AsyncConnection:
        """A new connection of its own: to the socket that answered last, else the next."""
        paths = self.sockets
        failure: Optional[CannotConnect] = None
        for offset in range(len(paths)):
            index = (self._preferred + offset) % len(paths)
            try:
                connection = await AsyncConnection.open(paths[index], self.timeout)
            except CannotConnect as error:
                failure = error
                continue
            self._preferred = index
            return connection
        assert failure is not None
        if len(paths) > 1:
            raise CannotConnect(", ".join(paths), f"none of them answers (the last: {failure.reason})")
        raise failure

    async def _shared(self) -> AsyncConnection:
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:
            if self._connection is None or not self._connection.is_alive():
                if self._connection is not None:
                    await self._connection.close()
                self._connection = await self.connect()
            return self._connection

    async def call(self, method: str, params: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None) -> Any:
        """Calls any method and returns its result (``Client.call``)."""
        connection = await self._shared()
        return await connection.call(method, params, timeout)

    async def batch(self, calls: Any, raise_errors: bool = False, timeout: Optional[float] = None) -> List[Any]:
        """One JSON-RPC batch (``Client.batch``)."""
        connection = await self._shared()
        outcomes = await connection.batch(list(calls), timeout)
        if raise_errors:
            for outcome in outcomes:
                if isinstance(outcome, ArborError):
                    raise outcome
        return outcomes

    async def get(self, path: str = "") -> State:
        """The value at ``path`` and its revision (``Client.get``)."""
        result = await self.call("state.get", {"path": protocol.wire_path(path)})
        return State(result["revision"], result.get("value"))

    async def at(self, revision: int, path: str = "") -> State:
        """The value at ``path`` at a past revision (``Client.at``)."""
        result = await self.call("state.at", {"revision": revision, "path": protocol.wire_path(path)})
        return State(result["revision"], result.get("value"), result.get("time"))

    async def snapshot(self) -> Dict[str, Any]:
        """The snapshot record of the whole tree."""
        return await self.call("state.snapshot")

    async def restore(self, record: Dict[str, Any]) -> int:
        """Replaces the whole tree from a snapshot record; returns the new revision."""
        return (await self.call("state.restore", {"record": record}))["revision"]

    async def intent(self, path: Any, name: str, /, **params: Any) -> IntentResult:
        """Calls an intent (``Client.intent``)."""
        return await self.call_intent(path, name, params)

    async def call_intent(self, target: Any, name: str, params: Optional[Dict[str, Any]] = None, wait: Optional[str] = None,
                          timeout: Optional[float] = None) -> IntentResult:
        """Calls an intent with its parameters as a dict (``Client.call_intent``)."""
        result = await self.call("intent.call", protocol.intent_params(target, name, params, wait), timeout)
        return IntentResult.from_json(result)

    async def undo(self) -> Dict[str, Any]:
        """``history.undo``."""
        return await self.call("history.undo")

    async def redo(self) -> Dict[str, Any]:
        """``history.redo``."""
        return await self.call("history.redo")

    async def status(self) -> Dict[str, Any]:
        """``daemon.status``."""
        return await self.call("daemon.status")

    async def discover(self) -> Dict[str, Any]:
        """``rpc.discover``."""
        return await self.call("rpc.discover")

    async def history(self, since: Optional[int] = None, limit: Optional[int] = None) -> HistoryPage:
        """One page of ``history.changes`` (``Client.history``)."""
        params: Dict[str, Any] = {}
        if since is not None:
            params["since"] = since
        if limit is not None:
            params["limit"] = limit
        return HistoryPage.from_json(await self.call("history.changes", params))

    async def changes(self, since: Optional[int] = None, page_size: int = 100) -> AsyncIterator[Change]:
        """Every journalled revision after ``since``, page after page (``Client.changes``).

        Example::

            async for change in client.changes(since=0):
                print(change.revision, change.intent)
        """
        while True:
            page = await self.history(since, page_size)
            for change in page.changes:
                yield change
            if page.next is None or not page.changes:
                return
            since = page.next

    def watch(self, path: str = "", since: Optional[int] = None, reconnect: Any = None,
              on_connection: Optional[ConnectionCallback] = None) -> AsyncStateWatch:
        """The value at ``path`` kept current, across restarts (``Client.watch``)."""
        return AsyncStateWatch(self, protocol.wire_path(path), since, reconnect, on_connection)

    def events(self, path: str = "", types: Optional[Sequence[str]] = None, reconnect: Any = None,
               on_connection: Optional[ConnectionCallback] = None) -> AsyncEventWatch:
        """The events models send (``Client.events``)."""
        return AsyncEventWatch(self, protocol.wire_path(path), types, reconnect, on_connection)
