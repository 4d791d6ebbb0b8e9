"""The errors a user can cause, each with a machine-readable ``code``.

Every one is a ``ValueError`` whose message is one clear sentence, so the command line can print
it and exit non-zero and the server can answer it with a 4xx and the code.
"""

from __future__ import annotations


class PuntoBancoError(ValueError):
    """Base of every error a user can cause: ``code`` is stable, the message is one sentence."""

    code: str = "invalid"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])


class CardParseError(PuntoBancoError):
    """A card's text is not a rank followed by a suit (``AS``, ``10h``, ``Kd``)."""

    code = "bad-card"


class RuleSetError(PuntoBancoError):
    """A table setting is out of its range."""

    code = "bad-rules"


class BetRefused(PuntoBancoError):
    """A bet refused under M3 (limits, closed table, both Lion sides, chip unit, balance)."""

    code = "bet-refused"


class ShoeExhausted(PuntoBancoError):
    """The card source ran out in the middle of a coup."""

    code = "shoe-exhausted"


class TableStateError(PuntoBancoError):
    """An action that the table round does not allow in its present phase."""

    code = "bad-phase"


class ReplayMismatch(PuntoBancoError):
    """A hand history whose recorded cards or payouts differ from what its shoes and bets give."""

    code = "replay-mismatch"
