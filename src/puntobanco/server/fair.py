"""Provably fair shoes: the SHA-256 commitment and the offline check of a revealed shoe.

Before a shoe is dealt its commitment is published; after its last coup the salt and the whole
order (burned cards included) are revealed, and anyone can check that the order was fixed in
advance and that every recorded coup is what that order deals under the shoe's rules. The byte
recipe is in ``docs/api.md``. Standard library and rules core only: ``puntobanco verify`` runs
without the web extra.

>>> from puntobanco.cards import parse_cards
>>> commitment("00ff", parse_cards("AS TD")) == hashlib.sha256(b"00ff:AS TD").hexdigest()
True
>>> salt = new_salt(); len(salt)
64
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from puntobanco.cards import Card, new_shoe_cards, parse_cards
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import RuleSet
from puntobanco.server.settings import table_rules_from_json
from puntobanco.shoe import Shoe

SALT_BYTES = 32


def new_salt() -> str:
    """A fresh secret salt: 32 bytes from the operating system, as 64 lower-case hex digits."""
    return secrets.token_bytes(SALT_BYTES).hex()


def order_text(order: Sequence[Card]) -> str:
    """The order as the commitment reads it: canonical card texts joined by single spaces."""
    return " ".join(str(card) for card in order)


def replayed(order: Sequence[Card], rules: RuleSet,
             recorded: Iterable[tuple[int, str | None]]) -> Shoe:
    """The shoe of ``order`` once the recorded coups — (coup id, its cards as
    :func:`order_text` wrote them), in dealing order — are dealt from it again, each checked
    against its record (the dealer's recovery; the live view of another process). Raises
    :class:`ValueError` naming the first coup the order does not deal."""
    shoe = Shoe.from_order(order, rules)
    for coup_id, cards in recorded:
        if shoe.finished or order_text(
                [card for _, card in shoe.deal_coup().dealing_order()]) != cards:
            raise ValueError(f"coup {coup_id} does not match the recorded order of its shoe")
    return shoe


def commitment(salt_hex: str, order: Sequence[Card]) -> str:
    """``sha256(salt_hex + ":" + order_text(order))`` as 64 lower-case hex digits."""
    return hashlib.sha256(f"{salt_hex}:{order_text(order)}".encode("ascii")).hexdigest()


@dataclass(frozen=True, slots=True)
class RecordedCoup:
    """A coup as the server recorded it: its number in the shoe and its cards in dealing order."""

    coup_in_shoe: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The result of a check: ``ok``, and the reason of the first mismatch when not."""

    ok: bool
    reason: str = ""
    coups_checked: int = 0


def check_commitment(commitment_hex: str, salt_hex: str, order: Sequence[Card]) -> Verdict:
    """Does the revealed salt and order hash to the published commitment?"""
    _check_hex(salt_hex, "salt", length=None)
    _check_hex(commitment_hex, "commitment", length=64)
    expected = commitment(salt_hex.lower(), order)
    if not hmac.compare_digest(expected, commitment_hex.lower()):
        return Verdict(False, f"the salt and order hash to {expected}, not to the published "
                              f"commitment {commitment_hex.lower()}")
    return Verdict(True)


def check_shoe(
    *,
    commitment_hex: str,
    salt_hex: str,
    order: Sequence[Card],
    rules: RuleSet,
    coups: Sequence[RecordedCoup] = (),
) -> Verdict:
    """Check a revealed shoe: its commitment, that it is ``rules.decks`` full decks, and coups.

    ``coups`` are the recorded coups (void ones left out) in their order in the shoe; each must
    be exactly what the order deals next under ``rules`` (burn S2, drawing table R3–R6).

    >>> import random
    >>> from puntobanco.rules import RuleSet
    >>> rules = RuleSet(decks=1, cut_card=20)
    >>> shoe = Shoe.shuffled(rules, rng=random.Random(3))
    >>> dealt = [shoe.deal_coup() for _ in range(2)]
    >>> recorded = [RecordedCoup(i + 1, tuple(c for _, c in coup.dealing_order()))
    ...             for i, coup in enumerate(dealt)]
    >>> salt = "ab" * 32
    >>> check_shoe(commitment_hex=commitment(salt, shoe.order), salt_hex=salt,
    ...            order=shoe.order, rules=rules, coups=recorded).ok
    True
    >>> check_shoe(commitment_hex=commitment(salt, shoe.order), salt_hex=salt,
    ...            order=shoe.order, rules=rules, coups=recorded[1:]).reason[:28]
    'coup 2 of the shoe was dealt'
    """
    verdict = check_commitment(commitment_hex, salt_hex, order)
    if not verdict.ok:
        return verdict
    full = Counter(new_shoe_cards(rules.decks))
    if Counter(order) != full:
        return Verdict(False, f"the order is not exactly {rules.decks} full deck(s) of 52 cards")
    shoe = Shoe.from_order(order, rules)
    checked = 0
    for recorded in sorted(coups, key=lambda c: c.coup_in_shoe):
        if shoe.finished:
            return Verdict(False, f"coup {recorded.coup_in_shoe} of the shoe was recorded after "
                                  "the shoe had ended (S3)", checked)
        dealt = tuple(card for _, card in shoe.deal_coup().dealing_order())
        if shoe.coups_dealt != recorded.coup_in_shoe:
            return Verdict(False, f"coup {recorded.coup_in_shoe} of the shoe was dealt as coup "
                                  f"{shoe.coups_dealt} of the order", checked)
        if dealt != recorded.cards:
            return Verdict(False, f"coup {recorded.coup_in_shoe} was recorded as "
                                  f"{order_text(recorded.cards)} but the order deals "
                                  f"{order_text(dealt)}", checked)
        checked += 1
    return Verdict(True, "", checked)


def check_shoe_json(data: Mapping[str, Any]) -> Verdict:
    """Check a shoe object as ``GET /api/shoes/{id}`` returns it (``docs/api.md``).

    Raises :class:`PuntoBancoError` when the object is not a revealed shoe.
    """
    if not isinstance(data, Mapping):
        raise PuntoBancoError("The shoe file is not a JSON object.", code="bad-shoe")
    if data.get("dealing") == "dealer":  # a physical shoe: its record is checked instead
        from puntobanco.server.fair_dealt import check_hand_dealt_json

        return check_hand_dealt_json(data)
    revealed = data.get("revealed")
    if not isinstance(revealed, Mapping):
        raise PuntoBancoError("This shoe is not revealed yet: it is checked after its last coup.",
                              code="not-revealed")
    try:
        order = parse_cards(list(revealed["order"]))
        salt = str(revealed["salt"])
        commitment_hex = str(data["commitment"])
        rules, _ = table_rules_from_json(data.get("rules") or {})
        coups = [RecordedCoup(int(c["coup_in_shoe"]), tuple(parse_cards(list(c["cards"]))))
                 for c in data.get("coups") or [] if c.get("status") != "void"]
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, PuntoBancoError):
            raise
        raise PuntoBancoError(f"The shoe object lacks or garbles a field ({error}).",
                              code="bad-shoe") from None
    return check_shoe(commitment_hex=commitment_hex, salt_hex=salt, order=order, rules=rules,
                      coups=coups)


_HEX = re.compile(r"^(?:[0-9a-fA-F]{2})+$")


def _check_hex(text: str, what: str, *, length: int | None) -> None:
    if not _HEX.match(text):
        raise PuntoBancoError(f"The {what} {text!r} is not a whole number of bytes in hexadecimal.",
                              code="bad-hex")
    if length is not None and len(text) != length:
        raise PuntoBancoError(f"The {what} must be {length} hex digits, not {len(text)}.",
                              code="bad-hex")
