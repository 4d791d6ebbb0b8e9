"""Bet kinds, validation of a spot (M1–M3, B4, L1–L4) and settlement (B1–B3, L5, L6).

>>> from puntobanco.cards import parse_cards
>>> from puntobanco.coup import deal_coup
>>> rules = RuleSet()
>>> coup = deal_coup(iter(parse_cards("9H 3S KD 3D 7C")))   # Punto 9 natural beats Banco 6
>>> bets = {BetKind.BANCO: 2500, BetKind.LION_PUNTO: 1000}
>>> verify_spot(bets, rules)
>>> [(l.bet.value, l.outcome.value, l.net) for l in settle_spot(bets, coup, rules)]
[('banco', 'lose', -2500), ('lion-punto', 'win', 1000)]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from puntobanco.coup import Coup
from puntobanco.errors import BetRefused, ErrorCode, PuntoBancoError
from puntobanco.money import format_cents
from puntobanco.rules import LOSES, BancoPayout, Limits, Pay, RuleSet, Side


class BetKind(Enum):
    """The five bets; their order here is the order of payment (L6)."""

    PUNTO = "punto"
    BANCO = "banco"
    EGALITE = "egalite"
    LION_PUNTO = "lion-punto"
    LION_BANCO = "lion-banco"

    #: a member is equal only to itself: hashed by identity, in C, where Enum's own hash
    #: (of the name, in Python) cost ~0.3 µs each of the many dict look-ups a bet makes (the
    #: desk's, the batch's, the close's and the settlement's; issue 21, seventh pass)
    __hash__ = object.__hash__

    @property
    def is_lion(self) -> bool:
        return self is BetKind.LION_PUNTO or self is BetKind.LION_BANCO

    @property
    def side(self) -> Side:
        """The side the bet backs (Égalité backs the tie)."""
        return _BET_SIDE[self]

    @classmethod
    def parse(cls, text: str) -> BetKind:
        """Read a bet name; English and the table languages' names are accepted.

        >>> BetKind.parse("Lion-Banco"), BetKind.parse("tie"), BetKind.parse("égalité")
        (<BetKind.LION_BANCO: 'lion-banco'>, <BetKind.EGALITE: 'egalite'>, <BetKind.EGALITE: 'egalite'>)
        """
        key = text.strip().lower().replace("_", "-").replace(" ", "-")
        kind = _BET_ALIASES.get(key)
        if kind is None:
            names = ", ".join(k.value for k in cls)
            raise PuntoBancoError(f"{text!r} is not a bet: choose one of {names}.",
                                  code=ErrorCode.UNKNOWN_BET, text=text.strip())
        return kind


_BET_SIDE = {
    BetKind.PUNTO: Side.PUNTO, BetKind.LION_PUNTO: Side.PUNTO,
    BetKind.BANCO: Side.BANCO, BetKind.LION_BANCO: Side.BANCO,
    BetKind.EGALITE: Side.EGALITE,
}
_BET_ALIASES = {kind.value: kind for kind in BetKind} | {
    "player": BetKind.PUNTO, "banker": BetKind.BANCO, "tie": BetKind.EGALITE,
    "égalité": BetKind.EGALITE, "egalité": BetKind.EGALITE, "empate": BetKind.EGALITE,
    "lion-player": BetKind.LION_PUNTO, "lion-banker": BetKind.LION_BANCO,
}

#: Payment order within a spot (L6): the main bets first, the Lion Bonus after them.
PAYMENT_ORDER: tuple[BetKind, ...] = tuple(BetKind)


class Outcome(Enum):
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"


class LionOutcome(Enum):
    """The rows of L5, in pay-table order."""

    NATURAL_WIN = "natural-win"  # L5a
    NATURAL_TIE = "natural-tie"  # L5b
    WIN_BY_9 = "win-by-9"  # L5c
    WIN_BY_8 = "win-by-8"
    WIN_BY_7 = "win-by-7"
    WIN_BY_6 = "win-by-6"
    WIN_BY_5 = "win-by-5"
    WIN_BY_4 = "win-by-4"
    LOSE = "lose"  # L5d

    @property
    def margin(self) -> int | None:
        return int(self.value[-1]) if self.value.startswith("win-by-") else None


def lion_outcome(side_total: int, other_total: int, *, natural: bool, drawn: bool) -> LionOutcome:
    """Classify a Lion Bonus on a side (L5) from the two totals.

    ``natural``: either side had a natural; ``drawn``: a fifth (or sixth) card was dealt.

    >>> lion_outcome(9, 7, natural=True, drawn=False).value
    'natural-win'
    >>> lion_outcome(8, 8, natural=True, drawn=False).value
    'natural-tie'
    >>> lion_outcome(7, 1, natural=False, drawn=True).value
    'win-by-6'
    >>> lion_outcome(7, 4, natural=False, drawn=True).value
    'lose'
    """
    if natural:
        if side_total > other_total:
            return LionOutcome.NATURAL_WIN
        return LionOutcome.NATURAL_TIE if side_total == other_total else LionOutcome.LOSE
    margin = side_total - other_total
    if drawn and margin >= 4:
        return LionOutcome(f"win-by-{margin}")
    return LionOutcome.LOSE


class Reason(Enum):
    """Why a settlement line paid what it did; the value is the ``detail`` of the JSON.

    >>> Reason.WIN_WITH_6.value, Reason.for_lion(LionOutcome.WIN_BY_7).margin
    ('win-with-6', 7)
    """

    WIN = "win"
    LOSE = "lose"
    #: Punto or Banco returned on an Égalité (B1, B2), or the Égalité bet won (B3).
    EGALITE = "egalite"
    #: Banco won and was paid 1:1 less the commission (B2, commission mode).
    WIN_COMMISSION = "win-commission"
    #: Banco won with a total of 6 and was paid 1:2 (B2, the "2000" rule).
    WIN_WITH_6 = "win-with-6"
    #: Banco won with another total the table pays other than 1:1 (B2, ``banco_reduced_pays``).
    WIN_WITH_1 = "win-with-1"
    WIN_WITH_2 = "win-with-2"
    WIN_WITH_3 = "win-with-3"
    WIN_WITH_4 = "win-with-4"
    WIN_WITH_5 = "win-with-5"
    WIN_WITH_7 = "win-with-7"
    WIN_WITH_8 = "win-with-8"
    WIN_WITH_9 = "win-with-9"
    NATURAL_WIN = "natural-win"  # L5a
    NATURAL_TIE = "natural-tie"  # L5b
    WIN_BY_9 = "win-by-9"  # L5c
    WIN_BY_8 = "win-by-8"
    WIN_BY_7 = "win-by-7"
    WIN_BY_6 = "win-by-6"
    WIN_BY_5 = "win-by-5"
    WIN_BY_4 = "win-by-4"

    @property
    def margin(self) -> int | None:
        """The Lion Bonus margin of a ``win-by-N`` reason (L5c), else ``None``."""
        return _REASON_MARGIN.get(self)

    @property
    def banco_total(self) -> int | None:
        """The Banco total of a ``win-with-N`` reason (B2's reduced pays), else ``None``."""
        return int(self.value[-1]) if self.value.startswith("win-with-") else None

    @classmethod
    def for_lion(cls, result: LionOutcome) -> Reason:
        """The reason of a Lion Bonus line settled as ``result`` (L5)."""
        return _LION_REASON[result]


_LION_REASON = {outcome: Reason(outcome.value) for outcome in LionOutcome}
_REASON_MARGIN = {_LION_REASON[outcome]: outcome.margin for outcome in LionOutcome
                  if outcome.margin is not None}


@dataclass(frozen=True, slots=True)
class SettlementLine:
    """One bet's settlement: ``net`` is what the player gains (+), or loses (−), in cents.

    ``odds`` is what was paid per unit staked — ``8`` for 8:1, ``1/2`` for Banco's 1:2, ``19/20``
    for 1:1 less a 5 % commission, ``0`` for a stake returned — or ``None`` for a lost bet;
    ``reason`` says why. Text is made only where it is shown: :func:`pays_text` for the JSON,
    the terminal and the page render their own.
    """

    bet: BetKind
    stake: int
    outcome: Outcome
    net: int
    odds: Fraction | None
    reason: Reason

    @property
    def returned(self) -> int:
        """What goes back to the player: the stake and the winnings, or nothing on a loss."""
        return self.stake + self.net if self.outcome is not Outcome.LOSE else 0

    @property
    def commission(self) -> Fraction | None:
        """The commission taken from a Banco win (B2, commission mode), else ``None``."""
        if self.reason is Reason.WIN_COMMISSION and self.odds is not None:
            return 1 - self.odds
        return None

    def to_dict(self) -> dict[str, object]:
        """The JSON shape of ``docs/api.md`` (``pays`` and ``detail`` as text)."""
        return {"bet": self.bet.value, "stake": self.stake, "outcome": self.outcome.value,
                "net": self.net, "pays": pays_text(self), "detail": self.reason.value}


def pays_text(line: SettlementLine) -> str:
    """The odds as the JSON writes them: ``8:1``, ``1:2``, ``1:1 less 1/20``, ``0:1``, ``""``.

    >>> from puntobanco.cards import parse_cards
    >>> from puntobanco.coup import deal_coup
    >>> coup = deal_coup(iter(parse_cards("KH 3S 2D 3D 8C")))     # Banco wins with 6
    >>> pays_text(settle_bet(BetKind.BANCO, 1000, coup, RuleSet()))
    '1:2'
    >>> pays_text(settle_bet(BetKind.BANCO, 1000, coup,
    ...                      RuleSet(banco_payout=BancoPayout.COMMISSION)))
    '1:1 less 1/20'
    """
    if line.odds is None:
        return ""
    commission = line.commission
    if commission is not None:
        return f"1:1 less {commission}"
    if line.odds.denominator == 1:
        return f"{line.odds.numerator}:1"
    return f"{line.odds.numerator}:{line.odds.denominator}"


def limits_for(kind: BetKind, rules: RuleSet) -> Limits:
    """The stake limits of a bet kind (M2, L3)."""
    if kind is BetKind.PUNTO:  # no dict built a call: a close checks 10,000 bets
        return rules.punto_limits
    if kind is BetKind.BANCO:
        return rules.banco_limits
    if kind is BetKind.EGALITE:
        return rules.egalite_limits
    return rules.lion_limits


def verify_stake(kind: BetKind, stake: int) -> None:
    """A stake is a positive number of cents (M1): the one place this is checked."""
    if stake <= 0:
        raise BetRefused(f"A stake on {kind.value} must be positive.",
                         code=ErrorCode.NON_POSITIVE_STAKE, bet=kind)


def verify_added_stake(kind: BetKind, stake: int, rules: RuleSet) -> None:
    """What a stake added to a bet must be whatever the spot holds already: positive (M1), a
    whole number of chips, and not above the bet's maximum on its own (M2, L3: more stake only
    makes the bet larger). The one judge of these, with the figures, for the table that
    refuses them at once (the server's bet desk) and for :func:`verify_spot`.

    >>> verify_added_stake(BetKind.LION_BANCO, 6000, RuleSet())
    Traceback (most recent call last):
    ...
    puntobanco.errors.BetRefused: The maximum on lion-banco is €50.00; €60.00 is above it.
    """
    _verify_added(kind, stake, rules, limits_for(kind, rules))


def _verify_added(kind: BetKind, stake: int, rules: RuleSet, limits: Limits) -> None:
    """:func:`verify_added_stake` with the bet's ``limits`` found already."""
    verify_stake(kind, stake)
    if stake % rules.chip_unit:
        raise BetRefused(
            f"A stake on {kind.value} must be a whole multiple of the chip unit "
            f"({format_cents(rules.chip_unit)}), not {format_cents(stake)}.",
            code=ErrorCode.NOT_CHIP_MULTIPLE, bet=kind, chip_unit=rules.chip_unit)
    if stake > limits.maximum:
        raise BetRefused(
            f"The maximum on {kind.value} is {format_cents(limits.maximum)}; "
            f"{format_cents(stake)} is above it.", code=ErrorCode.ABOVE_MAXIMUM, bet=kind,
            limit=limits.maximum, stake=stake)


def verify_spot(bets: Mapping[BetKind, int], rules: RuleSet) -> None:
    """Check a spot's bets as a whole (M3, B4, L1, L3); raise :class:`BetRefused` if wrong."""
    for kind, stake in bets.items():
        limits = limits_for(kind, rules)
        _verify_added(kind, stake, rules, limits)
        if stake < limits.minimum:
            raise BetRefused(
                f"The minimum on {kind.value} is {format_cents(limits.minimum)}; "
                f"{format_cents(stake)} is below it.", code=ErrorCode.BELOW_MINIMUM, bet=kind,
                limit=limits.minimum, stake=stake)
    if BetKind.LION_PUNTO in bets and BetKind.LION_BANCO in bets:
        raise BetRefused("A spot may back the Lion Bonus on Punto or on Banco, never both.",
                         code=ErrorCode.BOTH_LION_SIDES)
    if not rules.allow_punto_and_banco and BetKind.PUNTO in bets and BetKind.BANCO in bets:
        raise BetRefused("This table does not allow Punto and Banco on the same spot.",
                         code=ErrorCode.PUNTO_AND_BANCO)


def settle_bet(kind: BetKind, stake: int, coup: Coup, rules: RuleSet) -> SettlementLine:
    """Settle one bet against a dealt coup (B1–B3, L5)."""
    winner = coup.winner
    if kind is BetKind.PUNTO or kind is BetKind.BANCO:
        if winner is Side.EGALITE:  # B1, B2: returned on Égalité
            return SettlementLine(kind, stake, Outcome.PUSH, 0, _NOTHING, Reason.EGALITE)
        if winner is not kind.side:
            return SettlementLine(kind, stake, Outcome.LOSE, -stake, None, Reason.LOSE)
        if kind is BetKind.PUNTO:
            return SettlementLine(kind, stake, Outcome.WIN, stake, _EVEN, Reason.WIN)
        if rules.banco_payout is BancoPayout.COMMISSION:
            odds = 1 - rules.commission
            net = int(stake * odds)  # floor: the house keeps the breakage
            return SettlementLine(kind, stake, Outcome.WIN, net, odds, Reason.WIN_COMMISSION)
        total = coup.banco_total
        if any(total == reduced for reduced, _ in rules.banco_reduced_pays):
            # B2: a Banco win with 6 pays half ("2000"), or the table's other reduced totals
            return _paid(kind, stake, rules.banco_win_pays(total), Reason(f"win-with-{total}"))
        return SettlementLine(kind, stake, Outcome.WIN, stake, _EVEN, Reason.WIN)
    if kind is BetKind.EGALITE:  # B3
        if winner is Side.EGALITE:
            return _paid(kind, stake, rules.tie_pays, Reason.EGALITE)
        return SettlementLine(kind, stake, Outcome.LOSE, -stake, None, Reason.LOSE)
    side = kind.side  # L5
    other = Side.BANCO if side is Side.PUNTO else Side.PUNTO
    result = lion_outcome(coup.total(side), coup.total(other), natural=coup.natural,
                          drawn=coup.cards_used > 4)
    return _settle_lion(kind, stake, result, rules)


_EVEN, _NOTHING = Fraction(1), Fraction(0)


def _paid(kind: BetKind, stake: int, pays: Pay, reason: Reason) -> SettlementLine:
    """A line paid ``pays`` to 1: a win above 0, the stake returned at 0, lost at ``LOSES``.

    The net is exact at a stake the chip unit allows (the RuleSet checks that every pay's
    denominator divides it, M1); at any other stake it is floored, as a commission is.
    """
    if pays == LOSES:
        return SettlementLine(kind, stake, Outcome.LOSE, -stake, None, reason)
    odds = Fraction(pays)
    outcome = Outcome.WIN if odds > 0 else Outcome.PUSH
    return SettlementLine(kind, stake, outcome, math.floor(stake * odds), odds, reason)


def _settle_lion(kind: BetKind, stake: int, result: LionOutcome, rules: RuleSet) -> SettlementLine:
    reason = Reason.for_lion(result)
    if result is LionOutcome.LOSE:
        return SettlementLine(kind, stake, Outcome.LOSE, -stake, None, reason)
    if result is LionOutcome.NATURAL_TIE:  # L5b: returned, unless the table says otherwise
        return _paid(kind, stake, rules.lion_natural_tie_pays, reason)
    margin = result.margin
    pays = rules.lion_natural_pays if margin is None else rules.lion_pays(margin)
    assert pays is not None  # a win-by-N outcome has N ≥ 4
    return _paid(kind, stake, pays, reason)


def settle_spot(bets: Mapping[BetKind, int], coup: Coup, rules: RuleSet) -> tuple[SettlementLine, ...]:
    """Settle every bet of a spot, main bets first and the Lion Bonus after them (L6)."""
    return tuple(settle_bet(kind, bets[kind], coup, rules) for kind in PAYMENT_ORDER
                 if kind in bets)

