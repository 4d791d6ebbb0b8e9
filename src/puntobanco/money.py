"""Money in integer minor units (cents), never floats (M1).

>>> parse_euros("25")
2500
>>> parse_euros("12.5")
1250
>>> format_cents(-1250)
'-€12.50'
"""

from __future__ import annotations

import re

from puntobanco.errors import ErrorCode, PuntoBancoError

Cents = int
CENTS_PER_EURO = 100
#: Amounts read from text stay below this many euros (10**17 cents fits a signed 64-bit integer),
#: so a text of a thousand digits is refused in one sentence instead of building a huge number.
MAX_EUROS = 10**15
_AMOUNT = re.compile(r"^([+-]?)([0-9]+)(?:\.([0-9]*))?$")


def euros(amount: int) -> Cents:
    """Whole euros to cents."""
    return amount * CENTS_PER_EURO


def parse_euros(text: str) -> Cents:
    """Read an amount in euros (``25``, ``12.50``, ``10 €``) exactly.

    Only plain decimal notation is read: ``1e3`` or ``12,50`` is refused, as are more than two
    decimals and amounts of :data:`MAX_EUROS` or more.

    >>> parse_euros("1e3")
    Traceback (most recent call last):
    ...
    puntobanco.errors.PuntoBancoError: '1e3' is not an amount in euros: write it like 25 or 12.50.
    """
    match = _AMOUNT.match(text.strip().replace("€", "").strip())
    if match is None:
        raise PuntoBancoError(f"{text!r} is not an amount in euros: write it like 25 or 12.50.",
                              code=ErrorCode.BAD_AMOUNT, text=text.strip())
    sign, whole, decimals = match.group(1), match.group(2), (match.group(3) or "").rstrip("0")
    if len(decimals) > 2:
        raise PuntoBancoError(f"{text!r} has more than two decimals.", code=ErrorCode.BAD_AMOUNT,
                              text=text.strip())
    if len(whole.lstrip("0")) > len(str(MAX_EUROS - 1)) or int(whole) >= MAX_EUROS:
        raise PuntoBancoError(f"{text!r} is too large an amount: at most "
                              f"{MAX_EUROS - 1:,} euros.", code=ErrorCode.AMOUNT_TOO_LARGE,
                              text=text.strip())
    cents = int(whole) * CENTS_PER_EURO + int(decimals.ljust(2, "0"))
    return -cents if sign == "-" else cents


def format_cents(cents: Cents, *, symbol: str = "€") -> str:
    """Cents as euros with two decimals, written the English way, as the English sentences of
    the terminal and the page write them (``€1,000.00``, ``-€12.50``).

    >>> format_cents(100_000), format_cents(-5)
    ('€1,000.00', '-€0.05')
    """
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), CENTS_PER_EURO)
    return f"{sign}{symbol}{whole:,}.{part:02d}"
