"""A watch's loop, written once for the blocking and the asyncio watches: hand out what
is ready, read the next notification, and when the connection is lost connect again per
the ``Reconnect`` policy and subscribe again (the follower decides from where).

``WatchLoop``'s steps are coroutines that reach the daemon only through five methods a
subclass gives: ``_connect``, ``_call``, ``_next_notification``, ``_sleep`` and
``_close_connection``. The asyncio watch (``aio_watch``) gives ones that wait and awaits
the steps; the blocking watch (``watch``) gives ones that block and runs each step with
``run_blocking``::

    class BlockingWatch(WatchLoop):
        async def _sleep(self, seconds):
            time.sleep(seconds)
        ...

        def next(self, timeout=None):
            item = run_blocking(self._next_item(timeout))
            if item is FINISHED:
                raise StopIteration
            return item
"""

from __future__ import annotations

import collections
import time
from typing import Any, Callable, Deque, Dict, Optional

from .errors import CannotConnect, ClientError, ConnectionClosed, Timeout
from .follow import StateFollower, drive
from .reconnect import Reconnect

#: ``on_connection(event, detail)``: ``("subscribed", revision)`` once subscribed (the
#: revision it goes on from; ``None`` for an event watch), ``("lost", error)`` when the
#: connection closed or could not be opened again.
ConnectionCallback = Callable[[str, Any], None]

#: What ``WatchLoop._next_item`` returns once the watch was closed.
FINISHED = object()


class WatchLoop:
    """The state of one watch (its follower, connection, the updates ready to hand out,
    its reconnecting) and its steps, as coroutines over the I/O methods a subclass gives.

    Example (the asyncio watch)::

        class AsyncWatch(WatchLoop):
            async def _connect(self):
                return await self._client.connect()
            ...

            async def next(self, timeout=None):
                item = await self._next_item(timeout)
                if item is FINISHED:
                    raise StopAsyncIteration
                return item
    """

    def __init__(self, client: Any, follower: Any, reconnect: Any, on_connection: Optional[ConnectionCallback]):
        self._client = client
        self._follower = follower
        self._policy = Reconnect.of(reconnect)
        self._on_connection = on_connection
        self._connection: Any = None
        self._ready: Deque[Any] = collections.deque()
        self._started = False
        self._finished = False
        self._lost_at: Optional[float] = None
        self._delay = self._policy.initial_delay
        self._next_attempt = 0.0

    # The I/O, given by the blocking and the asyncio watch.

    async def _connect(self) -> Any:
        """A new connection to the client's daemon (``CannotConnect`` when none answers)."""
        raise NotImplementedError

    async def _call(self, connection: Any, method: str, params: Dict[str, Any]) -> Any:
        """A call's result on ``connection``, waiting as long as the client's timeout."""
        raise NotImplementedError

    async def _next_notification(self, connection: Any, deadline: Optional[float]) -> Dict[str, Any]:
        """The connection's next notification, by the monotonic ``deadline`` (``Timeout``)."""
        raise NotImplementedError

    async def _sleep(self, seconds: float) -> None:
        raise NotImplementedError

    async def _close_connection(self, connection: Any) -> None:
        raise NotImplementedError

    # The steps.

    async def _start(self) -> None:
        """Connects and subscribes, once; that first connection must succeed."""
        if not self._started:
            await self._open(None)

    async def _end(self) -> None:
        """Ends the watch and closes its connection."""
        self._finished = True
        if self._connection is not None:
            connection, self._connection = self._connection, None
            await self._close_connection(connection)

    async def _next_item(self, timeout: Optional[float]) -> Any:
        """The next update (or event), waiting at most ``timeout`` seconds (``None``: as
        long as it takes, reconnecting included); ``Timeout`` when none came, the watch
        going on; ``FINISHED`` once the watch was closed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._ready:
                return self._ready.popleft()
            if self._finished:
                return FINISHED
            if self._connection is None:
                await self._open(deadline)
                continue
            try:
                notification = await self._next_notification(self._connection, deadline)
                item = self._follower.handle(notification)
            except Timeout:
                raise
            except ConnectionClosed as error:
                await self._lose(error)
                continue
            except ClientError:
                await self._end()
                raise
            if item is not None:
                return item

    async def _open(self, deadline: Optional[float]) -> None:
        """Connects and subscribes: at once the first time (which must succeed), then
        after the policy's wait."""
        if not self._started:
            self._started = True
            try:
                await self._subscribe(await self._connect())
            except ConnectionClosed as error:
                await self._lose(error)
            except BaseException:
                await self._end()
                raise
            return
        wait = self._next_attempt - time.monotonic()
        if wait > 0:
            if deadline is not None and deadline - time.monotonic() < wait:
                await self._sleep(max(deadline - time.monotonic(), 0))
                raise Timeout("no update in time: the watch is waiting to reconnect")
            await self._sleep(wait)
        try:
            connection = await self._connect()
        except CannotConnect as error:
            assert self._lost_at is not None
            limit = self._policy.give_up_after
            if limit is not None and time.monotonic() - self._lost_at >= limit:
                await self._end()
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
            await self._end()
            raise

    async def _subscribe(self, connection: Any) -> None:
        self._connection = connection

        async def call(method: str, params: Dict[str, Any]) -> Any:
            return await self._call(connection, method, params)

        try:
            updates = await drive(self._follower.subscribe(), call)
        except Timeout:
            # The daemon did not answer the subscription: lost, as if it closed.
            await self._close_connection(connection)
            raise ConnectionClosed("the daemon did not answer the watch's subscription in time") from None
        self._ready.extend(updates)
        self._lost_at = None
        self._delay = self._policy.initial_delay
        self._report("subscribed", getattr(self._follower, "revision", None))

    async def _lose(self, error: ClientError) -> None:
        if self._connection is not None:
            connection, self._connection = self._connection, None
            await self._close_connection(connection)
        self._report("lost", error)
        if not self._policy.enabled:
            await self._end()
            raise error
        if self._lost_at is None:
            self._lost_at = time.monotonic()
            self._delay = self._policy.initial_delay
        self._next_attempt = time.monotonic() + self._delay

    def _report(self, event: str, detail: Any) -> None:
        if self._on_connection is not None:
            self._on_connection(event, detail)


class StateValue:
    """``value`` and ``revision`` of a state watch, blocking or asyncio, as its follower
    has them.

    Example::

        watch = client.watch("/counters/0/counter/count")
        watch.next(timeout=5)
        print(watch.revision, watch.value)
    """

    _follower: StateFollower

    @property
    def value(self) -> Any:
        """The value as of the latest update built (``None`` before the first)."""
        return self._follower.value

    @property
    def revision(self) -> Optional[int]:
        """The revision of the latest update built."""
        return self._follower.revision
