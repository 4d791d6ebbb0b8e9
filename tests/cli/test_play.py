"""``puntobanco play`` driven through piped input, checked against the core dealt independently.

With ``--seed S`` the table shuffles with ``random.Random(S)``: the tests rebuild the same shoes
with :class:`~puntobanco.shoe.Shoe` and settle the same bets with ``settle_spot``, so every
balance the game shows can be checked against bankroll + the sum of the nets.
"""

from __future__ import annotations

import io
import json
import random
import re
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from rich.console import Console

from puntobanco.bets import BetKind, settle_spot
from puntobanco.cli._felt import bead_plate, card_label
from puntobanco.cli.play import GameSettings, TerminalGame, parse_bet_line, seat_names
from puntobanco.coup import Coup
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet, Side
from puntobanco.rules_json import rules_from_json
from puntobanco.shoe import Shoe

from .support import Cli, assert_one_sentence_error, shown_cents

CARD_RE = re.compile(r"(10|[A2-9JQK])([♠♥♦♣])")


def dealt_coups(seed: int, count: int, rules: RuleSet | None = None) -> list[Coup]:
    """The first ``count`` coups the table deals with ``--seed seed``, shoe after shoe."""
    rules = rules or RuleSet()
    rng = random.Random(seed)
    coups: list[Coup] = []
    shoe = Shoe.shuffled(rules, rng=rng)
    while len(coups) < count:
        if shoe.finished:
            shoe = Shoe.shuffled(rules, rng=rng)
        coups.append(shoe.deal_coup())
    return coups


def net_of(bets: dict[BetKind, int], coup: Coup, rules: RuleSet | None = None) -> int:
    return sum(line.net for line in settle_spot(bets, coup, rules or RuleSet()))


def final_balance(out: str, name: str, *, title: str = "Coups joués") -> int:
    """The seat's closing balance, in cents, read from the summary table at the end.

    ``title`` is how the summary's title says "coups played" in the game's language.
    """
    summary = out[out.rindex(title):]
    row = next(line for line in summary.splitlines() if f"│ {name} " in line)
    cells = [cell.strip() for cell in row.strip("│ ").split("│")]
    assert cells[0] == name
    return shown_cents(cells[2])


def run_game(lines: Sequence[str], **options: object) -> tuple[TerminalGame, str]:
    """Play a game in-process with these input lines; return it and what it printed."""
    feed = iter(lines)

    def read_line(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None  # the end of the input ends the game

    output = io.StringIO()
    console = Console(file=output, width=110, color_system=None, highlight=False)
    settings = GameSettings(**{"players": ("Ann",), "bankroll": 100_000, **options})  # type: ignore[arg-type]
    game = TerminalGame(settings, console=console, read_line=read_line)
    game.run()
    return game, output.getvalue()


def test_piped_game_is_reproducible_and_balance_is_bankroll_plus_nets(cli: Cli) -> None:
    args = ("play", "--seed", "34", "--coups", "6", "--player", "Ann", "--bankroll", "500")
    stdin = "banco 25 lion-banco 10\n" * 6
    first, second = cli(*args, stdin=stdin), cli(*args, stdin=stdin)
    assert first.code == 0 and first.err == ""
    assert first.out == second.out  # same seed, same shoe, same game
    bets = {BetKind.BANCO: 2500, BetKind.LION_BANCO: 1000}
    nets = [net_of(bets, coup) for coup in dealt_coups(34, 6)]
    # This shoe loses, wins, ties and pays a Lion Bonus (L5c 4:1 on coup 4): a mixed test.
    assert min(nets) < 0 < max(nets) and 6500 in nets and -1000 in nets
    final = 50_000 + sum(nets)
    assert "Tous les coups demandés sont joués. Coups joués : 6." in first.out
    assert final_balance(first.out, "Ann") == final
    # After each coup, the balance line shows the running balance (L6 settlement applied).
    running = [50_000 + sum(nets[: i + 1]) for i in range(6)]
    shown = re.findall(r"Ann\s+Solde\s+(-?\d[\d ]*,\d\d €)", first.out)
    assert [shown_cents(amount) for amount in shown] == running


def test_R3_cards_shown_are_the_shoe_s_in_dealing_order_with_R2_totals(cli: Cli) -> None:
    run = cli("play", "--seed", "5", "--coups", "8", "--lang", "es", stdin="\n" * 8)
    assert run.code == 0
    rows = {side: [line for line in run.out.splitlines() if f"  {side}  " in line]
            for side in ("PUNTO", "BANCO")}
    for index, coup in enumerate(dealt_coups(5, 8)):
        for side, cards, total in (("PUNTO", coup.punto, coup.punto_total),
                                   ("BANCO", coup.banco, coup.banco_total)):
            line = rows[side][index]
            assert ["".join(m) for m in CARD_RE.findall(line)] == [card_label(c) for c in cards]
            assert line.rstrip(" │").endswith(str(total))


def test_refused_bet_shows_the_translated_reason_and_asks_again(cli: Cli) -> None:
    stdin = "\n".join(["lion-punto 10 lion-banco 10",  # L1 refused
                       "lion-banco 60",  # L3 refused
                       "banco 12.50",  # M1 refused
                       "dragon 10",  # unknown bet
                       "banco dix",  # not an amount
                       "banco",  # no amount
                       "punto 10 lion-banco 10",  # accepted
                       ""]) + "\n"
    run = cli("play", "--seed", "6", "--coups", "1", "--player", "Ann", stdin=stdin)
    assert run.code == 0
    out = run.out
    assert "✗ Le Lion Bonus se joue sur Punto ou sur Banco, jamais les deux.\n" in out
    # The translated refusal, and the figures behind it in French (L3, M1), not in English.
    assert "✗ Mise supérieure au maximum de cette case (Lion Bonus Banco : 60 €, maximum 50 €)." in out
    assert "✗ La mise doit être un multiple de la plus petite plaque (jeton de 1 €)." in out
    assert ("✗ Mise inconnue (« dragon » ; au choix : punto, banco, egalite, lion-punto, "
            "lion-banco).") in out
    assert ("✗ Montant invalide : un montant en euros, deux décimales au plus (« dix »)."
            in out)
    assert "✗ Donnez chaque mise par un nom et un montant, par ex. banco 25 lion-banco 10." in out
    assert "maximum on" not in out and "is not a bet" not in out and "chip unit" not in out
    assert out.count("Ann (1 000,00 €) ›") == 7  # the prompt repeated after each refusal
    assert "✓ Punto 10 € · Lion Bonus Banco 10 €" in out
    [coup] = dealt_coups(6, 1)
    final = 100_000 + net_of({BetKind.PUNTO: 1000, BetKind.LION_BANCO: 1000}, coup)
    assert final == 98_000  # both bets lost on this coup
    assert final_balance(out, "Ann") == final


def test_M3_a_bet_beyond_the_balance_is_refused(cli: Cli) -> None:
    run = cli("play", "--seed", "3", "--coups", "1", "--bankroll", "30", "--lang", "en",
              stdin="banco 25 lion-banco 10\nbanco 20 lion-banco 10\n")
    assert "✗ The balance is too low for this stake (€5.00 available)." in run.out
    assert "✓ Banker €20 · Lion Bonus Banker €10" in run.out
    [coup] = dealt_coups(3, 1)
    final = 3000 + net_of({BetKind.BANCO: 2000, BetKind.LION_BANCO: 1000}, coup)
    assert final_balance(run.out, "Seat 1", title="Coups played") == final


def test_M3_refusals_give_the_box_s_limit_in_the_table_s_language(cli: Cli) -> None:
    stdin = "lion-banco 60\nbanco 5\npunto 990 banco 20\n\n"
    italian = cli("play", "--seed", "3", "--coups", "1", "--lang", "it", stdin=stdin).out
    assert "✗ Puntata superiore al massimo di questa casella (Lion Bonus Banco: 60 €, massimo 50 €)." \
        in italian
    assert "✗ Puntata inferiore al minimo di questa casella (Banco: 5 €, minimo 10 €)." in italian
    assert "✗ Saldo insufficiente per questa puntata (10,00 € disponibili)." in italian
    spanish = cli("play", "--seed", "3", "--coups", "1", "--lang", "es", stdin=stdin).out
    assert "✗ Apuesta superior al máximo de esta casilla (Lion Bonus Banco: 60 €, máximo 50 €)." \
        in spanish
    assert "✗ Saldo insuficiente para esta apuesta (10,00 € disponibles)." in spanish


def test_L6_each_seat_s_payouts_list_main_bets_before_the_lion_bonus(cli: Cli) -> None:
    run = cli("play", "--seed", "8", "--coups", "1", "--player", "Ann", "--player", "Bob",
              "--lang", "it", stdin="lion-banco 10 egalite 10 punto 10\nlb 10 b 25\n")
    payouts = run.out[run.out.index("Pagamenti"):run.out.index("Saldo")]
    rows = [line for line in payouts.splitlines() if "€" in line]
    assert [re.split(r"\s*│\s*", row)[1] for row in rows] == [
        "Punto", "Egalité", "Lion Bonus Banco", "Banco", "Lion Bonus Banco"]
    assert rows[0].startswith("Ann") and rows[3].startswith("Bob")
    assert "Fate il vostro gioco" in run.out and "Rien ne va plus" in run.out


def test_q_lets_one_seat_leave_and_the_others_bets_are_still_dealt(cli: Cli) -> None:
    # Issue 12: `q` at one seat ended the game for everyone and dropped Ann's placed bet.
    run = cli("play", "--seed", "4", "--player", "Ann", "--player", "Bob",
              stdin="b 25\np 10\nb 100\nq\n")
    assert run.code == 0
    assert "Bob quitte la table." in run.out
    assert "Fin de la partie. Coups joués : 2." in run.out
    first, second = dealt_coups(4, 2)
    assert final_balance(run.out, "Ann") == (100_000 + net_of({BetKind.BANCO: 2500}, first)
                                            + net_of({BetKind.BANCO: 10_000}, second))
    assert final_balance(run.out, "Bob") == 100_000 + net_of({BetKind.PUNTO: 1000}, first)
    assert coups_bet(run.out, "Ann") == 2 and coups_bet(run.out, "Bob") == 1


def test_a_bet_on_the_felt_when_the_input_ends_is_returned_out_loud_and_not_counted(
        cli: Cli) -> None:
    run = cli("play", "--seed", "4", "--player", "Ann", "--player", "Bob", "--lang", "en",
              stdin="b 25\n")
    assert run.code == 0
    assert "Bets returned to Ann, the coup was not played: Banker €25." in run.out
    assert "Coups played: 0." in run.out
    assert final_balance(run.out, "Ann", title="Coups played") == 100_000
    assert coups_bet(run.out, "Ann", title="Coups played") == 0  # only coups dealt count


def coups_bet(out: str, name: str, *, title: str = "Coups joués") -> int:
    summary = out[out.rindex(title):]
    row = next(line for line in summary.splitlines() if f"│ {name} " in line)
    return int(row.strip("│ ").split("│")[-1])


def test_end_of_input_ends_the_game_quietly(cli: Cli) -> None:
    run = cli("play", "--seed", "4", stdin="")
    assert run.code == 0 and run.err == ""
    assert "Fin de la partie. Coups joués : 0." in run.out
    assert final_balance(run.out, "Place 1") == 100_000


def test_game_ends_when_every_seat_is_broke() -> None:
    coups = dealt_coups(21, 200)
    balance, played = 1000, 0
    while balance >= 1000:  # 10 € on Banco each coup while the seat can cover the minimum
        balance += net_of({BetKind.BANCO: 1000}, coups[played])
        played += 1
    assert played < 200  # the seed makes the game short
    game, out = run_game(["banco 10"] * played, bankroll=1000, seed=21)
    assert "Plus aucune place n'a de quoi miser. Coups joués" in out
    assert game.coups_played == played
    assert game.seats[0].balance == balance


def test_S3_cut_card_last_coup_and_a_new_shoe_with_a_fresh_bead_plate() -> None:
    rules = RuleSet(decks=1, cut_card=12)
    game, out = run_game([""] * 14, rules=rules, seed=2, coups=14, lang="en")
    rng = random.Random(2)
    first = Shoe.shuffled(rules, rng=rng)
    in_first = 0
    while not first.finished:
        first.deal_coup()
        in_first += 1
    second = Shoe.shuffled(rules, rng=rng)
    expected = [second.deal_coup().winner for _ in range(14 - in_first)]
    assert game.results == expected  # the bead plate holds the new shoe's results only
    assert "✂ Last coup" in out and "LAST COUP" in out
    assert "New shoe 2 · 52 cards · Burned:" in out
    assert f"Coup {in_first + 1} · Shoe 2, coup 1" in out


def test_cards_are_revealed_one_by_one_in_R3_order_on_a_terminal(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, int]] = []
    game_box: list[TerminalGame] = []

    def fake_sleep(seconds: float) -> None:
        hands = game_box[0]._hands
        seen.append((len(hands[Side.PUNTO]), len(hands[Side.BANCO])))

    monkeypatch.setattr(time, "sleep", fake_sleep)  # the pause between cards
    console = Console(file=io.StringIO(), width=100, force_terminal=True)
    game = TerminalGame(GameSettings(players=("Ann",), bankroll=100_000, seed=9, coups=1,
                                     pause=0.5), console=console, read_line=lambda _: "")
    game_box.append(game)
    game.run()
    [coup] = dealt_coups(9, 1)
    order = [(1, 0), (1, 1), (2, 1), (2, 2), (3, 2), (3, 3)]
    assert seen == order[:coup.cards_used]


def test_help_shows_this_table_s_pays_and_limits(cli: Cli) -> None:
    run = cli("play", "--seed", "1", "--coups", "1", "--tie-pays", "9", "--lang", "en",
              "--lion-paytable", "30,10,6,4,2,1", stdin="?\n\n")
    assert "Tie pays 9:1 (B3)" in run.out
    assert "30-10-6-4-2-1" in run.out
    assert "Lion Bonus, €10–50" in run.out
    italian = cli("play", "--seed", "1", "--coups", "1", "--tie-pays", "9", "--lang", "it",
                  "--banco", "commission", "--commission", "0.045", stdin="?\n\n").out
    assert "Egalité paga 9:1 (B3); Punto e Banco vengono restituiti." in italian
    assert "Banco paga 1:1 meno una commissione del 4,5%." in italian
    assert "Lion Bonus, 10–50 €, sul Punto o sul Banco, mai su entrambi (L1, L3):" in italian


def test_a_designed_table_from_rules_file_is_played_with_its_pays(cli: Cli,
                                                                  tmp_path: Path) -> None:
    """``play --rules-file``: a design candidate's pays (B2, B3, L5a–c) are the ones the game
    settles, its help and rules line say them, and every balance is the core's settlement."""
    designed = {"tie_pays": "8.5", "banco_reduced_pays": {"6": "1/2", "5": "3/4"},
                "lion_paytable": [25, 10, "5.5", 4, 2, -1], "lion_natural_pays": "1.5",
                "lion_natural_tie_pays": -1}
    path = tmp_path / "candidate.json"
    path.write_text(json.dumps({"rank": 1, "rules": designed}), encoding="utf-8")
    rules = rules_from_json(designed, base=RuleSet())
    run = cli("play", "--seed", "1", "--coups", "12", "--bankroll", "1000", "--lang", "en",
              "--rules-file", str(path), stdin="?\n" + "banco 20 egalite 10 lb 10\n" * 12)
    assert run.code == 0, run.err
    bets = {BetKind.BANCO: 2000, BetKind.EGALITE: 1000, BetKind.LION_BANCO: 1000}
    coups = dealt_coups(1, 12, rules)
    nets = [net_of(bets, coup, rules) for coup in coups]
    assert nets != [net_of(bets, coup) for coup in coups]  # the standard pays would differ
    assert final_balance(run.out, "Seat 1", title="Coups played") == 100_000 + sum(nets)
    text = " ".join(run.out.replace("│", " ").split())
    assert ("Banker 1:1 (1:2 on 6, 3:4 on 5) · Tie 17:2 · Lion Bonus 25-10-11:2-4-2-loses, "
            "natural 3:2, natural tie loses") in text
    assert "Banker pays 1:1, except 1:2 on 6, 3:4 on 5 (B2)." in text
    assert "Tie pays 17:2 (B3)" in text
    assert "the side wins with a natural, 3:2;" in text
    assert "any tie, a natural tie too (L5b), loses the Lion Bonus stake." in text


def test_bead_plate_fills_columns_of_six_top_to_bottom() -> None:
    results = [Side.PUNTO, Side.BANCO, Side.BANCO, Side.EGALITE, Side.PUNTO, Side.PUNTO,
               Side.BANCO]
    output = io.StringIO()
    Console(file=output, width=80, color_system=None).print(bead_plate(results, lang="en"))
    rows = [line.strip("│ ").split() for line in output.getvalue().splitlines()[1:-1]]
    assert [row[:2] for row in rows] == [["P", "B"], ["B", "·"], ["B", "·"], ["T", "·"],
                                         ["P", "·"], ["P", "·"]]
    assert "P 3  B 3  T 1" in output.getvalue()


def test_parse_bet_line_reads_pairs_with_short_names() -> None:
    assert parse_bet_line("p 10, e=5 LB 50 tie 12.50") == [
        (BetKind.PUNTO, 1000), (BetKind.EGALITE, 500), (BetKind.LION_BANCO, 5000),
        (BetKind.EGALITE, 1250)]
    with pytest.raises(PuntoBancoError, match="is not a bet"):
        parse_bet_line("lion 10")
    with pytest.raises(PuntoBancoError, match="not an amount in euros"):
        parse_bet_line("banco ten")


def test_seat_names_from_players_or_count() -> None:
    assert seat_names(seats=None, players=[], lang="it") == ("Posto 1",)
    assert seat_names(seats=2, players=["Ann", "Bob"], lang="fr") == ("Ann", "Bob")


@pytest.mark.parametrize(("args", "mentions"), [
    (["--lang", "de"], "not a table language"),
    (["--bankroll", "abc"], "not an amount in euros"),
    (["--bankroll", "0"], "bankroll must be positive"),
    (["--coups", "0"], "--coups takes a positive number"),
    (["--seats", "2", "--player", "Ann"], "does not match"),
    (["--player", "Ann", "--player", "ann"], "different name"),
    (["--seats", "15"], "1 to 14 seats"),
    (["--decks", "9"], "1 to 8 decks"),
    (["--cut-card", "5"], "cut card goes"),
    (["--tie-pays", "0"], "8:1 or 9:1"),
    (["--tie-pays", "100"], "8:1 or 9:1"),
])
def test_bad_play_options_end_in_one_sentence(cli: Cli, args: list[str], mentions: str) -> None:
    run = cli("play", *args, *([] if "--lang" in args else ["--lang", "en"]), stdin="q\n")
    assert_one_sentence_error(run, mentions=mentions)


@pytest.mark.parametrize(("args", "mentions"), [
    (["--lang", "it", "--seats", "0"], "Un tavolo ha da 1 a 14 posti, non 0."),
    (["--lang", "es", "--bankroll", "5"], "no cubre la apuesta mínima más baja de la mesa (10,00 €)"),
    (["--lang", "fr", "--coups", "0"], "--coups prend un nombre positif"),
    (["--lang", "it", "--bankroll", "abc"], "Importo non valido"),
    (["--lang", "fr", "--player", "Ann", "--player", "ann"], "un nom différent"),
])
def test_play_options_are_refused_in_the_table_language(cli: Cli, args: list[str],
                                                         mentions: str) -> None:
    """The table's language (--lang, French by default) says what is wrong with its options."""
    run = cli("play", *args, stdin="q\n")
    assert_one_sentence_error(run, mentions=mentions)
