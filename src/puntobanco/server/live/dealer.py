"""A table's dealer, composed: one round engine and the parts of its kind.

:func:`dealer_for` builds the round engine (``live/engine.py`` :class:`TableDealer`) of a table
with the two parts that differ between kinds of table — where the cards come from
(``live/sources.py``) and what paces the round (``live/pacing.py``) — and, for a hand-dealt
table, the dealer page's actions (``live/hand.py`` :class:`DealerControls`):

============  =========================================  =====================================
kind          card source                                pacer
============  =========================================  =====================================
``server``    :class:`ServerShoe` (shuffled, committed)  :class:`ClockPacer` (the clock's loop)
``dealer``    :class:`HandShoe` (the cards entered)      :class:`DealerPacer` (its actions)
============  =========================================  =====================================
"""

from __future__ import annotations

from puntobanco.server.db import dealing
from puntobanco.server.db.engine import Database
from puntobanco.server.db.store import TableSettings
from puntobanco.server.live.clock import Clock
from puntobanco.server.live.engine import TableDealer
from puntobanco.server.live.hand import DealerControls
from puntobanco.server.live.links import Links
from puntobanco.server.live.pacing import ClockPacer, DealerPacer
from puntobanco.server.live.sources import HandShoe, ServerShoe
from puntobanco.server.settings import ServerSettings

__all__ = ["TableDealer", "dealer_for", "hand_dealt", "server_dealt"]


def server_dealt(settings: TableSettings, *, db: Database, config: ServerSettings,
                 clock: Clock | None = None, links: Links | None = None) -> TableDealer:
    """A table the server deals: a shuffled, committed shoe, paced by the clock."""
    return TableDealer(settings, db=db, config=config, clock=clock, links=links,
                       source=ServerShoe(), pacer=ClockPacer)


def hand_dealt(settings: TableSettings, *, db: Database, config: ServerSettings,
               clock: Clock | None = None, links: Links | None = None) -> TableDealer:
    """A table a person deals: the cards entered, paced by the dealer's actions."""
    source = HandShoe()
    engine = TableDealer(settings, db=db, config=config, clock=clock, links=links,
                         source=source, pacer=lambda _engine: DealerPacer())
    engine.controls = DealerControls(engine, source)
    return engine


async def dealer_for(settings: TableSettings, *, db: Database, config: ServerSettings,
                     clock: Clock | None = None, links: Links | None = None) -> TableDealer:
    """The dealer of a table, as its dealing mode is stored: the server's or a person's."""
    mode = await db.run_read(lambda s: dealing.dealing_of(s, settings.id))
    build = hand_dealt if mode == "dealer" else server_dealt
    return build(settings, db=db, config=config, clock=clock, links=links)
