"""A Python client of Arbor daemons (JSON-RPC 2.0, one JSON object per line, over a
Unix socket), with the standard library only.

Example::

    import arbor_client

    client = arbor_client.Client()     # $ARBOR_SOCKET, or the lone daemon's socket
    client.intent("/", "addButtonTapped")
    print(client.get("/counters").value)
    try:
        client.intent("/counters/0/counter", "explode")
    except arbor_client.IntentNotFound as error:
        print(error.name, error.code, error.data["available"])
    for update in client.watch("/counters"):
        print(update.revision, update.value)

``AsyncClient`` is the same for asyncio; ``python -m arbor_client stubs SOCKET``
writes typed intent stubs of a daemon's models.
"""

from .aio import AsyncClient, AsyncConnection, AsyncEventWatch, AsyncStateWatch
from .client import Client
from .connection import Connection
from .errors import (
    ArborError,
    CannotConnect,
    ClientError,
    ConnectionClosed,
    IntentFailed,
    IntentNotFound,
    InternalError,
    InvalidParameter,
    InvalidParams,
    InvalidRequest,
    LineTooLong,
    MalformedReply,
    MethodNotFound,
    NotDurable,
    NotForwarded,
    NothingToRedo,
    NothingToUndo,
    NotLeader,
    ParseError,
    PatchFailed,
    PathNotFound,
    PermissionDenied,
    RevisionCompacted,
    ServerError,
    SeveralSockets,
    ShuttingDown,
    SnapshotRejected,
    SocketNotFound,
    SubscriptionNotFound,
    Superseded,
    TargetNotFound,
    Timeout,
    UndoNotTracked,
    WatchClosed,
    WritesRefused,
    error_class,
)
from .patch import PatchError, apply_patch, format_pointer, json_equal, parse_pointer, resolve
from .protocol import intent_request
from .reconnect import Reconnect
from .results import Change, Event, HistoryPage, IntentResult, State, Update
from .socket_path import default_directories, find_socket, find_sockets
from .ssh import SSHAddress, ssh_command
from .watch import EventWatch, StateWatch

__version__ = "0.1.0"

__all__ = [
    "AsyncClient", "AsyncConnection", "AsyncEventWatch", "AsyncStateWatch", "Client", "Connection",
    "ArborError", "CannotConnect", "ClientError", "ConnectionClosed", "IntentFailed", "IntentNotFound",
    "InternalError", "InvalidParameter", "InvalidParams", "InvalidRequest", "LineTooLong", "MalformedReply",
    "MethodNotFound", "NotDurable", "NotForwarded", "NothingToRedo", "NothingToUndo", "NotLeader",
    "ParseError", "PatchFailed", "PathNotFound", "PermissionDenied", "RevisionCompacted", "ServerError",
    "SeveralSockets", "ShuttingDown", "SnapshotRejected", "SocketNotFound", "SubscriptionNotFound",
    "Superseded", "TargetNotFound", "Timeout", "UndoNotTracked", "WatchClosed", "WritesRefused",
    "error_class", "PatchError", "apply_patch", "format_pointer", "json_equal", "parse_pointer", "resolve",
    "intent_request", "Reconnect", "Change", "Event", "HistoryPage", "IntentResult", "State", "Update",
    "default_directories", "find_socket", "find_sockets", "SSHAddress", "ssh_command", "EventWatch", "StateWatch",
    "__version__",
]
