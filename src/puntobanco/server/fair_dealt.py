"""The offline check of a hand-dealt shoe (``docs/dealer.md``): its recorded cards against the
rules and the settlements.

A physical shoe cannot be committed to before it is shuffled; what can be checked is its record:
every card entered (with its time and dealer), the coups, and each spot's settlement. This
checks that no card appears more often than ``decks`` allow, that the burn follows S2 when the
first burned card was entered, that each coup's cards are exactly what the drawing rules call
for (R3–R6, asked of the core) and are the coup recorded, that the coups are numbered without a
gap and none comes after the shoe ended (S3), and that every spot's settlement is the core's
(B*, L5, L6). Standard library and rules core only, like :mod:`puntobanco.server.fair`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from puntobanco.bets import BetKind, settle_spot
from puntobanco.cards import Card
from puntobanco.coup import deal_coup
from puntobanco.errors import PuntoBancoError
from puntobanco.physical import CardRefused, next_step
from puntobanco.rules import LastCoup, RuleSet
from puntobanco.server.fair import Verdict
from puntobanco.server.settings import table_rules_from_json


def check_hand_dealt_json(data: Mapping[str, Any]) -> Verdict:
    """Check a finished hand-dealt shoe as ``GET /api/shoes/{id}`` returns it.

    Raises :class:`PuntoBancoError` when the object is not a finished hand-dealt shoe.
    """
    if not isinstance(data.get("entries"), list):
        raise PuntoBancoError("This hand-dealt shoe is not finished yet: its record is given, "
                              "and checked, after its last coup.", code="not-revealed")
    try:
        rules, _ = table_rules_from_json(data.get("rules") or {})
        entries = [dict(e) for e in data["entries"]]
        coups = [dict(c) for c in data.get("coups") or []]
        settlements = dict(data.get("settlements") or {})
        cut_card_coup = data.get("cut_card_coup")
        last_coup_no = data.get("last_coup_no")
        return _check(rules, entries, coups, settlements, cut_card_coup, last_coup_no)
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, PuntoBancoError):
            raise
        raise PuntoBancoError(f"The shoe object lacks or garbles a field ({error}).",
                              code="bad-shoe") from None


def _check(rules: RuleSet, entries: list[dict[str, Any]], coups: list[dict[str, Any]],
           settlements: dict[str, Any], cut_card_coup: int | None,
           last_coup_no: int | None) -> Verdict:
    out: Counter[Card] = Counter()
    counted = 0
    by_coup: dict[int, list[dict[str, Any]]] = {}
    burn: list[Card] = []
    burn_counted = 0
    first_coup_seen = False
    for entry in entries:
        if entry["status"] == "mistyped":
            continue
        if entry["kind"] in ("burn", "card"):
            card = Card.parse(entry["card"])
            out[card] += 1
            if out[card] > rules.decks:
                return Verdict(False, f"{card} was entered {out[card]} times from a shoe of "
                                      f"{rules.decks} deck(s)")
        if entry["kind"] == "counted":
            counted += int(entry["count"])
        if entry["kind"] == "card":
            first_coup_seen = True
            if entry["status"] == "ok":
                by_coup.setdefault(int(entry["coup_id"]), []).append(entry)
        elif not first_coup_seen and entry["kind"] == "burn":
            burn.append(Card.parse(entry["card"]))
        elif not first_coup_seen and entry["kind"] == "counted":
            burn_counted += int(entry["count"])
    if sum(out.values()) + counted > 52 * rules.decks:
        return Verdict(False, f"more cards were entered and counted than {rules.decks} deck(s) "
                              "hold")
    if rules.burn and burn and len(burn) + burn_counted != 1 + burn[0].rank.burn_count:
        return Verdict(False, f"the first burned card {burn[0]} calls for "
                              f"{burn[0].rank.burn_count} more burned, not "
                              f"{len(burn) + burn_counted - 1} (S2)")
    dealt = [c for c in coups if c["status"] != "void"]
    checked = 0
    for number, coup in enumerate(sorted(dealt, key=lambda c: (c["coup_in_shoe"], c["id"])),
                                  start=1):
        if coup["coup_in_shoe"] != number:
            return Verdict(False, f"coup {coup['coup_in_shoe']} of the shoe follows coup "
                                  f"{number - 1}", checked)
        if _ended(rules, cut_card_coup, last_coup_no, number - 1):
            return Verdict(False, f"coup {number} was dealt after the shoe had ended (S3)",
                           checked)
        found = by_coup.get(int(coup["id"]), [])
        cards = [Card.parse(e["card"]) for e in found]
        for index, entry in enumerate(found):
            try:
                step = next_step(cards[:index], drawing=rules.drawing)
            except CardRefused as refused:
                return Verdict(False, f"coup {number}: {refused.message}", checked)
            if step.complete or (step.side is not None and entry["side"] != step.side.value) \
                    or entry["position"] != step.position:
                return Verdict(False, f"coup {number}: the card {entry['card']} is not the one "
                                      "the drawing rules call for there (R3-R6)", checked)
        if not next_step(cards, drawing=rules.drawing).complete:
            return Verdict(False, f"coup {number} ends before the drawing rules say (R3-R6)",
                           checked)
        if [str(c) for c in cards] != list(coup["cards"]):
            return Verdict(False, f"coup {number} was recorded as {' '.join(coup['cards'])} "
                                  f"but its cards were entered as "
                                  f"{' '.join(str(c) for c in cards)}", checked)
        played = deal_coup(iter(cards), drawing=rules.drawing)
        for spot in settlements.get(str(coup["id"]), []):
            bets = {BetKind.parse(kind): int(stake) for kind, stake in spot["bets"].items()}
            expected = [{"bet": line.bet.value, "stake": line.stake,
                         "outcome": line.outcome.value, "net": line.net}
                        for line in settle_spot(bets, played, rules)]
            if expected != [dict(line) for line in spot["lines"]]:
                return Verdict(False, f"coup {number}: a spot's settlement differs from the "
                                      "rules' (B1-B3, L5, L6)", checked)
        checked += 1
    return Verdict(True, "", checked)


def _ended(rules: RuleSet, cut_card_coup: int | None, last_coup_no: int | None,
           dealt: int) -> bool:
    """Had the shoe ended after ``dealt`` coups (S3, or the last coup called)?"""
    if last_coup_no is not None and dealt >= last_coup_no:
        return True
    if cut_card_coup is None:
        return False
    extra = 1 if rules.last_coup is LastCoup.ONE_MORE else 0
    return dealt >= cut_card_coup + extra

