"""``puntobanco serve`` (the live table) and ``puntobanco verify`` (a provably fair shoe).

The web stack (FastAPI, SQLAlchemy, uvicorn) is imported inside ``serve`` only, so the rest of the
command line stays fast; ``verify`` needs nothing beyond the standard library and the core.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from puntobanco.cli._app import app
from puntobanco.cli._paths import database_folder, read_text, sqlite_file
from puntobanco.errors import PuntoBancoError

if TYPE_CHECKING:
    from puntobanco.server.live.casino import Casino

OPERATOR_PASSWORD_VARIABLE = "PUNTOBANCO_OPERATOR_PASSWORD"
#: ``serve --workers N``: the settings each worker process reads (JSON), set by the parent
WORKER_SETTINGS_VARIABLE = "PUNTOBANCO_WORKER_SETTINGS"


#: The longest pause ``serve`` takes between the steps of a coup (``--closed-seconds``,
#: ``--card-seconds``, ``--result-seconds``): longer, and a table looks stopped.
MAX_PAUSE_SECONDS = 60
#: the longest ``--bet-linger-ms``: every bet's answer waits up to this long for its batch
MAX_LINGER_MS = 100

#: ``serve --help``: paragraphs without hard line breaks (the terminal wraps them), URLs whole.
_SERVE_HELP = (
    "Run the live table: the web page, its API and a dealer per table, on a real database.\n\n"
    "An empty database gets two tables and an operator account, whose password comes from "
    "PUNTOBANCO_OPERATOR_PASSWORD or is generated and printed once. On a database that has its "
    "operator already, the variable is not applied (serve says so): reset the password with "
    "`puntobanco operator-password`.")


@app.command(help=_SERVE_HELP)
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    database_url: Annotated[str | None, typer.Option(
        help="SQLAlchemy URL of the database (default: an SQLite file under ./var/); for "
             "PostgreSQL see docs/server.md.", metavar="URL", show_default=False)] = None,
    betting_seconds: Annotated[float | None, typer.Option(
        help=f"Betting window of every table in seconds, {_betting_range()}, overriding the "
             "tables' own settings.", metavar="SECONDS", show_default=False)] = None,
    closed_seconds: Annotated[float, typer.Option(
        help="Pause between \"no more bets\" and the first card, so players see betting "
             "close.", metavar="SECONDS")] = 1.0,
    card_seconds: Annotated[float, typer.Option(help="Pause between two dealt cards.",
                                                metavar="SECONDS")] = 0.6,
    result_seconds: Annotated[float, typer.Option(
        help="Pause between a settled coup and the next betting window.",
        metavar="SECONDS")] = 4.0,
    always_deal: Annotated[bool, typer.Option(
        "--always-deal", help="Deal even while nobody watches a table (by default an unwatched "
        "table waits).")] = False,
    workers: Annotated[int, typer.Option(
        help="Server processes sharing the port (PostgreSQL only; each serves every table, one "
             "deals each; see docs/server.md).", metavar="N")] = 1,
    idle_seconds: Annotated[int, typer.Option(
        help="Close a connection that stays idle this long: between two requests, and before "
             "its first one.", metavar="SECONDS")] = 75,
    bet_linger_ms: Annotated[float | None, typer.Option(
        help="Write a table's batch of bets this long after its first bet arrived (or at once "
             "with 64 waiting, or at the close): fewer, larger transactions; 0 to 100 ms. "
             "Default: 50 on SQLite, 25 on PostgreSQL.",
        metavar="MS", show_default=False)] = None,
) -> None:
    # Mistakes that need no database are answered before the web stack is even imported.
    from puntobanco.server.settings import (
        MAX_BETTING_SECONDS,
        MIN_BETTING_SECONDS,
        ServerSettings,
        default_database_url,
    )

    if not 0 < port < 65536:
        raise PuntoBancoError(f"A port is a number from 1 to 65535, not {port}.")
    if betting_seconds is not None and not MIN_BETTING_SECONDS <= betting_seconds <= MAX_BETTING_SECONDS:
        raise PuntoBancoError(f"The betting window lasts {MIN_BETTING_SECONDS} to "
                              f"{MAX_BETTING_SECONDS} seconds, not {betting_seconds}.")
    for option, seconds in (("--closed-seconds", closed_seconds),
                            ("--card-seconds", card_seconds),
                            ("--result-seconds", result_seconds)):
        if not 0 <= seconds <= MAX_PAUSE_SECONDS:  # also refuses nan
            raise PuntoBancoError(f"{option} is a pause of 0 to {MAX_PAUSE_SECONDS} seconds, "
                                  f"not {seconds:g}.")
    if not 1 <= workers <= 64:
        raise PuntoBancoError(f"--workers is a number from 1 to 64, not {workers}.")
    if not 1 <= idle_seconds <= 3600:
        raise PuntoBancoError(f"--idle-seconds is a number from 1 to 3600, not {idle_seconds}.")
    if bet_linger_ms is not None and not 0 <= bet_linger_ms <= MAX_LINGER_MS:  # and nan
        raise PuntoBancoError(f"--bet-linger-ms is 0 to {MAX_LINGER_MS} ms, not "
                              f"{bet_linger_ms:g}.")
    options = {**UVICORN_OPTIONS, "timeout_keep_alive": idle_seconds}
    password = _password_from_environment()
    from puntobanco.server.db.engine import backend_of

    url = database_url or default_database_url()
    backend = backend_of(url)
    if database_url is not None:
        database_folder(url)  # the default ./var/ is made on demand; a folder given must exist
    if workers > 1 and backend == "sqlite":
        raise PuntoBancoError(f"--workers {workers} needs PostgreSQL: one process serves an "
                              "SQLite file (give a postgresql+psycopg:// --database-url).")
    _check_port_free(host, port)

    import uvicorn
    from sqlalchemy.engine import make_url

    from puntobanco.server.app import create_app
    from puntobanco.server.db.engine import check_database, hold_sqlite

    check_database(url)
    hold_sqlite(url)  # a second process on the same SQLite file stops here, with one sentence
    settings = ServerSettings(database_url=url, betting_seconds=betting_seconds,
                              closed_seconds=closed_seconds, card_seconds=card_seconds,
                              result_seconds=result_seconds,
                              idle_when_unwatched=not always_deal, operator_password=password,
                              bet_linger_seconds=None if bet_linger_ms is None
                              else bet_linger_ms / 1000)
    shown_url = make_url(url).render_as_string(hide_password=True)
    address = f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{port}/"

    def ready(casino: Casino) -> None:
        tables = ", ".join(getattr(casino, "table_names", None)
                           or [d.settings.name for d in casino.dealers.values()])
        typer.echo(f"puntobanco: the live table is open at {address}  (tables: {tables}; "
                   f"database: {shown_url}). Ctrl-C stops it.", err=False)
        if casino.generated_operator_password is not None:
            typer.echo(f"puntobanco: operator account created: user 'operator', password "
                       f"'{casino.generated_operator_password}' (shown only now; set "
                       f"{OPERATOR_PASSWORD_VARIABLE} to choose it).")
        if getattr(casino, "operator_password_ignored", False):
            typer.echo(f"puntobanco: {OPERATOR_PASSWORD_VARIABLE} is not applied: this database "
                       "has its operator already, with another password. Reset it with "
                       f"`puntobanco operator-password --database-url {shown_url}`.")

    _raise_open_files_limit()
    if workers > 1:
        _serve_workers(settings, workers=workers, host=host, port=port, ready=ready,
                       options=options)
        return
    uvicorn.run(create_app(settings, on_ready=ready), host=host, port=port, **options)


#: How every ``serve`` runs uvicorn (issue 8, docs/server.md). No per-message deflate:
#: compressing every small JSON message for every socket cost the one event loop more than
#: anything else in the fan-out. Idle keep-alive connections are kept 75 s (nginx's default)
#: rather than uvicorn's 5: a player bets once a coup, 20–30 s apart, and with 5 s every bet
#: of a round opened a new connection (and a client's first write on the closed one failed).
#: The protocol is uvicorn's own, whose idle timer also runs before a connection's first
#: request (``server/connections.py``, issue 18); named by its import path, so that the worker
#: processes of ``--workers`` import it too. No ``Server: uvicorn`` header (issue 21: an answer
#: carries what its client needs). No WebSocket keep-alive ping (issue 21, sixth pass: a ping
#: and its pong every 20 s per socket cost ~20 µs of every bet at 1,000 players): the kernel's
#: TCP keep-alive and user timeout find a vanished peer as soon (``server/connections.py``).
UVICORN_OPTIONS: dict[str, Any] = {"log_level": "warning", "timeout_graceful_shutdown": 5,
                                   "ws_per_message_deflate": False, "timeout_keep_alive": 75,
                                   "ws_ping_interval": None,
                                   "http": "puntobanco.server.connections:FirstRequestTimeout",
                                   "server_header": False}


def _raise_open_files_limit() -> None:
    """Every socket is a file: lift the soft limit (often 1,024) to the hard one, as servers
    do, so a thousand players' keep-alive connections and WebSockets fit (POSIX only)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65_536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):  # refused: keep the soft limit
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def _serve_workers(settings: Any, *, workers: int, host: str, port: int, ready: Any,
                   options: dict[str, Any]) -> None:
    """``--workers N``: the parent seeds the database (the operator's password is printed
    once), then uvicorn starts N processes sharing the port; each builds the application from
    :data:`WORKER_SETTINGS_VARIABLE` (:func:`worker_app`) and serves every table."""
    import asyncio
    import dataclasses

    import uvicorn

    from puntobanco.server.live.casino import Casino

    casino = Casino(settings)
    casino.generated_operator_password, names = asyncio.run(_seed(casino))
    casino.table_names = names  # type: ignore[attr-defined]  # the ready line's tables
    ready(casino)
    typer.echo(f"puntobanco: {workers} worker processes share the port; each serves every "
               "table, and one of them deals each.")
    fields = {name: getattr(settings, name) for name in (
        "database_url", "betting_seconds", "closed_seconds", "card_seconds", "result_seconds",
        "idle_when_unwatched", "bet_linger_seconds")}
    assert dataclasses.is_dataclass(settings)
    os.environ[WORKER_SETTINGS_VARIABLE] = json.dumps(fields)
    uvicorn.run("puntobanco.cli.serve:worker_app", factory=True, workers=workers, host=host,
                port=port, **options)


async def _seed(casino: Casino) -> tuple[str | None, list[str]]:
    from puntobanco.server.db import store

    try:
        password = await casino.db.run_write(casino._seed)
        return password, [name for _, name, _ in await casino.db.run_read(store.table_rows)]
    finally:
        casino.db.close()


def worker_app() -> Any:
    """The application of one ``serve --workers N`` process (uvicorn's factory)."""
    from puntobanco.server.app import create_app
    from puntobanco.server.settings import ServerSettings

    fields = json.loads(os.environ[WORKER_SETTINGS_VARIABLE])
    return create_app(ServerSettings(**fields))


def _betting_range() -> str:
    from puntobanco.server.settings import MAX_BETTING_SECONDS, MIN_BETTING_SECONDS

    return f"{MIN_BETTING_SECONDS:g} to {MAX_BETTING_SECONDS:g}"


def _password_from_environment() -> str | None:
    from puntobanco.server.settings import MAX_PASSWORD, MIN_PASSWORD

    password = os.environ.get(OPERATOR_PASSWORD_VARIABLE) or None
    if password is not None and not MIN_PASSWORD <= len(password.encode()) <= MAX_PASSWORD:
        raise PuntoBancoError(f"{OPERATOR_PASSWORD_VARIABLE} must be {MIN_PASSWORD} to "
                              f"{MAX_PASSWORD} bytes long.")
    return password


@app.command("operator-password")
def operator_password(
    database_url: Annotated[str | None, typer.Option(
        help="The server's database (default: the SQLite file under ./var/ that serve uses).",
        metavar="URL", show_default=False)] = None,
    generate: Annotated[bool, typer.Option(
        "--generate", help="Make up a new password and print it once.")] = False,
) -> None:
    """Reset the operator's password, and sign the operator out everywhere.

    The new password comes from PUNTOBANCO_OPERATOR_PASSWORD, or is typed twice at the prompt, or
    is made up with --generate. Works whether the server runs or not.
    """
    import secrets

    from puntobanco.server.db.engine import Database, check_database
    from puntobanco.server.settings import default_database_url

    password = _password_from_environment()
    shown = password is None and generate
    if password is None:
        if generate:
            password = secrets.token_urlsafe(12)
        elif sys.stdin.isatty():
            password = typer.prompt("New operator password", hide_input=True,
                                    confirmation_prompt=True)
        else:
            raise PuntoBancoError(f"Give the new password in {OPERATOR_PASSWORD_VARIABLE}, type "
                                  "it at a terminal, or use --generate.")
    url = database_url or default_database_url()
    _check_server_database(url)
    check_database(url)  # brings an older server's database up to date; it has its tables
    database = Database(url, threads=1)
    try:
        with database.write() as session:
            _reset_operator_password(session, password)
    finally:
        database.close()
    typer.echo("puntobanco: the operator's password is reset; the operator is signed out "
               "everywhere." + (f" New password: '{password}' (shown only now)." if shown else ""))


def _no_operator_yet(where: str, *, made: str = "has no operator yet: `puntobanco serve` "
                     "creates one") -> PuntoBancoError:
    return PuntoBancoError(f"{where} {made} on its first start (with "
                           f"{OPERATOR_PASSWORD_VARIABLE}, your password).")


def _check_server_database(url: str) -> None:
    """A database ``serve`` has started on, which this command will not create or migrate
    into being: an SQLite file that exists, a database whose players table exists."""
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from puntobanco.server.db.engine import backend_of

    backend_of(url)
    path = sqlite_file(url)
    if path is not None and not path.is_file():
        raise _no_operator_yet(f"There is no database at {path}:", made="`puntobanco serve` "
                               "creates it, and its operator,")
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            has_players = inspect(connection).has_table("players")
    except SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        raise PuntoBancoError(f"Cannot open the database "
                              f"{make_url(url).render_as_string()}: {reason}.",
                              code="bad-database") from None
    finally:
        engine.dispose()
    if not has_players:
        raise _no_operator_yet("This database")


def _reset_operator_password(session: Any, password: str) -> None:
    """The new password, every session of the operator ended, and an ``operator-password``
    entry in the audit log, all in the caller's one transaction."""
    from sqlalchemy import delete, func, select

    from puntobanco.server.db import audit, auth
    from puntobanco.server.db.models import LoginSession, Player

    auth.check_password(password)
    operator = session.scalars(select(Player).where(Player.role == "operator")
                               .order_by(Player.id)).first()
    if operator is None:
        raise _no_operator_yet("This database")
    signed_in = session.scalar(select(func.count()).select_from(LoginSession)
                               .where(LoginSession.player_id == operator.id))
    operator.password_hash = auth.hash_password(password)
    session.execute(delete(LoginSession).where(LoginSession.player_id == operator.id))
    audit.record(session, operator_id=operator.id, action="operator-password",
                 target_kind="player", target_id=operator.id,
                 before={"sessions": signed_in},
                 after={"sessions": 0, "by": "puntobanco operator-password"})


def _check_port_free(host: str, port: int) -> None:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise PuntoBancoError(f"{host!r} is not an address this machine can listen on.") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRNOTAVAIL:  # the port is not the trouble: the address is
                raise PuntoBancoError(f"Cannot listen on {host}: it is not an address of this "
                                      "machine; choose another --host (e.g. 127.0.0.1 or "
                                      "0.0.0.0).") from None
            raise PuntoBancoError(f"Cannot listen on {host}:{port} ({error.strerror}); choose "
                                  "another --port.") from None


@app.command()
def verify(
    commitment: Annotated[str | None, typer.Option(help="The published commitment (hex).")] = None,
    salt: Annotated[str | None, typer.Option(help="The revealed salt (hex).")] = None,
    cards: Annotated[str | None, typer.Option(
        help="The revealed order, burned cards first: \"AS 2H TD …\".")] = None,
    shoe_file: Annotated[Path | None, typer.Option(
        help="A shoe as GET /api/shoes/{id} returns it (JSON).")] = None,
    url: Annotated[str | None, typer.Option(
        help="A running server, e.g. http://127.0.0.1:8000 (with --table and --shoe).")] = None,
    table: Annotated[str | None, typer.Option(
        help="The table's name, as the page shows it (with --url and --shoe).")] = None,
    shoe: Annotated[int | None, typer.Option(
        help="With --table: the table's shoe number, as the page shows it. Alone: the shoe's "
             "id on the server.")] = None,
) -> None:
    """Check a provably fair shoe: its commitment, its cards and every coup dealt from it.

    Prints "verified: table T, shoe N: …" (exit 0) or "MISMATCH: table T, shoe N: reason"
    (exit 1), naming the table and shoe checked; bad input exits 2.
    """
    from puntobanco.cards import parse_cards
    from puntobanco.server.fair import Verdict, check_commitment, check_shoe_json

    modes = [commitment is not None or salt is not None or cards is not None,
             shoe_file is not None, url is not None or shoe is not None or table is not None]
    if sum(modes) != 1:
        raise PuntoBancoError("Give either --commitment, --salt and --cards, or --shoe-file, or "
                              "--url, --table and --shoe.")
    verdict: Verdict
    if modes[0]:
        if commitment is None or salt is None or cards is None:
            raise PuntoBancoError("--commitment, --salt and --cards go together.")
        verdict = check_commitment(commitment, salt, parse_cards(cards))
        which = ""
        what = "the commitment matches the salt and order"
    else:
        data = (_read_shoe_file(shoe_file) if shoe_file is not None
                else _fetch_shoe(url, shoe, table=table))
        verdict = check_shoe_json(data)
        which = f"{_which_shoe(data)}: "
        if data.get("dealing") == "dealer":  # a hand-dealt shoe (docs/dealer.md)
            what = (f"{len(data['entries'])} recorded entries; {verdict.coups_checked} coup(s) "
                    "drawn by the rules and settled by them")
        else:
            what = (f"the commitment matches; {len(data['revealed']['order'])} cards, whole "
                    f"decks; {verdict.coups_checked} coup(s) dealt exactly as the order deals "
                    "them")
    if not verdict.ok:
        typer.echo(f"MISMATCH: {which}{verdict.reason}")
        raise typer.Exit(1)
    typer.echo(f"verified: {which}{what}")


def _which_shoe(data: Any) -> str:
    """``table Roma, shoe 3 (shoe id 17)``: what was checked, from the shoe's JSON.

    >>> _which_shoe({"id": 17, "table_id": 2, "table_name": "Roma", "shoe_no": 3})
    'table Roma, shoe 3 (shoe id 17)'
    >>> _which_shoe({"id": 4, "table_id": 1, "shoe_no": 1})
    'table 1, shoe 1 (shoe id 4)'
    """
    try:
        table = data.get("table_name") or data["table_id"]
        return f"table {table}, shoe {data['shoe_no']} (shoe id {data['id']})"
    except (AttributeError, KeyError, TypeError):
        return "a shoe without its table and number"


def _read_shoe_file(path: Path) -> Any:
    try:
        data = json.loads(read_text(path, what="the shoe file"))
    except ValueError as error:
        if isinstance(error, PuntoBancoError):
            raise
        raise PuntoBancoError(f"{str(path)!r} is not JSON.") from None
    if not isinstance(data, dict) or "commitment" not in data:  # {} is no unrevealed shoe
        raise PuntoBancoError(f"{str(path)!r} is not a shoe as GET /api/shoes/{{id}} returns "
                              "it: it has no commitment.", code="bad-shoe")
    return data


def _fetch_shoe(url: str | None, shoe: int | None, *, table: str | None = None) -> Any:
    if url is None or shoe is None:
        raise PuntoBancoError("--url and --shoe go together (with --table for the table's own "
                              "shoe number).")
    base = url.rstrip("/")
    if table is not None:
        if not table.strip():
            raise PuntoBancoError("--table needs the table's name.")
        address = f"{base}/api/tables/{urllib.parse.quote(table.strip(), safe='')}/shoes/{shoe}"
        missing = f"The server at {base} has no shoe {shoe} at table {table.strip()}."
    else:
        address = f"{base}/api/shoes/{shoe}"
        missing = f"The server at {base} has no shoe {shoe}."
    if not address.startswith(("http://", "https://")):
        raise PuntoBancoError(f"{url!r} is not an http:// or https:// address.")
    try:
        return _get_json(address)
    except urllib.error.HTTPError as error:
        if error.code != 404:
            raise PuntoBancoError(f"{address} answered {error.code}{_error_message(error)}."
                                  ) from None
    if table is not None and not _has_table(base, table.strip()):
        raise PuntoBancoError(f"The server at {base} has no table {table.strip()!r}.")
    raise PuntoBancoError(missing)


def _get_json(address: str) -> Any:
    """The JSON a server answers at ``address`` (an ``HTTPError`` is the caller's to read)."""
    # The command speaks English: so should the server's refusals it passes on.
    request = urllib.request.Request(address, headers={"Accept": "application/json",
                                                       "Accept-Language": "en"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read().decode("utf-8"))
    except urllib.error.HTTPError:
        raise
    except (urllib.error.URLError, OSError) as error:
        raise PuntoBancoError(f"Cannot reach {address} ({getattr(error, 'reason', error)}).") from None
    except ValueError:
        raise PuntoBancoError(f"{address} did not answer JSON.") from None


def _has_table(base: str, table: str) -> bool:
    """Whether the server has a table of that name (any case) or id, as ``/api/tables`` lists
    them: a shoe not found is then the table's, not a table not found."""
    try:
        tables = _get_json(f"{base}/api/tables")
    except (urllib.error.HTTPError, PuntoBancoError):
        return True  # cannot tell: say what was asked for
    return any(isinstance(item, dict) and (str(item.get("name", "")).casefold() == table.casefold()
                                           or str(item.get("id")) == table)
               for item in tables or [])


def _error_message(error: urllib.error.HTTPError) -> str:
    """": <the server's sentence>" without its full stop (the caller ends the sentence)."""
    try:
        text = str(json.loads(error.read().decode("utf-8"))["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return ""
    return ": " + text.strip().rstrip(".") if text.strip() else ""
