"""The blocking client: calls on one connection kept open, watches on their own.

Example::

    import arbor_client

    client = arbor_client.Client()          # $ARBOR_SOCKET, or the lone daemon's socket
    client.intent("/", "addButtonTapped")
    client.intent("/counters/0/counter", "incrementTapped")
    print(client.get("/counters/0/counter/count").value)   # 1
    for update in client.watch("/counters/0/counter/count"):
        print(update.revision, update.value)
"""

from __future__ import annotations

import threading
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence

from . import protocol
from .blocking import run_blocking
from .connection import Connection
from .ssh import SSHConnection
from .errors import ArborError, ConnectionClosed
from .results import Change, HistoryPage, IntentResult, State
from .sockets_in_turn import SocketArgument, SocketsInTurn
from .watch import ConnectionCallback, EventWatch, StateWatch


class Client(SocketsInTurn):
    """A client of one daemon (or of several sharing one store: a leader and its
    standbys, tried in turn).

    ``socket``: the daemon's socket, or a list of them; ``None`` finds it as arborctl
    does (``$ARBOR_SOCKET``, else the lone ``*.sock`` in ``$XDG_RUNTIME_DIR/arbor``, then
    ``/run/arbor`` for root or ``/tmp/arbor-UID``). ``host``: a daemon on another machine,
    ``ssh://[user@]host[:port][/path/to.sock]``, reached as ``arborctl --host`` does
    (``$ARBOR_HOST`` when neither is given; ``socket`` is then the remote socket; see
    ``arbor_client.ssh``). ``timeout``: the seconds a call waits
    for its reply before ``Timeout`` (``None``: forever).

    Calls share one connection, opened at the first call and opened again when the daemon
    closed it (a restart between two calls goes unnoticed). A call that was sent when
    the connection closed raises ``ConnectionClosed``: whether it ran is unknown. The
    client may be shared by threads (their calls take turns); each watch has a
    connection of its own.

    Example::

        with arbor_client.Client("/tmp/arbor-1000/counterfactd.sock", timeout=5) as client:
            print(client.status()["revision"])
    """

    def __init__(self, socket: SocketArgument = None, timeout: Optional[float] = 10.0, host: Optional[str] = None):
        super().__init__(socket, timeout, host)
        self._connection: Optional[Connection] = None
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"Client({self.socket!r})"

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the calls' connection (watches have their own: close them apart)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def connect(self) -> Connection:
        """A new connection of its own: to the socket that answered last, else the next
        one that answers. For several calls in a row on one connection, or a raw watch.

        Example::

            with client.connect() as connection:
                connection.call("state.watch")
        """

        async def open_socket(path: str) -> Connection:
            if self.ssh is not None:
                return SSHConnection.open_ssh(self.ssh, self.timeout)
            return Connection.open(path, self.timeout)

        return run_blocking(self._connect_in_turn(open_socket))

    def _shared(self) -> Connection:
        if self._connection is None or not self._connection.is_alive():
            if self._connection is not None:
                self._connection.close()
            self._connection = self.connect()
        return self._connection

    # Any method.

    def call(self, method: str, params: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None) -> Any:
        """Calls any method of the daemon (Docs/Protocol.md) and returns its result; an
        error is raised as its ``ArborError`` subclass.

        Example::

            status = client.call("daemon.status")
            record = client.call("state.snapshot")
        """
        with self._lock:
            connection = self._shared()
            try:
                return connection.call(method, params, timeout)
            except ConnectionClosed:
                self._connection = None
                raise

    def batch(self, calls: Iterable[protocol.CallSpec], raise_errors: bool = False, timeout: Optional[float] = None) -> List[Any]:
        """Sends calls as one JSON-RPC batch (one line, one reply) and returns their
        outcomes in order: each the call's result, or the ``ArborError`` it failed with
        (``raise_errors=True`` raises the first instead). Watches cannot be batched.

        Example::

            from arbor_client import intent_request
            reply, count = client.batch([
                intent_request("/counters/0/counter", "incrementTapped"),
                ("state.get", {"path": "/counters/0/counter/count"}),
            ])
            print(reply["revision"], count["value"])
        """
        calls = list(calls)
        with self._lock:
            connection = self._shared()
            try:
                outcomes = connection.batch(calls, timeout)
            except ConnectionClosed:
                self._connection = None
                raise
        if raise_errors:
            for outcome in outcomes:
                if isinstance(outcome, ArborError):
                    raise outcome
        return outcomes

    # The state.

    def get(self, path: str = "") -> State:
        """The value at ``path`` (a JSON Pointer; ``""`` or ``/`` is the root) and its
        revision; ``PathNotFound`` when nothing is there.

        Example::

            state = client.get("/counters/0/counter/count")
            print(state.revision, state.value)
        """
        result = self.call("state.get", {"path": protocol.wire_path(path)})
        return State(result["revision"], result.get("value"))

    def at(self, revision: int, path: str = "") -> State:
        """The value at ``path`` as it was at a past ``revision`` (``state.at``: time
        travel within the history kept), with the time that revision was committed.

        Example::

            then = client.at(4, "/counters/0/counter/count")
            print(then.value, then.time)
        """
        result = self.call("state.at", {"revision": revision, "path": protocol.wire_path(path)})
        return State(result["revision"], result.get("value"), result.get("time"))

    def snapshot(self) -> Dict[str, Any]:
        """The snapshot record of the whole tree (``state.snapshot``)."""
        return self.call("state.snapshot")

    def restore(self, record: Dict[str, Any]) -> int:
        """Replaces the whole tree from a snapshot record (``state.restore``, the admin
        role); returns the new revision. Watchers get a resync."""
        return self.call("state.restore", {"record": record})["revision"]

    # Intents.

    def intent(self, path: Any, name: str, /, **params: Any) -> IntentResult:
        """Calls intent ``name`` of the model at ``path`` (a JSON Pointer, ``""`` or ``/``
        for the root, or ``{"id": "..."}``) with its parameters by label; replies once
        it committed.

        Example::

            client.intent("/", "addButtonTapped")
            reply = client.intent("/counters/0/counter", "incrementTapped")
            client.intent("", "removeButtonTapped", id="72c769dae94f5355")
        """
        return self.call_intent(path, name, params)

    def call_intent(self, target: Any, name: str, params: Optional[Dict[str, Any]] = None, wait: Optional[str] = None,
                    timeout: Optional[float] = None) -> IntentResult:
        """``intent`` with its parameters as a dict, and ``wait="settled"`` to reply once
        the tasks the intent started have ended too (give it a ``timeout``).

        Example::

            client.call_intent("/counters/0/counter", "factButtonTapped", wait="settled", timeout=30)
        """
        result = self.call("intent.call", protocol.intent_params(target, name, params, wait), timeout)
        return IntentResult.from_json(result)

    def undo(self) -> Dict[str, Any]:
        """Undoes the tree's most recent step (``history.undo``): ``{revision, canUndo,
        canRedo}``; ``NothingToUndo`` when there is none."""
        return self.call("history.undo")

    def redo(self) -> Dict[str, Any]:
        """Redoes the most recently undone step (``history.redo``)."""
        return self.call("history.redo")

    # The daemon.

    def status(self) -> Dict[str, Any]:
        """``daemon.status``: name, version, revision, clients, the journal's figures, ..."""
        return self.call("daemon.status")

    def discover(self) -> Dict[str, Any]:
        """``rpc.discover``: the OpenRPC document, with every intent's JSON Schemas under
        ``components["x-intents"]``."""
        return self.call("rpc.discover")

    # History.

    def history(self, since: Optional[int] = None, limit: Optional[int] = None) -> HistoryPage:
        """One page of the journalled revisions after ``since`` (default: the oldest
        kept), at most ``limit`` (1 to 10,000; default 100).

        Example::

            page = client.history(since=0, limit=10)
            for change in page.changes:
                print(change.revision, change.intent, change.target)
        """
        return HistoryPage.from_json(self.call("history.changes", protocol.history_params(since, limit)))

    def changes(self, since: Optional[int] = None, page_size: int = 100) -> Iterator[Change]:
        """Every journalled revision after ``since``, oldest first, page after page until
        the newest (``history.changes``).

        Example::

            intents = [change.intent for change in client.changes(since=0)]
        """
        while True:
            page = self.history(since, page_size)
            yield from page.changes
            if page.next is None or not page.changes:
                return
            since = page.next

    # Watches.

    def watch(self, path: str = "", since: Optional[int] = None, reconnect: Any = None,
              on_connection: Optional[ConnectionCallback] = None) -> StateWatch:
        """The value at ``path`` kept current: an iterator of ``Update``s (the first the
        value now, or at ``since``; then one per revision, its patch applied) that goes
        on across daemon restarts, resuming from the last revision it handed out.
        ``reconnect``: ``True`` (a minute's tries), ``False``, or a ``Reconnect``.

        Example::

            watch = client.watch("/counters")
            print(watch.next(timeout=5).value)
            for update in watch:
                print(update.revision, update.patch)
        """
        return StateWatch(self, protocol.wire_path(path), since, reconnect, on_connection)

    def events(self, path: str = "", types: Optional[Sequence[str]] = None, reconnect: Any = None,
               on_connection: Optional[ConnectionCallback] = None) -> EventWatch:
        """The Codable events sent by models at or under ``path``, of the given ``types``
        (such as ``"CounterRowModel.Event"``; all when ``None``): an iterator of ``Event``s.

        Example::

            for event in client.events(types=["CounterRowModel.Event"]):
                print(event.revision, event.source_path, event.event)
        """
        return EventWatch(self, protocol.wire_path(path), types, reconnect, on_connection)
