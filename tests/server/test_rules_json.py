"""A table's settings as JSON: every RuleSet setting round-trips, and a wrong one is refused
with ``bad-rules`` (the ranges themselves are the core's: R1, B3, L3, M1, M2, S3)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from puntobanco.errors import RuleSetError
from puntobanco.rules import BancoPayout, LastCoup, Limits, RuleSet
from puntobanco.server.settings import table_rules_from_json, table_rules_to_json


def test_every_setting_round_trips() -> None:
    rules = RuleSet(decks=8, tie_pays=9, banco_payout=BancoPayout.COMMISSION,
                    commission=Fraction(1, 25), lion_paytable=(30, 10, 6, 4, 2, 1),
                    lion_natural_pays=2, chip_unit=200, cut_card=20,
                    punto_limits=Limits(2000, 100_000), banco_limits=Limits(2000, 200_000),
                    egalite_limits=Limits(1000, 50_000), lion_limits=Limits(1000, 10_000),
                    allow_punto_and_banco=False, burn=False, last_coup=LastCoup.NONE)
    data = table_rules_to_json(rules, betting_seconds=12.5)
    assert data["commission"] == "0.04" and data["betting_seconds"] == 12.5
    assert table_rules_from_json(data) == (rules, 12.5)


def test_a_partial_object_changes_only_what_it_names() -> None:
    base = RuleSet(tie_pays=9)
    rules, seconds = table_rules_from_json({"limits": {"lion-banco": [2000, 4000]}}, base=base,
                                           base_seconds=20)
    assert rules == base.replace(lion_limits=Limits(2000, 4000)) and seconds == 20


@pytest.mark.parametrize("data", [
    {"decks": 0}, {"decks": "6"}, {"tie_pays": 0}, {"cut_card": 301}, {"chip_unit": 0},
    {"lion_paytable": [20, 8]}, {"lion_paytable": "20,8,4,4,2,1"}, {"commission": "1.5"},
    {"commission": "NaN"}, {"commission": "Infinity"}, {"banco_payout": "free"},
    {"last_coup": "two-more"}, {"drawing": "seed-literal"}, {"burn": "yes"},
    {"limits": {"punto": [0, 100]}}, {"limits": {"punto": [100]}}, {"limits": {"dragon": [1, 2]}},
    {"limits": {"lion-punto": [1000, 5000], "lion-banco": [1000, 4000]}}, {"limits": []},
    {"betting_seconds": 0.5}, {"betting_seconds": 601}, {"betting_seconds": True}, {"speed": 1},
])
def test_wrong_settings_are_refused_in_one_sentence(data: dict[str, object]) -> None:
    with pytest.raises(RuleSetError) as refused:
        table_rules_from_json(data)
    assert refused.value.code == "bad-rules"
    assert refused.value.message.endswith(".") and "\n" not in refused.value.message
