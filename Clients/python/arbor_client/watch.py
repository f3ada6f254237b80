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

import collections
import time
from typing import TYPE_CHECKING, Any, Callable, Deque, Generator, Iterator, Optional, Sequence

from .connection import Connection
from .errors import ArborError, CannotConnect, ClientError, ConnectionClosed, Timeout
from .follow import EventFollower, StateFollower
from .reconnect import Reconnect
from .results import Event, Update

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client

#: ``on_connection(event, detail)``: ``("subscribed", revision)`` once subscribed (the
#: revision it goes on from; ``None`` for an event watch), ``("lost", error)`` when the
#: connection closed or could not be opened again.
ConnectionCallback = Callable[[str, Any], None]


def drive(steps: Generator, connection: Connection, timeout: Optional[float]) -> Any:
    """Runs a follower's subscribing steps with calls on ``connection``."""
    try:
        call = next(steps)
        while True:
            try:
                result = connection.call(call[0], call[1], timeout=timeout)
            except ArborError as error:
                call = steps.throw(error)
            else:
                call = steps.send(result)
    except StopIteration as done:
        return done.value


class _Watch:
    def __init__(self, client: "Client", follower: Any, reconnect: Any, on_connection: Optional[ConnectionCallback]):
        self._client = client
        self._follower = follower
        self._policy = Reconnect.of(reconnect)
        self._on_connection = on_connection
        self._connection: Optional[Connection] = None
        self._ready: Deque[Any] = collections.deque()
        self._started = False
        self._finished = False
        self._lost_at: Optional[float] = None
        self._delay = self._policy.initial_delay
        self._next_attempt = 0.0
        self._open(None)

    def __iter__(self) -> "_Watch":
        return self

    def __next__(self) -> Any:
        return self.next()

    def __enter__(self) -> "_Watch":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Ends the watch and closes its connection; iterating then stops."""
        self._finished = True
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    @property
    def connected(self) -> bool:
        """Whether the watch has a connection now."""
        return self._connection is not None and not self._connection.closed

    def next(self, timeout: Optional[float] = None) -> Any:
        """The next update, waiting at most ``timeout`` seconds (``None``: as long as it
        takes, reconnecting included); ``Timeout`` when none came, the watch going on.

        Example::

            update = watch.next(timeout=5)
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._ready:
                return self._ready.popleft()
            if self._finished:
                raise StopIteration
            if self._connection is None:
                self._open(deadline)
                continue
            try:
                notification = self._connection.next_notification(deadline=deadline)
                item = self._follower.handle(notification)
            except Timeout:
                raise
            except ConnectionClosed as error:
                self._lose(error)
                continue
            except ClientError:
                self.close()
                raise
            if item is not None:
                return item

    def _open(self, deadline: Optional[float]) -> None:
        """Connects and subscribes: at once the first time (which must succeed), then
        after the policy's wait."""
        if not self._started:
            self._started = True
            try:
                self._subscribe(self._client.connect())
            except ConnectionClosed as error:
                self._lose(error)
            except BaseException:
                self.close()
                raise
            return
        wait = self._next_attempt - time.monotonic()
        if wait > 0:
            if deadline is not None and deadline - time.monotonic() < wait:
                time.sleep(max(deadline - time.monotonic(), 0))
                raise Timeout("no update in time: the watch is waiting to reconnect")
            time.sleep(wait)
        try:
            connection = self._client.connect()
        except CannotConnect as error:
            assert self._lost_at is not None
            limit = self._policy.give_up_after
            if limit is not None and time.monotonic() - self._lost_at >= limit:
                self.close()
                raise
            self._report("lost", error)
            self._delay = min(self._delay * 2, self._policy.max_delay)
            self._next_attempt = time.monotonic() + self._delay
            return
        try:
            self._subscribe(connection)
        except ConnectionClosed as error:
            self._lose(error)
        except BaseException:
            self.close()
            raise

    def _subscribe(self, connection: Connection) -> None:
        self._connection = connection
        try:
            updates = drive(self._follower.subscribe(), connection, self._client.timeout)
        except Timeout:
            # The daemon did not answer the subscription: lost, as if it closed.
            connection.close()
            raise ConnectionClosed("the daemon did not answer the watch's subscription in time") from None
        self._ready.extend(updates)
        self._lost_at = None
        self._delay = self._policy.initial_delay
        self._report("subscribed", getattr(self._follower, "revision", None))

    def _lose(self, error: ClientError) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        self._report("lost", error)
        if not self._policy.enabled:
            self.close()
            raise error
        if self._lost_at is None:
            self._lost_at = time.monotonic()
            self._delay = self._policy.initial_delay
        self._next_attempt = time.monotonic() + self._delay

    def _report(self, event: str, detail: Any) -> None:
        if self._on_connection is not None:
            self._on_connection(event, detail)


class StateWatch(_Watch):
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

    @property
    def value(self) -> Any:
        """The value as of the latest update built (``None`` before the first)."""
        return self._follower.value

    @property
    def revision(self) -> Optional[int]:
        """The revision of the latest update built."""
        return self._follower.revision

    def __next__(self) -> Update:
        return self.next()

    def __iter__(self) -> Iterator[Update]:
        return self


class EventWatch(_Watch):
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

    def __next__(self) -> Event:
        return self.next()

    def __iter__(self) -> Iterator[Event]:
        return self
