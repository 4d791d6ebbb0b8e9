"""The table's words in its four languages (SPEC: bet names fr/it/es/en) and refusal messages."""

from __future__ import annotations

import pytest

from puntobanco.bets import BetKind
from puntobanco.i18n import DEFAULT_LANGUAGE, LANGUAGES, all_words, bet_name, language, refusal, word


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
