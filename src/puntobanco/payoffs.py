"""The five bets as the analysis and the simulator tabulate them: names, unit stakes, pay per unit.

Both the exact analysis (:mod:`puntobanco.analysis.tables`) and the compiled simulator
(:mod:`puntobanco.sim.tables`) settle one representative coup of each outcome class with the core
and keep the net pay per unit staked. This module is the one place for the bet columns, the
stake that makes every pay a whole number of cents, and that settlement.

>>> BET_NAMES
('punto', 'banco', 'egalite', 'lion-punto', 'lion-banco')
>>> unit_stake(RuleSet()), unit_stake(RuleSet(banco_payout=BancoPayout.COMMISSION))
(2, 40)
>>> from puntobanco.coup import Coup
>>> six = Coup(punto=(card_of_value(0), card_of_value(5)), banco=(card_of_value(0), card_of_value(6)))
>>> [str(pay_per_unit(kind, six, RuleSet())) for kind in BET_KINDS]
['-1', '1/2', '-1', '-1', '-1']
"""

from __future__ import annotations

import math
from fractions import Fraction

from puntobanco.bets import BetKind, SettlementLine, settle_bet
from puntobanco.cards import Card, Rank, Suit
from puntobanco.coup import Coup
from puntobanco.rules import BancoPayout, RuleSet

#: The bets in payment order (L6), the column order of every analysis and simulator table.
BET_KINDS: tuple[BetKind, ...] = tuple(BetKind)
#: Their names, spelt as everywhere else (``lion-punto``): the keys of PAR, simulate and count.
BET_NAMES: tuple[str, ...] = tuple(kind.value for kind in BET_KINDS)

_VALUE_RANK = (Rank.TEN, Rank.ACE, Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX,
               Rank.SEVEN, Rank.EIGHT, Rank.NINE)


def card_of_value(value: int, suit: Suit = Suit.SPADES) -> Card:
    """A card of baccarat value ``value`` (0 gives a ten); suits never change a settlement."""
    return Card(_VALUE_RANK[value], suit)


def unit_stake(rules: RuleSet) -> int:
    """A stake, in cents, on which every pay of ``rules`` is a whole number of cents."""
    stake = 2  # B2: half on a winning 6
    if rules.banco_payout is BancoPayout.COMMISSION:
        stake *= rules.commission.denominator
    return math.lcm(stake, rules.pay_denominator)  # fractional pays (3:2, 17:2, …)


def settle_unit(kind: BetKind, coup: Coup, rules: RuleSet) -> tuple[SettlementLine, Fraction]:
    """Settle ``kind`` on ``coup`` at :func:`unit_stake`: the line and its net per unit staked."""
    stake = unit_stake(rules)
    line = settle_bet(kind, stake, coup, rules)
    return line, Fraction(line.net, stake)


def pay_per_unit(kind: BetKind, coup: Coup, rules: RuleSet) -> Fraction:
    """The net result per unit staked on ``kind`` in ``coup``: −1 loses, 0 is a push."""
    return settle_unit(kind, coup, rules)[1]
