"""M1: amounts are exact integer cents; bad amounts are refused in one sentence naming them."""

from __future__ import annotations

import pytest

from puntobanco.errors import PuntoBancoError
from puntobanco.money import MAX_EUROS, euros, format_cents, parse_euros


@pytest.mark.parametrize(
    ("text", "cents"),
    [("25", 2500), ("12.5", 1250), ("12.50", 1250), ("0.01", 1), ("10 €", 1000), ("€10", 1000),
     (" 7.00 ", 700), ("12.500", 1250), ("-5", -500), ("0", 0)],
)
def test_M1_parse_euros_is_exact(text: str, cents: int) -> None:
    result = parse_euros(text)
    assert result == cents
    assert type(result) is int


@pytest.mark.parametrize(
    "text", ["", "abc", "12,50", "1.2.3", "NaN", "inf", "-Infinity", "12.505", "0.001", "ten",
             "1e-99999999999", "12.3456789012345678901234567890",
             "1e3", "1E2", "1e10000000", "0x10", "1_000"],
)
def test_M1_bad_amount_is_refused_naming_it(text: str) -> None:
    with pytest.raises(PuntoBancoError) as info:
        parse_euros(text)
    assert info.value.code == "bad-amount"
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("text", ["1" + "0" * 100_000, "-1000000000000000", str(MAX_EUROS)])
def test_M1_huge_amount_is_refused_in_one_sentence(text: str) -> None:
    # "1e10000000" once escaped as decimal.Overflow; a 100,001-digit text must not build an int.
    with pytest.raises(PuntoBancoError, match="too large") as info:
        parse_euros(text)
    assert info.value.code == "amount-too-large"  # its own code: "two decimals" misled (issue 20)


def test_M1_largest_amount_still_read() -> None:
    assert parse_euros("999999999999999.99") == MAX_EUROS * 100 - 1


@pytest.mark.parametrize(
    ("cents", "text"),
    [(0, "€0.00"), (1, "€0.01"), (1250, "€12.50"), (-1250, "-€12.50"), (-5, "-€0.05"),
     (500_000, "€5,000.00")],  # the English way, as the rest of the English text (issue 20)
)
def test_M1_format_cents(cents: int, text: str) -> None:
    assert format_cents(cents) == text
    assert parse_euros(text.replace(",", "")) == cents


def test_M1_format_without_symbol_and_euros_helper() -> None:
    assert format_cents(1250, symbol="") == "12.50"
    assert euros(50) == 5000
