"""``expected_values``: the float64 path agrees with the exact engine to 1e-12 (R1, B1–B3, L5)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from puntobanco.analysis import BET_NAMES, analyse, expected_values
from puntobanco.analysis.fast import SMALL_BATCH
from puntobanco.cards import full_composition
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import DRAGON_PAYTABLE, BancoPayout, Drawing, RuleSet

from .support import depleted_shoes

RULE_SETS = {
    "standard": RuleSet(),
    "seed-literal": RuleSet(drawing=Drawing.SEED_LITERAL),
    "commission": RuleSet(banco_payout=BancoPayout.COMMISSION, commission=Fraction(1, 20)),
    "tie-9-dragon": RuleSet(tie_pays=9, lion_paytable=DRAGON_PAYTABLE),
}


def exact_evs(composition: np.ndarray, rules: RuleSet) -> np.ndarray:
    sheet = analyse(composition.tolist(), rules)
    return np.array([float(sheet.bets[name].ev) for name in BET_NAMES])


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_R1_batch_agrees_with_exact_engine(name: str) -> None:
    """R1: 200 random depleted shoes (6 to 416 cards) in one batch, every bet, within 1e-12."""
    rules = RULE_SETS[name]
    shoes = depleted_shoes(200, seed=99)
    fast = expected_values(shoes, rules)
    assert fast.shape == (200, 5) and fast.dtype == np.float64
    for i in range(0, 200, 13):
        np.testing.assert_allclose(fast[i], exact_evs(shoes[i], rules), rtol=0, atol=1e-12)


def test_R1_single_row_and_small_batches_use_the_same_numbers() -> None:
    """A (10,) row gives (1, 5); the scalar path for small batches equals the 64-lane path."""
    shoes = depleted_shoes(3 * SMALL_BATCH, seed=5, decks=6)
    big = expected_values(shoes)
    small = np.vstack([expected_values(shoes[i:i + SMALL_BATCH - 1])
                       for i in range(0, len(shoes), SMALL_BATCH - 1)])
    single = expected_values(shoes[4])
    assert single.shape == (1, 5)
    np.testing.assert_allclose(small, big, rtol=0, atol=1e-14)
    np.testing.assert_allclose(single[0], big[4], rtol=0, atol=1e-14)
    np.testing.assert_array_equal(expected_values(shoes, parallel=False), big)


def test_R1_full_shoes_and_odd_batch_sizes() -> None:
    """Batches that do not fill the last 64-lane block still give every row."""
    for decks in (1, 6, 8):
        rows = np.array([full_composition(decks)] * 67)
        out = expected_values(rows)
        expected = exact_evs(rows[0], RuleSet())
        np.testing.assert_allclose(out, np.tile(expected, (67, 1)), rtol=0, atol=1e-12)


def test_fewer_than_six_cards_give_nan_not_a_crash() -> None:
    """A row that cannot deal a coup is NaN; its neighbours are unaffected."""
    rows = np.array([full_composition(1), [0, 0, 0, 0, 0, 0, 0, 0, 0, 5], [0] * 10,
                     full_composition(2)] * 20)
    out = expected_values(rows)
    assert np.isnan(out[1::4]).all() and np.isnan(out[2::4]).all()
    assert np.isfinite(out[0::4]).all() and np.isfinite(out[3::4]).all()
    assert np.isnan(expected_values([1, 1, 1, 1, 1, 0, 0, 0, 0, 0])).all()


def test_exactly_six_cards() -> None:
    """Six cards: every coup uses at most all of them; agrees with the exact engine."""
    shoe = np.array([2, 0, 1, 0, 0, 1, 0, 1, 0, 1])
    np.testing.assert_allclose(expected_values(shoe)[0], exact_evs(shoe, RuleSet()), atol=1e-12)


@pytest.mark.parametrize("bad", [
    np.zeros((3, 9), dtype=np.int64),
    np.array([[-1] + [24] * 9]),
    np.full(10, 2.5),
    [["a"] * 10],
])
def test_bad_compositions_raise_one_sentence(bad: object) -> None:
    with pytest.raises(PuntoBancoError) as info:
        expected_values(bad)  # type: ignore[arg-type]
    assert str(info.value).endswith(".") and "\n" not in str(info.value)


def test_whole_floats_and_other_int_dtypes_are_accepted() -> None:
    shoe = np.array(full_composition(4))
    reference = expected_values(shoe)
    for converted in (shoe.astype(np.float64), shoe.astype(np.int16), shoe.astype(np.uint32)):
        np.testing.assert_array_equal(expected_values(converted), reference)
    assert expected_values(np.zeros((0, 10), dtype=np.int64)).shape == (0, 5)


def test_concurrent_callers_get_the_same_numbers() -> None:
    """Several threads at once (a server, Dask threads): each gets its own rows right."""
    from concurrent.futures import ThreadPoolExecutor

    shoes = depleted_shoes(4 * 500, seed=17)
    reference = expected_values(shoes, parallel=False)
    parts = np.split(shoes, 4)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(expected_values, parts))
    np.testing.assert_array_equal(np.vstack(results), reference)
