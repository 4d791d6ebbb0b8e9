"""What several server processes (``live/cluster.py``) give a table's dealer when it is made:
the hub that also relays to the other processes, the fence checked at the start of each dealer
write, and the way a hand-dealt table's dealer asks for the table. The dealer is built with
them (nothing is rewired afterwards) and knows nothing else of the cluster, which knows the
dealer only as a :class:`puntobanco.server.live.cluster.Member`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from sqlalchemy.orm import Session

from puntobanco.errors import PuntoBancoError
from puntobanco.server.live.hub import Hub
from puntobanco.server.live.messages import DealerState

#: run first in each dealer write: raises :class:`LeadershipLost` when the table's lock is gone
Fence = Callable[[Session], None]


class LeadershipLost(PuntoBancoError):
    """A dealer write found its table's lock no longer held by this process."""

    code = "leadership-lost"


class Links(Protocol):
    """The cluster as a table's dealer sees it."""

    def hub(self, table_id: int, state: Callable[[], DealerState | None]) -> Hub:
        """The table's hub; ``state`` is the dealer's state to relay with each table event
        (``None`` while this process only follows the table)."""
        ...

    def fence(self, table_id: int) -> Fence: ...

    def want(self, table_id: int) -> None:
        """Ask the process dealing the table to hand it over to this one."""
        ...
