"""Shoe and rule options shared by the analysis commands (``par``, ``eor``, ``count``, …).

A command declares the options with the ``Annotated`` aliases below and turns their values into a
``(composition, RuleSet)`` pair with :func:`shoe_and_rules`; every mistake raises
:class:`~puntobanco.errors.PuntoBancoError` with one sentence, which ``cli.main`` prints::

    @app.command()
    def par(decks: DecksOption = None, composition: CompositionOption = None,
            banco: BancoOption = "no-commission", commission: CommissionOption = "0.05",
            tie_pays: TiePaysOption = 8, lion_paytable: LionPaytableOption = None,
            rules: RulesOption = "standard") -> None:
        shoe, ruleset = shoe_and_rules(decks=decks, composition=composition, banco=banco,
                                       commission=commission, tie_pays=tie_pays,
                                       lion_paytable=lion_paytable, rules=rules)

>>> shoe, ruleset = shoe_and_rules(decks=8, banco="commission", commission="0.04")
>>> shoe, ruleset.banco_payout.value, ruleset.commission, ruleset.decks
((128, 32, 32, 32, 32, 32, 32, 32, 32, 32), 'commission', Fraction(1, 25), 8)
>>> shoe_and_rules(composition="1,2,3,4,5,6,7,8,9,10", lion_paytable="30,10,6,4,2,1")[1].lion_paytable
(30, 10, 6, 4, 2, 1)
"""

from __future__ import annotations

from enum import Enum
from fractions import Fraction
from typing import Annotated, TypeVar

import typer

from puntobanco.cards import DECK_SIZE, MAX_DECKS, MIN_DECKS, Composition, full_composition
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import LION_PAYTABLE, BancoPayout, Drawing, RuleSet, parse_paytable

#: The fewest cards a coup can need: three for each side.
MIN_CARDS = 6
_Choice = TypeVar("_Choice", bound=Enum)
DEFAULT_DECKS = 6

DecksOption = Annotated[
    int | None,
    typer.Option("--decks", help="Full decks in the shoe, 1-8 (default 6).", show_default=False),
]
CompositionOption = Annotated[
    str | None,
    typer.Option(
        "--composition",
        help="Cards left by value: ten counts c0,c1,...,c9 (c0 = tens and faces, c1 = aces).",
        show_default=False,
    ),
]
BancoOption = Annotated[
    str,
    typer.Option("--banco", help="Banco pays: no-commission (half on a winning 6) or commission."),
]
CommissionOption = Annotated[
    str,
    typer.Option("--commission", help="Commission on Banco wins with --banco commission, e.g. 0.05."),
]
TiePaysOption = Annotated[int, typer.Option("--tie-pays", help="Égalité pays N:1 (8 or 9).")]
LionPaytableOption = Annotated[
    str | None,
    typer.Option(
        "--lion-paytable",
        help="Lion Bonus pays for margins 9,8,7,6,5,4 (default 20,8,4,4,2,1).",
        show_default=False,
    ),
]
RulesOption = Annotated[
    str, typer.Option("--rules", help="Drawing rule: standard (R6) or seed-literal.")
]


def parse_composition(text: str) -> Composition:
    """Read ``c0,c1,…,c9``: ten non-negative whole numbers, at least six cards in all.

    >>> parse_composition("96, 24,24,24,24,24,24,24,24,24")
    (96, 24, 24, 24, 24, 24, 24, 24, 24, 24)
    >>> parse_composition("1,2,3")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    puntobanco.errors.PuntoBancoError: '1,2,3' is not a composition: give ten non-negative ...
    """
    parts = [part.strip() for part in text.replace(";", ",").split(",")]
    if len(parts) != 10 or not all(part.isdigit() for part in parts):
        raise PuntoBancoError(
            f"{text!r} is not a composition: give ten non-negative whole numbers c0,c1,...,c9 "
            "(tens and faces, aces, 2 ... 9), e.g. 96,24,24,24,24,24,24,24,24,24.",
            code="bad-composition",
        )
    counts = Composition(int(part) for part in parts)
    check_enough_cards(counts)
    return counts


def check_enough_cards(composition: Composition) -> None:
    """Refuse a shoe with fewer than six cards: a coup may need six."""
    cards = sum(composition)
    if cards < MIN_CARDS:
        raise PuntoBancoError(
            f"A shoe needs at least {MIN_CARDS} cards for a coup; this one holds {cards}.",
            code="too-few-cards",
        )


def parse_commission(text: str) -> Fraction:
    """Read a commission exactly: ``0.05``, ``5%`` or ``1/20``; it must lie in [0, 1).

    >>> parse_commission("0.05"), parse_commission("4%"), parse_commission("1/40")
    (Fraction(1, 20), Fraction(1, 25), Fraction(1, 40))
    """
    raw = text.strip()
    percent = raw.endswith("%")
    try:
        value = Fraction(raw.rstrip("%").strip())
    except (ValueError, ZeroDivisionError):
        raise PuntoBancoError(
            f"{text!r} is not a commission: give a number such as 0.05 or 5%.",
            code="bad-commission",
        ) from None
    if percent:
        value /= 100
    if not 0 <= value < 1:
        raise PuntoBancoError(
            f"A commission lies between 0 and 1 (e.g. 0.05), not {text.strip()}.",
            code="bad-commission",
        )
    return value


def _choice(kind: type[_Choice], text: str, *, what: str, code: str) -> _Choice:
    """The member of ``kind`` whose value is ``text`` (any case), else one sentence naming it."""
    key = text.strip().lower()
    for member in kind:
        if member.value == key:
            return member
    options = " or ".join(str(member.value) for member in kind)
    raise PuntoBancoError(f"{text!r} is not {what}: choose {options}.", code=code)


def parse_banco(text: str) -> BancoPayout:
    """Read ``no-commission`` or ``commission``."""
    return _choice(BancoPayout, text, what="a Banco payout", code="bad-banco")


def parse_drawing(text: str) -> Drawing:
    """Read ``standard`` or ``seed-literal`` (R6)."""
    return _choice(Drawing, text, what="a drawing rule", code="bad-rules")


def shoe_and_rules(
    *,
    decks: int | None = None,
    composition: str | None = None,
    banco: str = "no-commission",
    commission: str = "0.05",
    tie_pays: int = 8,
    lion_paytable: str | None = None,
    rules: str = "standard",
) -> tuple[Composition, RuleSet]:
    """Turn the shared options' values into the shoe's composition and a :class:`RuleSet`.

    With neither ``decks`` nor ``composition``, the shoe is six full decks (R1). With a
    composition, ``RuleSet.decks`` is the number of decks the cards would fill (1–8).
    """
    if decks is not None and composition is not None:
        raise PuntoBancoError("Give --decks or --composition, not both.", code="bad-shoe")
    if composition is not None:
        shoe = parse_composition(composition)
        deck_count = min(MAX_DECKS, max(MIN_DECKS, -(-sum(shoe) // DECK_SIZE)))
    else:
        deck_count = DEFAULT_DECKS if decks is None else decks
        if not MIN_DECKS <= deck_count <= MAX_DECKS:
            raise PuntoBancoError(
                f"--decks takes 1 to 8 decks, not {deck_count}.", code="bad-decks"
            )
        shoe = full_composition(deck_count)
    payout = parse_banco(banco)
    rate = parse_commission(commission)
    table = LION_PAYTABLE if lion_paytable is None else parse_paytable(lion_paytable)
    ruleset = RuleSet(
        decks=deck_count,
        drawing=parse_drawing(rules),
        tie_pays=tie_pays,
        banco_payout=payout,
        commission=rate,
        lion_paytable=table,
    )
    return shoe, ruleset
