"""The audit log: every operator action, who did it, when, and the state before and after.

An entry is written in the same transaction as the action it records, so an action that did
not happen leaves no entry and one that happened cannot lack its entry. Entries are never
changed or deleted; ``GET /api/audit`` reads them (``docs/operator.md``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from puntobanco.server.db.models import AuditEntry, GameTable, Player

#: every action the log knows, as ``GET /api/audit?action=`` spells it
ACTIONS = ("table-create", "table-rename", "table-rules", "table-pause", "table-resume",
           "player-credit", "player-suspend", "player-unsuspend", "dealer-create",
           "dealer-tables", "operator-password")


def record(session: Session, *, operator_id: int, action: str, target_kind: str,
           target_id: int | None, before: dict[str, Any] | None,
           after: dict[str, Any] | None) -> None:
    """Add an entry in the caller's transaction."""
    if action not in ACTIONS:
        raise ValueError(f"unknown audit action {action!r}")
    session.add(AuditEntry(operator_id=operator_id, action=action, target_kind=target_kind,
                           target_id=target_id, before=before, after=after))
    session.flush()


def entries(session: Session, *, limit: int = 100, before_id: int | None = None,
            action: str | None = None, target_kind: str | None = None,
            target_id: int | None = None) -> list[dict[str, Any]]:
    """The newest entries first (``before_id`` pages back), as ``GET /api/audit`` shows them;
    ``target_name`` is the table's or the player's name now."""
    query = (select(AuditEntry, Player.username).join(Player, Player.id == AuditEntry.operator_id)
             .order_by(AuditEntry.id.desc()).limit(limit))
    if before_id is not None:
        query = query.where(AuditEntry.id < before_id)
    if action is not None:
        query = query.where(AuditEntry.action == action)
    if target_kind is not None:
        query = query.where(AuditEntry.target_kind == target_kind)
    if target_id is not None:
        query = query.where(AuditEntry.target_id == target_id)
    found = session.execute(query).all()
    ids = {kind: sorted({e.target_id for e, _ in found
                         if e.target_kind == kind and e.target_id is not None})
           for kind in ("table", "player")}
    names: dict[tuple[str, int | None], str] = {("table", i): n for i, n in session.execute(
        select(GameTable.id, GameTable.name).where(GameTable.id.in_(ids["table"])))}
    names.update({("player", i): n for i, n in session.execute(
        select(Player.id, Player.username).where(Player.id.in_(ids["player"])))})
    return [{"id": entry.id, "at": epoch_ms(entry.at), "operator_id": entry.operator_id,
             "operator": username, "action": entry.action, "target_kind": entry.target_kind,
             "target_id": entry.target_id,
             "target_name": names.get((entry.target_kind, entry.target_id)),
             "before": entry.before, "after": entry.after}
            for entry, username in found]


def epoch_ms(moment: datetime) -> int:
    """A stored time as epoch milliseconds (SQLite gives it back without its UTC zone)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)
