"""Effects of removal: exact, consistent with the float path, and a martingale."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from puntobanco.analysis import BET_NAMES, analyse, effects_of_removal, expected_values
from puntobanco.cards import full_composition
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import DRAGON_PAYTABLE, RuleSet


@pytest.mark.parametrize("composition", [full_composition(8), (30, 9, 2, 7, 11, 0, 5, 8, 3, 6)])
def test_eor_weighted_by_the_shoe_sums_to_zero(composition: tuple[int, ...]) -> None:
    """Removing a card at random and dealing the next coup is dealing the next coup: so
    ``Σ_v n_v · EoR_v = 0`` exactly, for every bet (a value with no card left contributes 0)."""
    effects = effects_of_removal(composition)
    for name in BET_NAMES:
        assert sum(n * e for n, e in zip(composition, effects[name], strict=True)) == 0, name


def test_eor_is_the_exact_difference_of_evs() -> None:
    composition = full_composition(6)
    effects = effects_of_removal(composition, RuleSet(lion_paytable=DRAGON_PAYTABLE))
    removed = list(composition)
    removed[4] -= 1
    before = analyse(composition, RuleSet(lion_paytable=DRAGON_PAYTABLE))
    after = analyse(removed, RuleSet(lion_paytable=DRAGON_PAYTABLE))
    for name in BET_NAMES:
        assert isinstance(effects[name][4], Fraction)
        assert effects[name][4] == after.bets[name].ev - before.bets[name].ev


def test_eor_agrees_with_the_float_path() -> None:
    composition = np.array(full_composition(8))
    effects = effects_of_removal(composition.tolist())
    rows = np.vstack([composition] + [composition - np.eye(10, dtype=np.int64)[v]
                                      for v in range(10)])
    evs = expected_values(rows)
    for k, name in enumerate(BET_NAMES):
        np.testing.assert_allclose([float(e) for e in effects[name]], evs[1:, k] - evs[0, k],
                                   rtol=0, atol=1e-12)


def test_eor_known_signs_eight_decks() -> None:
    """Small cards help Banco and big ones Punto (the well-known baccarat pattern); the 4 is
    Punto's worst card to lose."""
    effects = effects_of_removal(full_composition(8))
    punto = [float(e) for e in effects["punto"]]
    assert all(e < 0 for e in punto[:5]) and all(e > 0 for e in punto[5:])
    assert min(punto) == punto[4]


def test_eor_refuses_a_shoe_of_six_cards() -> None:
    with pytest.raises(PuntoBancoError, match="at least 7 cards"):
        effects_of_removal((1, 1, 1, 1, 1, 1, 0, 0, 0, 0))


def test_eor_missing_value_gives_zero() -> None:
    effects = effects_of_removal((0, 0, 0, 0, 0, 0, 0, 0, 3, 4))
    assert all(effects[name][v] == 0 for name in BET_NAMES for v in range(8))
