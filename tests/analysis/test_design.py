"""Issue 13, ``design``: pay-table searches — the vectorised scores against the exact engine and
a brute-force search, the reference table's place, and the cut-card (shoe-average) rows."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest

from puntobanco.analysis import analyse
from puntobanco.analysis.design import (
    banco_rows,
    egalite_rows,
    lion_rows,
    mixed_rows,
    monotone_tables,
    proposed_rules,
    search_banco,
    search_egalite,
    search_lion,
    with_other_side,
    with_side_edges,
)
from puntobanco.analysis.risk import bet_key
from puntobanco.cards import full_composition
from puntobanco.rules import LION_PAYTABLE, BancoPayout, RuleSet
from puntobanco.sim.shoestates import (
    ShoeStates,
    banco_rows_of_states,
    lion_rows_by_depth,
    lion_rows_of_states,
)

LION_PUNTO, LION_BANCO = str(bet_key("lion-punto")), str(bet_key("lion-banco"))

SIX = full_composition(6)


def test_issue13_monotone_tables_are_all_and_only_the_non_increasing_ones() -> None:
    tables = monotone_tables(5)
    assert len(tables) == math.comb(5 + 5, 6)
    assert (np.diff(tables.astype(int), axis=1) <= 0).all()
    assert len({tuple(row) for row in tables.tolist()}) == len(tables)


def test_issue13_lion_candidates_are_the_core_pay_tables() -> None:
    """L5: each shown integer table's exact edge is the PAR sheet's for that pay table."""
    rows = lion_rows(SIX, RuleSet(), side="punto")
    result = search_lion(rows, target=(0.05, 0.05), max_pay=30, top=5)
    assert result.candidates == math.comb(30 + 5, 6) and len(result.best) == 5
    for candidate in result.best:
        table = tuple(int(candidate.pays[f"win-by-{m}"]) for m in range(9, 3, -1))
        sheet = analyse(SIX, RuleSet(lion_paytable=table))
        assert candidate.house_edge_exact == -sheet.bets[LION_PUNTO].ev
        assert candidate.std_dev == pytest.approx(sheet.bets[LION_PUNTO].std_dev, rel=1e-12)
    distances = [c.distance for c in result.best]
    assert distances == sorted(distances)


def test_issue13_lion_search_equals_brute_force_and_places_spec() -> None:
    """A small grid searched with Fractions one table at a time gives the same best table and
    the same place for SPEC's 20,8,4,4,2,1 (natural-tie push or lose, natural win 1 or 2)."""
    rows = lion_rows(full_composition(1), RuleSet(), side="banco")
    target = (0.15, 0.15)
    result = search_lion(rows, target=target, max_pay=20, min_pay=Fraction(1), step=Fraction(1),
                         natural_win=(Fraction(1), Fraction(2)),
                         natural_tie=(Fraction(-1), Fraction(0)), top=3)
    counts = dict(zip(rows.names, rows.counts, strict=True))
    margins = [counts[f"win-by-{m}"] for m in range(9, 3, -1)]

    def edge(nw: int, nt: int, table: tuple[int, ...]) -> Fraction:
        total = (nw * counts["natural-win"] + nt * counts["natural-tie"]
                 + sum(p * c for p, c in zip(table, margins, strict=True)) - counts["lose"])
        return -Fraction(total, rows.total)

    # every non-increasing table of pays 20 … 1, generated independently of the search
    tables = list(itertools.combinations_with_replacement(range(20, 0, -1), 6))
    margin_sums = {t: sum(p * c for p, c in zip(t, margins, strict=True)) for t in tables}
    base = {(nw, nt): nw * counts["natural-win"] + nt * counts["natural-tie"] - counts["lose"]
            for nw in (1, 2) for nt in (-1, 0)}
    scored = [(abs(-(base[nw, nt] + margin_sums[t]) / rows.total - 0.15), nw, nt, t)
              for t in tables for nw in (1, 2) for nt in (-1, 0)]
    assert len(scored) == result.candidates
    best = min(scored)
    assert result.best[0].distance == pytest.approx(best[0], abs=1e-12)
    assert result.best[0].house_edge_exact == edge(best[1], best[2], best[3])
    spec_distance = abs(float(edge(1, 0, LION_PAYTABLE)) - 0.15)
    assert result.spec_place == 1 + sum(1 for s in scored if s[0] < spec_distance - 1e-12)


def test_issue13_spec_table_ranks_first_at_its_own_edge() -> None:
    rows = lion_rows(SIX, RuleSet(), side="punto")
    own = float(-analyse(SIX).bets[LION_PUNTO].ev)
    result = search_lion(rows, target=(own, own), max_pay=20, top=1)
    assert result.spec_place == 1 and result.spec is not None
    assert result.best[0].pays == result.spec.pays
    both = with_other_side(result, lion_rows(SIX, RuleSet(), side="banco"))
    assert both.spec is not None  # the same table on Banco: SPEC's 16.7751 %
    assert both.spec.other_side_edge == float(-analyse(SIX).bets[LION_BANCO].ev)


def test_issue13_constraints_hold_in_every_shown_table() -> None:
    """Hit frequency ≥, maximum pay ≤, monotone in the margin, half-unit pays."""
    rows = lion_rows(SIX, RuleSet(), side="banco")
    result = search_lion(rows, target=(0.12, 0.14), max_pay=12, step=Fraction(1, 2),
                         lose_margins=True, min_hit=0.26, top=10)
    assert result.passed < result.candidates
    for candidate in result.best:
        pays = [candidate.pays[f"win-by-{m}"] for m in range(9, 3, -1)]
        assert candidate.hit_frequency >= 0.26
        assert max(pays) <= 12 and pays == sorted(pays, reverse=True)
        assert all((2 * p).denominator == 1 for p in pays)
        assert candidate.distance == 0.0  # inside the range
    sds = [c.std_dev for c in result.best]
    assert sds == sorted(sds)  # equally close: lower volatility first


def test_issue13_banco_and_egalite_searches_reproduce_the_par_sheets() -> None:
    """B2: 5 % commission and the half pay on a 6; B3: 8:1 and 9:1."""
    rows = banco_rows(SIX, RuleSet())
    result = search_banco(rows, target=(0.0, 0.02), commissions=[Fraction(5, 100)], top=20)
    by_name = {c.name: c for c in result.best}
    commission = analyse(SIX, RuleSet(banco_payout=BancoPayout.COMMISSION)).bets["banco"]
    assert by_name["commission 5.0000%"].house_edge_exact == -commission.ev
    assert by_name["win with 6 pays 1:2"].house_edge_exact == -analyse(SIX).bets["banco"].ev
    assert result.spec is not None and result.spec.name == "win with 6 pays 1:2"
    tie = search_egalite(egalite_rows(rows), target=(0.0, 0.2), pays=[Fraction(8), Fraction(9)])
    edges = {c.name: c.house_edge_exact for c in tie.best}
    assert edges["8:1"] == -analyse(SIX).bets["egalite"].ev
    assert edges["9:1"] == -analyse(SIX, RuleSet(tie_pays=9)).bets["egalite"].ev


def test_issue13_the_tables_own_pays_are_the_reference() -> None:
    """A table paying Égalité 9:1 or Banco less 4 % is placed among the candidates (added to the
    grid when missing) and named "ref.", not "SPEC"."""
    rows = banco_rows(SIX, RuleSet())
    tie = search_egalite(egalite_rows(rows), target=(0.05, 0.05), pays=[Fraction(7)],
                         reference=Fraction(9))
    assert tie.reference_name == "ref." and tie.candidates == 2 and tie.spec_place == 1
    rate = Fraction(4, 100)
    banco = search_banco(rows, target=(0.0, 0.0), commissions=[Fraction(5, 100)],
                         half_totals=(), reference_commission=rate)
    commission = analyse(SIX, RuleSet(banco_payout=BancoPayout.COMMISSION, commission=rate))
    assert banco.spec is not None and banco.spec.name == "commission 4.0000%"
    assert banco.spec.house_edge_exact == -commission.bets["banco"].ev
    spec = search_banco(rows, target=(0.0, 0.0), commissions=[Fraction(5, 100)], half_totals=())
    assert spec.reference_name == "SPEC" and spec.spec is not None  # the 6 at 1:2 is added


def test_issue13_shoe_average_rows_are_exact_per_state() -> None:
    """The rows read from EVs are the exact probabilities of each state's cards."""
    states = ShoeStates(compositions=np.array([full_composition(8)] * 2, dtype=np.int64),
                        offsets=np.array([0, 1, 2]))
    lion = lion_rows_of_states(states, RuleSet(), side="punto")
    exact = lion_rows(full_composition(8), RuleSet(), side="punto").probabilities
    assert np.abs(np.array(lion.counts) - exact).max() < 1e-14
    banco = banco_rows_of_states(states, RuleSet())
    full = banco_rows(full_composition(8), RuleSet()).probabilities
    assert banco.names == banco_rows(full_composition(8), RuleSet()).names  # every total
    assert np.abs(np.array(banco.counts) - full).max() < 1e-14


def test_issue13_cut_card_rows_are_near_the_off_the_top_rows() -> None:
    """S3: averaged over simulated shoes, each row within 5 standard errors of the full shoe."""
    rows = lion_rows_by_depth(RuleSet(decks=2, cut_card=14), side="banco", shoes=60, seed=3)
    exact = lion_rows(full_composition(2), RuleSet(), side="banco").probabilities
    assert rows.errors is not None
    assert sum(rows.counts) == pytest.approx(1.0, abs=1e-12)
    for value, error, reference in zip(rows.counts, rows.errors, exact, strict=True):
        assert abs(value - reference) < 5 * error + 1e-9
    result = search_lion(rows, target=(0.1, 0.1), max_pay=20, top=1)
    assert result.spec is not None and result.spec.house_edge_std_error is not None
    spec_edge = -analyse(full_composition(2)).bets[LION_BANCO].ev
    assert abs(result.spec.house_edge - float(spec_edge)) < 5 * result.spec.house_edge_std_error


def test_issue13_both_sides_in_the_target() -> None:
    """One pay table serves both sides (L1): with both sides' rows, the distance is the larger
    of the two, and every shown table inside a wide enough range has both edges in it."""
    punto = lion_rows(SIX, RuleSet(), side="punto")
    banco = lion_rows(SIX, RuleSet(), side="banco")
    result = search_lion(punto, target=(0.10, 0.14), max_pay=20, top=5, both_sides=banco)
    assert len(result.best) == 5
    for candidate in result.best:
        table = tuple(int(candidate.pays[f"win-by-{m}"]) for m in range(9, 3, -1))
        sheet = analyse(SIX, RuleSet(lion_paytable=table))
        assert candidate.other_side_edge == pytest.approx(sheet.bets[LION_BANCO].house_edge)
        assert 0.10 <= candidate.house_edge <= 0.14 and 0.10 <= candidate.other_side_edge <= 0.14
    narrow = search_lion(punto, target=(0.12, 0.12), max_pay=20, top=3, both_sides=banco)
    for candidate in narrow.best:  # no table gives both sides 12 %: the worse side decides
        assert candidate.other_side_edge is not None
        assert candidate.distance == pytest.approx(max(abs(candidate.house_edge - 0.12),
                                                       abs(candidate.other_side_edge - 0.12)))


# --- issue 20: unreachable targets, constraints that cannot bind, an objective over both sides


def test_issue20_an_unreachable_target_is_said_with_its_shortfall() -> None:
    """Banco at 30 %: no candidate comes near; the shortfall is the least distance over every
    candidate, each priced independently by the exact engine on the rule set it proposes."""
    rows = banco_rows(SIX, RuleSet())
    result = search_banco(rows, target=(0.30, 0.30), commissions=[Fraction(1, 20)],
                          half_totals=range(1, 10), half_pays=[Fraction(1, 2), Fraction(0)],
                          top=50, base=RuleSet())
    edges = [float(-analyse(SIX, proposed_rules(c, RuleSet())).bets["banco"].ev)
             for c in result.best]
    assert not result.reached
    assert result.shortfall == pytest.approx(min(abs(0.30 - e) for e in edges))
    assert any("misses it by" in sentence for sentence in result.findings)
    assert result.to_dict()["target_reached"] is False
    inside = search_banco(rows, target=(0.0, 0.05), commissions=[Fraction(1, 20)], top=3)
    assert inside.reached and not inside.findings


def test_issue20_a_minimum_hit_frequency_that_cannot_bind_is_named() -> None:
    """Every Lion table with pays ≥ 1 pays on the same rows, so its hit frequency is the same:
    P(natural win) + P(win by 4+ with a draw); a minimum below it cannot bind, one above it
    leaves no table."""
    rows = lion_rows(SIX, RuleSet(), side="punto")
    p = rows.probabilities
    constant = float(p[0] + p[2:8].sum())
    low = search_lion(rows, target=(0.10, 0.10), max_pay=8, min_hit=0.2, top=2)
    assert low.hit_range == pytest.approx((constant, constant))
    assert any("cannot bind" in sentence for sentence in low.findings)
    high = search_lion(rows, target=(0.10, 0.10), max_pay=8, min_hit=0.5, top=2)
    assert high.passed == 0 and high.shortfall is None
    assert any("No candidate meets the minimum hit" in s for s in high.findings)
    egalite = search_egalite(egalite_rows(banco_rows(SIX, RuleSet())), target=(0.1, 0.1),
                             pays=[Fraction(8)], min_hit=0.2)
    assert egalite.passed == 0  # Égalité hits 9.5 %: --min-hit is honoured for every bet


def test_issue20_the_weighted_objective_is_the_handle_weighted_edge() -> None:
    """``--side mix``: the edge ranked is share · edge(Punto) + (1 − share) · edge(Banco), each
    side priced independently by the exact engine on the proposed rule set."""
    punto = lion_rows(SIX, RuleSet(), side="punto")
    banco = lion_rows(SIX, RuleSet(), side="banco")
    share = Fraction(3, 4)
    result = with_side_edges(search_lion(mixed_rows(punto, banco, share), target=(0.12, 0.13),
                                         max_pay=12, top=3, base=RuleSet()), punto, banco)
    for candidate in result.best:
        sheet = analyse(SIX, proposed_rules(candidate, RuleSet()))
        edge_p, edge_b = -sheet.bets[LION_PUNTO].ev, -sheet.bets[LION_BANCO].ev
        assert candidate.house_edge_exact == share * edge_p + (1 - share) * edge_b
        assert candidate.side_edges == (float(edge_p), float(edge_b))
        assert 0.12 <= candidate.house_edge <= 0.13


def test_issue20_the_default_objective_covers_both_sides(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    """``design`` with no --side ranks by the worse side: both sides' edges are shown and the
    summary says the 10 % point target is missed by the worse side's distance."""
    from .test_cli import run_main

    code, out, err = run_main(monkeypatch, capsys, "design", "--max-pay", "12", "--top", "3",
                              "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["objective"].startswith("the worse side")
    for candidate in data["best"]:
        worse = max(abs(candidate["punto_house_edge"] - 0.10),
                    abs(candidate["banco_house_edge"] - 0.10))
        assert candidate["distance"] == pytest.approx(worse)
    assert data["target_reached"] is False and data["findings"]
    code, _, err = run_main(monkeypatch, capsys, "design", "--punto-share", "0.7")
    assert code == 2 and "--side mix" in err
    code, _, err = run_main(monkeypatch, capsys, "design", "--bet", "banco", "--side", "punto")
    assert code == 2 and "--side applies only to --bet lion" in err
