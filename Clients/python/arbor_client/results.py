"""What the client's helpers return: small records of the daemon's results.

Each is a frozen dataclass; ``raw`` (where there is one) keeps the daemon's whole result,
members this client does not name included.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass(frozen=True)
class State:
    """A value of the state and the revision it was read at (``state.get``, and
    ``state.at`` with the ``time`` that revision was committed).

    Example::

        state = client.get("/counters")
        print(state.revision, len(state.value))
    """

    revision: int
    value: Any
    time: Optional[str] = None


@dataclass(frozen=True)
class IntentResult:
    """An intent's reply: the revision of its own commit and its result (``None`` for
    none). An intent that wrote in several transactions also has ``first_revision`` and
    ``commits``.

    Example::

        reply = client.intent("/counters/0/counter", "incrementTapped")
        print(reply.revision, reply.result)
    """

    revision: int
    result: Any = None
    first_revision: Optional[int] = None
    commits: Optional[int] = None

    @staticmethod
    def from_json(result: Dict[str, Any]) -> "IntentResult":
        return IntentResult(
            revision=result["revision"],
            result=result.get("result"),
            first_revision=result.get("firstRevision"),
            commits=result.get("commits"),
        )


@dataclass(frozen=True)
class Update:
    """One step of a watched value: the value at the watched path after ``revision``.

    ``kind`` is ``"initial"`` (where the watch started), ``"patch"`` (``patch``, paths
    relative to the watched path, was applied to the previous value) or ``"resync"``
    (the value replaced as a whole: the watcher fell behind, a restore replaced the
    tree, or a reconnect could not resume). ``exists`` is false when nothing is at the
    path (then ``value`` is ``None``).

    Values share their unchanged parts with earlier ones: copy before changing one
    (``copy.deepcopy(update.value)``).

    Example::

        for update in client.watch("/counters/0/counter/count"):
            print(update.revision, update.kind, update.value)
    """

    revision: int
    value: Any
    kind: str
    patch: Optional[List[Dict[str, Any]]] = None
    exists: bool = True


@dataclass(frozen=True)
class Event:
    """An event a model sent (``events.emitted``): its type and JSON, the revision when it
    was sent, and the model that sent it.

    Example::

        for event in client.events(types=["CounterRowModel.Event"]):
            print(event.revision, event.source_path, event.event)   # 5 /counters/1 {'removeTapped': {}}
    """

    revision: int
    type: str
    event: Any
    source_id: str
    source_path: str
    source_type: str

    @staticmethod
    def from_params(params: Dict[str, Any]) -> "Event":
        source = params.get("source") or {}
        return Event(
            revision=params["revision"],
            type=params["type"],
            event=params.get("event"),
            source_id=source.get("id", ""),
            source_path=source.get("path", ""),
            source_type=source.get("type", ""),
        )


@dataclass(frozen=True)
class Change:
    """A journalled revision (``history.changes``): when, by which intent on which target
    (``None`` for a change no intent made), and its patch against the revision before.

    Example::

        for change in client.changes(since=4):
            print(change.revision, change.time, change.intent, change.target, change.patch)
    """

    revision: int
    time: str
    intent: Optional[str]
    target: Optional[str]
    patch: List[Dict[str, Any]]

    @staticmethod
    def from_json(change: Dict[str, Any]) -> "Change":
        return Change(
            revision=change["revision"],
            time=change.get("time", ""),
            intent=change.get("intent"),
            target=change.get("target"),
            patch=change.get("patch") or [],
        )


@dataclass(frozen=True)
class HistoryPage:
    """One page of ``history.changes``: the changes, the oldest revision kept, the
    current revision, and ``next`` (the ``since`` of the next page; ``None`` on the last).

    Example::

        page = client.history(since=0, limit=10)
        print([change.revision for change in page.changes], page.next)
    """

    changes: List[Change]
    oldest: int
    revision: int
    next: Optional[int]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @staticmethod
    def from_json(result: Dict[str, Any]) -> "HistoryPage":
        return HistoryPage(
            changes=[Change.from_json(change) for change in result.get("changes", [])],
            oldest=result.get("oldest", 0),
            revision=result.get("revision", 0),
            next=result.get("next"),
            raw=result,
        )
