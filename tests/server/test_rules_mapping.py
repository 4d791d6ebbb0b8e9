"""Issue 12: one RuleSet <-> JSON mapping in the core, used by the server and the PAR report."""

from __future__ import annotations

from fractions import Fraction

from puntobanco.analysis.report import rules_to_dict
from puntobanco.rules import BancoPayout, Drawing, LastCoup, Limits, RuleSet
from puntobanco.rules_json import PAYOUT_KEYS, rules_from_json, rules_to_json
from puntobanco.server.settings import table_rules_to_json

RULES = RuleSet(decks=8, tie_pays=9, banco_payout=BancoPayout.COMMISSION,
                commission=Fraction(1, 25), lion_paytable=(30, 10, 6, 4, 2, 1),
                lion_natural_pays=2, chip_unit=200, cut_card=20, drawing=Drawing.STANDARD,
                punto_limits=Limits(2000, 100_000), lion_limits=Limits(1000, 10_000),
                allow_punto_and_banco=False, burn=False, last_coup=LastCoup.NONE)


def test_issue12_core_mapping_round_trips_without_server_values() -> None:
    data = rules_to_json(RULES)
    assert "betting_seconds" not in data and rules_from_json(data) == RULES
    assert data["limits"]["lion-punto"] == data["limits"]["lion-banco"] == [1000, 10_000]


def test_issue12_server_and_par_report_spell_the_rules_alike() -> None:
    table = table_rules_to_json(RULES, betting_seconds=15)
    par = rules_to_dict(RULES)
    assert tuple(par) == PAYOUT_KEYS and par == {key: table[key] for key in PAYOUT_KEYS}
    assert par["banco_payout"] == "commission" and "banco" not in par
