"""Issue 9: every RuleSet value has a sane range, checked by the RuleSet itself (one place), so
that no table setting can make a settlement fail ("a transfer moves a positive amount") or
overflow a database integer."""

from __future__ import annotations

from fractions import Fraction

import pytest

from puntobanco.errors import RuleSetError
from puntobanco.rules import (
    MAX_CHIP_UNIT,
    MAX_COMMISSION,
    MAX_PAY,
    MAX_STAKE,
    Limits,
    RuleSet,
)


@pytest.mark.parametrize("changes", [
    {"lion_natural_pays": -5}, {"lion_natural_pays": MAX_PAY + 1},
    {"lion_paytable": (10**17, 8, 4, 4, 2, 1)}, {"lion_paytable": (20, 8, 4, 4, 2, -2)},
    {"lion_paytable": (20, 8, 4, 4, 2)}, {"commission": Fraction(-1, 20)},
    {"commission": MAX_COMMISSION + Fraction(1, 100)}, {"commission": Fraction(1, 10**100000)},
    {"chip_unit": MAX_CHIP_UNIT + 2}, {"chip_unit": 0},
    {"punto_limits": Limits(1000, MAX_STAKE + 1)}, {"lion_limits": Limits(1000, 10**18)},
    {"decks": 9}, {"cut_card": 11}, {"tie_pays": MAX_PAY + 1},
    {"tie_pays": Fraction(1, 2)}, {"lion_natural_tie_pays": Fraction(-1, 2)},
    {"banco_reduced_pays": ((0, Fraction(1, 2)),)}, {"banco_reduced_pays": ((6, -1),)},
])
def test_issue9_every_value_out_of_range_is_refused(changes: dict[str, object]) -> None:
    with pytest.raises(RuleSetError) as refused:
        RuleSet(**changes)  # type: ignore[arg-type]
    assert refused.value.code == "bad-rules" and len(refused.value.message) < 200


def test_issue9_the_bounds_themselves_are_allowed() -> None:
    rules = RuleSet(lion_natural_pays=MAX_PAY, lion_paytable=(MAX_PAY, 0, 0, 0, 0, 0),
                    commission=MAX_COMMISSION, chip_unit=MAX_CHIP_UNIT,
                    punto_limits=Limits(MAX_CHIP_UNIT, MAX_STAKE))
    assert MAX_STAKE * MAX_PAY < 2**53  # the largest net fits any integer column and a float
    assert rules.lion_natural_pays == MAX_PAY
