"""Amounts in euros as a table's language writes them: ``10,50`` at a French, Italian or
Spanish table, ``10.50`` everywhere (``play``'s bets and bankroll, ``replay --bet`` and
``--spot``), read exactly into cents by :func:`puntobanco.money.parse_euros`.
"""

from __future__ import annotations

import re

from puntobanco.errors import PuntoBancoError
from puntobanco.money import parse_euros


def parse_amount(text: str, lang: str = "en") -> int:
    """An amount in euros as the table's language writes it, in cents.

    French, Italian and Spanish write the decimals after a comma and may group thousands with
    a dot; English groups with a comma. A dot followed by one or two digits is read as decimals
    everywhere.

    >>> parse_amount("10,50", "fr"), parse_amount("1.000", "it"), parse_amount("12.50", "es")
    (1050, 100000, 1250)
    >>> parse_amount("1,000", "en"), parse_amount("1,000.50", "en")
    (100000, 100050)
    """
    raw = text.strip().replace("€", "").replace("\u202f", "").replace("\xa0", "").strip()
    if lang == "en":
        if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d*)?", raw):
            raw = raw.replace(",", "")
    else:
        if re.fullmatch(r"\d{1,3}(\.\d{3})+(,\d*)?", raw):
            raw = raw.replace(".", "")
        raw = raw.replace(",", ".")
    try:
        return parse_euros(raw)
    except PuntoBancoError as error:
        raise PuntoBancoError(error.message.replace(repr(raw), repr(text.strip())),
                              code=error.code, text=text.strip()) from None
