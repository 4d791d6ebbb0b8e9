"""Issue 11, "the dealer's calculator at the terminal": ``replay --punto … --banco …`` and ``--spot``.

The final hands are checked against the drawing rules (R3–R6); every expected figure below is
worked out by hand from SPEC's words in the comment beside it.
"""

from __future__ import annotations

import json

import pytest

from .support import Cli, assert_one_sentence_error

# The issue's hands: Punto 4+9 = 3 draws 7 -> 0; Banco 2+3 = 5 draws on a third card of 7 (R6)
# -> 0. A 0-0 Égalité after draws.
ISSUE_HANDS = ("--punto", "4H", "9S", "7C", "--banco", "2S", "3D", "5C")
# Punto 0+0 = 0 draws K -> 0; Banco 2+5 = 7 stands. Banco wins 7-0 after a fifth card.
BANCO_BY_7 = ("--punto", "TH", "JD", "KH", "--banco", "2S", "5C")


def one_coup(cli: Cli, *args: str) -> dict[str, object]:
    run = cli("replay", "--json", "--lang", "en", *args)
    assert run.code == 0, run.err
    [line] = run.out.splitlines()
    document: dict[str, object] = json.loads(line)
    return document


def test_issue_example_settles_two_spots_with_the_table_s_totals(cli: Cli) -> None:
    coup = one_coup(cli, *ISSUE_HANDS, "--spot", "Ann:banco=25,lion-banco=10",
                    "--spot", "Bob:punto=100")
    assert coup["punto"] == {"cards": ["4H", "9S", "7C"], "total": 0}
    assert coup["banco"] == {"cards": ["2S", "3D", "5C"], "total": 0}
    spots = coup["spots"]
    assert isinstance(spots, list)
    # B1/B2: Punto and Banco returned on an Égalité; L5d: a non-natural tie loses the Lion Bonus.
    assert [(s["spot"], [(x["bet"], x["outcome"], x["net"]) for x in s["settlement"]],
             s["payout"]) for s in spots] == [
        ("Ann", [("banco", "push", 0), ("lion-banco", "lose", -1000)], 2500),
        ("Bob", [("punto", "push", 0)], 10000)]
    assert coup["table"] == {"staked": 13500, "paid": 12500, "house": 1000}


def test_L6_each_spot_paid_main_bets_before_the_lion_bonus_and_totals_add_up(cli: Cli) -> None:
    coup = one_coup(cli, *BANCO_BY_7, "--spot", "Ann:lion-banco=10,banco=25",
                    "--spot", "Bob:punto=100")
    spots = coup["spots"]
    assert isinstance(spots, list)
    ann, bob = spots
    # B2: Banco wins with 7, 1:1; L5c: by 7 after a fifth card, 4:1 — listed in L6 order.
    assert [(x["bet"], x["net"]) for x in ann["settlement"]] == [("banco", 2500),
                                                                 ("lion-banco", 4000)]
    assert ann["payout"] == 2500 + 2500 + 1000 + 4000
    assert [(x["bet"], x["net"]) for x in bob["settlement"]] == [("punto", -10000)]
    assert coup["table"] == {"staked": 13500, "paid": 10000, "house": 3500}


def test_spot_table_shows_each_spot_s_payout_and_the_house_result(cli: Cli) -> None:
    run = cli("replay", *BANCO_BY_7, "--spot", "Ann:lion-banco=10,banco=25",
              "--spot", "Bob:punto=100", "--lang", "fr")
    assert run.code == 0 and run.err == ""
    out = run.out
    assert "À payer" in out and "100,00 €" in out
    assert "Table : misé 135,00 €, payé 100,00 €, résultat de la banque +35,00 €" in out
    panel = out[out.index("Coup 1"):out.index("Table :")]
    rows = [[cell.strip() for cell in line.strip().strip("│").split("│")][:2]
            for line in panel.splitlines() if "€" in line]
    assert rows == [["Ann", "Banco"], ["", "Lion Bonus Banco"], ["Bob", "Punto"]]  # L6 per spot


@pytest.mark.parametrize(("hands", "mentions"), [
    # Punto 4+2 = 6 stands (R5): no third card.
    (("--punto", "4H", "2S", "7C", "--banco", "2S", "3D", "5C"), "Player stands on 6-7 (R5)"),
    # Punto 4+9 = 3 draws (R5): a third card is missing.
    (("--punto", "4H", "9S", "--banco", "2S", "3D"), "Player draws on 0-5 (R5)"),
    # Banco 5 draws on Punto's third card 7 (R6).
    (("--punto", "4H", "9S", "7C", "--banco", "2S", "3D"), "Banker draws (R6)"),
    # Banco 7 always stands (R6).
    (("--punto", "TH", "2S", "3S", "--banco", "JD", "5C", "4C"), "Banker stands (R6)"),
    # Punto 4+5 = 9 is a natural (R4): nobody draws.
    (("--punto", "4C", "5H", "2D", "--banco", "9D", "TS"), "natural 9 (R4)"),
    (("--punto", "4H", "9S", "7C", "2D", "--banco", "2S", "3D"), "4 card(s)"),
    (("--punto", "4H", "9S", "7C"), "Give both hands"),
    (("4H", "2S", "--punto", "4H", "9S", "--banco", "2S", "3D"), "not both"),
])
def test_R4_R5_R6_a_hand_that_could_not_have_been_dealt_is_refused_with_the_reason(
        cli: Cli, hands: tuple[str, ...], mentions: str) -> None:
    run = cli("replay", "--lang", "en", *hands)
    assert_one_sentence_error(run, mentions=mentions)


def test_R6_the_literal_drawing_table_accepts_what_it_deals(cli: Cli) -> None:
    # Punto 1+3 = 4 draws 5 -> 9; Banco 2+2 = 4 stands when read literally, draws under R6.
    hands = ("--punto", "AS", "3H", "5S", "--banco", "2D", "2C")
    assert_one_sentence_error(cli("replay", "--lang", "en", *hands), mentions="Banker draws")
    coup = one_coup(cli, *hands, "--drawing", "seed-literal")
    assert coup["banco"] == {"cards": ["2D", "2C"], "total": 4}


@pytest.mark.parametrize(("lang", "args", "expected"), [
    ("fr", ("--punto", "4H", "2S", "7C", "--banco", "2S", "3D"), "Punto reste sur 6 et 7 (R5)"),
    ("it", ("4H", "2S", "--bet", "banco=5"), "Puntata inferiore al minimo di questa casella "
                                             "(Banco: 5 €, minimo 10 €)."),
    ("es", ("4H", "1S"), "«1S» no es una carta"),
    ("fr", ("4H", "--bet", "dragon=10"), "Mise inconnue"),
    ("it", ("4H", "--spot", "Ann:banco=25", "--spot", "ann:punto=10"), "Due posti si chiamano"),
    ("es", ("4H", "--bet", "banco=10", "--spot", "Ann:banco=25"), "no ambos"),
    ("it", ("4H", "--banco", "free"), "«free» non è un pagamento del Banco"),
    ("fr", ("4H", "--tie-pays", "7"), "L'Égalité paie 8:1 ou 9:1 (B3), pas 7:1."),
    ("es", ("4H", "--limit", "lion=50-10"), "--limit se escribe CASILLA=MIN-MAX"),
])
def test_replay_errors_speak_the_table_s_language(cli: Cli, lang: str, args: tuple[str, ...],
                                                  expected: str) -> None:
    run = cli("replay", "--lang", lang, *args)
    assert_one_sentence_error(run, mentions=expected)


def test_M2_limits_and_M1_chip_of_a_dealer_s_own_table(cli: Cli) -> None:
    # The default Banco minimum is 10 €; a table with a 5 € minimum takes 5 €.
    assert_one_sentence_error(cli("replay", "--lang", "en", "4H", "2S", "--bet", "banco=5"),
                              mentions="minimum")
    coup = one_coup(cli, *BANCO_BY_7, "--bet", "banco=5", "--limit", "banco=5-100")
    assert coup["settlement"] == [{"bet": "banco", "stake": 500, "outcome": "win", "net": 500,
                                   "pays": "1:1", "detail": "win"}]
    assert_one_sentence_error(cli("replay", "--lang", "en", *BANCO_BY_7, "--bet", "banco=12",
                                  "--chip", "5"), mentions="chip")
    assert_one_sentence_error(cli("replay", "--lang", "en", *BANCO_BY_7, "--limit",
                                  "dragon=1-2"), mentions="--limit takes KIND=MIN-MAX")
