"""The errors a call can raise: the daemon's own, by name, and the client's.

The daemon answers a refused request with a JSON-RPC error: a ``code``, a ``message``
and ``data``. Arbor's own errors carry a stable name in ``data["name"]``
(``org.arbor.PathNotFound``, ...): that name picks the subclass raised, so a script
catches what it means::

    try:
        client.get("/nope")
    except arbor_client.PathNotFound as error:
        print(error.name, error.code, error.data["path"])   # org.arbor.PathNotFound 1007 /nope

Errors without a name are matched by their code (the JSON-RPC standard ones:
``ParseError``, ``InvalidRequest``, ``MethodNotFound``, ``InvalidParams``,
``InternalError``, ``ServerError``). A name this client does not know falls back to
``ArborError`` itself, with its name and code as sent.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Type

__all__ = [
    # The client's own failures.
    "ClientError", "CannotConnect", "SocketNotFound", "SeveralSockets", "ConnectionClosed", "Timeout",
    "MalformedReply", "PatchFailed", "WatchClosed",
    # The daemon's errors, and the class raised for one.
    "ArborError", "error_class",
    "ParseError", "InvalidRequest", "MethodNotFound", "InvalidParams", "InternalError", "ServerError",
    "InvalidParameter", "TargetNotFound", "IntentNotFound", "IntentFailed", "PermissionDenied",
    "RevisionCompacted", "PathNotFound", "SnapshotRejected", "SubscriptionNotFound", "LineTooLong",
    "ShuttingDown", "NotDurable", "UndoNotTracked", "NothingToUndo", "NothingToRedo", "WritesRefused",
    "Superseded", "NotLeader", "NotForwarded",
]


class ClientError(Exception):
    """A failure on this side of the socket: no daemon, a lost connection, a timeout.

    Example::

        try:
            arbor_client.Client("/tmp/none.sock").get("")
        except arbor_client.ClientError as error:
            print(error)   # cannot connect to /tmp/none.sock: ...
    """


class CannotConnect(ClientError, ConnectionError):
    """Nothing listens on the socket (or it cannot be reached).

    ``path`` is the socket tried (several, comma-separated, when a list was given) and
    ``reason`` what the system said.
    """

    def __init__(self, path: str, reason: str):
        self.path = path
        self.reason = reason
        super().__init__(
            f"cannot connect to {path}: {reason}. Is the daemon running? Start it "
            "(for example `make run`) or give its socket's path (or set $ARBOR_SOCKET)."
        )


class SocketNotFound(CannotConnect):
    """No socket was given and none was found where daemons put theirs."""

    def __init__(self, directories: list):
        self.directories = list(directories)
        ClientError.__init__(
            self,
            f"no daemon socket found in {' or '.join(self.directories)}: start one (for "
            "example `make run`) or give its socket's path (or set $ARBOR_SOCKET)",
        )
        self.path = ", ".join(self.directories)
        self.reason = "no socket found"


class SeveralSockets(ClientError):
    """No socket was given and the default directory holds several: choose one."""

    def __init__(self, directory: str, sockets: list):
        self.directory = directory
        self.sockets = list(sockets)
        super().__init__(
            f"several daemons listen in {directory} ({', '.join(self.sockets)}): choose one "
            "by giving its socket's path (or setting $ARBOR_SOCKET)"
        )


class ConnectionClosed(ClientError, ConnectionError):
    """The connection closed before the reply came (the daemon stopped, or went away)."""

    def __init__(self, message: str = "the connection to the daemon closed"):
        super().__init__(message)


class Timeout(ClientError, TimeoutError):
    """No reply (or no update) came within the time allowed."""


class MalformedReply(ClientError):
    """The daemon's reply was not JSON-RPC (or not the shape its method promises)."""


class PatchFailed(ClientError):
    """A watched patch did not apply to the value it was sent for: the client's copy and
    the daemon's state parted ways. ``revision`` is the patch's revision."""

    def __init__(self, revision: int, reason: str):
        self.revision = revision
        self.reason = reason
        super().__init__(f"the patch of revision {revision} does not apply: {reason}")


class WatchClosed(ClientError):
    """The daemon ended a watch (``watch.closed``): an event watch that fell too far behind."""

    def __init__(self, subscription: int, reason: str):
        self.subscription = subscription
        self.reason = reason
        super().__init__(f"the daemon closed watch {subscription}: {reason}")


class ArborError(Exception):
    """An error the daemon answered with: ``name``, ``code``, ``message`` and ``data``.

    ``name`` is the stable name of Arbor's own errors (``data["name"]``), ``None`` for the
    JSON-RPC ones that have none; ``data`` is the error's details (a dict, or ``None``).
    The class attributes ``name`` and ``code`` of each subclass are what it stands for::

        try:
            client.intent("/counters/0/counter", "explode")
        except arbor_client.IntentNotFound as error:
            assert error.code == arbor_client.IntentNotFound.code == 1002
            print(error.data["available"])
    """

    name: Optional[str] = None
    code: Optional[int] = None

    def __init__(self, message: str, code: Optional[int] = None, name: Optional[str] = None, data: Any = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if name is not None:
            self.name = name
        self.data = data

    def __str__(self) -> str:
        if self.name:
            return f"{self.message} [{self.name}, {self.code}]"
        return f"{self.message} [{self.code}]"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r}, name={self.name!r})"

    @staticmethod
    def from_error(error: Any) -> "ArborError":
        """The exception for a JSON-RPC error object (``{"code", "message", "data"}``).

        Example::

            error = ArborError.from_error({"code": 1007, "message": "nothing at '/x'",
                                           "data": {"name": "org.arbor.PathNotFound", "path": "/x"}})
            assert isinstance(error, arbor_client.PathNotFound)
        """
        if not isinstance(error, dict):
            return ArborError(f"the daemon's error is not an object: {error!r}", code=None, data=error)
        code = error.get("code")
        message = error.get("message")
        if not isinstance(message, str):
            message = repr(message)
        data = error.get("data")
        name = data.get("name") if isinstance(data, dict) else None
        if not isinstance(name, str):
            name = None
        return error_class(name, code)(message, code=code, name=name, data=data)


def error_class(name: Optional[str], code: Any) -> Type[ArborError]:
    """The class raised for an error of this name and code: by name when it has one (an
    unknown name gives ``ArborError``), else by its JSON-RPC code.

    Example::

        assert arbor_client.error_class("org.arbor.PathNotFound", 1007) is arbor_client.PathNotFound
        assert arbor_client.error_class(None, -32601) is arbor_client.MethodNotFound
    """
    if name is not None:
        return BY_NAME.get(name, ArborError)
    if isinstance(code, int) and not isinstance(code, bool):
        if code in BY_CODE:
            return BY_CODE[code]
        if -32099 <= code <= -32000:
            return ServerError
    return ArborError


#: Arbor's errors by their stable name (filled by the table below).
BY_NAME: Dict[str, Type[ArborError]] = {}

#: The JSON-RPC errors by code, for errors without a name (filled by the table below).
BY_CODE: Dict[int, Type[ArborError]] = {}


def _by_code(class_name: str, code: int, doc: str) -> Type[ArborError]:
    """A JSON-RPC 2.0 error: a subclass of ``ArborError`` with this ``code``, raised for
    an error of that code without a name."""
    cls = type(class_name, (ArborError,), {"__doc__": doc, "__module__": __name__, "code": code})
    BY_CODE[code] = cls
    return cls


def _by_name(class_name: str, code: int, doc: str, base: Type[ArborError] = ArborError) -> Type[ArborError]:
    """One of Arbor's own errors: a subclass of ``base`` named ``org.arbor.<class_name>``,
    with this ``code``, raised for an error of that name."""
    name = f"org.arbor.{class_name}"
    cls = type(class_name, (base,), {"__doc__": f"``{name}`` ({code}): {doc}", "__module__": __name__,
                                     "name": name, "code": code})
    BY_NAME[name] = cls
    return cls


# The JSON-RPC 2.0 errors, matched by code when they carry no name.
ParseError = _by_code("ParseError", -32700, "-32700: the line sent was not JSON (or not UTF-8, or nested too deep).")
InvalidRequest = _by_code("InvalidRequest", -32600, "-32600: not a request object, an empty batch, or a watch in a batch.")
MethodNotFound = _by_code("MethodNotFound", -32601, '-32601: no such method; ``data["available"]`` lists the methods there are.')
InvalidParams = _by_code("InvalidParams", -32602, "-32602: a method's parameters are missing, unknown or of the wrong type, or a "
                         "revision the tree has not reached. The daemon names most of these "
                         "``org.arbor.InvalidParameter`` (raised as ``InvalidParameter``, a subclass).")
InternalError = _by_code("InternalError", -32603, "-32603: the daemon failed (for example a state that cannot be encoded).")
ServerError = _by_code("ServerError", -32000, "-32000 to -32099: the server refused the connection (too many connections).")

# Arbor's own errors, matched by name (Docs/Protocol.md, "Errors"): the class, its code, what it means.
InvalidParameter = _by_name("InvalidParameter", 1003, "a parameter is missing, unknown, mistyped or out of range. "
                            "``code`` is 1003 for an intent's parameter and -32602 for a method's own; "
                            '``data["parameter"]`` names it.', base=InvalidParams)
TargetNotFound = _by_name("TargetNotFound", 1001, "no model at the target path or with the target id.")
IntentNotFound = _by_name("IntentNotFound", 1002, 'the model has no intent of that name; ``data["available"]`` lists its intents.')
IntentFailed = _by_name("IntentFailed", 1004, "the intent threw (or its result cannot be encoded).")
PermissionDenied = _by_name("PermissionDenied", 1005, "the connection's role is too low; "
                            '``data["required"]`` is the role needed, ``data["role"]`` the connection\'s.')
RevisionCompacted = _by_name("RevisionCompacted", 1006, '``since`` or ``revision`` is older than the history kept (``data["oldest"]``).')
PathNotFound = _by_name("PathNotFound", 1007, "nothing in the state at the path.")
SnapshotRejected = _by_name("SnapshotRejected", 1008, "``state.restore`` refused the record.")
SubscriptionNotFound = _by_name("SubscriptionNotFound", 1009, "``watch.cancel`` of a watch this connection does not have.")
LineTooLong = _by_name("LineTooLong", 1010, "a request line over the daemon's limit; the daemon closes the connection.")
ShuttingDown = _by_name("ShuttingDown", 1011, "an intent or restore while the daemon stops.")
NotDurable = _by_name("NotDurable", 1012, "under ``--fsync always``, the change was made in memory but the journal could not write it.")
UndoNotTracked = _by_name("UndoNotTracked", 1013, "undo or redo on a tree that tracks no undo.")
NothingToUndo = _by_name("NothingToUndo", 1014, "``history.undo`` with no step to undo.")
NothingToRedo = _by_name("NothingToRedo", 1015, "``history.redo`` with no step to redo.")
WritesRefused = _by_name("WritesRefused", 1016, "the journal cannot write, so writes are refused before they run "
                         '(``data["cause"]`` says why); reads and watches go on.')
Superseded = _by_name("Superseded", 1017, "``state.restore`` replaced the tree while the intent ran; its writes were discarded.")
NotLeader = _by_name("NotLeader", 1018, 'a write sent to a standby daemon; ``data["leader"]`` names the leader.')
NotForwarded = _by_name("NotForwarded", 1019, "a standby could not hand the intent to the leader "
                        '(``data["queued"]`` says whether the leader may still run it).')
