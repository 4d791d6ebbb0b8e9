"""``puntobanco serve`` (the live table) and ``puntobanco verify`` (a provably fair shoe).

The web stack (FastAPI, SQLAlchemy, uvicorn) is imported inside ``serve`` only, so the rest of the
command line stays fast; ``verify`` needs nothing beyond the standard library and the core.
"""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from puntobanco.cli._app import app
from puntobanco.errors import PuntoBancoError

if TYPE_CHECKING:
    from puntobanco.server.live.casino import Casino

OPERATOR_PASSWORD_VARIABLE = "PUNTOBANCO_OPERATOR_PASSWORD"


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    database_url: Annotated[str | None, typer.Option(
        help="SQLAlchemy URL; default: an SQLite file under ./var/ "
             "(PostgreSQL: postgresql+psycopg://user:password@host/db).")] = None,
    betting_seconds: Annotated[float | None, typer.Option(
        help="Betting window of every table, overriding the tables' own settings.")] = None,
    closed_seconds: Annotated[float, typer.Option(
        help="Pause between \"no more bets\" and the first card, so players see betting "
             "close.")] = 1.0,
    card_seconds: Annotated[float, typer.Option(help="Pause between two dealt cards.")] = 0.6,
    result_seconds: Annotated[float, typer.Option(
        help="Pause between a settled coup and the next betting window.")] = 4.0,
    always_deal: Annotated[bool, typer.Option(
        help="Deal even while nobody watches a table (by default an unwatched table waits).")
    ] = False,
) -> None:
    """Run the live table: the web page, its API and a dealer per table, on a real database.

    An empty database gets two tables and an operator account; the operator's password comes
    from PUNTOBANCO_OPERATOR_PASSWORD, or is generated and printed once.
    """
    # Mistakes that need no database are answered before the web stack is even imported.
    from puntobanco.server.settings import (
        MAX_BETTING_SECONDS,
        MAX_PASSWORD,
        MIN_BETTING_SECONDS,
        MIN_PASSWORD,
        ServerSettings,
        default_database_url,
    )

    if not 0 < port < 65536:
        raise PuntoBancoError(f"A port is a number from 1 to 65535, not {port}.")
    if betting_seconds is not None and not MIN_BETTING_SECONDS <= betting_seconds <= MAX_BETTING_SECONDS:
        raise PuntoBancoError(f"The betting window lasts {MIN_BETTING_SECONDS} to "
                              f"{MAX_BETTING_SECONDS} seconds, not {betting_seconds}.")
    if not all(value >= 0 for value in (closed_seconds, card_seconds, result_seconds)):
        raise PuntoBancoError("A pause cannot be negative.")
    password = os.environ.get(OPERATOR_PASSWORD_VARIABLE) or None
    if password is not None and not MIN_PASSWORD <= len(password.encode()) <= MAX_PASSWORD:
        raise PuntoBancoError(f"{OPERATOR_PASSWORD_VARIABLE} must be {MIN_PASSWORD} to "
                              f"{MAX_PASSWORD} bytes long.")
    _check_port_free(host, port)

    import uvicorn
    from sqlalchemy.engine import make_url

    from puntobanco.server.app import create_app
    from puntobanco.server.db.engine import check_database

    url = database_url or default_database_url()
    check_database(url)
    settings = ServerSettings(database_url=url, betting_seconds=betting_seconds,
                              closed_seconds=closed_seconds, card_seconds=card_seconds,
                              result_seconds=result_seconds,
                              idle_when_unwatched=not always_deal, operator_password=password)
    shown_url = make_url(url).render_as_string(hide_password=True)
    address = f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{port}/"

    def ready(casino: Casino) -> None:
        tables = ", ".join(d.settings.name for d in casino.dealers.values())
        typer.echo(f"puntobanco: the live table is open at {address}  (tables: {tables}; "
                   f"database: {shown_url}). Ctrl-C stops it.", err=False)
        if casino.generated_operator_password is not None:
            typer.echo(f"puntobanco: operator account created: user 'operator', password "
                       f"'{casino.generated_operator_password}' (shown only now; set "
                       f"{OPERATOR_PASSWORD_VARIABLE} to choose it).")

    uvicorn.run(create_app(settings, on_ready=ready), host=host, port=port, log_level="warning",
                timeout_graceful_shutdown=5)


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
        help="A running server, e.g. http://127.0.0.1:8000 (with --shoe).")] = None,
    shoe: Annotated[int | None, typer.Option(help="The shoe's id on that server.")] = None,
) -> None:
    """Check a provably fair shoe: its commitment, its cards and every coup dealt from it.

    Prints "verified" (exit 0) or "MISMATCH: reason" (exit 1); bad input exits 2.
    """
    from puntobanco.cards import parse_cards
    from puntobanco.server.fair import Verdict, check_commitment, check_shoe_json

    modes = [commitment is not None or salt is not None or cards is not None,
             shoe_file is not None, url is not None or shoe is not None]
    if sum(modes) != 1:
        raise PuntoBancoError("Give either --commitment, --salt and --cards, or --shoe-file, or "
                              "--url and --shoe.")
    verdict: Verdict
    if modes[0]:
        if commitment is None or salt is None or cards is None:
            raise PuntoBancoError("--commitment, --salt and --cards go together.")
        verdict = check_commitment(commitment, salt, parse_cards(cards))
        what = "the commitment matches the salt and order"
    else:
        data = _read_shoe_file(shoe_file) if shoe_file is not None else _fetch_shoe(url, shoe)
        verdict = check_shoe_json(data)
        what = (f"the commitment matches; {len(data['revealed']['order'])} cards, whole decks; "
                f"{verdict.coups_checked} coup(s) dealt exactly as the order deals them")
    if not verdict.ok:
        typer.echo(f"MISMATCH: {verdict.reason}")
        raise typer.Exit(1)
    typer.echo(f"verified: {what}")


def _read_shoe_file(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise PuntoBancoError(f"Cannot read {str(path)!r}: {error.strerror}.") from None
    except ValueError:
        raise PuntoBancoError(f"{str(path)!r} is not JSON.") from None


def _fetch_shoe(url: str | None, shoe: int | None) -> Any:
    if url is None or shoe is None:
        raise PuntoBancoError("--url and --shoe go together.")
    address = f"{url.rstrip('/')}/api/shoes/{shoe}"
    if not address.startswith(("http://", "https://")):
        raise PuntoBancoError(f"{url!r} is not an http:// or https:// address.")
    # The command speaks English: so should the server's refusals it passes on.
    request = urllib.request.Request(address, headers={"Accept": "application/json",
                                                       "Accept-Language": "en"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        if error.code == 404:
            raise PuntoBancoError(f"The server at {url.rstrip('/')} has no shoe {shoe}.") from None
        raise PuntoBancoError(f"{address} answered {error.code}{_error_message(error)}.") from None
    except (urllib.error.URLError, OSError) as error:
        raise PuntoBancoError(f"Cannot reach {address} ({getattr(error, 'reason', error)}).") from None
    except ValueError:
        raise PuntoBancoError(f"{address} did not answer JSON.") from None


def _error_message(error: urllib.error.HTTPError) -> str:
    """": <the server's sentence>" without its full stop (the caller ends the sentence)."""
    try:
        text = str(json.loads(error.read().decode("utf-8"))["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return ""
    return ": " + text.strip().rstrip(".") if text.strip() else ""
