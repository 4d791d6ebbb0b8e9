"""Issue 17, "every message typed, and handled by its clients": the catalogue of
``live/messages.py`` lists every message the server sends a socket, and each page that opens
one handles every type or says it ignores it; the relay between processes is one
discriminated union, and an item of no known kind is left, not guessed at."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from puntobanco.server.live import messages as msg

JS = Path(msg.__file__).parents[1] / "static" / "js"


def _handled_by_player_page() -> tuple[set[str], set[str]]:
    """The types ``main.js`` handles (its ``handlers`` object, and the ones assigned to it
    after) and the ones it says it ignores."""
    text = (JS / "main.js").read_text()
    blocks = re.findall(r"const handlers = \{\n(.*?)\n\};", text, re.S)
    blocks += re.findall(r"Object\.assign\(handlers, \{\n(.*?)\n\}\);", text, re.S)
    handled = {first or second for block in blocks
               for first, second in re.findall(r'^  (?:"([a-z-]+)"|([a-z]+)):', block, re.M)}
    ignored = re.search(r"const IGNORED_MESSAGES = \[(.*?)\];", text)
    assert ignored is not None
    return handled, set(re.findall(r'"([a-z-]+)"', ignored.group(1)))


def test_issue17_the_player_page_handles_or_ignores_every_message() -> None:
    handled, ignored = _handled_by_player_page()
    assert not handled & ignored
    assert handled | ignored == set(msg.MESSAGES), (
        f"unhandled: {sorted(set(msg.MESSAGES) - handled - ignored)}, "
        f"not in the catalogue: {sorted((handled | ignored) - set(msg.MESSAGES))}")


def test_issue17_the_dealer_page_redraws_on_every_message_and_the_console_opens_no_socket(
        ) -> None:
    dealer = (JS / "dealer.js").read_text()
    assert "new TableSocket(id, getToken(), { onMessage: refreshSoon })" in dealer
    assert "message.type" not in dealer  # no type is singled out, none is dropped
    for console in JS.glob("op*.js"):  # the console's live view asks the API (polling)
        assert "TableSocket" not in console.read_text() and "WebSocket" not in \
            console.read_text(), console.name


def test_issue17_the_hand_dealt_messages_are_in_the_catalogue() -> None:
    assert {"card-corrected", "round-voided", "shoe-event", "balance"} <= set(msg.MESSAGES)
    for name, model in msg.MESSAGES.items():
        assert model.model_fields["type"].default == name


@pytest.mark.parametrize("item", [
    {"k": "p", "t": 1, "p": 7, "m": '{"type":"my-bets"}'},  # the former one-letter keys
    {"kind": "table-event", "table": 1},  # a known kind without its fields
    {"kind": "gossip", "table": 1}])
def test_issue17_a_relayed_item_of_no_known_kind_is_refused(item: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        msg.RELAYED.validate_python(item)


def test_issue17_a_relayed_bet_carries_its_bets_typed() -> None:
    bets = msg.MyBets(coup_id=3, my_bets={"banco": 1000}, balance=99_000)
    item = msg.PlayerMessage(table=1, player=7, text=msg.encode(bets), bets=bets)
    parsed = msg.RELAYED.validate_json(item.model_dump_json())
    assert isinstance(parsed, msg.PlayerMessage) and parsed.bets == bets
