"""An independent brute-force enumerator: plain nested loops over card values, dealt in order.

It shares nothing with the engine (no multisets, no tables): it walks P, B, P, B, then the third
cards as the core's ``punto_draws`` / ``banco_draws`` say (R4–R6), multiplying the number of cards
of each value left in the shoe as it goes. A coup that stops after k < 6 cards stands for every
ordering of the unused cards: ``(N−k)(N−k−1)…(N−5)`` sequences. Each kind of coup is then settled
once with the core's ``settle_bet`` on a hand-built coup of that kind.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from puntobanco.bets import BetKind, settle_bet
from puntobanco.cards import Card, Rank, Suit
from puntobanco.coup import Coup
from puntobanco.rules import Drawing, RuleSet, banco_draws, punto_draws

#: (punto total, banco total, punto cards, banco cards, natural)
Kind = tuple[int, int, int, int, bool]

_RANKS = (Rank.TEN, Rank.ACE, Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX, Rank.SEVEN,
          Rank.EIGHT, Rank.NINE)
BETS = {"punto": BetKind.PUNTO, "banco": BetKind.BANCO, "egalite": BetKind.EGALITE,
        "lion-punto": BetKind.LION_PUNTO, "lion-banco": BetKind.LION_BANCO}


def enumerate_kinds(composition: Sequence[int], drawing: Drawing = Drawing.STANDARD) -> Counter[Kind]:
    """Ordered six-card sequences of the shoe, by kind of coup."""
    n = list(composition)
    total = sum(n)
    tail4 = (total - 4) * (total - 5)
    tail5 = total - 5
    counts: Counter[Kind] = Counter()
    for p1 in range(10):
        w1 = n[p1]
        if w1 == 0:
            continue
        n[p1] -= 1
        for b1 in range(10):
            w2 = w1 * n[b1]
            if w2 == 0:
                continue
            n[b1] -= 1
            for p2 in range(10):
                w3 = w2 * n[p2]
                if w3 == 0:
                    continue
                n[p2] -= 1
                for b2 in range(10):
                    w4 = w3 * n[b2]
                    if w4 == 0:
                        continue
                    n[b2] -= 1
                    punto = (p1 + p2) % 10
                    banco = (b1 + b2) % 10
                    if punto >= 8 or banco >= 8:  # R4
                        counts[(punto, banco, 2, 2, True)] += w4 * tail4
                    elif punto_draws(punto):  # R5
                        for p3 in range(10):
                            w5 = w4 * n[p3]
                            if w5 == 0:
                                continue
                            n[p3] -= 1
                            punto3 = (punto + p3) % 10
                            if banco_draws(banco, p3, drawing):  # R6
                                for b3 in range(10):
                                    w6 = w5 * n[b3]
                                    if w6:
                                        counts[(punto3, (banco + b3) % 10, 3, 3, False)] += w6
                            else:
                                counts[(punto3, banco, 3, 2, False)] += w5 * tail5
                            n[p3] += 1
                    elif banco_draws(banco, None, drawing):
                        for b3 in range(10):
                            w5 = w4 * n[b3]
                            if w5:
                                counts[(punto, (banco + b3) % 10, 2, 3, False)] += w5 * tail5
                    else:
                        counts[(punto, banco, 2, 2, False)] += w4 * tail4
                    n[b2] += 1
                n[p2] += 1
            n[b1] += 1
        n[p1] += 1
    return counts


def _hand(total: int, cards: int, natural: bool) -> tuple[Card, ...]:
    """Cards with the given total: two (a natural or not) or three (a drawing first two)."""
    values = [total, 0] if cards == 2 else [0, 0, total]
    del natural  # the total alone decides whether two cards are a natural (8 or 9)
    return tuple(Card(_RANKS[v], Suit.HEARTS) for v in values)


def coup_of_kind(kind: Kind) -> Coup:
    punto, banco, punto_cards, banco_cards, natural = kind
    return Coup(punto=_hand(punto, punto_cards, natural), banco=_hand(banco, banco_cards, natural))


def row_name(kind: BetKind, coup: Coup, rules: RuleSet, stake: int) -> tuple[str, Fraction]:
    """The PAR sheet row (SPEC's outcome) of a settled bet, and its net per unit staked."""
    line = settle_bet(kind, stake, coup, rules)
    pays = Fraction(line.net, stake)
    if kind.is_lion:
        return line.reason.value, pays
    if line.reason.banco_total is not None:  # B2's reduced pays: the 6, or a table's others
        cards = "two" if len(coup.banco) == 2 else "three"
        return f"win-with-{line.reason.banco_total}-{cards}-cards", pays
    return line.outcome.value, pays


def brute_force_rows(composition: Sequence[int], rules: RuleSet
                     ) -> dict[str, dict[str, tuple[int, Fraction]]]:
    """Per bet: outcome row → (ordered six-card sequences, net pay per unit)."""
    kinds = enumerate_kinds(composition, rules.drawing)
    stake = math.lcm(2 * rules.commission.denominator, rules.pay_denominator)
    result: dict[str, dict[str, tuple[int, Fraction]]] = {}
    for name, bet in BETS.items():
        rows: dict[str, tuple[int, Fraction]] = {}
        for kind, count in kinds.items():
            row, pays = row_name(bet, coup_of_kind(kind), rules, stake)
            before, _ = rows.get(row, (0, pays))
            rows[row] = (before + count, pays)
        result[name] = rows
    return result
