"""Cards, ranks, suits, baccarat values (R1, R2) and shoe compositions.

>>> card = Card.parse("10h")
>>> card, card.value
(Card('TH'), 0)
>>> [c.value for c in parse_cards("AS 9d, kc")]
[1, 9, 0]
>>> full_composition(6)
(96, 24, 24, 24, 24, 24, 24, 24, 24, 24)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from puntobanco.errors import CardParseError, ErrorCode, RuleSetError

DECK_SIZE = 52
#: R1: a shoe holds one to eight decks (checked by :func:`verify_decks`, the one place).
MIN_DECKS, MAX_DECKS = 1, 8


def verify_decks(decks: int, *, code: str = ErrorCode.BAD_DECKS) -> None:
    """Raise :class:`RuleSetError` (``code``) unless a shoe of ``decks`` decks is allowed (R1).

    >>> verify_decks(9)
    Traceback (most recent call last):
    ...
    puntobanco.errors.RuleSetError: A shoe holds 1 to 8 decks, not 9.
    """
    if not MIN_DECKS <= decks <= MAX_DECKS:
        raise RuleSetError(f"A shoe holds {MIN_DECKS} to {MAX_DECKS} decks, not {decks}.",
                           code=code)


class Composition(tuple[int, ...]):
    """A shoe's cards counted by baccarat value: ten non-negative whole numbers.

    Index 0 holds the tens and faces, index 1 the aces, index v the cards of value v (2–9). It is
    a tuple (indexing, ``sum``, numpy and equality with a plain tuple work as before) that checks
    its counts when made, so a value of this type is always a valid composition.

    >>> Composition([16, 4, 4, 4, 4, 4, 4, 4, 4, 4]).cards
    52
    >>> Composition((1, 2, 3))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    puntobanco.errors.CardParseError: A composition is ten non-negative whole numbers: ...
    """

    __slots__ = ()

    def __new__(cls, counts: Iterable[int]) -> Composition:
        values = tuple(counts)
        if len(values) != 10 or any(not isinstance(v, int) or v < 0 for v in values):
            raise CardParseError(
                "A composition is ten non-negative whole numbers: the counts of tens/faces, "
                "aces, 2, 3, 4, 5, 6, 7, 8 and 9.",
                code=ErrorCode.BAD_COMPOSITION,
            )
        return super().__new__(cls, values)

    @property
    def cards(self) -> int:
        """How many cards in all."""
        return sum(self)


class Rank(Enum):
    """The thirteen ranks, by their one-letter text."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "T"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"

    @property
    def value_points(self) -> int:
        """The baccarat value (R2): ace 1, 2–9 face value, ten and faces 0."""
        return _RANK_VALUE[self]

    @property
    def burn_count(self) -> int:
        """How many cards this rank burns when turned at the start of a shoe (S2)."""
        points = _RANK_VALUE[self]
        return 10 if points == 0 else points


_RANK_VALUE = {rank: (0 if rank.value in "TJQK" else "A23456789".index(rank.value) + 1)
               for rank in Rank}


class Suit(Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"


_CARD_RE = re.compile(r"^(10|[2-9TJQKA])([SHDC])$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card: a rank and a suit. Its text is rank then suit, e.g. ``KD``."""

    rank: Rank
    suit: Suit

    @property
    def value(self) -> int:
        """Baccarat value, 0–9 (R2)."""
        return self.rank.value_points

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``AS``, ``10h``, ``Kd`` …; anything else raises :class:`CardParseError`.

        >>> Card.parse("qs").value
        0
        >>> Card.parse("1s")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        puntobanco.errors.CardParseError: '1s' is not a card: write a rank ... e.g. AS or 10h.
        """
        match = _CARD_RE.match(text.strip())
        if match is None:
            raise CardParseError(
                f"{text!r} is not a card: write a rank (A 2-9 T J Q K, or 10) then a suit "
                "(S H D C), e.g. AS or 10h.", text=text
            )
        rank_text = match.group(1).upper()
        return cls(Rank("T" if rank_text == "10" else rank_text), Suit(match.group(2).upper()))

    def __str__(self) -> str:
        return self.rank.value + self.suit.value

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Read cards separated by whitespace or commas (or given as several strings)."""
    tokens: list[str] = []
    for chunk in [text] if isinstance(text, str) else text:
        tokens.extend(token for token in re.split(r"[\s,]+", chunk) if token)
    return [Card.parse(token) for token in tokens]


def standard_deck() -> list[Card]:
    """The 52 cards of one deck, in a fixed order (suits, then ranks)."""
    return [Card(rank, suit) for suit in Suit for rank in Rank]


def new_shoe_cards(decks: int) -> list[Card]:
    """``decks`` standard decks, unshuffled (R1)."""
    verify_decks(decks)
    return standard_deck() * decks


def full_composition(decks: int) -> Composition:
    """The composition of ``decks`` full decks: 16 zero-value cards and 4 of each other value."""
    verify_decks(decks)
    return Composition((16 * decks, *([4 * decks] * 9)))


def composition_of(cards: Iterable[Card]) -> Composition:
    """Count cards by baccarat value."""
    counts = [0] * 10
    for card in cards:
        counts[card.value] += 1
    return Composition(counts)


def as_composition(counts: Sequence[int]) -> Composition:
    """Check a sequence of ten non-negative counts and return it as a :class:`Composition`."""
    return Composition(counts)
