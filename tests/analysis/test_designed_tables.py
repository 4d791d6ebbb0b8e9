"""Issue 20: whatever ``design`` proposes, the rule set can express — and par, risk, the simulator,
the live table's settings and the core's settlement all take it.

Each designed table's edge is checked against an independent computation: the brute-force
enumerator's coup kinds (``bruteforce.enumerate_kinds``, plain loops over card values) settled by
:func:`independent_pay` below, written from the SPEC's text and the table's settings alone — it
calls neither ``bets.settle_bet`` nor the analysis tables.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from puntobanco.analysis import analyse
from puntobanco.analysis.design import (
    Candidate,
    banco_rows,
    egalite_rows,
    lion_rows,
    proposed_rules,
    search_banco,
    search_egalite,
    search_lion,
)
from puntobanco.analysis.risk import coup_distribution
from puntobanco.bets import BetKind, Outcome, settle_spot, verify_spot
from puntobanco.cards import full_composition, parse_cards
from puntobanco.coup import deal_coup
from puntobanco.rules import LOSES, BancoPayout, Drawing, RuleSet
from puntobanco.rules_json import PAYOUT_KEYS, rules_from_json, rules_to_json
from puntobanco.server.hold import theory
from puntobanco.server.settings import table_rules_from_json
from puntobanco.sim import tables as sim_tables
from puntobanco.sim.sessions import simulate_sessions

from .bruteforce import Kind, enumerate_kinds
from .test_cli import run_main

SHOE = full_composition(1)  # one deck: the brute force takes about a second
BASE = RuleSet(decks=1, cut_card=14)


def independent_pay(bet: str, kind: Kind, rules: RuleSet) -> Fraction:
    """Net pay per unit of ``bet`` in a coup of ``kind``, from the rules' text (B1–B3, L5)."""
    punto, banco, punto_cards, banco_cards, natural = kind
    drawn = punto_cards + banco_cards > 4
    if bet == "punto":
        return Fraction(0) if punto == banco else Fraction(1 if punto > banco else -1)
    if bet == "banco":
        if punto == banco:
            return Fraction(0)
        if punto > banco:
            return Fraction(-1)
        if rules.banco_payout is BancoPayout.COMMISSION:
            return 1 - rules.commission
        return Fraction(dict(rules.banco_reduced_pays).get(banco, 1))
    if bet == "egalite":
        return Fraction(rules.tie_pays) if punto == banco else Fraction(-1)
    mine, theirs = (punto, banco) if bet == "lion-punto" else (banco, punto)
    if natural:
        if mine > theirs:
            return Fraction(rules.lion_natural_pays)
        return Fraction(rules.lion_natural_tie_pays if mine == theirs else -1)
    margin = mine - theirs
    if drawn and margin >= 4:
        return Fraction(rules.lion_paytable[9 - margin])
    return Fraction(-1)


@functools.cache
def _kinds(composition: tuple[int, ...], drawing: Drawing) -> Counter[Kind]:
    return enumerate_kinds(composition, drawing)


def independent_edges(rules: RuleSet, composition: Sequence[int] = SHOE) -> dict[str, Fraction]:
    kinds = _kinds(tuple(composition), rules.drawing)
    total = sum(kinds.values())
    return {bet: -sum((count * independent_pay(bet, kind, rules) for kind, count in kinds.items()),
                      Fraction(0)) / total
            for bet in ("punto", "banco", "egalite", "lion-punto", "lion-banco")}


def _designed() -> list[tuple[str, Candidate, RuleSet]]:
    """Candidates of every pay form design searches, with the rule sets that deal them."""
    lion = search_lion(lion_rows(SHOE, BASE, side="punto"), target=(0.10, 0.10), max_pay=6,
                       step=Fraction(1, 2), natural_win=(Fraction(1), Fraction(3, 2), Fraction(2)),
                       natural_tie=(Fraction(0), Fraction(-1)), lose_margins=True, top=4,
                       base=BASE)
    forms = [("lion-punto", c) for c in lion.best]
    # a losing natural tie and a 2:1 natural win, whatever the ranking
    forced = search_lion(lion_rows(SHOE, BASE, side="banco"), target=(0.45, 0.45), max_pay=4,
                         natural_win=(Fraction(2),), natural_tie=(Fraction(-1),),
                         lose_margins=True, top=2, base=BASE)
    forms += [("lion-banco", c) for c in forced.best]
    banco = search_banco(banco_rows(SHOE, BASE), target=(0.02, 0.03),
                         commissions=[Fraction(3, 100), Fraction(1, 40)], half_totals=[5, 7, 9],
                         half_pays=[Fraction(1, 2), Fraction(3, 4)], top=8, base=BASE)
    forms += [("banco", c) for c in banco.best]
    egalite = search_egalite(egalite_rows(banco_rows(SHOE, BASE)), target=(0.10, 0.10),
                             pays=[Fraction(17, 2), Fraction(19, 2), Fraction(6)], base=BASE)
    forms += [("egalite", c) for c in egalite.best]
    return [(bet, c, proposed_rules(c, BASE)) for bet, c in forms]


DESIGNED = _designed()


def test_issue20_design_searches_the_pay_forms_the_rule_set_once_refused() -> None:
    """The proposals include half pays, a 3:2 or 2:1 natural win, a losing natural tie, a losing
    margin, a Banco total other than 6 paid 3:4 and a half-unit Égalité pay."""
    lion = [rules for bet, _, rules in DESIGNED if bet.startswith("lion")]
    assert any(r.lion_natural_tie_pays == LOSES for r in lion)
    assert any(r.lion_natural_pays == 2 for r in lion)
    assert any(LOSES in r.lion_paytable for r in lion)
    assert any(any(isinstance(p, Fraction) for p in r.lion_paytable) for r in lion)
    banco = [rules for bet, _, rules in DESIGNED if bet == "banco"]
    assert any(r.banco_reduced_pays and r.banco_reduced_pays[0][0] != 6 for r in banco)
    assert any(r.banco_payout is BancoPayout.COMMISSION for r in banco)
    assert any(isinstance(r.tie_pays, Fraction) for bet, _, r in DESIGNED if bet == "egalite")


@pytest.mark.parametrize(("bet", "candidate", "rules"), DESIGNED,
                         ids=[f"{bet}-{c.rank}" for bet, c, _ in DESIGNED])
def test_issue20_a_designed_table_is_priced_by_par_exactly(bet: str, candidate: Candidate,
                                                           rules: RuleSet) -> None:
    """par (the exact engine) prices the rule set design proposes at the edge design scored,
    and both agree with the independent enumeration."""
    expected = independent_edges(rules)
    sheet = analyse(SHOE, rules)
    assert -sheet.bets[bet].ev == expected[bet] == candidate.house_edge_exact
    for other in ("punto", "lion-punto", "lion-banco", "egalite", "banco"):
        assert -sheet.bets[other].ev == expected[other], other
    # risk's per-coup distribution is the same bet
    assert coup_distribution(SHOE, rules, {bet: Fraction(1)}).mean == expected[bet]
    # and the operator's reports hold the table to the same theoretical edges
    assert dict(theory(rules).edge) == expected


@pytest.mark.parametrize(("bet", "candidate", "rules"), DESIGNED,
                         ids=[f"{bet}-{c.rank}" for bet, c, _ in DESIGNED])
def test_issue20_a_designed_table_is_a_live_tables_settings(bet: str, candidate: Candidate,
                                                            rules: RuleSet) -> None:
    """Its rules JSON round-trips and passes the live table's settings validation (the path
    ``PATCH /api/tables/{id}`` takes), giving the same payout settings."""
    data = rules_to_json(rules)
    assert rules_from_json(data) == rules
    live, _ = table_rules_from_json({**rules_to_json(rules, only=PAYOUT_KEYS),
                                     "betting_seconds": 15}, base=RuleSet(decks=1, cut_card=14))
    assert rules_to_json(live, only=PAYOUT_KEYS) == rules_to_json(rules, only=PAYOUT_KEYS)
    assert str(candidate.rank) and rules_to_json(live)["decks"] == 1


@pytest.mark.parametrize(("bet", "candidate", "rules"), DESIGNED,
                         ids=[f"{bet}-{c.rank}" for bet, c, _ in DESIGNED])
def test_issue20_the_simulators_payoffs_follow_a_designed_table(bet: str, candidate: Candidate,
                                                                rules: RuleSet) -> None:
    """Every outcome code of the compiled kernels pays what the rules' text says."""
    pays = sim_tables.exact_payoffs(rules)
    column = sim_tables.BET_NAMES.index(bet)
    for code in sim_tables.reachable_codes(rules.drawing):
        shape, punto, banco = code // 100, code // 10 % 10, code % 10
        natural = shape == sim_tables.NATURAL
        cards = 6 if shape == sim_tables.DRAWN else 4
        kind: Kind = (punto, banco, 3 if cards == 6 else 2, 3 if cards == 6 else 2, natural)
        assert pays[code][column] == independent_pay(bet, kind, rules), code


def test_issue20_simulated_sessions_of_a_designed_table_meet_its_exact_edge() -> None:
    """Whole shoes dealt under a designed Lion Bonus (3:2 natural, losing natural tie, half
    pays): the mean house result per coup lies within 4 standard errors of the exact edge."""
    bet, candidate, rules = next(item for item in DESIGNED if item[0] == "lion-punto")
    run = simulate_sessions(rules, {bet: Fraction(1)}, coups=100, sessions=4_000, seed=7)
    per_coup = run.final() / run.scale / run.coups
    error = float(np.std(per_coup, ddof=1)) / np.sqrt(run.sessions)
    assert abs(float(per_coup.mean()) - candidate.house_edge) < 4 * error


def test_issue20_the_core_settles_a_coup_under_designed_pays() -> None:
    """L5a at 3:2, L5b lost, B2's reduced pay on a 5 at 3:4, B3 at 17:2: settled by the core."""
    rules = rules_from_json({"lion_natural_pays": "1.5", "lion_natural_tie_pays": -1,
                             "banco_reduced_pays": {"5": "3/4"}, "tie_pays": "8.5",
                             "lion_paytable": [20, 8, "4.5", 4, 2, -1]})
    natural_tie = deal_coup(iter(parse_cards("8H 8S KD KS")))
    spot = {BetKind.EGALITE: 1000, BetKind.LION_PUNTO: 1000}
    verify_spot(spot, rules)
    egalite, lion = settle_spot(spot, natural_tie, rules)
    assert (egalite.net, lion.net, lion.outcome) == (8500, -1000, Outcome.LOSE)
    natural_win = deal_coup(iter(parse_cards("9H 3S KD 3D")))   # Punto 9 natural v Banco 6
    assert settle_spot({BetKind.LION_PUNTO: 1000}, natural_win, rules)[0].net == 1500
    # Punto 0 draws a 4; Banco 5 draws on a 4 (R6) a ten: Banco wins with 5, three cards
    banco_five = deal_coup(iter(parse_cards("KH 5S KD KS 4C KC")))
    assert (banco_five.punto_total, banco_five.banco_total) == (4, 5)
    (line,) = settle_spot({BetKind.BANCO: 1000}, banco_five, rules)
    assert (line.net, line.reason.value) == (750, "win-with-5")
    assert settle_spot({BetKind.BANCO: 1000}, banco_five, RuleSet())[0].net == 1000


def test_issue20_par_risk_and_simulate_take_a_design_candidates_rules_file(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    """The command-line road: design → a candidate's JSON → ``par``, ``risk`` and ``simulate``
    with ``--rules-file`` give the edges design reported, which the independent enumeration
    confirms (the simulation within 4 standard errors)."""
    code, out, err = run_main(monkeypatch, capsys, "design", "--decks", "1", "--natural-win",
                              "1,1.5,2", "--natural-tie", "push,lose", "--half-pays",
                              "--lose-margins", "--max-pay", "8", "--top", "2", "-f", "json")
    assert code == 0, err
    for candidate in json.loads(out)["best"]:
        path = tmp_path / f"candidate-{candidate['rank']}.json"
        path.write_text(json.dumps(candidate), encoding="utf-8")
        code, out, err = run_main(monkeypatch, capsys, "par", "--decks", "1", "--rules-file",
                                  str(path), "-f", "json")
        assert code == 0, err
        sheet = json.loads(out)
        assert sheet["rules"] == candidate["rules"]
        rules = rules_from_json(candidate["rules"], base=BASE)
        expected = independent_edges(rules)
        for side in ("punto", "banco"):
            assert sheet["bets"][f"lion-{side}"]["house_edge"] == pytest.approx(
                candidate[f"{side}_house_edge"], abs=1e-15)
            assert Fraction(sheet["bets"][f"lion-{side}"]["ev"]) == -expected[f"lion-{side}"]
        code, out, err = run_main(monkeypatch, capsys, "risk", "--decks", "1", "--rules-file",
                                  str(path), "--bet", "lion-banco", "--coups", "50", "--json")
        assert code == 0, err
        assert Fraction(json.loads(out)["ev_exact"]) == expected["lion-banco"]
        code, out, err = run_main(monkeypatch, capsys, "simulate", "--decks", "1",
                                  "--rules-file", str(path), "--shoes", "1500", "--seed", "5",
                                  "--json")
        assert code == 0, err
        simulated = json.loads(out)["bets"]["lion-banco"]
        assert simulated["exact_ev"] == pytest.approx(-float(expected["lion-banco"]), abs=1e-15)
        assert abs(simulated["z"]) < 4


@pytest.mark.parametrize(("content", "extra", "mentions"), [
    ('{"rules": {"tie_pays": "8.5"}}', ["--tie-pays", "9"], "not beside it"),
    ("not json", [], "is not a JSON file"),
    ('{"limits": {}}', [], "sets none of a table's pays"),
    ('{"tie_pays": "25/3"}', [], "chip unit"),
    ('{"tie_pays": 9}', ["--compare"], "par alone"),
])
def test_issue20_a_bad_rules_file_is_one_sentence(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        content: str, extra: list[str], mentions: str) -> None:
    path = tmp_path / "rules.json"
    path.write_text(content, encoding="utf-8")
    code, _, err = run_main(monkeypatch, capsys, "par", "--rules-file", str(path), *extra)
    assert code == 2 and mentions in err and "Traceback" not in err
