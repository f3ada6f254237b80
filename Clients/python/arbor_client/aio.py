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
from typing import Any, AsyncIterator, Dict, List, Optional, Sequence

from . import protocol
from .aio_connection import AsyncConnection
from .ssh import AsyncSSHConnection
from .aio_watch import AsyncEventWatch, AsyncStateWatch
from .errors import ArborError
from .results import Change, HistoryPage, IntentResult, State
from .sockets_in_turn import SocketArgument, SocketsInTurn
from .watch_loop import ConnectionCallback


class AsyncClient(SocketsInTurn):
    """``Client`` for asyncio: the same methods, each a coroutine (``changes`` an async
    generator, ``watch`` and ``events`` async iterators); ``host="ssh://…"`` reaches a
    daemon on another machine as ``Client`` does.

    Example::

        async with arbor_client.AsyncClient(socket, timeout=5) as client:
            reply = await client.intent("/counters/0/counter", "incrementTapped")
            print(reply.revision, (await client.get("/counters/0/counter/count")).value)
    """

    def __init__(self, socket: SocketArgument = None, timeout: Optional[float] = 10.0, host: Optional[str] = None):
        super().__init__(socket, timeout, host)
        self._connection: Optional[AsyncConnection] = None
        self._opening: Optional[asyncio.Lock] = None

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
        """A new connection of its own: to the socket that answered last, else the next.

        Example::

            async with await client.connect() as connection:
                await connection.call("state.watch")
        """
        if self.ssh is not None:
            address = self.ssh
            return await self._connect_in_turn(lambda path: AsyncSSHConnection.open_ssh(address, self.timeout))
        return await self._connect_in_turn(lambda path: AsyncConnection.open(path, self.timeout))

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
        return HistoryPage.from_json(await self.call("history.changes", protocol.history_params(since, limit)))

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
