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


# --- issue 9: no setting can stop a table, no decimal can freeze the server ----------------


@pytest.mark.parametrize("data", [
    {"lion_natural_pays": -5}, {"lion_natural_pays": 1001},
    {"lion_paytable": [10**17, 8, 4, 4, 2, 1]}, {"lion_paytable": [20, 8, 4, 4, 2, -2]},
    {"limits": {"punto": [1000, 10**17]}}, {"chip_unit": 10**12}, {"commission": "0.26"},
    {"commission": "1e-999999999"}, {"commission": "1e-100000"}, {"commission": "0." + "1" * 200},
    {"commission": " 0.05"}, {"commission": "0.05\n"}, {"commission": "5e-2"},
    {"commission": "1/99999"}, {"commission": 1e-300},
])
def test_issue9_out_of_range_or_exotic_settings_are_refused(data: dict[str, object]) -> None:
    with pytest.raises(RuleSetError) as refused:
        table_rules_from_json(data)
    assert refused.value.code == "bad-rules" and len(refused.value.message) < 200


def test_issue9_a_huge_exponent_is_refused_at_once() -> None:
    """"1e-999999999" used to keep a core busy for minutes (Decimal → Fraction)."""
    import time

    started = time.process_time()
    for _ in range(1000):
        with pytest.raises(RuleSetError):
            table_rules_from_json({"commission": "1e-999999999"})
    assert time.process_time() - started < 1.0


@pytest.mark.parametrize("commission", [Fraction(0), Fraction(1, 20), Fraction(1, 8192),
                                        Fraction(1, 7), Fraction(1, 4)])
def test_issue9_every_allowed_commission_round_trips(commission: Fraction) -> None:
    rules = RuleSet(banco_payout=BancoPayout.COMMISSION, commission=commission)
    assert table_rules_from_json(table_rules_to_json(rules, betting_seconds=15))[0] == rules
