"""Where the daemon's socket is when none is given: ``arborctl``'s rule, exactly.

1. ``$ARBOR_SOCKET`` when set and not empty; it may list several sockets separated by
   colons (daemons sharing one PostgreSQL store: a leader and its standbys).
2. Else the only ``*.sock`` in ``$XDG_RUNTIME_DIR/arbor`` (when ``$XDG_RUNTIME_DIR`` is
   set and not empty), then the only one in ``/run/arbor`` for root or
   ``/tmp/arbor-UID`` for anyone else: the first of these directories holding any
   ``*.sock`` decides. Several there is an error (``SeveralSockets``: choose one), none
   in any of them too (``SocketNotFound``).

A daemon given no ``--socket`` listens at ``DIR/NAME.sock`` in the first of those
directories (Docs/Operations.md, "Files"), so a lone daemon is found whatever its name::

    from arbor_client import find_sockets
    print(find_sockets())   # ['/run/user/1000/arbor/counterfactd.sock']
"""

from __future__ import annotations

import os
from typing import List, Mapping, Optional, Sequence, Union

from .errors import SeveralSockets, SocketNotFound


def default_directories(environ: Optional[Mapping[str, str]] = None, uid: Optional[int] = None) -> List[str]:
    """The directories looked in, in order: ``$XDG_RUNTIME_DIR/arbor`` (when set), then
    ``/run/arbor`` for root or ``/tmp/arbor-UID``.

    Example::

        assert default_directories({}, uid=1000) == ["/tmp/arbor-1000"]
    """
    environ = os.environ if environ is None else environ
    uid = os.getuid() if uid is None else uid
    directories = []
    runtime = environ.get("XDG_RUNTIME_DIR")
    if runtime:
        directories.append(runtime + "/arbor")
    directories.append("/run/arbor" if uid == 0 else f"/tmp/arbor-{uid}")
    return directories


def find_sockets(
    given: Union[None, str, Sequence[str]] = None,
    environ: Optional[Mapping[str, str]] = None,
    uid: Optional[int] = None,
) -> List[str]:
    """Every socket to try, in order: those ``given``, else those of ``$ARBOR_SOCKET``,
    else the one found in the default directories.

    Example::

        assert find_sockets("/tmp/d.sock") == ["/tmp/d.sock"]
        assert find_sockets(environ={"ARBOR_SOCKET": "/a.sock:/b.sock"}) == ["/a.sock", "/b.sock"]
    """
    if given is not None:
        paths = [os.fspath(given)] if isinstance(given, (str, os.PathLike)) else [os.fspath(p) for p in given]
        if not paths:
            raise ValueError("socket: an empty list of sockets")
        return paths
    environ = os.environ if environ is None else environ
    listed = [part for part in environ.get("ARBOR_SOCKET", "").split(":") if part]
    if listed:
        return listed
    return [_lone_socket(default_directories(environ, uid))]


def find_socket(given: Optional[str] = None, environ: Optional[Mapping[str, str]] = None, uid: Optional[int] = None) -> str:
    """The one socket to connect to: ``given``, else the first of ``$ARBOR_SOCKET``,
    else the lone ``*.sock`` of the default directories.

    Example::

        path = find_socket()   # SocketNotFound when no daemon listens where they do by default
    """
    return find_sockets(given, environ, uid)[0]


def _lone_socket(directories: List[str]) -> str:
    for directory in directories:
        try:
            names = os.listdir(directory)
        except OSError:
            names = []
        sockets = sorted(name for name in names if name.endswith(".sock"))
        if len(sockets) == 1:
            return directory + "/" + sockets[0]
        if len(sockets) > 1:
            raise SeveralSockets(directory, sockets)
    raise SocketNotFound(directories)
