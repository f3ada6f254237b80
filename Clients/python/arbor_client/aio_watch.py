"""Asyncio watches: async iterators of a value's updates (``AsyncStateWatch``) or of the
events models send (``AsyncEventWatch``), each on a connection of its own, reconnecting
and resuming as the blocking ``StateWatch`` and ``EventWatch`` do (``watch``)::

    async with client.watch("/counters") as updates:
        async for update in updates:
            print(update.revision, update.kind, len(update.value))
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Dict, Generic, Optional, Sequence, TypeVar

from .aio_connection import AsyncConnection
from .errors import Timeout
from .follow import EventFollower, StateFollower
from .results import Event, Update
from .watch_loop import FINISHED, ConnectionCallback, StateValue, WatchLoop

if TYPE_CHECKING:  # pragma: no cover
    from .aio import AsyncClient

#: What a watch hands out: an ``Update`` or an ``Event``.
Item = TypeVar("Item")


class _AsyncWatch(WatchLoop, Generic[Item]):
    """``WatchLoop`` over an ``AsyncConnection``: its steps awaited."""

    def __aiter__(self) -> "_AsyncWatch[Item]":
        return self

    async def __anext__(self) -> Item:
        return await self.next()

    async def __aenter__(self) -> "_AsyncWatch[Item]":
        await self.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def start(self) -> None:
        """Subscribes now (else the first ``next`` does); the first connection must succeed."""
        await self._start()

    async def close(self) -> None:
        """Ends the watch and closes its connection."""
        await self._end()

    async def next(self, timeout: Optional[float] = None) -> Item:
        """The next update, waiting at most ``timeout`` seconds (``None``: as long as it
        takes); ``Timeout`` when none came, the watch going on. ``StopAsyncIteration``
        once the watch was closed.

        Example::

            update = await watch.next(timeout=5)
        """
        item = await self._next_item(timeout)
        if item is FINISHED:
            raise StopAsyncIteration
        return item

    # The I/O of WatchLoop's steps.

    async def _connect(self) -> AsyncConnection:
        return await self._client.connect()

    async def _call(self, connection: AsyncConnection, method: str, params: Dict[str, Any]) -> Any:
        return await connection.call(method, params, timeout=self._client.timeout)

    async def _next_notification(self, connection: AsyncConnection, deadline: Optional[float]) -> Dict[str, Any]:
        if deadline is None:
            return await connection.next_notification()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Timeout("no update in time")
        try:
            return await asyncio.wait_for(connection.next_notification(), remaining)
        except asyncio.TimeoutError:
            raise Timeout("no update in time") from None

    async def _sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def _close_connection(self, connection: AsyncConnection) -> None:
        await connection.close()


class AsyncStateWatch(StateValue, _AsyncWatch[Update]):
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


class AsyncEventWatch(_AsyncWatch[Event]):
    """``EventWatch`` for asyncio: an async iterator of ``Event``s.

    Example::

        async for event in client.events(types=["CounterRowModel.Event"]):
            print(event.source_path, event.event)
    """

    def __init__(self, client: "AsyncClient", path: str = "", types: Optional[Sequence[str]] = None, reconnect: Any = None,
                 on_connection: Optional[ConnectionCallback] = None):
        super().__init__(client, EventFollower(path, types), reconnect, on_connection)
        self.path = path
