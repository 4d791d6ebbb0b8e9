"""The errors a user can cause, each with a machine-readable ``code`` from one catalogue.

Every one is a ``ValueError`` whose message is one clear English sentence, so the command line
can print it and exit non-zero and the server can answer it with a 4xx and the code. A refusal
also carries its facts (the bet, the limit, the balance available, the chip unit, the text
typed), so that :func:`puntobanco.i18n.error_text` — the one localiser, for the terminal, the
server and the page — says it in the player's language with the figures behind it.

>>> refused = BetRefused("The maximum on banco is €5,000.00; €6,000.00 is above it.",
...                      code=ErrorCode.ABOVE_MAXIMUM, limit=500_000)
>>> refused.code, refused.code == "above-maximum", refused.limit
(<ErrorCode.ABOVE_MAXIMUM: 'above-maximum'>, True, 500000)
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only a type: the bets layer sits above this one
    from puntobanco.bets import BetKind


class ErrorCode(StrEnum):
    """Every error code the package gives, once. A code is stable: clients read it."""

    INVALID = "invalid"
    # cards, money and table settings (R1, M1, B2, B3, L5, S3)
    BAD_CARD = "bad-card"
    BAD_CARDS = "bad-cards"
    BAD_DECKS = "bad-decks"
    BAD_COMPOSITION = "bad-composition"
    BAD_AMOUNT = "bad-amount"
    AMOUNT_TOO_LARGE = "amount-too-large"
    BAD_RULES = "bad-rules"
    # bets (M1–M3, B4, L1–L4)
    BET_REFUSED = "bet-refused"
    UNKNOWN_BET = "unknown-bet"
    NON_POSITIVE_STAKE = "non-positive-stake"
    NOT_CHIP_MULTIPLE = "not-chip-multiple"
    BELOW_MINIMUM = "below-minimum"
    ABOVE_MAXIMUM = "above-maximum"
    BOTH_LION_SIDES = "both-lion-sides"
    PUNTO_AND_BANCO = "punto-and-banco"
    TABLE_CLOSED = "table-closed"
    NO_SUCH_BET = "no-such-bet"
    INSUFFICIENT_BALANCE = "insufficient-balance"
    DUPLICATE_BET = "duplicate-bet"
    # the shoe, the table round, hand histories (S1–S3, L4, L6)
    SHOE_EXHAUSTED = "shoe-exhausted"
    BAD_PHASE = "bad-phase"
    REPLAY_MISMATCH = "replay-mismatch"
    BAD_SHOE = "bad-shoe"
    TOO_FEW_CARDS = "too-few-cards"
    NO_CARDS = "no-cards"
    NOT_REVEALED = "not-revealed"
    BAD_HEX = "bad-hex"
    # the command line
    BAD_BET_LINE = "bad-bet-line"
    BAD_BET_OPTION = "bad-bet-option"
    BAD_SEATS = "bad-seats"
    BAD_BANKROLL = "bad-bankroll"
    BAD_COUPS = "bad-coups"
    BAD_LANG = "bad-lang"
    BAD_BANCO = "bad-banco"
    BAD_COMMISSION = "bad-commission"
    BAD_CUT_CARD = "bad-cut-card"
    BAD_CARDS_FILE = "bad-cards-file"
    BAD_FILE = "bad-file"  # a file a command reads (issue 20: one sentence for every command)
    BAD_FORMAT = "bad-format"
    BAD_OUT = "bad-out"
    BAD_SEED = "bad-seed"
    BAD_SHOES = "bad-shoes"
    BAD_TAGS = "bad-tags"
    BAD_WORKERS = "bad-workers"
    BAD_SCHEDULER = "bad-scheduler"
    NO_SCHEDULER = "no-scheduler"
    MISSING_DASK = "missing-dask"
    BAD_PLACEMENT = "bad-placement"
    BAD_URL = "bad-url"
    BAD_DATABASE = "bad-database"
    BAD_DRAWING = "bad-drawing"
    OPTION_NOT_APPLIED = "option-not-applied"  # an option the command cannot apply (issue 20)
    BAD_LIMIT = "bad-limit"
    BAD_CHIP = "bad-chip"
    BAD_SPOT = "bad-spot"
    IMPOSSIBLE_HAND = "impossible-hand"  # replay --punto/--banco: hands R4–R6 cannot deal
    # the analyst's bench (risk, design) and the server's process lock
    BAD_BET = "bad-bet"
    BAD_STAKE = "bad-stake"
    BAD_SESSIONS = "bad-sessions"
    BAD_DESIGN = "bad-design"
    GRID_TOO_LARGE = "grid-too-large"
    DATABASE_IN_USE = "database-in-use"
    # the server only (their sentences and HTTP statuses: puntobanco.server.messages)
    BAD_REQUEST = "bad-request"
    BAD_JSON = "bad-json"
    BAD_NUL = "bad-nul"  # a bad-request's sentence: a NUL character in a path, query or body
    BAD_METHOD = "bad-method"
    BAD_USERNAME = "bad-username"
    BAD_PASSWORD = "bad-password"
    BAD_CREDENTIALS = "bad-credentials"
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not-found"
    USERNAME_TAKEN = "username-taken"
    TABLE_NAME_TAKEN = "table-name-taken"
    TABLE_NAME_LENGTH = "table-name-length"
    IDEMPOTENCY_CONFLICT = "idempotency-conflict"
    BAD_COUP_STATUS = "bad-coup-status"
    TABLE_NAME_CHARACTERS = "table-name-characters"
    TABLE_OUT_OF_SERVICE = "table-out-of-service"
    TOO_MANY_REQUESTS = "too-many-requests"
    BODY_TOO_LARGE = "body-too-large"
    ACCOUNT_SUSPENDED = "account-suspended"
    NOT_A_PLAYER = "not-a-player"  # a dealer's or operator's account neither bets nor holds money
    OPERATOR_NOT_SUSPENDABLE = "operator-not-suspendable"
    NOTHING_TO_CHANGE = "nothing-to-change"
    BAD_PERIOD = "bad-period"
    INTERNAL_ERROR = "internal-error"
    DATABASE_UNAVAILABLE = "database-unavailable"  # the database cannot be reached (issue 22)
    STORAGE_FULL = "storage-full"  # the database's disk is full, or its reserve reached
    LEADERSHIP_LOST = "leadership-lost"  # several processes: a dealer write without the lock
    # a hand-dealt shoe (dealer mode: puntobanco.physical, docs/dealer.md)
    BAD_BURN = "bad-burn"
    BAD_DEALING = "bad-dealing"
    BETTING_NOT_OPEN = "betting-not-open"
    CARD_ALREADY_ENTERED = "card-already-entered"
    CARD_NOT_CALLED = "card-not-called"
    CARD_NOT_IN_SHOE = "card-not-in-shoe"
    CARD_OUT_OF_TURN = "card-out-of-turn"
    CARD_OUT_OF_TURN_CLOSED = "card-out-of-turn-closed"  # message keys of card-out-of-turn
    CARD_NUMBER_OUT_OF_TURN = "card-number-out-of-turn"
    CARD_REFUSED = "card-refused"
    COUP_INCOMPLETE = "coup-incomplete"
    CUT_CARD_EARLY = "cut-card-early"
    CUT_CARD_OUT = "cut-card-out"
    NO_SHOE = "no-shoe"
    NOT_DEALER_TABLE = "not-dealer-table"
    NOT_YOUR_TABLE = "not-your-table"
    NOTHING_TO_CORRECT = "nothing-to-correct"
    NOTHING_TO_VOID = "nothing-to-void"
    ROUND_IN_PROGRESS = "round-in-progress"
    SHOE_EMPTY = "shoe-empty"
    SHOE_FINISHED = "shoe-finished"
    TABLE_PAUSED = "table-paused"  # the operator paused it: no round opens (issue 17)


def error_code(code: str) -> ErrorCode | str:
    """``code`` as a member of the catalogue when it is one (a new code not yet listed stays text;
    ``tests/core/test_errors.py`` makes sure every code in the sources is listed)."""
    try:
        return ErrorCode(code)
    except ValueError:
        return code


class PuntoBancoError(ValueError):
    """Base of every error a user can cause: ``code`` is stable, the message is one sentence.

    ``text`` is what the user typed, when the error is about it (a card, an amount, a bet name).
    """

    code: str = ErrorCode.INVALID

    def __init__(self, message: str, *, code: str | None = None, text: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = error_code(code)
        self.text = text

    @property
    def message(self) -> str:
        return str(self.args[0])


class CardParseError(PuntoBancoError):
    """A card's text is not a rank followed by a suit (``AS``, ``10h``, ``Kd``)."""

    code = ErrorCode.BAD_CARD


class RuleSetError(PuntoBancoError):
    """A table setting is out of its range (the number of decks among them)."""

    code = ErrorCode.BAD_RULES


class BetRefused(PuntoBancoError):
    """A bet refused under M3 (limits, closed table, both Lion sides, chip unit, balance).

    Its facts, where they apply: ``bet``, the ``stake`` refused and the ``limit`` it crosses
    (cents), the ``available`` balance (cents) and the table's ``chip_unit`` (cents).
    """

    code = ErrorCode.BET_REFUSED

    def __init__(self, message: str, *, code: str | None = None, bet: BetKind | None = None,
                 limit: int | None = None, available: int | None = None,
                 chip_unit: int | None = None, stake: int | None = None) -> None:
        super().__init__(message, code=code)
        self.bet, self.limit, self.available, self.chip_unit = bet, limit, available, chip_unit
        self.stake = stake


class ShoeExhausted(PuntoBancoError):
    """The card source ran out in the middle of a coup."""

    code = ErrorCode.SHOE_EXHAUSTED


class TableStateError(PuntoBancoError):
    """An action that the table round does not allow in its present phase."""

    code = ErrorCode.BAD_PHASE


class ReplayMismatch(PuntoBancoError):
    """A hand history whose recorded cards or payouts differ from what its shoes and bets give."""

    code = ErrorCode.REPLAY_MISMATCH
