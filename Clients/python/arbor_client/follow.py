"""What a watch knows and does, without I/O: how to subscribe on a connection (fresh,
from a ``since`` revision, or resuming after a lost connection) and how each
notification changes the value. The blocking and the asyncio watches drive these.

Subscribing is a generator that yields ``(method, params)`` calls and is sent their
results (or thrown their ``ArborError``); it returns the updates to hand out::

    follower = StateFollower("/counters", since=None)
    steps = follower.subscribe()
    call = next(steps)                      # ("state.watch", {"path": "/counters"})
    try:
        steps.send(connection.call(*call))
    except StopIteration as done:
        updates = done.value                # [Update(kind="initial", ...)]

``drive`` runs those steps to their end with a coroutine that makes each call.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Dict, Generator, List, Optional, Sequence, Tuple

from .errors import ArborError, MalformedReply, PatchFailed, PathNotFound, RevisionCompacted, WatchClosed
from .patch import PatchError, apply_patch, json_equal
from .results import Event, Update

Call = Tuple[str, Dict[str, Any]]
Subscribing = Generator[Call, Any, List[Any]]


async def drive(steps: Subscribing, call: Callable[[str, Dict[str, Any]], Awaitable[Any]]) -> List[Any]:
    """Runs a follower's subscribing steps, each ``(method, params)`` made with ``await
    call(method, params)`` (its ``ArborError`` thrown back into the steps), and returns
    the updates they hand out.

    Example::

        async def call(method, params):
            return await connection.call(method, params)

        updates = await drive(StateFollower("/counters").subscribe(), call)
    """
    try:
        request = next(steps)
        while True:
            try:
                result = await call(*request)
            except ArborError as error:
                request = steps.throw(error)
            else:
                request = steps.send(result)
    except StopIteration as done:
        return done.value


def _can_start_afresh(error: ArborError) -> bool:
    """Whether a resume refused with `error` is met by watching afresh (a resync): the
    revision is older than the history kept, newer than the restarted daemon's (it lost
    it), or the path is gone."""
    return isinstance(error, (RevisionCompacted, PathNotFound)) or error.code == -32602


class StateFollower:
    """The value a state watch has built so far, its revision and its subscription."""

    def __init__(self, path: str, since: Optional[int] = None):
        self.path = path
        self.since = since
        self.value: Any = None
        self.exists = True
        self.revision: Optional[int] = None
        self.subscription: Optional[int] = None

    def subscribe(self) -> Subscribing:
        """Subscribes on a new connection: resuming from the last revision handed out
        when there is one (after checking that the daemon's history still holds it),
        else from ``since``, else from now."""
        self.subscription = None
        if self.revision is not None:
            try:
                if not (yield from self._still_holds()):
                    return (yield from self._start("resync"))
                reply = yield ("state.watch", {"path": self.path, "since": self.revision})
            except ArborError as error:
                if not _can_start_afresh(error):
                    raise
                return (yield from self._start("resync"))
            self.subscription = _subscription(reply)
            return []
        if self.since is not None:
            try:
                base = yield ("state.at", {"revision": self.since, "path": self.path})
                value, exists = base.get("value"), True
            except PathNotFound:
                value, exists = None, False
            reply = yield ("state.watch", {"path": self.path, "since": self.since})
            self.subscription = _subscription(reply)
            self.value, self.exists, self.revision = value, exists, self.since
            return [Update(self.since, value, "initial", None, exists)]
        return (yield from self._start("initial"))

    def _still_holds(self) -> Generator[Call, Any, bool]:
        """Whether the daemon's value at the last revision handed out is still the one
        built here. A daemon killed under ``--fsync batch`` or ``off`` can lose its last
        revisions and then commit others under the same numbers: resuming from such a
        number would go on from a history the watch never saw."""
        try:
            then = yield ("state.at", {"revision": self.revision, "path": self.path})
        except PathNotFound:
            return not self.exists
        return self.exists and json_equal(then.get("value"), self.value)

    def _start(self, kind: str) -> Subscribing:
        reply = yield ("state.watch", {"path": self.path})
        self.subscription = _subscription(reply)
        self.value, self.exists, self.revision = reply.get("value"), True, reply["revision"]
        return [Update(self.revision, self.value, kind, None, True)]

    def handle(self, notification: Dict[str, Any]) -> Optional[Update]:
        """The update a notification of this connection makes (``None`` for another
        watch's); ``WatchClosed`` when the daemon ended the watch, ``PatchFailed`` when a
        patch does not apply."""
        params = _params_of(notification, "state.changed", self.subscription)
        if params is None:
            return None
        revision = params.get("revision")
        if not isinstance(revision, int):
            raise MalformedReply(f"state.changed without a revision: {params!r}")
        exists = params.get("exists", True) is not False
        if params.get("resync") is True:
            self.value = params.get("value") if exists else None
            self.exists, self.revision = exists, revision
            return Update(revision, self.value, "resync", None, exists)
        patch = params.get("patch")
        if not isinstance(patch, list):
            raise MalformedReply(f"the patch of revision {revision} is not a JSON Patch: {patch!r}")
        if exists:
            try:
                self.value = apply_patch(self.value, patch)
            except PatchError as error:
                raise PatchFailed(revision, str(error)) from None
        else:
            self.value = None
        self.exists, self.revision = exists, revision
        return Update(revision, self.value, "patch", patch, exists)


class EventFollower:
    """An event watch's subscription. Events are not journalled: after a lost
    connection it subscribes again, and events sent meanwhile are not seen."""

    def __init__(self, path: str, types: Optional[Sequence[str]] = None):
        self.path = path
        self.types = list(types) if types is not None else None
        self.subscription: Optional[int] = None

    def subscribe(self) -> Subscribing:
        params: Dict[str, Any] = {"path": self.path}
        if self.types is not None:
            params["types"] = self.types
        reply = yield ("events.watch", params)
        self.subscription = _subscription(reply)
        return []

    def handle(self, notification: Dict[str, Any]) -> Optional[Event]:
        params = _params_of(notification, "events.emitted", self.subscription)
        if params is None:
            return None
        try:
            return Event.from_params(params)
        except (KeyError, TypeError, AttributeError):
            raise MalformedReply(f"events.emitted with params {params!r}") from None


def _params_of(notification: Dict[str, Any], method: str, subscription: Optional[int]) -> Optional[Dict[str, Any]]:
    """The params of a notification of ``method`` for ``subscription`` (``None`` for
    another method or another watch's); ``WatchClosed`` when the daemon ended the watch."""
    params = notification.get("params")
    if not isinstance(params, dict) or params.get("subscription") != subscription:
        return None
    sent = notification.get("method")
    if sent == "watch.closed":
        raise WatchClosed(subscription or 0, str(params.get("reason", "no reason given")))
    return params if sent == method else None


def _subscription(reply: Any) -> int:
    if not isinstance(reply, dict) or not isinstance(reply.get("subscription"), int):
        raise MalformedReply(f"a watch replied without a subscription: {reply!r}")
    return reply["subscription"]
