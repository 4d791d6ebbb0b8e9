"""``puntobanco play`` as a new user typed it (issue 12): amounts the language's way, ``=`` for
the same bets again, a bankroll too small for the table, the help's L5b line, keys typed while
the cards are revealed, and a loss and a push shown alike."""

from __future__ import annotations

import os
import pty
import termios

import pytest

from puntobanco.bets import BetKind
from puntobanco.cli.play import keys_not_echoed, parse_amount, parse_bet_line

from .support import Cli, assert_one_sentence_error
from .test_play import dealt_coups, final_balance, net_of


@pytest.mark.parametrize(("lang", "line", "cents"), [
    ("fr", "banco 10,00", 1000), ("it", "banco 12,50", 1250), ("es", "b 10,5 lb 10", 1050),
    ("it", "banco 1.000", 100_000), ("fr", "banco=12,50; lb=10", 1250), ("en", "banco 1,000", 100_000),
])
def test_amounts_typed_the_language_s_way_are_read_exactly(lang: str, line: str,
                                                           cents: int) -> None:
    assert parse_bet_line(line, lang)[0] == (BetKind.BANCO, cents)


def test_a_french_seat_bets_ten_euros_with_a_decimal_comma(cli: Cli) -> None:
    run = cli("play", "--seed", "4", "--coups", "1", "--player", "Ann", stdin="banco 10,00\n")
    assert run.code == 0 and "✓ Banco 10 €" in run.out
    [coup] = dealt_coups(4, 1)
    assert final_balance(run.out, "Ann") == 100_000 + net_of({BetKind.BANCO: 1000}, coup)


def test_amounts_still_refuse_three_decimals_and_english_decimal_commas() -> None:
    with pytest.raises(ValueError, match="more than two decimals"):
        parse_amount("10,505", "fr")
    with pytest.raises(ValueError, match="Give each bet"):
        parse_bet_line("banco 10,50", "en")


def test_equals_places_the_seat_s_last_bets_again(cli: Cli) -> None:
    run = cli("play", "--seed", "4", "--coups", "3", "--player", "Ann", "--lang", "en",
              stdin="=\nb 25 lb 10\n=\n\n")
    assert "No bets to repeat yet" in run.out  # nothing to repeat before the first bet
    assert run.out.count("✓ Banker €25 · Lion Bonus Banker €10") == 2
    coups = dealt_coups(4, 2)
    bets = {BetKind.BANCO: 2500, BetKind.LION_BANCO: 1000}
    assert final_balance(run.out, "Ann", title="Coups played") == (
        100_000 + net_of(bets, coups[0]) + net_of(bets, coups[1]))


@pytest.mark.parametrize("bankroll", ["5", "9.99"])
def test_a_bankroll_below_the_table_minimum_is_refused_up_front(cli: Cli, bankroll: str) -> None:
    run = cli("play", "--bankroll", bankroll, "--lang", "en", stdin="q\n")
    assert_one_sentence_error(run, mentions="smallest minimum stake (€10.00)")
    assert run.out == ""
    assert cli("play", "--bankroll", "5", "--limit", "lion=5-50", "--coups", "1",
               stdin="\n").code == 0  # a table whose Lion Bonus takes 5 € lets it play


@pytest.mark.parametrize(("lang", "sentence"), [
    ("fr", "une égalité d'abattages rend la mise du Lion Bonus (L5b)"),
    ("it", "un pareggio di battute restituisce la puntata del Lion Bonus (L5b)"),
    ("es", "un empate de naturales devuelve la apuesta del Lion Bonus (L5b)"),
    ("en", "a natural tie returns the Lion Bonus stake (L5b)"),
])
def test_help_says_a_natural_tie_returns_the_lion_bonus_L5b(cli: Cli, lang: str,
                                                             sentence: str) -> None:
    out = cli("play", "--coups", "1", "--lang", lang, stdin="?\n\n").out
    assert sentence in " ".join(out.replace("│", " ").split())


def test_a_loss_and_a_push_both_show_no_odds(cli: Cli) -> None:
    # DRAWN_TIE (4H 2S 9S 3D 7C 5C): Banco is returned (push), the Lion Bonus loses (L5d).
    out = cli("replay", "4H", "2S", "9S", "3D", "7C", "5C", "--bet", "banco=25",
              "--bet", "lion-banco=10", "--lang", "en").out
    rows = [line for line in out.splitlines() if "€" in line and ("Returned" in line
                                                                  or "Lost" in line)]
    assert len(rows) == 2 and all("│    — │" in row for row in rows), rows
    assert "0:1" not in out


def test_keys_typed_while_the_cards_are_revealed_are_not_echoed_nor_kept() -> None:
    leader, follower = pty.openpty()
    try:
        with os.fdopen(os.dup(follower), "r") as terminal:
            before = termios.tcgetattr(follower)
            assert before[3] & termios.ECHO
            with keys_not_echoed(terminal):
                assert not termios.tcgetattr(follower)[3] & termios.ECHO
                os.write(leader, b"banco 25")  # typed during the animation
            assert termios.tcgetattr(follower) == before
            os.write(leader, b"p 10\n")
            assert terminal.readline() == "p 10\n"  # what was typed meanwhile is gone
    finally:
        os.close(leader)
        os.close(follower)
