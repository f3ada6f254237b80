"""Runs, without an event loop, a coroutine whose awaits all finish at once.

Logic the blocking and the asyncio client share is written once as coroutines that reach
the socket only through methods or functions they are given. The asyncio client gives
coroutines that wait, and awaits; the blocking client gives ones that block and never
suspend, and runs the shared coroutine to its end with ``run_blocking``::

    async def twice(read):
        return [await read(), await read()]

    async def read_now():
        return connection.next_notification(timeout=5)   # blocks, never suspends

    first, second = run_blocking(twice(read_now))
"""

from __future__ import annotations

from typing import Any, Coroutine, TypeVar

T = TypeVar("T")


def run_blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result (or its exception), run to its end at once; a coroutine that
    suspends (awaits something that waits for an event loop) is a ``RuntimeError``."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("a blocking step suspended: it awaited something that needs an event loop")
