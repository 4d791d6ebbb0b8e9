"""The running room: the database, every table's dealer, and what an empty database starts with."""

from __future__ import annotations

import asyncio
import logging
import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet
from puntobanco.server.db import admin, auth, ledger, store
from puntobanco.server.db.dealing import set_dealing
from puntobanco.server.db.engine import Database, hold_sqlite, release_sqlite
from puntobanco.server.db.models import GameTable, Player
from puntobanco.server.live.dealer import TableDealer
from puntobanco.server.live.human import dealer_for
from puntobanco.server.messages import NotFound, Refusal
from puntobanco.server.settings import (
    DEFAULT_BETTING_SECONDS,
    OPERATOR_USERNAME,
    ServerSettings,
    table_rules_from_json,
)

log = logging.getLogger("puntobanco.server")
#: work done in the same transaction as a table's creation or change (the audit log)
OnWrite = Callable[[Session, store.TableSettings], None]

#: the longest table name, in characters (after trimming spaces)
MAX_TABLE_NAME = 64


class OutOfService(PuntoBancoError):
    """The table did not start (its recovery failed); the operator sees why and can fix it."""

    code = "table-out-of-service"


@dataclass(frozen=True, slots=True)
class Broken:
    """A table whose dealer could not start: why, as one sentence, and when."""

    id: int
    name: str
    reason: str
    rules: dict[str, Any]


class Casino:
    """Owns the database and the dealers; the web layer reaches everything through it."""

    def __init__(self, config: ServerSettings) -> None:
        self.config = config
        self.db = Database(config.database_url)
        self.dealers: dict[int, TableDealer] = {}
        #: tables whose recovery failed at start: out of service until the operator fixes them
        self.broken: dict[int, Broken] = {}
        self._held = False
        #: the operator's password when it was generated at this start (print it once)
        self.generated_operator_password: str | None = None
        #: PUNTOBANCO_OPERATOR_PASSWORD was given, but the database's operator has another one
        #: (``serve`` says so; ``puntobanco operator-password`` resets it)
        self.operator_password_ignored = False

    async def open(self) -> None:
        """Seed an empty database, then start one dealer per table."""
        hold_sqlite(self.config.database_url)  # one process per SQLite file
        self._held = True
        self.generated_operator_password = await self.db.run_write(self._seed)
        paused = await self.db.run_read(admin.paused_tables)
        for table_id, name, rules in await self.db.run_read(store.table_rows):
            await self._start_table(table_id, name, rules, paused=table_id in paused)

    async def _start_table(self, table_id: int, name: str, rules: dict[str, Any], *,
                           paused: bool = False) -> bool:
        """Start one table's dealer; a table whose settings or recovery fail is isolated (issue
        9): logged, listed out of service with the reason, and the other tables start."""
        try:
            settings = await self.db.run_read(lambda s: store.load_table(s, table_id))
            await self._add_dealer(settings, paused=paused)
        except Exception as error:  # whatever it is, one table must not stop the room
            log.exception("table %s (%s) is out of service: its recovery failed", table_id, name)
            reason = str(error).strip().splitlines()[0][:300] if str(error).strip() else \
                type(error).__name__
            self.broken[table_id] = Broken(table_id, name, reason, rules)
            return False
        self.broken.pop(table_id, None)
        return True

    def _seed(self, session: Session) -> str | None:
        ledger.ensure_account(session, ledger.ISSUER_CODE, kind="issuer")
        if not session.scalars(select(GameTable.id)).first():
            for name in self.config.default_tables:
                store.create_table(session, name=name, rules=RuleSet(),
                                   betting_seconds=DEFAULT_BETTING_SECONDS)
        operator = session.scalars(select(Player).where(Player.role == "operator")).first()
        if operator is not None:
            wanted = self.config.operator_password
            self.operator_password_ignored = wanted is not None and not auth.password_matches(
                wanted, operator.password_hash)
            return None
        password = self.config.operator_password
        generated = password is None
        if password is None:
            password = secrets.token_urlsafe(12)
        auth.check_password(password)
        auth.create_player(session, username=OPERATOR_USERNAME, role="operator", lang="fr",
                           password_hash=auth.hash_password(password,
                                                            rounds=self.config.bcrypt_rounds))
        return password if generated else None

    async def _add_dealer(self, settings: store.TableSettings, *,
                          paused: bool = False) -> TableDealer:
        dealer = await dealer_for(settings, db=self.db, config=self.config)  # dealer mode hook
        dealer.set_paused(paused)
        await dealer.open()
        self.dealers[settings.id] = dealer
        return dealer

    async def close(self) -> None:
        """Stop every dealer (each finishes its coup or voids its open round), then the database."""
        await asyncio.gather(*(dealer.stop() for dealer in self.dealers.values()))
        self.db.close()
        if self._held:
            release_sqlite(self.config.database_url)
            self._held = False

    def tell_player(self, player_id: int, message: dict[str, Any]) -> None:
        """Send a message to every open page of one player, whatever table it shows (a credit
        reaching an open page)."""
        for dealer in self.dealers.values():
            dealer.hub.send_to(player_id, message)

    def dealer(self, table_id: int) -> TableDealer:
        dealer = self.dealers.get(table_id)
        if dealer is None:
            if table_id in self.broken:
                raise OutOfService(f"Table {table_id} is out of service: "
                                   f"{self.broken[table_id].reason}")
            raise NotFound(f"There is no table {table_id}.")
        return dealer

    async def add_table(self, name: str, rules: dict[str, Any], *,
                        on_write: OnWrite | None = None,
                        dealing: str = "server") -> TableDealer:
        """A new table with its dealer (operator); names are unique ignoring case.
        ``on_write(session, settings)`` runs in the same transaction (the audit log)."""
        name = table_name(name)
        parsed, seconds = table_rules_from_json(rules)

        def create(session: Session) -> store.TableSettings:
            if store.find_table_named(session, name) is not None:
                raise PuntoBancoError(f"A table named {name!r} exists.", code="table-name-taken")
            settings = store.create_table(session, name=name, rules=parsed,
                                          betting_seconds=seconds)
            if dealing != "server":  # a hand-dealt table (docs/dealer.md)
                set_dealing(session, settings.id, dealing)
            if on_write is not None:
                on_write(session, settings)
            return settings

        try:
            settings = await self.db.run_write(create)
        except IntegrityError:  # the same name, created at the same moment
            raise PuntoBancoError(f"A table named {name!r} exists.",
                                  code="table-name-taken") from None
        return await self._add_dealer(settings)

    async def update_table(self, table_id: int, rules: dict[str, Any] | None, *,
                           on_write: OnWrite | None = None) -> TableDealer:
        """Change a table's settings; its dealer uses them from the next shoe.
        ``on_write(session, settings)`` runs in the same transaction (a rename, the audit log).
        A table out of service gets its settings changed, then its dealer is started again."""
        if table_id in self.broken:
            if rules is None:
                raise OutOfService(f"Table {table_id} is out of service: "
                                   f"{self.broken[table_id].reason}")
            broken = self.broken[table_id]
            stored = await self.db.run_write(lambda s: store.update_table(s, table_id, rules))
            if not await self._start_table(table_id, broken.name, stored.rules_json()):
                raise OutOfService(f"Table {table_id} is still out of service: "
                                   f"{self.broken[table_id].reason}")
            return self.dealers[table_id]
        dealer = self.dealer(table_id)

        def write(session: Session) -> store.TableSettings:
            settings = (store.update_table(session, table_id, rules) if rules is not None
                        else store.load_table(session, table_id))
            if on_write is not None:
                on_write(session, settings)
                settings = store.load_table(session, table_id)
            return settings

        dealer.settings = await self.db.run_write(write)
        return dealer


def table_name(name: str) -> str:
    """A table's name without the spaces around it, 1 to 64 characters, or a refusal."""
    name = name.strip()
    if not 1 <= len(name) <= MAX_TABLE_NAME:
        raise Refusal(f"A table's name is 1 to {MAX_TABLE_NAME} characters.",
                      code="bad-request", key="table-name-length")
    if any(unicodedata.category(char)[0] == "C" for char in name):  # NUL, controls
        raise Refusal("A table's name has no control character.", code="bad-request",
                      key="table-name-characters")
    return name
