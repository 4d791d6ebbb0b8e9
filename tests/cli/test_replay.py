"""``puntobanco replay``, the dealer's settlement calculator, against coups settled by hand.

Every expected net below is worked out from SPEC's words, not from the code: the comment on each
card order gives the hands, the totals and the rule that pays.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .support import Cli, assert_one_sentence_error

# TH 3S 5D 3C KS: Punto 10+5 = 5 draws K -> 5; Banco 3+3 = 6 stands on a third card of 0 (R6).
# Banco wins 6-5 without a natural, margin 1.
BANCO_WINS_WITH_6 = ["TH", "3S", "5D", "3C", "KS"]
# TH 2S JD 5C KH: Punto 0 draws K -> 0; Banco 2+5 = 7 stands. Banco wins 7-0 after a 5th card.
BANCO_BY_7_AFTER_DRAW = ["TH", "2S", "JD", "5C", "KH"]
# AS TD 3H QC 5S KD: Punto 1+3 = 4 draws 5 -> 9; Banco 0 draws (R6) K -> 0. Punto wins 9-0.
PUNTO_BY_9_SIX_CARDS = ["AS", "TD", "3H", "QC", "5S", "KD"]
# 4C 9D 5H TS: Punto 4+5 = 9, Banco 9+10 = 9: both natural, equal.
NATURAL_TIE = ["4C", "9D", "5H", "TS"]
# 4H 2S 9S 3D 7C 5C: Punto 4+9 = 3 draws 7 -> 0; Banco 2+3 = 5 draws on 7 -> 0. A 0-0 tie.
DRAWN_TIE = ["4H", "2S", "9S", "3D", "7C", "5C"]
# 3H 4D 5S 3C: Punto 3+5 = 8 natural, Banco 4+3 = 7. Punto wins with a natural by 1.
PUNTO_NATURAL_BY_1 = ["3H", "4D", "5S", "3C"]
# TH 2S JD 5C 3S: Punto 0 draws 3 -> 3; Banco 7 stands. Banco wins 7-3, margin 4.
BANCO_BY_4_AFTER_DRAW = ["TH", "2S", "JD", "5C", "3S"]
# TH 2S JD 5C 4S: as above with a 4: Banco wins 7-4, margin 3.
BANCO_BY_3_AFTER_DRAW = ["TH", "2S", "JD", "5C", "4S"]


def json_coups(cli: Cli, *args: str) -> list[dict[str, object]]:
    run = cli("replay", "--json", *args)
    assert run.code == 0, run.err
    return [json.loads(line) for line in run.out.splitlines()]


def settlement(coup: dict[str, object]) -> list[tuple[object, ...]]:
    lines = coup["settlement"]
    assert isinstance(lines, list)
    return [(line["bet"], line["stake"], line["outcome"], line["net"]) for line in lines]


def test_B2_banco_winning_with_6_pays_half_and_json_shape(cli: Cli) -> None:
    [coup] = json_coups(cli, *BANCO_WINS_WITH_6, "--bet", "banco=25", "--bet", "lion-banco=10")
    assert {key: coup[key] for key in ("coup", "punto", "banco", "winner", "natural", "margin")} \
        == {"coup": 1, "punto": {"cards": ["TH", "5D", "KS"], "total": 5},
            "banco": {"cards": ["3S", "3C"], "total": 6},
            "winner": "banco", "natural": False, "margin": 1}
    # B2: 1:2 on a winning 6; L5d: a win by 1 point loses the Lion Bonus.
    assert settlement(coup) == [("banco", 2500, "win", 1250), ("lion-banco", 1000, "lose", -1000)]


def test_B2_commission_setting_pays_1_to_1_less_the_commission(cli: Cli) -> None:
    [five] = json_coups(cli, *BANCO_WINS_WITH_6, "--bet", "banco=25", "--banco", "commission")
    [four] = json_coups(cli, *BANCO_WINS_WITH_6, "--bet", "banco=25", "--banco", "commission",
                        "--commission", "0.04")
    assert settlement(five) == [("banco", 2500, "win", 2375)]
    assert settlement(four) == [("banco", 2500, "win", 2400)]


def test_L5c_banco_by_7_after_a_fifth_card_pays_4_to_1(cli: Cli) -> None:
    [coup] = json_coups(cli, *BANCO_BY_7_AFTER_DRAW, "--bet", "banco=25",
                        "--bet", "lion-banco=10")
    assert (coup["winner"], coup["natural"], coup["margin"]) == ("banco", False, 7)
    assert settlement(coup) == [("banco", 2500, "win", 2500), ("lion-banco", 1000, "win", 4000)]


def test_L5c_punto_by_9_after_six_cards_pays_20_or_the_given_paytable(cli: Cli) -> None:
    [coup] = json_coups(cli, *PUNTO_BY_9_SIX_CARDS, "--bet", "lion-punto=10")
    assert coup["punto"] == {"cards": ["AS", "3H", "5S"], "total": 9}
    assert coup["banco"] == {"cards": ["TD", "QC", "KD"], "total": 0}
    assert settlement(coup) == [("lion-punto", 1000, "win", 20000)]
    [dragon] = json_coups(cli, *PUNTO_BY_9_SIX_CARDS, "--bet", "lion-punto=10",
                          "--lion-paytable", "30,10,6,4,2,1")
    assert settlement(dragon) == [("lion-punto", 1000, "win", 30000)]


def test_L5c_margin_4_pays_1_to_1_and_L5d_margin_3_loses(cli: Cli) -> None:
    [by_4] = json_coups(cli, *BANCO_BY_4_AFTER_DRAW, "--bet", "lion-banco=50")
    [by_3] = json_coups(cli, *BANCO_BY_3_AFTER_DRAW, "--bet", "lion-banco=50")
    assert (by_4["margin"], by_3["margin"]) == (4, 3)
    assert settlement(by_4) == [("lion-banco", 5000, "win", 5000)]
    assert settlement(by_3) == [("lion-banco", 5000, "lose", -5000)]


def test_L5b_natural_tie_returns_the_lion_and_B3_tie_pays_8_or_9(cli: Cli) -> None:
    bets = ("--bet", "banco=25", "--bet", "egalite=10", "--bet", "lion-banco=10")
    [coup] = json_coups(cli, *NATURAL_TIE, *bets)
    assert (coup["winner"], coup["natural"], coup["margin"]) == ("egalite", True, 0)
    assert settlement(coup) == [("banco", 2500, "push", 0), ("egalite", 1000, "win", 8000),
                                ("lion-banco", 1000, "push", 0)]
    [nine] = json_coups(cli, *NATURAL_TIE, *bets, "--tie-pays", "9")
    assert settlement(nine)[1] == ("egalite", 1000, "win", 9000)


def test_L5d_tie_without_natural_loses_the_lion_B1_returns_punto(cli: Cli) -> None:
    [coup] = json_coups(cli, *DRAWN_TIE, "--bet", "punto=10", "--bet", "lion-punto=10")
    assert (coup["winner"], coup["natural"]) == ("egalite", False)
    assert settlement(coup) == [("punto", 1000, "push", 0), ("lion-punto", 1000, "lose", -1000)]


def test_L5a_natural_win_pays_1_to_1_whatever_the_margin(cli: Cli) -> None:
    [coup] = json_coups(cli, *PUNTO_NATURAL_BY_1, "--bet", "lion-punto=10")
    assert (coup["winner"], coup["natural"], coup["margin"]) == ("punto", True, 1)
    assert settlement(coup) == [("lion-punto", 1000, "win", 1000)]


def test_L6_settlement_lines_in_payment_order_whatever_the_order_given(cli: Cli) -> None:
    [coup] = json_coups(cli, *PUNTO_BY_9_SIX_CARDS, "--bet", "lion-punto=10",
                        "--bet", "egalite=10", "--bet", "banco=25", "--bet", "punto=10")
    assert settlement(coup) == [("punto", 1000, "win", 1000), ("banco", 2500, "lose", -2500),
                                ("egalite", 1000, "lose", -1000),
                                ("lion-punto", 1000, "win", 20000)]


def test_R3_consecutive_coups_are_numbered_and_use_the_cards_in_order(cli: Cli) -> None:
    coups = json_coups(cli, *BANCO_WINS_WITH_6, *NATURAL_TIE, *PUNTO_BY_9_SIX_CARDS)
    assert [c["coup"] for c in coups] == [1, 2, 3]
    assert [c["winner"] for c in coups] == ["banco", "egalite", "punto"]
    assert [c["settlement"] for c in coups] == [[], [], []]


def test_R6_seed_literal_rules_change_the_draw(cli: Cli) -> None:
    # AS 2D 3H 2C 5S 9D: Punto 1+3 = 4 draws 5 -> 9. Banco 2+2 = 4: R6 draws on a third card
    # of 5 (9 -> 3); read literally Banco stands on 4 and the 9D is left over.
    cards = ["AS", "2D", "3H", "2C", "5S", "9D"]
    [standard] = json_coups(cli, *cards)
    assert standard["banco"] == {"cards": ["2D", "2C", "9D"], "total": 3}
    run = cli("replay", "--json", *cards, "--drawing", "seed-literal", "--lang", "en")
    [literal] = [json.loads(line) for line in run.out.splitlines()]
    assert literal["banco"] == {"cards": ["2D", "2C"], "total": 4}
    assert run.code == 0 and "1 card is left over (9D)" in run.err


def test_cards_left_that_cannot_make_a_coup_are_reported_not_an_error(cli: Cli) -> None:
    # DRAWN_TIE without its last card: Banco's third card is missing, so no coup at all.
    run = cli("replay", "--json", *BANCO_WINS_WITH_6, *DRAWN_TIE[:5], "--lang", "en")
    assert run.code == 0
    assert len(run.out.splitlines()) == 1
    assert run.err.strip() == ("puntobanco: 5 cards are left over (4H 2S 9S 3D 7C), too few for "
                               "a whole coup.")
    rich = cli("replay", "4H", "2S", "9S")  # the table's words: French by default
    assert rich.code == 0 and rich.err == ""
    assert "3 cartes restent (4H 2S 9S), trop peu pour un coup entier." in rich.out
    one = cli("replay", "4H", "--lang", "es")
    assert "Sobra 1 carta (4H), muy pocas para una mano completa." in one.out


def test_cards_from_a_file_or_stdin_separated_by_whitespace_or_commas(cli: Cli,
                                                                      tmp_path: Path) -> None:
    path = tmp_path / "shoe.txt"
    path.write_text("TH, 3S\n5d 3c,\n\tKS\n", encoding="utf-8")
    from_file = json_coups(cli, "--cards-file", str(path), "--bet", "banco=25")
    from_args = json_coups(cli, "TH,3S,5D,3C,KS", "--bet", "banco=25")
    from_stdin = cli("replay", "--json", "--cards-file", "-", "--bet", "banco=25",
                     stdin="TH 3S 5D 3C KS\n")
    assert from_file == from_args == [json.loads(from_stdin.out)]
    assert settlement(from_file[0]) == [("banco", 2500, "win", 1250)]


def test_rich_output_shows_cards_totals_payouts_in_L6_order_and_summary(cli: Cli) -> None:
    run = cli("replay", *BANCO_BY_7_AFTER_DRAW, *BANCO_WINS_WITH_6, "--lang", "en",
              "--bet", "lion-banco=10", "--bet", "banco=25")
    assert run.code == 0 and run.err == ""
    out = run.out
    assert "10♥" in out and "J♦" in out and "K♥" in out  # coup 1's Punto hand
    assert "Banker wins · 0–7 · margin 7" in out  # one space between the words
    first_coup = out[out.index("Coup 1"):out.index("Coup 2")]
    payouts = [line.strip("│ ").split("│")[0].strip() for line in first_coup.splitlines()
               if "€" in line and "Coup net" not in line]
    assert payouts == ["Banker", "Lion Bonus Banker"]  # L6, though given the other way round
    assert "+€40.00" in first_coup and "+€25.00" in first_coup
    assert "Won (by 7)" in first_coup  # L5c: the Lion Bonus paid by the margin
    assert "+€12.50" in out and "Won (Banker with 6)" in out  # B2 on coup 2
    # Summary: 2 coups, 2 x 35 € staked, 65 € + 2.50 € net.
    summary = out[out.index("Summary"):]
    assert "€70.00" in summary and "+€67.50" in summary


@pytest.mark.parametrize(("lang", "expected"), [
    ("fr", ["Banco gagne · 0–7 · écart 7", "Gagné (écart de 7)", "+40,00 €", "Bilan",
            "Total misé", "Net total", "Mises : Banco 25,00 € · Lion Bonus Banco 10,00 €",
            "Gagné (Banco avec 6)", "Net du coup +65,00 €", "70,00 €", "+67,50 €"]),
    ("it", ["Banco vince · 0–7 · scarto 7", "Vinta (scarto di 7)", "+40,00 €", "Riepilogo",
            "Totale puntato", "Netto totale", "Puntate: Banco 25,00 €", "Vinta (Banco con 6)",
            "Netto del colpo +2,50 €", "+67,50 €"]),
    ("es", ["Banco gana · 0–7 · diferencia 7", "Ganada (diferencia de 7)", "+40,00 €",
            "Resumen", "Total apostado", "Neto total", "Apuestas: Banco 25,00 €",
            "Ganada (Banco con 6)", "Neto de la mano +65,00 €", "+67,50 €"]),
])
def test_rich_output_speaks_the_table_s_language(cli: Cli, lang: str,
                                                 expected: list[str]) -> None:
    run = cli("replay", *BANCO_BY_7_AFTER_DRAW, *BANCO_WINS_WITH_6, "--lang", lang,
              "--bet", "lion-banco=10", "--bet", "banco=25")
    assert run.code == 0 and run.err == ""
    missing = [text for text in expected if text not in run.out]
    assert missing == [], run.out


@pytest.mark.parametrize(("args", "mentions"), [
    (["4H", "1S", "9S", "3D"], "'1S' is not a card"),
    (["4H", "2S", "ZZ", "3D"], "'ZZ' is not a card"),
    (["4H", "2S", "--bet", "dragon=10"], "'dragon' is not a bet"),
    (["4H", "2S", "--bet", "banco25"], "--bet takes KIND=EUROS"),
    (["4H", "2S", "--bet", "banco=abc"], "is not an amount in euros"),
    (["4H", "2S", "--bet", "banco=12.345"], "more than two decimals"),
    (["4H", "2S", "--bet", "banco=1e3"], "is not an amount in euros"),  # M1: plain decimals only
    (["AS"] * 9 + ["2S"], "AS appears 9 times"),  # R1: no shoe holds nine aces of spades
    (["4H", "2S", "--bet", "banco=12.5"], "multiple of the chip unit"),  # M1
    (["4H", "2S", "--bet", "banco=5"], "minimum on banco"),  # M2
    (["4H", "2S", "--bet", "egalite=1001"], "maximum on egalite"),  # M2
    (["4H", "2S", "--bet", "lion-banco=60"], "maximum on lion-banco"),  # L3
    (["4H", "2S", "--bet", "lion-punto=5"], "minimum on lion-punto"),  # L3
    (["4H", "2S", "--bet", "lion-punto=10", "--bet", "lion-banco=10"], "never both"),  # L1
    (["4H", "2S", "--bet", "banco=10", "--bet", "banco=20"], "given twice"),
    (["4H", "2S", "--bet", "banco=-10"], "must be positive"),
    ([], "No cards given"),
    (["4H", "--cards-file", "-"], "not both"),
    (["--cards-file", "/nonexistent/shoe.txt"], "Cannot read the cards file"),
    (["4H", "--banco", "free"], "not a Banco payout"),
    (["4H", "--banco", "commission", "--commission", "lots"], "not a commission"),
    (["4H", "--lion-paytable", "20,8,4"], "not a Lion Bonus pay table"),
    (["4H", "--drawing", "house"], "not a drawing table"),
    (["4H", "--lang", "de"], "not a table language"),
])
def test_M3_and_bad_input_end_in_one_sentence_and_nonzero_exit(cli: Cli, args: list[str],
                                                              mentions: str) -> None:
    run = cli("replay", "--json", "--lang", "en", *args)
    assert_one_sentence_error(run, mentions=mentions)
    assert run.out == ""


def test_the_installed_entry_point_exits_2_without_traceback() -> None:
    command = [sys.executable, "-c", "from puntobanco.cli import main; main()", "replay",
               "--lang", "en"]
    bad = subprocess.run([*command, "4H", "2S", "--bet", "lion-banco=60"], capture_output=True,
                         text=True, check=False)
    assert bad.returncode == 2
    assert bad.stderr == ("puntobanco: The maximum on lion-banco is €50.00; €60.00 is above "
                          "it.\n")
    good = subprocess.run([*command, "--json", *NATURAL_TIE, "--bet", "egalite=10"],
                          capture_output=True, text=True, check=False)
    assert good.returncode == 0 and good.stderr == ""
    assert settlement(json.loads(good.stdout)) == [("egalite", 1000, "win", 8000)]


# A designed table (issue 20's design --format json writes its "rules"): Égalité 17:2, Banco
# 1:2 on 6 and 3:4 on 5 (B2), Lion Bonus 25-10-5.5-4-2-loses (L5c), a natural 3:2 (L5a), and a
# natural tie that loses (L5b).
DESIGNED_RULES = {"rules": {
    "tie_pays": "8.5", "banco_reduced_pays": {"6": "1/2", "5": "3/4"},
    "lion_paytable": [25, 10, "5.5", 4, 2, -1], "lion_natural_pays": "1.5",
    "lion_natural_tie_pays": -1}}
# TH 3S JD 2C 2H: Punto 0 draws 2 -> 2; Banco 3+2 = 5 stands on a third card of 2 (R6).
# Banco wins 5-2 after a fifth card, margin 3.
BANCO_WINS_WITH_5 = ["TH", "3S", "JD", "2C", "2H"]


def designed_rules_file(folder: Path) -> Path:
    path = folder / "designed.json"
    path.write_text(json.dumps(DESIGNED_RULES), encoding="utf-8")
    return path


def test_a_designed_table_s_rules_file_settles_with_its_pays(cli: Cli, tmp_path: Path) -> None:
    """``--rules-file``: every pay of the file is the one settled (B2, B3, L5a–c), worked out
    by hand from the pays above; the standard table's nets differ on each of these coups."""
    rules_file = str(designed_rules_file(tmp_path))
    cards = [*BANCO_WINS_WITH_5, *NATURAL_TIE, *BANCO_BY_4_AFTER_DRAW]
    bets = ["--bet", "banco=20", "--bet", "egalite=10", "--bet", "lion-banco=10"]
    designed = json_coups(cli, "--rules-file", rules_file, *cards, *bets)
    nets = [[(line["bet"], line["net"]) for line in coup["settlement"]]  # type: ignore[attr-defined]
            for coup in designed]
    assert nets == [
        [("banco", 1500), ("egalite", -1000), ("lion-banco", -1000)],  # 3:4 on 5; margin 3
        [("banco", 0), ("egalite", 8500), ("lion-banco", -1000)],  # 17:2; a natural tie loses
        [("banco", 2000), ("egalite", -1000), ("lion-banco", -1000)],  # margin 4 loses here
    ]
    standard = json_coups(cli, *cards, *bets)
    assert [settlement(coup) for coup in standard] != [settlement(coup) for coup in designed]
    punto = json_coups(cli, "--rules-file", rules_file, *PUNTO_BY_9_SIX_CARDS,
                       *PUNTO_NATURAL_BY_1, "--bet", "lion-punto=10")
    assert [settlement(coup) for coup in punto] == [
        [("lion-punto", 1000, "win", 25000)], [("lion-punto", 1000, "win", 1500)]]
    shown = cli("replay", "--rules-file", rules_file, "--lang", "en", *NATURAL_TIE).out
    assert ("Banker 1:1 (1:2 on 6, 3:4 on 5) · Tie 17:2 · Lion Bonus 25-10-11:2-4-2-loses, "
            "natural 3:2, natural tie loses") in " ".join(shown.split())


@pytest.mark.parametrize(("content", "extra", "lang", "mentions"), [
    (None, ["--tie-pays", "9"], "en", "give --tie-pays in the file, not beside it"),
    ("not json", [], "en", "is not a JSON file"),
    ('{"tie_pays": "25/3"}', [], "en", "chip unit"),
    (None, ["--lion-paytable", "30,10,6,4,2,1"], "fr", "sans option de paiement à côté"),
    ('{"limits": {}}', [], "it", "serve un file JSON leggibile"),
    ('{"lion_natural_pays": -2}', [], "es", "hace falta un archivo JSON legible"),
])
def test_a_refused_rules_file_is_one_sentence_in_the_table_s_language(
        cli: Cli, tmp_path: Path, content: str | None, extra: list[str], lang: str,
        mentions: str) -> None:
    path = designed_rules_file(tmp_path)
    if content is not None:
        path.write_text(content, encoding="utf-8")
    for command in (["replay", *NATURAL_TIE], ["play", "--coups", "1", "--seed", "1"]):
        run = cli(*command, "--rules-file", str(path), *extra, "--lang", lang, stdin="\n")
        assert_one_sentence_error(run, mentions=mentions)
