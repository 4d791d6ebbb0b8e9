"""Issue 20: a table ``puntobanco design`` proposes is set on a live table — the operator posts
its ``rules`` JSON, the server (SQLite and PostgreSQL) stores and serves it exactly, and its
OpenAPI schema carries the pays as whole numbers or exact text."""

from __future__ import annotations

from fractions import Fraction

from puntobanco.rules import RuleSet
from puntobanco.rules_json import PAYOUT_KEYS, rules_to_json

from .support import LiveServer


def _designed() -> dict[str, object]:
    """A designed table in every form design proposes: half pays and a losing margin, a 3:2
    natural win, a lost natural tie, a Banco 5 at 3:4 beside the 6 at 1:2, Égalité at 17:2."""
    rules = RuleSet(lion_paytable=(Fraction(23, 2), 8, Fraction(9, 2), 4, 2, -1),
                    lion_natural_pays=Fraction(3, 2), lion_natural_tie_pays=-1,
                    banco_reduced_pays=((5, Fraction(3, 4)), (6, Fraction(1, 2))),
                    tie_pays=Fraction(17, 2))
    return rules_to_json(rules, only=PAYOUT_KEYS)


def test_issue20_a_designed_table_is_set_on_a_live_table(server: LiveServer) -> None:
    http = server.http
    boss = server.operator()
    pays = _designed()
    assert pays["lion_paytable"] == ["11.5", 8, "4.5", 4, 2, -1]
    created = http.post("/api/tables", json={"name": "Designed", "rules": pays},
                        headers=boss.headers)
    assert created.status_code == 201, created.text
    table = created.json()
    assert {key: table["rules"][key] for key in PAYOUT_KEYS} == pays
    served = http.get(f"/api/tables/{table['id']}").json()
    assert {key: served["rules"][key] for key in PAYOUT_KEYS} == pays
    changed = http.patch(f"/api/tables/{table['id']}",
                         json={"rules": {"lion_natural_tie_pays": 0, "tie_pays": 8}},
                         headers=boss.headers)
    assert changed.status_code == 200, changed.text
    assert changed.json()["next_rules"]["lion_natural_tie_pays"] == 0
    assert changed.json()["next_rules"]["lion_paytable"] == pays["lion_paytable"]
    refused = http.patch(f"/api/tables/{table['id']}", json={"rules": {"tie_pays": "25/3"}},
                         headers=boss.headers)
    assert 400 <= refused.status_code < 500
    assert refused.json()["error"]["code"] == "bad-rules"
