"""Totals, naturals, the drawing table (R2–R7) and the table settings (:class:`RuleSet`).

This is the one place that knows the drawing table. Everything else — the coup, the exact
analysis, the compiled simulator — reads :data:`PUNTO_DRAWS` and :func:`banco_draw_table`.

>>> hand_total([7, 8])
5
>>> is_natural([4, 5])
True
>>> punto_draws(5), punto_draws(6)
(True, False)
>>> banco_draws(3, 8), banco_draws(3, 9), banco_draws(6, None)
(False, True, False)
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from typing import Any, TypeAlias

from puntobanco.cards import verify_decks
from puntobanco.errors import RuleSetError


class Side(Enum):
    """The two hands, and the tie as a result."""

    PUNTO = "punto"
    BANCO = "banco"
    EGALITE = "egalite"


class Drawing(Enum):
    """Which drawing rule Banco follows (R6)."""

    STANDARD = "standard"
    #: The seed texts read literally: Banco draws on 0–2 and stands on 3–7 whatever Punto did.
    #: Gives Punto an edge of about +3.19 %; offered for analysis only.
    SEED_LITERAL = "seed-literal"


class BancoPayout(Enum):
    """How a winning Banco bet is paid (B2)."""

    #: 1:1 with no commission, but 1:2 when Banco wins with a total of 6 (the "2000" rule).
    HALF_ON_SIX = "no-commission"
    #: 1:1 less a commission (5 % conventionally); for comparison.
    COMMISSION = "commission"


class LastCoup(Enum):
    """What happens after the cut card comes out (S3)."""

    #: The coup in progress is completed, one more coup is played, then the shoe ends.
    ONE_MORE = "one-more"
    #: The shoe ends with the coup in progress.
    NONE = "none"


def hand_total(values: Iterable[int]) -> int:
    """The total of a hand: the sum of its card values modulo 10 (R2)."""
    return sum(values) % 10


#: R4: a two-card total of this or more (8 or 9) is a natural.
NATURAL_MIN = 8


def is_natural_total(two_card_total: int) -> bool:
    """Whether a two-card total is a natural, 8 or 9 (R4): the one place this rule is written."""
    return two_card_total >= NATURAL_MIN


def is_natural(two_card_values: Sequence[int]) -> bool:
    """A two-card hand whose total is 8 or 9 (R4)."""
    return len(two_card_values) == 2 and is_natural_total(hand_total(two_card_values))


#: R5: Punto draws on 0–5 and stands on 6–7 (indexed by Punto's two-card total, 0–7).
PUNTO_DRAWS: tuple[bool, ...] = (True, True, True, True, True, True, False, False)

#: Column of :func:`banco_draw_table` used when Punto stood.
PUNTO_STOOD = 10

# R6 as a table: one row per Banco two-card total 0–7; columns are Punto's third-card value 0–9,
# then "Punto stood". D draws, S stands.
_BANCO_ROWS = {
    Drawing.STANDARD: (
        "DDDDDDDDDD D",  # 0
        "DDDDDDDDDD D",  # 1
        "DDDDDDDDDD D",  # 2
        "DDDDDDDDSD D",  # 3: draws unless the third card is an 8
        "SSDDDDDDSS D",  # 4: draws on 2–7
        "SSSSDDDDSS D",  # 5: draws on 4–7
        "SSSSSSDDSS S",  # 6: draws on 6–7, stands if Punto stood
        "SSSSSSSSSS S",  # 7: stands
    ),
    Drawing.SEED_LITERAL: (
        "DDDDDDDDDD D",
        "DDDDDDDDDD D",
        "DDDDDDDDDD D",
        "SSSSSSSSSS S",
        "SSSSSSSSSS S",
        "SSSSSSSSSS S",
        "SSSSSSSSSS S",
        "SSSSSSSSSS S",
    ),
}

_BANCO_TABLE: dict[Drawing, tuple[tuple[bool, ...], ...]] = {
    drawing: tuple(tuple(ch == "D" for ch in row.replace(" ", "")) for row in rows)
    for drawing, rows in _BANCO_ROWS.items()
}


def banco_draw_table(drawing: Drawing = Drawing.STANDARD) -> tuple[tuple[bool, ...], ...]:
    """R6 as an 8 × 11 table: ``[banco_total][punto_third_value or PUNTO_STOOD]`` → draws."""
    return _BANCO_TABLE[drawing]


def punto_draws(punto_total: int) -> bool:
    """Whether Punto, with no natural on the table, draws on this two-card total (R5)."""
    return PUNTO_DRAWS[punto_total]


def banco_draws(
    banco_total: int, punto_third: int | None, drawing: Drawing = Drawing.STANDARD
) -> bool:
    """Whether Banco draws (R6), given Punto's third-card value or ``None`` if Punto stood."""
    column = PUNTO_STOOD if punto_third is None else punto_third
    return _BANCO_TABLE[drawing][banco_total][column]


@dataclass(frozen=True, slots=True)
class Limits:
    """A bet's minimum and maximum stake, in cents (M2, L3)."""

    minimum: int
    maximum: int

    def __post_init__(self) -> None:
        if not 0 < self.minimum <= self.maximum:
            raise RuleSetError(
                f"A limit needs 0 < minimum ≤ maximum, not {self.minimum}–{self.maximum} cents."
            )


#: The ranges :class:`RuleSet` checks, so that no setting can make a settlement fail or overflow
#: a database integer (issue 9): every pay is 0 to ``MAX_PAY`` to 1, a commission 0 to
#: ``MAX_COMMISSION`` with a denominator of at most ``MAX_COMMISSION_DENOMINATOR``, every stake
#: limit at most ``MAX_STAKE`` cents and the chip unit at most ``MAX_CHIP_UNIT`` cents. The
#: largest net a bet can win is then ``MAX_STAKE * MAX_PAY`` = 10¹¹ cents, far inside 2⁶³.
MAX_PAY = 1_000
MAX_COMMISSION = Fraction(1, 4)
MAX_COMMISSION_DENOMINATOR = 10_000
MAX_STAKE = 100_000_000  # 1,000,000.00
MAX_CHIP_UNIT = 1_000_000  # 10,000.00

#: A pay per unit staked: ``8`` is 8:1, ``Fraction(3, 2)`` is 3:2, ``0`` returns the stake and
#: :data:`LOSES` (−1) loses it. Whole pays are plain ``int``; a fractional pay needs a chip unit
#: its denominator divides (M1: every pay a whole number of cents).
Pay: TypeAlias = int | Fraction
#: The pay of an outcome that loses the stake (a Lion Bonus row a table makes lose).
LOSES = -1

#: The SPEC's Lion Bonus pay table (L5c), for margins 9, 8, 7, 6, 5, 4.
LION_PAYTABLE: tuple[int, ...] = (20, 8, 4, 4, 2, 1)
#: B2's "2000" rule: a Banco win with a total of 6 pays 1:2 (no-commission mode).
HALF_ON_SIX: tuple[tuple[int, Pay], ...] = ((6, Fraction(1, 2)),)
#: The well-known Dragon Bonus pay table, for comparison.
DRAGON_PAYTABLE: tuple[int, ...] = (30, 10, 6, 4, 2, 1)
#: The settings that change what a bet pays (R6, B2, B3, L5): what a PAR sheet depends on and
#: states; the limits, chip unit and shoe procedure do not change it.
PAYOUT_SETTINGS: tuple[str, ...] = ("drawing", "banco_payout", "commission", "banco_reduced_pays",
                                    "tie_pays", "lion_paytable", "lion_natural_pays",
                                    "lion_natural_tie_pays")


def pay_value(pay: Pay) -> Pay:
    """A pay in its one form: an ``int`` when whole, else a ``Fraction``.

    >>> pay_value(Fraction(4, 2)), pay_value(Fraction(3, 2))
    (2, Fraction(3, 2))
    """
    if isinstance(pay, bool) or not isinstance(pay, int | Fraction):
        raise RuleSetError(f"A pay is a whole number or a fraction, not {pay!r}.")
    return int(pay) if Fraction(pay).denominator == 1 else Fraction(pay)


def _odds(pay: Pay) -> str:
    """``0:1``, ``8:1``, ``17:2``: a pay as odds, whatever its sign."""
    return f"{pay}:1" if isinstance(pay, int) else f"{pay.numerator}:{pay.denominator}"


def pay_ratio(pay: Pay) -> str:
    """A pay as a layout prints it: ``8:1``, ``3:2``, ``1:2``, ``push`` or ``loses``.

    >>> [pay_ratio(p) for p in (8, Fraction(3, 2), Fraction(1, 2), 0, LOSES)]
    ['8:1', '3:2', '1:2', 'push', 'loses']
    """
    if pay == LOSES:
        return "loses"
    if pay == 0:
        return "push"
    value = Fraction(pay)
    return f"{value.numerator}:{value.denominator}"


@dataclass(frozen=True, kw_only=True, slots=True)
class RuleSet:
    """Every table setting, with SPEC's defaults. Frozen and keyword-only.

    >>> rules = RuleSet()
    >>> rules.decks, rules.tie_pays, rules.lion_paytable, rules.cut_card
    (6, 8, (20, 8, 4, 4, 2, 1), 14)
    >>> rules.lion_pays(9), rules.lion_pays(3)
    (20, None)
    >>> RuleSet(tie_pays=9).tie_pays
    9
    """

    decks: int = 6  # R1
    drawing: Drawing = Drawing.STANDARD  # R6
    tie_pays: Pay = 8  # B3
    banco_payout: BancoPayout = BancoPayout.HALF_ON_SIX  # B2
    commission: Fraction = Fraction(5, 100)  # B2, commission mode only
    #: B2, no-commission mode: (Banco winning total, pay) for the totals that do not pay 1:1.
    banco_reduced_pays: tuple[tuple[int, Pay], ...] = HALF_ON_SIX
    lion_paytable: tuple[Pay, ...] = LION_PAYTABLE  # L5c, margins 9..4 (LOSES: that margin loses)
    lion_natural_pays: Pay = 1  # L5a
    lion_natural_tie_pays: Pay = 0  # L5b: returned (0), or LOSES, or a pay
    punto_limits: Limits = field(default_factory=lambda: Limits(1_000, 500_000))  # M2
    banco_limits: Limits = field(default_factory=lambda: Limits(1_000, 500_000))  # M2
    egalite_limits: Limits = field(default_factory=lambda: Limits(1_000, 100_000))  # M2
    lion_limits: Limits = field(default_factory=lambda: Limits(1_000, 5_000))  # L3
    chip_unit: int = 100  # M1, cents
    allow_punto_and_banco: bool = True  # B4
    burn: bool = True  # S2
    cut_card: int = 14  # S3, cards from the end
    last_coup: LastCoup = LastCoup.ONE_MORE  # S3

    def __post_init__(self) -> None:
        verify_decks(self.decks, code=RuleSetError.code)  # R1
        self._normalise_pays()
        if not 1 <= self.tie_pays <= MAX_PAY:
            raise RuleSetError(f"Égalité pays 1:1 to {MAX_PAY}:1 (B3: 8:1, or 9:1), "
                               f"not {_odds(self.tie_pays)}.")
        if self.commission.denominator > MAX_COMMISSION_DENOMINATOR:
            raise RuleSetError(f"A commission is a fraction whose denominator is at most "
                               f"{MAX_COMMISSION_DENOMINATOR}.")
        if not 0 <= self.commission <= MAX_COMMISSION:
            raise RuleSetError(f"A commission lies between 0 and {MAX_COMMISSION}, "
                               f"not {self.commission}.")
        if len(self.lion_paytable) != 6:
            raise RuleSetError(
                "A Lion Bonus pay table has six pays, for margins 9, 8, 7, 6, 5 and 4; got "
                f"{len(self.lion_paytable)} values."
            )
        for pays in (*self.lion_paytable, self.lion_natural_pays, self.lion_natural_tie_pays):
            if not (0 <= pays <= MAX_PAY or pays == LOSES):
                raise RuleSetError(f"A Lion Bonus pay lies between 0 and {MAX_PAY} to 1 (or -1: "
                                   f"the row loses), not {pays}.")
        totals = [total for total, _ in self.banco_reduced_pays]
        if len(set(totals)) != len(totals) or not all(
                isinstance(t, int) and not isinstance(t, bool) and 1 <= t <= 9 for t in totals):
            raise RuleSetError("The Banco totals paid other than 1:1 are distinct winning totals "
                               f"1 to 9, not {totals}.")
        for total, pays in self.banco_reduced_pays:
            if not 0 <= pays <= MAX_PAY:
                raise RuleSetError(f"A Banco win with {total} pays 0 to {MAX_PAY} to 1, "
                                   f"not {pays}.")
        if not 1 <= self.chip_unit <= MAX_CHIP_UNIT:
            raise RuleSetError(f"The chip unit is 1 to {MAX_CHIP_UNIT} cents, "
                               f"not {self.chip_unit}.")
        for limits in (self.punto_limits, self.banco_limits, self.egalite_limits,
                       self.lion_limits):
            if limits.maximum > MAX_STAKE:
                raise RuleSetError(f"A bet's maximum is at most {MAX_STAKE} cents, "
                                   f"not {limits.maximum}.")
        if self.chip_unit % self.pay_denominator:
            raise RuleSetError(  # M1: e.g. B2's half pay must be a whole number of cents
                f"A pay of {self._finest_pay()} is a whole number of cents only with a chip unit "
                f"that is a multiple of {self.pay_denominator} cents"
                f"{' (an even number)' if self.pay_denominator == 2 else ''}, "
                f"not {self.chip_unit}.")
        if not 12 <= self.cut_card <= 52 * self.decks - 12:
            raise RuleSetError(
                f"The cut card goes 12 to {52 * self.decks - 12} cards from the end, "
                f"not {self.cut_card}."
            )

    def _normalise_pays(self) -> None:
        """Every pay in its one form (:func:`pay_value`), the Banco totals in order."""
        set_ = object.__setattr__
        if not isinstance(self.lion_paytable, tuple | list):
            raise RuleSetError("A Lion Bonus pay table is a sequence of six pays.")
        if not isinstance(self.banco_reduced_pays, tuple | list) or not all(
                isinstance(item, tuple | list) and len(item) == 2
                for item in self.banco_reduced_pays):
            raise RuleSetError("The Banco reduced pays are (total, pay) pairs.")
        set_(self, "tie_pays", pay_value(self.tie_pays))
        set_(self, "lion_paytable", tuple(pay_value(p) for p in self.lion_paytable))
        set_(self, "lion_natural_pays", pay_value(self.lion_natural_pays))
        set_(self, "lion_natural_tie_pays", pay_value(self.lion_natural_tie_pays))
        set_(self, "banco_reduced_pays", tuple(sorted(
            (total, pay_value(pay)) for total, pay in self.banco_reduced_pays)))

    def _pays(self) -> list[Pay]:
        """Every pay of the table that settles in cents exactly (the commission floors)."""
        reduced = ([p for _, p in self.banco_reduced_pays]
                   if self.banco_payout is BancoPayout.HALF_ON_SIX else [])
        return [self.tie_pays, *reduced, *self.lion_paytable, self.lion_natural_pays,
                self.lion_natural_tie_pays]

    @property
    def pay_denominator(self) -> int:
        """The least common multiple of the pays' denominators (M1: the chip unit's divisor).

        >>> designed = RuleSet(lion_natural_pays=Fraction(3, 2), tie_pays=Fraction(17, 4))
        >>> RuleSet().pay_denominator, designed.pay_denominator
        (2, 4)
        """
        return math.lcm(*(Fraction(p).denominator for p in self._pays()))

    def _finest_pay(self) -> str:
        return next(pay_ratio(p) for p in self._pays()
                    if self.chip_unit % Fraction(p).denominator)

    def lion_pays(self, margin: int) -> Pay | None:
        """The L5c pay for a non-natural win by ``margin`` points, or ``None`` below 4."""
        if margin < 4:
            return None
        return self.lion_paytable[9 - margin]

    def banco_win_pays(self, total: int) -> Pay:
        """What a Banco win with ``total`` pays in no-commission mode (B2): 1, or its reduced pay.

        >>> RuleSet().banco_win_pays(6), RuleSet().banco_win_pays(7)
        (Fraction(1, 2), 1)
        """
        return dict(self.banco_reduced_pays).get(total, 1)

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with some settings changed."""
        return replace(self, **changes)


def parse_paytable(text: str) -> tuple[Pay, ...]:
    """Read a Lion Bonus pay table such as ``20,8,4,4,2,1`` (margins 9 down to 4).

    A designed table may pay half units and let a margin lose (``-1`` or ``lose``), as
    ``puntobanco design`` proposes them:

    >>> parse_paytable("30,10,6,4,2,1")
    (30, 10, 6, 4, 2, 1)
    >>> parse_paytable("25,10,5.5,4,2,lose")
    (25, 10, Fraction(11, 2), 4, 2, -1)
    """
    parts = [p for p in text.replace(" ", "").split(",") if p]
    pays: list[Pay] = []
    for part in parts:
        if part.lower() in ("lose", "-1"):
            pays.append(LOSES)
        elif part.isdigit() and len(part) <= 6:
            pays.append(int(part))
        elif _HALF_UNITS.fullmatch(part):
            pays.append(pay_value(Fraction(part)))
        else:
            break
    if len(parts) != 6 or len(pays) != 6:
        raise RuleSetError(
            f"{text!r} is not a Lion Bonus pay table: give six pays (whole numbers, or x.5; -1 "
            "for a margin that loses) for margins 9, 8, 7, 6, 5 and 4, e.g. 20,8,4,4,2,1."
        )
    return tuple(pays)


_HALF_UNITS = re.compile(r"[0-9]{1,6}\.[0-9]{1,4}")
