"""Money in integer minor units (cents), never floats (M1).

>>> parse_euros("25")
2500
>>> parse_euros("12.5")
1250
>>> format_cents(-1250)
'-12.50 €'
"""

from __future__ import annotations

from decimal import Decimal, Inexact, InvalidOperation, localcontext

from puntobanco.errors import PuntoBancoError

Cents = int
CENTS_PER_EURO = 100
#: Amounts read from text stay below this many euros (10**17 cents fits a signed 64-bit integer),
#: so a text such as ``1e999999999`` is refused in one sentence instead of building a huge number.
MAX_EUROS = 10**15


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
    if value.copy_abs() >= MAX_EUROS:
        raise PuntoBancoError(f"{text!r} is too large an amount.", code="bad-amount")
    with localcontext() as context:
        context.traps[Inexact] = True  # a value too fine for exact arithmetic has too many decimals
        try:
            cents = value * CENTS_PER_EURO
        except ArithmeticError:
            raise PuntoBancoError(f"{text!r} has more than two decimals.", code="bad-amount") from None
    if cents != cents.to_integral_value():
        raise PuntoBancoError(f"{text!r} has more than two decimals.", code="bad-amount")
    return int(cents)


def format_cents(cents: Cents, *, symbol: str = "€") -> str:
    """Cents as euros with two decimals."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), CENTS_PER_EURO)
    return f"{sign}{whole}.{part:02d} {symbol}".rstrip()
