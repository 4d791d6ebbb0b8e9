"""Issue 20: a table ``design`` proposed, dealt live — the player's felt states its pays (a Banco
5 at 3:4 beside the 6 at 1:2, Égalité 17:2, the Lion Bonus's 3:2 natural), in Chromium on the
fake server of ``test_felt_layout`` with the designed rules in its snapshot."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from puntobanco.rules import RuleSet
from puntobanco.server.settings import table_rules_to_json

from . import test_felt_layout as felt

pytestmark = pytest.mark.e2e

DESIGNED = RuleSet(lion_paytable=(Fraction(23, 2), 8, Fraction(9, 2), 4, 2, -1),
                   lion_natural_pays=Fraction(3, 2), lion_natural_tie_pays=-1,
                   banco_reduced_pays=((5, Fraction(3, 4)), (6, Fraction(1, 2))),
                   tie_pays=Fraction(17, 2))


def test_issue20_the_felt_states_a_designed_tables_pays(browser: Any,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    plain = felt._snapshot

    def designed() -> dict[str, Any]:
        return {**plain(), "rules": table_rules_to_json(DESIGNED, betting_seconds=15)}

    monkeypatch.setattr(felt, "_snapshot", designed)
    context = browser.new_context(viewport=felt.DESKTOP, locale="en-GB")
    context.add_init_script("localStorage.setItem('pb.token', 'fake-token')")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route(f"{felt.ORIGIN}/**", lambda route: felt._serve(route, "en"))
    page.route_web_socket("**/ws/tables/*", lambda ws: ws.send(json.dumps(
        {"type": "snapshot", "table": designed()})))
    page.goto(f"{felt.ORIGIN}/")
    page.wait_for_selector("[data-box=lion-banco] .box-mine[data-cents='1500']")
    pays = {bet: page.inner_text(f"[data-box={bet}] .box-pays") for bet in felt.BOXES}
    context.close()
    assert errors == []
    assert pays["banco"] == "1:1 · 5 → 3:4 · 6 → 1:2"
    assert pays["egalite"] == "17:2"
    assert pays["lion-punto"] == pays["lion-banco"] == "3:2 … 23:2"


def test_issue20_the_operators_settings_form_keeps_a_designed_pay(browser: Any,
                                                                  tmp_path: Any) -> None:
    """A designed Égalité pay (17:2) survives the operator saving the table's limits: the form's
    Égalité choice holds the table's own pay and sends it back exactly (it once offered 8 and 9
    only, and saving would have set 8:1)."""
    from puntobanco.rules_json import PAYOUT_KEYS, rules_to_json
    from server.support import fast_settings, running, wait_until

    url = f"sqlite:///{tmp_path / 'designed.sqlite3'}"
    with running(fast_settings(url, betting_seconds=60)) as live:
        boss = live.operator()
        table_id = live.http.get("/api/tables").json()[0]["id"]
        pays = rules_to_json(DESIGNED, only=PAYOUT_KEYS)
        answer = live.http.patch(f"/api/tables/{table_id}", json={"rules": pays},
                                 headers=boss.headers)
        assert answer.status_code == 200, answer.text
        context = browser.new_context(viewport=felt.DESKTOP, locale="en-GB")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{live.url}/operator")
        page.fill("input[name=username]", "operator")
        page.fill("input[name=password]", "operator-secret")
        page.click("#login-form button[type=submit]")
        card = page.locator(f"article[data-table='{table_id}']")
        card.locator("summary").click()
        assert card.locator("select[name=tie_pays]").input_value() == "8.5"
        card.locator("input[name=punto-min]").fill("20")
        card.locator(".rules-form button[type=submit]").click()

        def saved() -> bool:
            rules = live.http.get("/api/tables").json()[0]["next_rules"]
            return bool(rules["limits"]["punto"][0] == 2000)

        wait_until(saved)
        after = live.http.get("/api/tables").json()[0]["next_rules"]
        context.close()
    assert errors == []
    assert {key: after[key] for key in PAYOUT_KEYS} == pays
