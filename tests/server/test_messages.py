"""The server's messages (``puntobanco.server.messages``): every sentence in the four languages
with the same fields, and never a raw ``{placeholder}`` whatever the caller gives."""

from __future__ import annotations

import string

import pytest

from puntobanco.i18n import LANGUAGES
from puntobanco.server.messages import _MESSAGES, message, status_of


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@pytest.mark.parametrize("code", sorted(_MESSAGES))
def test_every_message_in_every_language_with_the_same_fields(code: str) -> None:
    texts = _MESSAGES[code]
    assert set(texts) == set(LANGUAGES)
    assert len({frozenset(_fields(text)) for text in texts.values()}) == 1, texts


@pytest.mark.parametrize("code", sorted(_MESSAGES))
@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_message_shows_a_raw_placeholder(code: str, lang: str) -> None:
    for text in [message(code, lang), message(code, lang, "The specific reason."),
                 message(code, lang, None, field="stake"),
                 message(code, lang, "The specific reason.", other="x")]:
        assert text and "{" not in text and "}" not in text, (code, lang, text)
        assert text.endswith((".", "?")), text


def test_without_its_field_a_message_gives_the_specific_reason() -> None:
    reason = "A table's name is 1 to 64 characters."
    assert message("bad-request", "fr", reason) == reason
    assert message("bad-request", "fr") == "Requête invalide."
    assert message("bad-request", "it", reason, field="name") == (
        "Richiesta non valida: controlla il campo name.")
    assert message("no-such-code", "es", reason) == reason


def test_status_of_codes() -> None:
    assert [status_of(code) for code in ("bad-request", "bad-username", "bad-password",
                                         "table-name-taken", "bad-rules", "internal-error")] == [
        400, 400, 400, 409, 422, 500]
