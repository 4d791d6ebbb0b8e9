"""The table's words in its four languages (SPEC: bet names fr/it/es/en) and refusal messages."""

from __future__ import annotations

import string

import pytest

from puntobanco.bets import BetKind
from puntobanco.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    all_phrases,
    all_words,
    bet_name,
    counted,
    language,
    money,
    money_range,
    percent,
    phrase,
    refusal,
    signed_money,
    word,
)
from puntobanco.money import format_cents


@pytest.mark.parametrize(("lang", "names"), [
    ("fr", ["Punto", "Banco", "Égalité"]),
    ("it", ["Punto", "Banco", "Egalité"]),
    ("es", ["Punto", "Banco", "Empate"]),
    ("en", ["Player", "Banker", "Tie"]),
])
def test_bet_names_in_the_table_languages(lang: str, names: list[str]) -> None:
    assert [bet_name(k, lang) for k in ("punto", "banco", "egalite")] == names
    assert "Lion Bonus" in bet_name("lion-punto", lang) and "Lion Bonus" in bet_name("lion-banco", lang)


def test_every_language_names_every_bet_and_word() -> None:
    words = all_words()
    assert set(words) == set(LANGUAGES)
    keys = {lang: set(entries) for lang, entries in words.items()}
    assert len({frozenset(k) for k in keys.values()}) == 1  # the same keys everywhere
    for lang in LANGUAGES:
        for kind in BetKind:
            assert words[lang][f"bet.{kind.value}"] == bet_name(kind.value, lang)


def test_unknown_language_falls_back_to_french_and_unknown_word_to_its_key() -> None:
    assert DEFAULT_LANGUAGE == "fr" and language("de") == "fr" and language(None) == "fr"
    assert word("balance", "de") == "Solde"
    assert word("no-such-word", "en") == "no-such-word"
    assert refusal("no-such-code", "en") == "no-such-code"
    assert refusal("no-such-code", "en", default="Refused.") == "Refused."


def test_every_phrase_has_every_language_with_the_same_fields() -> None:
    phrases = all_phrases()
    assert set(phrases) == set(LANGUAGES)
    assert len({frozenset(entries) for entries in phrases.values()}) == 1
    formatter = string.Formatter()
    for key in phrases["en"]:
        fields = {lang: {name for _, name, _, _ in formatter.parse(phrases[lang][key]) if name}
                  for lang in LANGUAGES}
        assert all(names == fields["en"] for names in fields.values()), key
        assert all(phrases[lang][key].strip() for lang in LANGUAGES), key


def test_phrases_are_translated_not_copied_from_english() -> None:
    phrases = all_phrases()
    # Words that are the same in a table language (the game's own names and numbers) aside,
    # every sentence differs from the English one.
    same_everywhere = {"detail.natural-win", "col.net", "col.coups", "detail.win-commission"}
    for lang in ("fr", "it", "es"):
        copied = {key for key, text in phrases[lang].items()
                  if text == phrases["en"][key] and key not in same_everywhere}
        assert copied == set(), (lang, copied)


@pytest.mark.parametrize(("lang", "amounts"), [
    ("fr", ["1 234 567,89 €", "-12,50 €", "0,05 €", "+1 000,00 €", "1 000 €", "10,50 €"]),
    ("it", ["1.234.567,89 €", "-12,50 €", "0,05 €", "+1.000,00 €", "1.000 €", "10,50 €"]),
    ("es", ["1.234.567,89 €", "-12,50 €", "0,05 €", "+1.000,00 €", "1.000 €", "10,50 €"]),
    ("en", ["€1,234,567.89", "-€12.50", "€0.05", "+€1,000.00", "€1,000", "€10.50"]),
])
def test_M1_amounts_written_as_each_language_writes_euros(lang: str, amounts: list[str]) -> None:
    assert [money(123456789, lang), money(-1250, lang), money(5, lang),
            signed_money(100000, lang), money(100000, lang, short=True),
            money(1050, lang, short=True)] == amounts
    assert signed_money(-500, lang) == money(-500, lang) and signed_money(0, lang) == money(0, lang)


def test_money_keeps_the_exact_cents_whatever_the_language() -> None:
    for cents in (0, 1, 99, 100, 101, 99999, 100000, 123456789, -1, -100050):
        shown = money(cents, "fr")
        digits = shown.replace(" ", "").replace("€", "").replace(",", "")
        assert int(digits) == cents
        assert money(cents, "en") == format_cents(cents)  # one English way (issue 20)


def test_stake_ranges_and_percentages() -> None:
    assert money_range(1000, 500000, "fr") == "10–5 000 €"
    assert money_range(1000, 100000, "it") == "10–1.000 €"
    assert money_range(1000, 500000, "en") == "€10–5,000"
    assert money_range(1050, 5000, "es") == "10,50 €–50 €"
    assert [percent(5, lang) for lang in LANGUAGES] == ["5 %", "5%", "5 %", "5%"]
    assert percent(4.5, "fr") == "4,5 %" and percent(4.5, "en") == "4.5%"


def test_phrase_fills_fields_and_counted_picks_one_or_many() -> None:
    assert phrase("coups_played", "fr", n=2) == "Coups joués : 2."
    assert counted("seats", 1, "en") == "1 seat" and counted("seats", 3, "es") == "3 puestos"
    assert counted("leftover", 2, "fr", cards="3D 7C") == (
        "2 cartes restent (3D 7C), trop peu pour un coup entier.")
    assert phrase("margin", "de", n=4) == "écart 4"  # an unknown language falls back to French
    with pytest.raises(KeyError):
        phrase("no-such-phrase", "en")
