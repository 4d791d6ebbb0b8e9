"""Issue 21: ``puntobanco players create`` makes many test players at once (one bcrypt hash),
each with the welcome credit in the ledger, and refuses a database in play without ``--yes``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from puntobanco.cli import main
from puntobanco.server.db.engine import make_engines
from puntobanco.server.db.models import Account, LedgerTransaction, Player
from puntobanco.server.settings import WELCOME_CREDIT

from .support import Player as Client
from .support import check_books, fast_settings, running


class Ran:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def _command(capsys: pytest.CaptureFixture[str], *arguments: str) -> Ran:
    """``puntobanco players create ARGUMENTS`` as the script runs it (in this process; stdin is
    not a terminal under pytest)."""
    saved = sys.argv
    sys.argv = ["puntobanco", "players", "create", *arguments]
    try:
        main()
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    finally:
        sys.argv = saved
    out, err = capsys.readouterr()
    return Ran(code, out, err)


def _create(url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> Ran:
    password = tmp_path / "password"
    password.write_text("test-players-1\n")
    return _command(capsys, "--database-url", url, "--password-file", str(password), *options)


def test_issue21_players_create_writes_chunks_of_players_with_the_welcome_credit(
        db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sessions = tmp_path / "sessions"
    made = _create(db_url, tmp_path, capsys, "--count", "2100", "--prefix", "qa-",
                   "--sessions-file", str(sessions))  # three transactions: 1,000 + 1,000 + 100
    assert made.returncode == 0, made.stderr
    assert "2,100 players created, qa-1 to qa-2100" in made.stdout
    assert sessions.stat().st_mode & 0o777 == 0o600  # the tokens are secrets
    lines = [line.split() for line in sessions.read_text().splitlines()]
    assert len(lines) == 2100 and lines[0][1] == "qa-1" and lines[-1][1] == "qa-2100"
    books = check_books(db_url)  # every transaction a balanced pair, every balance its entries
    assert books["entries"] == 2 * 2100
    writer, reader = make_engines(db_url)
    try:
        with Session(reader) as session:
            wallets = session.scalars(select(Account.balance).where(Account.kind == "wallet"))
            assert list(wallets) == [WELCOME_CREDIT] * 2100
            reasons = session.scalars(select(LedgerTransaction.reason).distinct())
            assert list(reasons) == ["welcome"]
            hashes = session.scalars(select(func.count(Player.password_hash.distinct())))
            assert list(hashes) == [1]  # hashed once
    finally:
        writer.dispose()
        reader.dispose()
    # the players are real: one signs in with the password, another bets with its session
    with running(fast_settings(db_url, betting_seconds=2.0)) as server:
        signed = server.http.post("/api/login", json={"username": "QA-2100",
                                                       "password": "test-players-1"})
        assert signed.status_code == 200, signed.text
        player_id, _, token = lines[6]
        bettor = Client(token, int(player_id), "qa-7")
        assert server.balance(bettor) == WELCOME_CREDIT
        watcher = server.watch(1, bettor)
        coup = watcher.next("round-opened")["coup_id"]
        placed = server.http.post("/api/tables/1/bets", headers=bettor.headers, json={
            "bet": "banco", "stake": 1000, "coup_id": coup})
        assert placed.status_code == 200, placed.text
        watcher.of_coup("round-settled", coup)
        watcher.close()
    check_books(db_url)
    # money has moved beyond welcome credits: the database is in play, --yes is asked for
    refused = _create(db_url, tmp_path, capsys, "--count", "5", "--prefix", "more")
    assert refused.returncode == 2 and "in play" in refused.stderr and "--yes" in refused.stderr
    assert "Traceback" not in refused.stderr
    agreed = _create(db_url, tmp_path, capsys, "--count", "5", "--prefix", "more", "--yes")
    assert agreed.returncode == 0, agreed.stderr
    check_books(db_url)


def test_issue21_players_create_mistakes_are_one_sentence(
        sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _create(sqlite_url, tmp_path, capsys, "--count", "3", "--prefix", "ann").returncode == 0
    for options, said in (
            (("--count", "3", "--prefix", "ANN"), "The username 'ANN1' is taken."),
            (("--count", "2", "--prefix", "a"), "A username is 3 to 32"),
            (("--count", "3", "--prefix", "bob", "--lang", "xx"), "The language is one of"),
            (("--count", "200000", "--prefix", "bob"), "--count is 1 to 100,000")):
        answer = _create(sqlite_url, tmp_path, capsys, *options)
        assert answer.returncode == 2, options
        assert said in answer.stderr and "Traceback" not in answer.stderr, answer.stderr
    missing = _command(capsys, "--database-url", sqlite_url, "--count", "1", "--prefix", "bob",
                       "--password-file", str(tmp_path / "none"))
    assert missing.returncode == 2 and "Cannot read the password file" in missing.stderr
    no_tty = _command(capsys, "--database-url", sqlite_url, "--count", "1", "--prefix", "bob")
    assert no_tty.returncode == 2 and "--password-file" in no_tty.stderr
