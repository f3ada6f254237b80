"""How a watch behaves when its connection is lost: whether it connects again, how long
it waits between attempts, and when it gives up (``ArborClient``'s ``ReconnectPolicy``).

Example::

    client.watch("/counters", reconnect=Reconnect(give_up_after=300))
    client.watch("/counters", reconnect=Reconnect.NEVER)   # a lost connection ends it
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Optional, Union


@dataclass(frozen=True)
class Reconnect:
    """``enabled``: whether a lost connection is opened again at all; ``initial_delay``:
    the wait (seconds) before the first attempt, doubled after each failed one up to
    ``max_delay``; ``give_up_after``: how long the daemon may stay unreachable before
    the watch ends with ``CannotConnect`` (``None``: never)."""

    enabled: bool = True
    initial_delay: float = 0.05
    max_delay: float = 2.0
    give_up_after: Optional[float] = 60.0

    #: Connect again after a loss, for up to a minute.
    DEFAULT: ClassVar["Reconnect"]
    #: A lost connection ends the watch with ``ConnectionClosed``.
    NEVER: ClassVar["Reconnect"]

    @staticmethod
    def of(value: Union[None, bool, "Reconnect"]) -> "Reconnect":
        """The policy for a watch's ``reconnect`` argument: ``None`` or ``True`` is the
        default, ``False`` never."""
        if value is None or value is True:
            return Reconnect.DEFAULT
        if value is False:
            return Reconnect.NEVER
        if isinstance(value, Reconnect):
            return value
        raise TypeError(f"reconnect is a bool or a Reconnect, not {type(value).__name__}")


Reconnect.DEFAULT = Reconnect()
Reconnect.NEVER = Reconnect(enabled=False)
