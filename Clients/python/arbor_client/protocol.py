"""JSON-RPC 2.0 over NDJSON, without I/O: requests as lines, lines as messages, and each
message told apart as a reply, a batch's replies, a notification or something else.

Both clients (blocking and asyncio) number their requests from 1 on each connection, a
batch taking consecutive ids, and file a batch's replies under its first id, as
``ArborClient`` does::

    numbering = Numbering()
    line = encode(request(numbering.take(), "state.get", {"path": ""}))
    # b'{"jsonrpc":"2.0","id":1,"method":"state.get","params":{"path":""}}\\n'
"""

from __future__ import annotations

import json
from typing import Any, Collection, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from .errors import ArborError, InternalError, MalformedReply

#: A call in a batch: ``(method,)`` or ``(method, params)``, or the method's name alone.
CallSpec = Union[str, Sequence[Any]]


class Numbering:
    """Consecutive request ids of one connection, from 1."""

    def __init__(self) -> None:
        self.next_id = 1

    def take(self, count: int = 1) -> int:
        """Takes ``count`` consecutive ids and returns the first."""
        first = self.next_id
        self.next_id += count
        return first


def request(request_id: Optional[int], method: str, params: Any = None) -> Dict[str, Any]:
    """A request object (a notification when ``request_id`` is ``None``)."""
    if not isinstance(method, str):
        raise TypeError(f"a method is a string, not {type(method).__name__}")
    message: Dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        message["id"] = request_id
    message["method"] = method
    if params is not None:
        message["params"] = params
    return message


def encode(message: Any) -> bytes:
    """One line of compact JSON (UTF-8, ending in ``\\n``); a value JSON cannot carry
    (``nan``, an object of another type) raises ``ValueError`` naming it."""
    try:
        text = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"the request cannot be sent as JSON: {error}") from None
    return text.encode("utf-8") + b"\n"


def split_call(call: CallSpec) -> Tuple[str, Any]:
    """``(method, params)`` of a batch's call, given as a name or a 1- or 2-tuple."""
    if isinstance(call, str):
        return call, None
    if len(call) == 1:
        return call[0], None
    if len(call) == 2:
        return call[0], call[1]
    raise TypeError(f"a call in a batch is (method,) or (method, params), not {call!r}")


def batch_message(first_id: int, calls: Sequence[CallSpec]) -> List[Dict[str, Any]]:
    """The array of a batch whose requests take ids ``first_id``, ``first_id + 1``, ..."""
    return [request(first_id + offset, *split_call(call)) for offset, call in enumerate(calls)]


def intent_params(target: Any, intent: str, params: Optional[Dict[str, Any]] = None, wait: Optional[str] = None) -> Dict[str, Any]:
    """The params of ``intent.call``: the target (a JSON Pointer, ``/`` for the root as
    arborctl has it, or ``{"id": "..."}``), the intent's name, its parameters by label.

    Example::

        assert intent_params("/counters/0/counter", "incrementTapped") == \\
            {"target": "/counters/0/counter", "intent": "incrementTapped", "params": {}}
    """
    body: Dict[str, Any] = {"target": wire_path(target) if isinstance(target, str) else target, "intent": intent}
    body["params"] = dict(params or {})
    if wait is not None:
        body["wait"] = wait
    return body


def intent_request(path: Any, name: str, /, **params: Any) -> Tuple[str, Dict[str, Any]]:
    """An ``intent.call`` for ``Client.batch``: ``(method, params)``.

    Example::

        client.batch([intent_request("/counters/0/counter", "incrementTapped"),
                      ("state.get", {"path": "/counters/0/counter/count"})])
    """
    return "intent.call", intent_params(path, name, params)


def history_params(since: Optional[int] = None, limit: Optional[int] = None) -> Dict[str, Any]:
    """The params of ``history.changes``: ``since`` and ``limit`` where given.

    Example::

        assert history_params(since=4) == {"since": 4}
    """
    params: Dict[str, Any] = {}
    if since is not None:
        params["since"] = since
    if limit is not None:
        params["limit"] = limit
    return params


def wire_path(path: Optional[str]) -> str:
    """A path as the wire has it: ``/`` (the root, as arborctl writes it) becomes ``""``."""
    if path is None or path == "/":
        return ""
    return path


def decode(line: bytes) -> Any:
    """A line's JSON; ``MalformedReply`` when it is not JSON."""
    try:
        return json.loads(line)
    except ValueError as error:
        text = line[:200].decode("utf-8", "replace")
        raise MalformedReply(f"a line that is not JSON: {text!r} ({error})") from None


def is_response(message: Any) -> bool:
    return isinstance(message, dict) and "id" in message and ("result" in message or "error" in message)


#: What ``classify`` tells a message to be.
NOTIFICATION, REPLY, BATCH, OTHER = "notification", "reply", "batch", "other"


def classify(message: Any) -> Tuple[str, Any]:
    """``(kind, key)``: a notification (no id), a reply (by its id), a batch's replies (by
    the first id) or something else (a reply with a ``null`` id: a parse error, a line
    too long)."""
    if isinstance(message, dict):
        if "method" in message and "id" not in message:
            return NOTIFICATION, None
        if is_response(message) and message["id"] is not None:
            return REPLY, message["id"]
    elif isinstance(message, list) and message:
        first = message[0]
        if is_response(first) and first["id"] is not None and all(is_response(member) for member in message):
            return BATCH, first["id"]
    return OTHER, None


def route(line: bytes, waiting: Collection[Any], answered: Collection[Any] = ()) -> Tuple[str, Any, Any]:
    """Where a line read goes, as ``(kind, key, message)``: ``NOTIFICATION``; ``REPLY``
    for the call ``key`` among those ``waiting`` (a reply or a batch's replies by their id,
    a reply with a ``null`` id when one call alone waits and is not ``answered`` yet);
    else ``OTHER``, with the line itself when it is not JSON.

    Example::

        assert route(b'{"jsonrpc":"2.0","id":1,"result":7}', waiting=[1]) == \\
            (REPLY, 1, {"jsonrpc": "2.0", "id": 1, "result": 7})
        assert route(b'{"jsonrpc":"2.0","method":"state.changed"}', waiting=[])[0] == NOTIFICATION
    """
    try:
        message = decode(line)
    except MalformedReply:
        return OTHER, None, line
    kind, key = classify(message)
    if kind == NOTIFICATION:
        return NOTIFICATION, None, message
    if kind in (REPLY, BATCH) and key in waiting:
        return REPLY, key, message
    key = pending_key_for_other(message, waiting)
    if key is None or key in answered:
        return OTHER, None, message
    return REPLY, key, message


def outcome(response: Dict[str, Any]) -> Any:
    """A response's result, or its error as an ``ArborError`` (returned, not raised)."""
    if "error" in response:
        return ArborError.from_error(response["error"])
    return response.get("result")


def result_of(response: Dict[str, Any]) -> Any:
    """A response's result; its error raised as its ``ArborError`` subclass."""
    value = outcome(response)
    if isinstance(value, ArborError):
        raise value
    return value


def batch_outcomes(first_id: int, count: int, reply: Any) -> List[Any]:
    """A batch's outcomes in the order of its calls, from its reply (an array, or one
    error for the whole batch)."""
    if isinstance(reply, dict):
        error = outcome(reply)
        if isinstance(error, ArborError):
            raise error
        raise MalformedReply(f"one reply came back for a batch of {count}: {reply!r}")
    by_id: Dict[Any, Any] = {}
    for member in reply:
        by_id.setdefault(member.get("id"), member)
    outcomes = []
    for request_id in range(first_id, first_id + count):
        member = by_id.get(request_id)
        if member is None:
            outcomes.append(InternalError(f"the daemon's batch reply has no response for id {request_id}", code=-32603))
        else:
            outcomes.append(outcome(member))
    return outcomes


def closes_connection(message: Any) -> bool:
    """Whether the daemon closes the connection after this reply: a line too long
    (``org.arbor.LineTooLong``) or too many connections (-32000)."""
    if not isinstance(message, dict) or not isinstance(message.get("error"), dict):
        return False
    error = message["error"]
    data = error.get("data")
    return error.get("code") == -32000 or (isinstance(data, dict) and data.get("name") == "org.arbor.LineTooLong")


def pending_key_for_other(message: Any, pending: Iterable[Any]) -> Optional[Any]:
    """The call a reply with a ``null`` id answers: the one call waiting when there is
    exactly one (a line too long, a parse error), else none."""
    if not (isinstance(message, dict) and "error" in message and message.get("id", 0) is None):
        return None
    waiting = list(pending)
    return waiting[0] if len(waiting) == 1 else None
