"""The counting study as JSON and as text (``puntobanco count``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from puntobanco.sim.counting import CountStudy
from puntobanco.sim.tables import BET_NAMES

#: Card values in the order of the tags, as printed.
VALUE_NAMES = ("10-K", "A", "2", "3", "4", "5", "6", "7", "8", "9")


def threshold_text(threshold: float, cut_card: int) -> str:
    """The betting threshold on the true-count scale, and what it means at the cut card.

    >>> threshold_text(30.4, 14)
    'a true count of +30.4 or more (with 14 cards left, as at the cut card: a running count of +8.2)'
    """
    at_cut = threshold * cut_card / 52
    return (f"a true count of {threshold:+.1f} or more (with {cut_card} cards left, as at the cut "
            f"card: a running count of {at_cut:+.1f})")


def bet_summary(result: CountStudy, bet: int) -> dict[str, Any]:
    """One bet's figures: positive share, ceiling (expected and realised), best count."""
    totals = result.totals
    shoes, coups = totals.shoes, totals.coups
    name = BET_NAMES[bet]
    positive = int(totals.positive[bet].sum())
    positive_ev = float(totals.positive_ev[bet].sum())
    return {
        "mean_ev": float(totals.ev_sum[bet]) / coups,
        "positive_share": positive / coups,
        "ceiling_units_per_shoe": positive_ev / shoes,
        "ceiling_units_per_100_coups": 100 * positive_ev / coups,
        "ceiling_bets_per_shoe": positive / shoes,
        "ceiling_edge_when_betting": positive_ev / positive if positive else None,
        "ceiling_realised_units_per_shoe": float(totals.positive_realised[bet].sum()) / shoes,
        "ceiling_test_units_per_shoe": (float(totals.positive_ev[bet, 1])
                                        / max(result.test_shoes, 1)),
        "effects_of_removal": list(result.effects[name]),
        "count": result.choices[name].to_dict(),
    }


def to_json(result: CountStudy, *, plots: Sequence[str] = ()) -> dict[str, Any]:
    """The ``count --json`` document."""
    rules = result.rules
    totals = result.totals
    return {
        "shoes": totals.shoes, "coups": totals.coups, "seed": result.seed,
        "seconds": result.seconds, "ev_seconds": totals.ev_seconds,
        "compositions_per_second": (totals.coups / totals.ev_seconds
                                    if totals.ev_seconds > 0 else None),
        "placement": result.placement, "decks": rules.decks,
        "composition": list(result.setup.spec.composition), "cut_card": rules.cut_card,
        "lion_paytable": list(rules.lion_paytable), "tie_pays": rules.tie_pays,
        "banco_payout": rules.banco_payout.value,
        "train_shoes": totals.train_shoes, "test_shoes": result.test_shoes,
        "bets": {name: bet_summary(result, k) for k, name in enumerate(BET_NAMES)},
        "plots": list(plots),
    }


def to_text(result: CountStudy, *, plots: Sequence[str] = ()) -> str:
    """The human report: one paragraph per bet."""
    document = to_json(result, plots=plots)
    rules = result.rules
    cards = sum(result.setup.spec.composition)
    shoe = f"{rules.decks} deck(s)" if cards == 52 * rules.decks else f"a shoe of {cards} cards"
    lines = [
        f"Counting study: {document['shoes']:,} shoes, {document['coups']:,} coups, seed "
        f"{document['seed']}; {shoe}, cut card {rules.cut_card} cards from the "
        f"end, Lion Bonus pays {','.join(map(str, rules.lion_paytable))}, Égalité "
        f"{rules.tie_pays}:1. {document['seconds']:.1f} s on {document['placement']} "
        f"(exact EVs: {document['ev_seconds']:.1f} s of work).",
        "Ceiling: one unit whenever the exact EV of the cards left is positive (its expectation, "
        "the sum of those EVs). Count: integer tags from the effects of removal, true count = "
        "the tags of the cards seen less their average, per deck left; tags and "
        f"threshold chosen on the first {document['train_shoes']:,} shoes, judged on the other "
        f"{document['test_shoes']:,}.",
    ]
    for name, bet in document["bets"].items():
        count = bet["count"]
        lines.append("")
        lines.append(f"{name}: mean EV {100 * bet['mean_ev']:+.3f}%, positive on "
                     f"{100 * bet['positive_share']:.2f}% of coups")
        edge = bet["ceiling_edge_when_betting"]
        lines.append(f"  ceiling: {bet['ceiling_units_per_shoe']:.4f} units per shoe "
                     f"({bet['ceiling_units_per_100_coups']:.4f} per 100 coups), "
                     f"{bet['ceiling_bets_per_shoe']:.2f} bets per shoe"
                     + ("" if edge is None else f", edge {100 * edge:+.2f}% when betting")
                     + f"; realised {bet['ceiling_realised_units_per_shoe']:+.4f}")
        tags = " ".join(f"{v} {t:+d}" for v, t in zip(VALUE_NAMES, count["tags"], strict=True))
        if count["threshold"] is None:
            lines.append(f"  best count: none profitable on the training shoes (tags {tags})")
        else:
            count_edge = count["edge_when_betting"]
            lines.append(
                f"  best count: {tags}; bet at "
                f"{threshold_text(count['threshold'], rules.cut_card)}: "
                f"{count['units_per_shoe']:.4f} units per shoe, {count['bets_per_shoe']:.2f} bets "
                "per shoe"
                + ("" if count_edge is None else f", edge {100 * count_edge:+.2f}% when betting")
                + f"; realised {count['realised_units_per_shoe']:+.4f}")
    if plots:
        lines.append("")
        lines.append("Plots: " + ", ".join(plots))
    return "\n".join(lines)
