"""``puntobanco players create``: many test players at once, one password hash for all.

For an operator's test accounts and for load tests (``bench/bench_load.py``): sign-up pays a
bcrypt hash per player, this command pays one. See
:mod:`puntobanco.server.db.players` for what is written and what counts as a database in play.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from puntobanco.cli._app import app
from puntobanco.errors import PuntoBancoError

players_app = typer.Typer(help="Test players: many at once, without a bcrypt hash each.",
                          no_args_is_help=True)
app.add_typer(players_app, name="players")


@players_app.command("create")
def create(
    count: Annotated[int, typer.Option(help="How many players.", min=1)],
    prefix: Annotated[str, typer.Option(
        help="Their names are PREFIX1, PREFIX2, … (3 to 32 letters, digits, dots, dashes or "
             "underscores in all).")],
    start: Annotated[int, typer.Option(help="The first number.")] = 1,
    password_file: Annotated[Path | None, typer.Option(
        help="A file whose first line is the players' one password (else typed twice at the "
             "prompt).", metavar="FILE", show_default=False)] = None,
    database_url: Annotated[str | None, typer.Option(
        help="The server's database (default: the SQLite file under ./var/ that serve uses).",
        metavar="URL", show_default=False)] = None,
    lang: Annotated[str, typer.Option(help="Their language: fr, it, es or en.")] = "fr",
    sessions_file: Annotated[Path | None, typer.Option(
        help="Also open a session for each player and write 'id username token' lines here "
             "(mode 0600): a load test needs no log-in.", metavar="FILE",
        show_default=False)] = None,
    yes: Annotated[bool, typer.Option(
        "--yes", help="Write into a database in play (where money has moved beyond welcome "
                      "credits).")] = False,
) -> None:
    """Create COUNT players named PREFIX<n>, all with one password (hashed once), each with the
    welcome credit in the ledger; one transaction per 1,000 players.

    It refuses a database in play — where any money has moved beyond welcome credits (a
    stake, a payout, a refund, an operator's credit) — unless --yes.
    """
    from puntobanco.money import format_cents
    from puntobanco.server.db import auth
    from puntobanco.server.db import players as bulk_players
    from puntobanco.server.db.engine import Database, check_database
    from puntobanco.server.settings import WELCOME_CREDIT, default_database_url

    names = bulk_players.usernames(prefix, count, start=start)
    auth.check_lang(lang)
    password = _password(password_file)
    auth.check_password(password)
    url = database_url or default_database_url()
    check_database(url)
    database = Database(url, threads=1)
    try:
        with database.read() as session:
            if bulk_players.in_play(session) and not yes:
                raise PuntoBancoError(
                    "This database is in play (money has moved beyond welcome credits): "
                    "add --yes to create test players in it anyway.")
        hashed = auth.hash_password(password)
        out = None
        if sessions_file is not None:
            descriptor = os.open(sessions_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            out = os.fdopen(descriptor, "w")
        made = 0
        try:
            for first in range(0, len(names), bulk_players.CHUNK):
                chunk = names[first:first + bulk_players.CHUNK]
                with database.write() as session:
                    written = bulk_players.create_players(
                        session, chunk, password_hash=hashed, lang=lang,
                        welcome=WELCOME_CREDIT, sessions=out is not None)
                if out is not None:
                    out.writelines(f"{p.id} {p.username} {p.token}\n" for p in written)
                made += len(written)
        finally:
            if out is not None:
                out.close()
    finally:
        database.close()
    typer.echo(f"puntobanco: {made:,} players created, {names[0]} to {names[-1]}, each "
               f"credited {format_cents(WELCOME_CREDIT)} of play money"
               + (f"; their sessions are in {sessions_file}." if sessions_file else "."))


def _password(path: Path | None) -> str:
    if path is not None:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise PuntoBancoError(f"Cannot read the password file {path}: "
                                  f"{getattr(error, 'strerror', None) or error}.") from None
        if not lines or not lines[0]:
            raise PuntoBancoError(f"The password file {path} has no password on its first line.")
        return lines[0]
    if sys.stdin.isatty():
        return str(typer.prompt("The players' password", hide_input=True,
                                confirmation_prompt=True))
    raise PuntoBancoError("Give the players' password in a file (--password-file) or type it "
                          "at a terminal.")
