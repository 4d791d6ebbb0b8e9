"""Issue 12: one catalogue of error codes, refusals that carry their facts, one localiser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from puntobanco.bets import BetKind, verify_spot
from puntobanco.errors import BetRefused, ErrorCode, PuntoBancoError
from puntobanco.i18n import LANGUAGES, error_text, refusal
from puntobanco.money import parse_euros
from puntobanco.rules import RuleSet
from puntobanco.table import Table

SOURCES = Path(__file__).resolve().parents[2] / "src" / "puntobanco"
_CODE = re.compile(r"""\bcode\s*[:=]\s*(?:str\s*=\s*)?["']([a-z][a-z-]*)["']""")


def test_issue12_every_code_in_the_sources_is_in_the_catalogue() -> None:
    found = {code for path in SOURCES.rglob("*.py")
             for code in _CODE.findall(path.read_text(encoding="utf-8"))}
    assert len(found) > 20  # the pattern finds them: this test can fail
    assert sorted(found - {code.value for code in ErrorCode}) == []


def test_issue12_a_code_from_the_catalogue_is_an_enum_member_and_still_a_string() -> None:
    error = PuntoBancoError("Refused.", code="bad-amount")
    assert error.code is ErrorCode.BAD_AMOUNT and error.code == "bad-amount"
    assert f"{error.code}" == "bad-amount"


@pytest.mark.parametrize("code", [
    ErrorCode.TABLE_CLOSED, ErrorCode.BELOW_MINIMUM, ErrorCode.ABOVE_MAXIMUM,
    ErrorCode.BOTH_LION_SIDES, ErrorCode.PUNTO_AND_BANCO, ErrorCode.NOT_CHIP_MULTIPLE,
    ErrorCode.INSUFFICIENT_BALANCE, ErrorCode.NON_POSITIVE_STAKE, ErrorCode.NO_SUCH_BET,
    ErrorCode.UNKNOWN_BET, ErrorCode.BAD_AMOUNT, ErrorCode.BAD_BET_LINE])
def test_issue12_every_refusal_has_a_sentence_in_every_language(code: ErrorCode) -> None:
    sentences = {refusal(code, lang) for lang in LANGUAGES}
    assert len(sentences) == len(LANGUAGES) and code.value not in sentences


def _refused(stake: int, kind: BetKind = BetKind.BANCO, *, available: int | None = None,
             rules: RuleSet | None = None) -> BetRefused:
    table = Table(rules or RuleSet())
    table.open_round()
    with pytest.raises(BetRefused) as info:
        table.place_bet("ann", kind, stake, available=available)
    return info.value


def test_issue12_M3_refusals_carry_their_facts() -> None:
    above = _refused(6_000, BetKind.LION_PUNTO)
    assert (above.code, above.bet, above.limit) == (ErrorCode.ABOVE_MAXIMUM, BetKind.LION_PUNTO,
                                                    5_000)
    below = _refused(900)
    assert (below.code, below.bet, below.limit) == (ErrorCode.BELOW_MINIMUM, BetKind.BANCO, 1_000)
    chip = _refused(2_550)
    assert (chip.code, chip.chip_unit) == (ErrorCode.NOT_CHIP_MULTIPLE, 100)
    poor = _refused(2_000, available=1_550)
    assert (poor.code, poor.available) == (ErrorCode.INSUFFICIENT_BALANCE, 1_550)


def test_issue12_one_localiser_says_the_facts_in_each_language() -> None:
    above = _refused(6_000, BetKind.LION_PUNTO)
    assert [error_text(above, lang) for lang in LANGUAGES] == [
        "Mise supérieure au maximum de cette case (Lion Bonus Punto : 60 €, maximum 50 €).",
        "Puntata superiore al massimo di questa casella (Lion Bonus Punto: 60 €, massimo 50 €).",
        "Apuesta superior al máximo de esta casilla (Lion Bonus Punto: 60 €, máximo 50 €).",
        "The stake is above this box's maximum (Lion Bonus Player: €60, maximum €50)."]
    assert error_text(_refused(2_000, available=1_550), "es") == \
        "Saldo insuficiente para esta apuesta (15,50 € disponibles)."
    assert error_text(_refused(2_550), "it") == \
        "La puntata deve essere un multiplo della fiche minima (fiche da 1 €)."
    with pytest.raises(PuntoBancoError) as amount:
        parse_euros("dix")
    assert error_text(amount.value, "fr") == \
        "Montant invalide : un montant en euros, deux décimales au plus (« dix »)."
    with pytest.raises(PuntoBancoError) as bet:
        BetKind.parse("dragon")
    assert error_text(bet.value, "en") == \
        "Unknown bet ('dragon'; choose punto, banco, egalite, lion-punto, lion-banco)."
    with pytest.raises(BetRefused) as both:
        verify_spot({BetKind.LION_PUNTO: 1_000, BetKind.LION_BANCO: 1_000}, RuleSet())
    assert error_text(both.value, "fr") == refusal("both-lion-sides", "fr")  # no facts to add


def test_issue12_an_error_without_words_keeps_its_english_sentence() -> None:
    error = PuntoBancoError("--coups takes a positive number, not 0.", code="bad-coups")
    assert error_text(error, "it") == "--coups takes a positive number, not 0."
