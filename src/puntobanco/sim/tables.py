"""Lookup tables for the compiled kernels, derived from the rules core and never re-typed.

A coup's result, as far as any bet cares, is its *outcome code*::

    code = 100 * kind + 10 * punto_total + banco_total

with ``kind`` 0 for a natural on either side (R4), 1 for a coup with no natural and no card drawn,
2 for a coup in which a fifth (or sixth) card was drawn. The five bets' settlements (B1–B3, L5)
depend on nothing else, so the kernels only need two tables:

* :func:`coup_tables` — for every Punto two-card total, Banco two-card total and the next two
  cards of the shoe (10⁴ cases), the outcome code and the number of cards the coup uses. They are
  built by dealing each case with :func:`puntobanco.coup.deal_coup` (R3–R6, any
  :class:`~puntobanco.rules.Drawing`).
* :func:`exact_payoffs` — for every outcome code, the net return per unit staked on each bet, found
  by :func:`puntobanco.bets.settle_bet` on a real coup with that code (any :class:`RuleSet`).

>>> from puntobanco.rules import RuleSet
>>> tables = coup_tables(RuleSet())
>>> int(tables.codes[index(9, 3, 0, 0)]), int(tables.used[index(9, 3, 0, 0) // 10])
(93, 4)
>>> int(tables.codes[index(5, 4, 7, 0)]), int(tables.used[index(5, 4, 7, 0) // 10])  # 2 v 4, drawn
(224, 6)
>>> pays = exact_payoffs(RuleSet())
>>> [str(p) for p in pays[outcome_code(2, 7, 1)]]       # drawn, Punto 7 beats Banco 1 by 6
['1', '-1', '-1', '4', '-1']
>>> [str(p) for p in pays[outcome_code(1, 6, 7)]]       # Banco wins with 7: no card drawn
['-1', '1', '-1', '-1', '-1']
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from puntobanco.coup import Coup, deal_coup
from puntobanco.payoffs import BET_KINDS, BET_NAMES, card_of_value, pay_per_unit, unit_stake
from puntobanco.rules import Drawing, RuleSet, is_natural_total

__all__ = [
    "BET_KINDS",  # re-exported: the bet columns, card_of_value and unit_stake live in payoffs
    "BET_NAMES",
    "DRAWN",
    "NATURAL",
    "N_CODES",
    "STOOD",
    "CoupTables",
    "burn_counts",
    "card_of_value",
    "code_of",
    "coup_tables",
    "exact_payoffs",
    "index",
    "outcome_code",
    "outcome_tables",
    "payoff_array",
    "reachable_codes",
    "representative_coup",
    "shoe_values",
    "unit_stake",
]

NATURAL, STOOD, DRAWN = 0, 1, 2
#: How many outcome codes there are (not all are reachable, see :func:`reachable_codes`).
N_CODES = 300

def outcome_code(kind: int, punto_total: int, banco_total: int) -> int:
    """The outcome code of a coup (see the module docstring)."""
    return 100 * kind + 10 * punto_total + banco_total


def code_of(coup: Coup) -> int:
    """The outcome code of a dealt :class:`~puntobanco.coup.Coup`."""
    kind = NATURAL if coup.natural else DRAWN if coup.cards_used > 4 else STOOD
    return outcome_code(kind, coup.punto_total, coup.banco_total)


def index(punto_total: int, banco_total: int, fifth: int, sixth: int) -> int:
    """Row of :attr:`CoupTables.codes` for the two-card totals and the next two cards' values."""
    return 1000 * punto_total + 100 * banco_total + 10 * fifth + sixth


class CoupTables(NamedTuple):
    """R3–R6 as two lookups, built by dealing every case with ``coup.deal_coup``.

    ``codes[index(p, b, c5, c6)]`` is the outcome code of a coup whose two-card totals are ``p``
    and ``b`` and whose next two cards are ``c5`` and ``c6``; ``used[index(p, b, c5, 0) // 10]``
    is how many cards it uses. The count of cards used never depends on the sixth card, and the
    kernels keep that short lookup on their critical path.
    """

    codes: npt.NDArray[np.int16]
    used: npt.NDArray[np.uint8]


@cache
def _coup_tables(drawing: Drawing) -> CoupTables:
    codes = np.empty(10_000, dtype=np.int16)
    used = np.empty(10_000, dtype=np.uint8)
    for punto, banco, fifth, sixth in product(range(10), repeat=4):
        cards = [card_of_value(0), card_of_value(0), card_of_value(punto), card_of_value(banco),
                 card_of_value(fifth), card_of_value(sixth)]
        coup = deal_coup(iter(cards), drawing=drawing)
        codes[index(punto, banco, fifth, sixth)] = code_of(coup)
        used[index(punto, banco, fifth, sixth)] = coup.cards_used
    by_three = used.reshape(1000, 10)
    if not (by_three == by_three[:, :1]).all():  # pragma: no cover - a drawing rule bug
        raise AssertionError("The cards a coup uses cannot depend on the sixth card.")
    short = np.ascontiguousarray(by_three[:, 0])
    codes.setflags(write=False)
    short.setflags(write=False)
    return CoupTables(codes, short)


def coup_tables(rules: RuleSet) -> CoupTables:
    """The :class:`CoupTables` of ``rules.drawing`` (R3–R6), cached."""
    return _coup_tables(rules.drawing)


def representative_coup(code: int) -> Coup | None:
    """A coup record with this outcome code, or ``None`` if the code contradicts itself.

    Settlement reads only the totals, whether there was a natural and whether a card was drawn,
    so any coup with the code settles as every coup with it does. Whether a drawing rule can
    produce the code is :func:`reachable_codes`' business.

    >>> representative_coup(outcome_code(NATURAL, 3, 4)) is None    # a natural needs an 8 or 9
    True
    >>> code_of(representative_coup(outcome_code(DRAWN, 3, 4)))
    234
    """
    kind, totals = divmod(code, 100)
    punto, banco = divmod(totals, 10)
    ten = card_of_value(0)
    if (kind == NATURAL and is_natural_total(max(punto, banco))) or (
            kind == STOOD and not is_natural_total(max(punto, banco))):
        coup = Coup(punto=(ten, card_of_value(punto)), banco=(ten, card_of_value(banco)))
    elif kind == DRAWN:  # two-card totals of 0: no natural, and both sides drew
        coup = Coup(punto=(ten, ten, card_of_value(punto)), banco=(ten, ten, card_of_value(banco)))
    else:
        return None
    return coup if code_of(coup) == code else None


def reachable_codes(drawing: Drawing = Drawing.STANDARD) -> tuple[int, ...]:
    """The outcome codes that coups dealt under ``drawing`` can have.

    >>> len(reachable_codes()), len(reachable_codes(Drawing.SEED_LITERAL))
    (140, 146)
    """
    return tuple(int(code) for code in np.unique(_coup_tables(drawing).codes))


@cache
def exact_payoffs(rules: RuleSet) -> tuple[tuple[Fraction, ...], ...]:
    """Net return per unit staked, per outcome code and bet (:func:`~puntobanco.payoffs.pay_per_unit`).

    Codes that no coup record can have get zeros; the kernels never produce them.
    """
    rows: list[tuple[Fraction, ...]] = []
    for code in range(N_CODES):
        coup = representative_coup(code)
        if coup is None:
            rows.append((Fraction(0),) * len(BET_KINDS))
        else:
            rows.append(tuple(pay_per_unit(kind, coup, rules) for kind in BET_KINDS))
    return tuple(rows)


def payoff_array(rules: RuleSet) -> npt.NDArray[np.float64]:
    """:func:`exact_payoffs` as a contiguous ``(300, 5)`` float array for the kernels."""
    return np.ascontiguousarray(np.array(exact_payoffs(rules), dtype=np.float64))


def outcome_tables(rules: RuleSet) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Per outcome code and bet: ``(wins, pushes)`` — for hit frequencies."""
    pays = exact_payoffs(rules)
    wins = np.array([[p > 0 for p in row] for row in pays], dtype=np.bool_)
    pushes = np.zeros_like(wins)
    for code in range(N_CODES):
        if representative_coup(code) is not None:
            pushes[code] = [p == 0 for p in pays[code]]
    return wins, pushes


def burn_counts() -> npt.NDArray[np.int64]:
    """How many cards a first card of each value burns (S2): a ten or face burns ten."""
    return np.array([card_of_value(v).rank.burn_count for v in range(10)], dtype=np.int64)


def shoe_values(composition: tuple[int, ...]) -> npt.NDArray[np.uint8]:
    """The card values of a shoe in a fixed (sorted) order, as the kernels start from."""
    return np.repeat(np.arange(10, dtype=np.uint8), np.asarray(composition, dtype=np.int64))
