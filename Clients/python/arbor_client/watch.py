"""Blocking watches: iterators of a value's updates (``StateWatch``) or of the events
models send (``EventWatch``), each on a connection of its own.

When the connection is lost (the daemon restarts, or is killed and started again on the
same socket), a watch connects again per its ``Reconnect`` policy. A state watch then
resumes with ``since`` set to the last revision it handed out: every revision comes
once, in order, with no gap. When the daemon cannot resume from there (that revision
was lost in a crash under ``--fsync batch``, or is older than the history kept), the
next update is a ``"resync"`` with the whole value::

    with client.watch("/counters") as updates:
        for update in updates:
            print(update.revision, update.kind, len(update.value))

Iterating waits as long as it takes; ``updates.next(timeout=5)`` waits at most 5 s and
raises ``Timeout`` (the watch goes on: call it again). The watch subscribes when it is
made, and that first connection must succeed (``CannotConnect`` otherwise). It reads
only while it is asked for updates: a watch nobody reads falls behind, and the daemon
then sends one resync in place of the patches it dropped; a lost connection is noticed,
and mended, at the next ask.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Dict, Generator, Generic, Iterator, Optional, Sequence, TypeVar

from .blocking import run_blocking
from .connection import Connection
from .follow import EventFollower, StateFollower
from .follow import drive as drive_steps
from .results import Event, Update
from .watch_loop import FINISHED, ConnectionCallback, StateValue, WatchLoop

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client

#: What a watch hands out: an ``Update`` or an ``Event``.
Item = TypeVar("Item")


def drive(steps: Generator, connection: Connection, timeout: Optional[float]) -> Any:
    """Runs a follower's subscribing steps with calls on ``connection``.

    Example::

        updates = drive(StateFollower("/counters").subscribe(), connection, timeout=5)
    """

    async def call(method: str, params: Dict[str, Any]) -> Any:
        return connection.call(method, params, timeout=timeout)

    return run_blocking(drive_steps(steps, call))


class _Watch(WatchLoop, Generic[Item]):
    """``WatchLoop`` over a blocking ``Connection``: each step runs to its end at once."""

    def __init__(self, client: "Client", follower: Any, reconnect: Any, on_connection: Optional[ConnectionCallback]):
        super().__init__(client, follower, reconnect, on_connection)
        run_blocking(self._start())

    def __iter__(self) -> Iterator[Item]:
        return self

    def __next__(self) -> Item:
        return self.next()

    def __enter__(self) -> "_Watch[Item]":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Ends the watch and closes its connection; iterating then stops."""
        run_blocking(self._end())

    @property
    def connected(self) -> bool:
        """Whether the watch has a connection now."""
        return self._connection is not None and not self._connection.closed

    def next(self, timeout: Optional[float] = None) -> Item:
        """The next update, waiting at most ``timeout`` seconds (``None``: as long as it
        takes, reconnecting included); ``Timeout`` when none came, the watch going on.

        Example::

            update = watch.next(timeout=5)
        """
        item = run_blocking(self._next_item(timeout))
        if item is FINISHED:
            raise StopIteration
        return item

    # The I/O of WatchLoop's steps: blocking calls, which never suspend.

    async def _connect(self) -> Connection:
        return self._client.connect()

    async def _call(self, connection: Connection, method: str, params: Dict[str, Any]) -> Any:
        return connection.call(method, params, timeout=self._client.timeout)

    async def _next_notification(self, connection: Connection, deadline: Optional[float]) -> Dict[str, Any]:
        return connection.next_notification(deadline=deadline)

    async def _sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    async def _close_connection(self, connection: Connection) -> None:
        connection.close()


class StateWatch(StateValue, _Watch[Update]):
    """The value at a path, kept current: an iterator of ``Update``s, the first with
    the value (now, or at ``since``), then one per revision that changed it, its patch
    applied. ``value`` and ``revision`` are the latest handed out.

    Example::

        watch = client.watch("/counters/0/counter/count")
        first = watch.next(timeout=5)
        client.intent("/counters/0/counter", "incrementTapped")
        assert watch.next(timeout=5).value == first.value + 1
    """

    def __init__(self, client: "Client", path: str = "", since: Optional[int] = None, reconnect: Any = None,
                 on_connection: Optional[ConnectionCallback] = None):
        super().__init__(client, StateFollower(path, since), reconnect, on_connection)
        self.path = path


class EventWatch(_Watch[Event]):
    """The events models at or under a path send, of the given types (all when
    ``None``): an iterator of ``Event``s. Events sent while the connection was lost are
    not seen (they are not journalled); the daemon closes an event watch that falls too
    far behind (``WatchClosed``).

    Example::

        for event in client.events("/counters", types=["CounterRowModel.Event"]):
            print(event.source_path, event.event)
    """

    def __init__(self, client: "Client", path: str = "", types: Optional[Sequence[str]] = None, reconnect: Any = None,
                 on_connection: Optional[ConnectionCallback] = None):
        super().__init__(client, EventFollower(path, types), reconnect, on_connection)
        self.path = path
