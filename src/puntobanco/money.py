"""Money in integer minor units (cents), never floats (M1).

>>> parse_euros("25")
2500
>>> parse_euros("12.5")
1250
>>> format_cents(-1250)
'-12.50 €'
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from puntobanco.errors import PuntoBancoError

Cents = int
CENTS_PER_EURO = 100


def euros(amount: int) -> Cents:
    """Whole euros to cents."""
    return amount * CENTS_PER_EURO


def parse_euros(text: str) -> Cents:
    """Read an amount in euros (``25``, ``12.50``) exactly; more than two decimals is refused."""
    try:
        value = Decimal(text.strip().replace("€", "").strip())
    except InvalidOperation:
        raise PuntoBancoError(f"{text!r} is not an amount in euros.", code="bad-amount") from None
    if not value.is_finite():
        raise PuntoBancoError(f"{text!r} is not an amount in euros.", code="bad-amount")
    cents = value * CENTS_PER_EURO
    if cents != cents.to_integral_value():
        raise PuntoBancoError(f"{text!r} has more than two decimals.", code="bad-amount")
    return int(cents)


def format_cents(cents: Cents, *, symbol: str = "€") -> str:
    """Cents as euros with two decimals."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), CENTS_PER_EURO)
    return f"{sign}{whole}.{part:02d} {symbol}".rstrip()
