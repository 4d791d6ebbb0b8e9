"""Issue 12: the server's own errors live in one module and speak through the one localiser."""

from __future__ import annotations

from puntobanco.bets import BetKind
from puntobanco.errors import BetRefused, ErrorCode
from puntobanco.i18n import LANGUAGES, error_text
from puntobanco.server import messages


def test_issue12_server_codes_are_in_the_one_catalogue() -> None:
    codes = set(messages._MESSAGES) | set(messages._STATUS) | set(messages._PLAIN)
    assert sorted(codes - {code.value for code in ErrorCode}) == []
    assert {messages.NotFound.code, messages.IdempotencyConflict.code} <= set(ErrorCode)


def test_issue12_M3_the_server_says_a_refusal_as_the_terminal_does() -> None:
    refused = BetRefused("The minimum on banco is 10.00 €; 9.00 € is below it.",
                         code=ErrorCode.BELOW_MINIMUM, bet=BetKind.BANCO, limit=1_000)
    for lang in LANGUAGES:
        assert messages.error_message(refused, lang) == error_text(refused, lang)
    assert messages.error_message(refused, "es") == \
        "Apuesta inferior al mínimo de esta casilla (Banco: mínimo 10 €)."
