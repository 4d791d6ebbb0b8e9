"""The table speaks one language: ``play`` and ``replay`` in fr, it and es show no English word.

Every word a player or a dealer reads comes from :mod:`puntobanco.i18n` (SPEC: the table's
words per language). The runs below reach every part of the output: the welcome panel, the help
printed by ``?``, each kind of refusal, payouts with their reasons (B2, B3, L5a–L5d), the bead
plate and the shoe, the end of a game both ways, and ``replay``'s panels, summary and leftover.
"""

from __future__ import annotations

import re

import pytest

from puntobanco.i18n import LANGUAGES

from .support import SHOWN_AMOUNT, Cli
from .test_replay import (
    BANCO_BY_7_AFTER_DRAW,
    BANCO_WINS_WITH_6,
    DRAWN_TIE,
    NATURAL_TIE,
    PUNTO_NATURAL_BY_1,
)

#: English that a translated table must not show (words the table languages share with English,
#: such as Total, Net, Natural, standard or commission, are not in it).
ENGLISH = (" seat", "Seat", "cards", "Cards", "Summary", "Total staked", "Total net", "margin",
           "each", "drawing", "decks", "chip", "Type ?", "help", "leaves the table", "same bets",
           "Bet ", "Pays", "pays",
           "Stake", "Start", "Game over", "Coups played", "Coups bet", "Spot", "left over",
           "too few", "wins", "Won", "Lost", "Returned", "Burned", "Shoe", "Balance", "Limits",
           "available", " on 6", " less ", " the ", "Player", "Banker", "Tie", "e.g.",
           "secure", "seed ", "out of money", ": out (", "asked for", "Coup net", "by 7",
           "with 6", "natural tie", "Place your bets", "No more bets", "Cut card", "Last coup",
           "LAST COUP", "New shoe", "Cards left", "Payouts", "Result ·")
#: The core's own English refusal sentences: the table gives its translated refusal and the
#: figures behind it instead, in every language.
CORE_SENTENCES = ("maximum on", "minimum on", "is above it", "is below it", "is more than the",
                  "is not a bet", "choose one of", "not an amount in euros", "whole multiple",
                  "never both")

#: Banco by 7 after a 5th card (L5c 4:1), Banco wins with 6 (B2), a natural tie (B3, L5b), a tie
#: after draws (L5d), a natural win (L5a), and two cards left over.
REPLAY_CARDS = (*BANCO_BY_7_AFTER_DRAW, *BANCO_WINS_WITH_6, *NATURAL_TIE, *DRAWN_TIE,
                *PUNTO_NATURAL_BY_1, "9C", "9D")
REPLAY_BETS = ("--bet", "banco=25", "--bet", "egalite=10", "--bet", "lion-banco=10")
#: A seat asks for help, is refused in every way a line can be, then bets; the other passes.
PLAY_INPUT = ("?\nlion-banco 60\nbanco 5\nbanco 12.50\ndragon 10\nbanco dix\nbanco\n"
              "lion-punto 10 lion-banco 10\nbanco 995 punto 10\nbanco 25 egalite 10 lb 10\n\n"
              "b 25 lb 10\n\n")


def transcripts(cli: Cli, lang: str) -> dict[str, str]:
    """Everything ``play`` and ``replay`` print in ``lang``, by the run that printed it."""
    runs = {
        "play": cli("play", "--seed", "34", "--seats", "2", "--bankroll", "1000", "--coups", "2",
                    "--lang", lang, stdin=PLAY_INPUT),
        "play, quit": cli("play", "--lang", lang, stdin="q\n"),  # the secure shuffle (S1)
        "play, broke": cli("play", "--seed", "34", "--seats", "2", "--bankroll", "10",
                           "--coups", "2", "--lang", lang, stdin="lb 10\n\n\n"),
        "play, broke alone": cli("play", "--seed", "34", "--bankroll", "10", "--lang", lang,
                                 stdin="lb 10\n"),
        "play, cut card": cli("play", "--seed", "34", "--decks", "1", "--coups", "10",
                              "--lang", lang, stdin="\n" * 10),  # S3: last coup, new shoe
        "play, commission": cli("play", "--seed", "34", "--coups", "1", "--banco", "commission",
                                "--drawing", "seed-literal", "--lang", lang, stdin="?\nb 20\n"),
        "replay": cli("replay", *REPLAY_CARDS, *REPLAY_BETS, "--lang", lang),
        "replay, commission": cli("replay", "TH", "3S", "5D", "3C", "KS", "--bet", "banco=20",
                                  "--banco", "commission", "--lang", lang),
        "replay, one card left": cli("replay", "TH", "3S", "5D", "3C", "KS", "9C", "--lang", lang),
    }
    for name, run in runs.items():
        assert run.code == 0 and run.err == "", (name, run.err)
    return {name: run.out for name, run in runs.items()}


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_no_english_word_at_a_translated_table(cli: Cli, lang: str) -> None:
    for name, out in transcripts(cli, lang).items():
        found = [word for word in ENGLISH + CORE_SENTENCES if word in out]
        assert found == [], (name, found, out)


def test_refusals_at_an_english_table_are_the_table_s_own_sentences(cli: Cli) -> None:
    out = transcripts(cli, "en")["play"]
    assert "✗ The stake is above this box's maximum (Lion Bonus Banker: €60, maximum €50)." in out
    assert "✗ The stake must be a whole multiple of the chip unit (chip unit €1)." in out
    assert [sentence for sentence in CORE_SENTENCES[:-3] if sentence in out] == []


def test_the_runs_reach_every_part_of_the_output(cli: Cli) -> None:
    """In English the same runs show the words the list above looks for: the list can fail."""
    out = "\n".join(transcripts(cli, "en").values())
    missing = [word for word in ENGLISH if word not in out]
    assert missing == [], missing


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_amount_is_written_the_language_s_way(cli: Cli, lang: str) -> None:
    english = lang == "en"
    for name, transcript in transcripts(cli, lang).items():
        # What the seats typed (echoed after the prompt's ›) is theirs, not the table's.
        out = "\n".join(line for line in transcript.splitlines() if "›" not in line)
        amounts = SHOWN_AMOUNT.findall(out)
        assert amounts, name
        assert all(amount.lstrip("+-").startswith("€") == english for amount in amounts), name
        if english:  # no 12,50 € or 1000 € at an English table
            assert re.findall(r"\d,\d\d\b|\d €", out) == [], name
        else:  # no €12.50, 12.50 € nor 1000,00 € at a French, Italian or Spanish one
            assert re.findall(r"€\d|\d\.\d\d\b|\d{4},\d\d", out) == [], name
