"""Issue 11 (operator console), reports: coups settled by the real store on SQLite and on
PostgreSQL, read back through ``GET /api/reports/tables…`` and checked against figures
computed by hand from the exact engine's PAR sheet (``analyse``), not from the report's own
maths. Also the pure maths (``server.hold``): house edges as SPEC states them, the covariance
of two bets on one coup derived by hand, and the exposure of a coup."""

from __future__ import annotations

import csv
import io
import math
import random
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, update
from sqlalchemy.orm import Session

from puntobanco.analysis import analyse
from puntobanco.bets import BetKind, settle_spot
from puntobanco.cards import full_composition, parse_cards
from puntobanco.coup import deal_coup
from puntobanco.rules import RuleSet
from puntobanco.server import hold, holdband
from puntobanco.server.db import auth, settle, store
from puntobanco.server.db.engine import migrate
from puntobanco.server.db.models import CoupRecord
from puntobanco.server.settings import table_rules_to_json
from puntobanco.shoe import Shoe

from .support import fast_settings, place, running

RULES = RuleSet()
DAY1 = datetime(2026, 11, 29, 22, 30, tzinfo=UTC)
DAY2 = DAY1 + timedelta(hours=3)  # 01:30 on the next UTC day


def _coup(session: Session, *, table_id: int, shoe_id: int, round_no: int, cards: str,
          bets: Mapping[int, Mapping[BetKind, int]], settled_at: datetime) -> None:
    """One coup through the real store: open, bets (wallet debits), close, deal, settle."""
    coup_id = store.open_coup(session, table_id=table_id, shoe_id=shoe_id, round_no=round_no,
                              coup_in_shoe=round_no, last_coup=False)
    for player, spot in bets.items():
        for kind, stake in spot.items():
            place(session, table_id=table_id, coup_id=coup_id, player_id=player,
                  kind=kind, stake=stake)
    store.close_coup(session, coup_id)
    dealt = deal_coup(iter(parse_cards(cards)))
    store.record_deal(session, coup_id, dealt, first_card=0)
    settle.settle_coup(session, table_id=table_id, coup_id=coup_id,
                      bets={p: dict(s) for p, s in bets.items()},
                      lines={p: settle_spot(s, dealt, RULES) for p, s in bets.items()})
    session.execute(update(CoupRecord).where(CoupRecord.id == coup_id)
                    .values(opened_at=settled_at - timedelta(seconds=30), settled_at=settled_at))


def _seed(url: str) -> int:
    """Four coups on table "Report" (two shoes, two UTC days, each coup opened 30 s before
    it settles, the second of a day a minute after the first); returns the table's id.

    coup 1 (day 1, shoe 1) 9H 7S TD TC, Punto's natural 9 wins: Ann punto 10 € (+10 €),
           Bob banco 20 € (−20 €)                                   house −10 € + 20 €
    coup 2 (day 1, shoe 1) TH 8S TD TC, Banco's natural 8 wins 1:1: Ann banco 10 € (+10 €),
           Bob egalite 20 € (−20 €)                                 house −10 € + 20 €
    coup 3 (day 2, shoe 2) 9H 7S TD TC: Cara lion-punto 10 €, a natural win 1:1 (L5a) −10 €
    coup 4 (day 2, shoe 2) TH 8S TD TC: no bet
    """
    migrate(url)
    engine = create_engine(url)
    with Session(engine) as session, session.begin():
        table = store.create_table(session, name="Report", rules=RULES, betting_seconds=15)
        ann, bob, cara = (auth.create_player(session, username=name, password_hash="x", lang="en",
                                             welcome=100_000).id
                          for name in ("ann", "bob", "cara"))
        shoes = [store.create_shoe(session, table_id=table.id, shoe_no=number,
                                   shoe=Shoe.shuffled(RULES, rng=random.Random(number)),
                                   salt="00", commitment="0" * 64,
                                   rules_json=table_rules_to_json(RULES, betting_seconds=15))
                 for number in (1, 2)]
        plays = [(shoes[0], "9H 7S TD TC", {ann: {BetKind.PUNTO: 1000},
                                            bob: {BetKind.BANCO: 2000}}, DAY1),
                 (shoes[0], "TH 8S TD TC", {ann: {BetKind.BANCO: 1000},
                                            bob: {BetKind.EGALITE: 2000}},
                  DAY1 + timedelta(minutes=1)),
                 (shoes[1], "9H 7S TD TC", {cara: {BetKind.LION_PUNTO: 1000}}, DAY2),
                 (shoes[1], "TH 8S TD TC", {}, DAY2 + timedelta(minutes=1))]
        for round_no, (shoe_id, cards, bets, moment) in enumerate(plays, start=1):
            _coup(session, table_id=table.id, shoe_id=shoe_id, round_no=round_no, cards=cards,
                  bets=bets, settled_at=moment)
        for shoe_id in shoes:  # finished: a starting dealer does not deal them again
            store.finish_shoe(session, shoe_id)
    engine.dispose()
    return table.id


def _by_hand() -> dict[str, Fraction]:
    """The exact figures the report must give, from the PAR sheet's rows."""
    sheet = analyse(full_composition(6), RULES).bets
    prob = {name: {row.name: bet.probability(row) for row in bet.outcomes}
            for name, bet in sheet.items()}
    ev = {name: bet.ev for name, bet in sheet.items()}
    var = {name: bet.variance for name, bet in sheet.items()}
    # Punto × Banco per unit on one coup: −1 when Punto wins, −1 when Banco wins 1:1, −1/2 when
    # Banco wins with a 6 (B2), 0 on a tie
    banco_wins_six = prob["banco"]["win-with-6-two-cards"] + prob["banco"]["win-with-6-three-cards"]
    e_pb = -prob["punto"]["win"] - prob["banco"]["win"] - banco_wins_six / 2
    cov_pb = e_pb - ev["punto"] * ev["banco"]
    # Banco × Égalité: Banco is 0 on a tie and Égalité −1 otherwise, so E[BE] = −E[B]
    cov_be = -ev["banco"] - ev["banco"] * ev["egalite"]
    variance = (1000**2 * var["punto"] + 2000**2 * var["banco"] + 2 * 1000 * 2000 * cov_pb
                + 1000**2 * var["banco"] + 2000**2 * var["egalite"] + 2 * 1000 * 2000 * cov_be
                + 1000**2 * var["lion-punto"])
    expected = -(1000 * ev["punto"] + 3000 * ev["banco"] + 2000 * ev["egalite"]
                 + 1000 * ev["lion-punto"])
    return {"variance": variance, "expected": expected, "cov_pb": cov_pb, "cov_be": cov_be}


def test_issue11_report_matches_hand_computed_figures_on_sqlite_and_postgresql(
        db_url: str) -> None:
    table_id = _seed(db_url)
    hand = _by_hand()
    with running(fast_settings(db_url)) as live:
        boss = live.operator()
        found = live.http.get(f"/api/reports/tables/{table_id}", headers=boss.headers)
        assert found.status_code == 200, found.text
        report = found.json()
        total = report["total"]
        assert (total["coups"], total["bets"], total["handle"], total["house_win"]) == (
            4, 5, 7000, 1000)
        assert total["hold"] == pytest.approx(1 / 7)
        by_bet = {kind: (f["bets"], f["handle"], f["house_win"])
                  for kind, f in total["by_bet"].items()}
        assert by_bet == {"punto": (1, 1000, -1000), "banco": (2, 3000, 1000),
                          "egalite": (1, 2000, 2000), "lion-punto": (1, 1000, -1000),
                          "lion-banco": (0, 0, 0)}
        assert total["expected_win"] == pytest.approx(float(hand["expected"]), rel=1e-12)
        assert total["theoretical_edge"] == pytest.approx(float(hand["expected"]) / 7000)
        sd = math.sqrt(hand["variance"])
        assert total["sd"] == pytest.approx(sd, rel=1e-9)
        assert total["z"] == pytest.approx((1000 - float(hand["expected"])) / sd, rel=1e-9)
        # the band from the distribution of W (server/holdband.py, tested against a Monte
        # Carlo in test_holdband.py): five coups, so the exact convolution
        assert total["band_method"] == "exact"
        assert total["band"] == pytest.approx([w / 7000 for w in total["band_win"]])
        assert total["band_win"][0] < total["expected_win"] < total["band_win"][1]
        # the SQL hands over each coup's stakes (punto, banco, egalite, lion-punto, lion-banco)
        coups = {(1000, 2000, 0, 0, 0): 1, (0, 1000, 2000, 0, 0): 1, (0, 0, 0, 1000, 0): 1,
                 (0, 0, 0, 0, 0): 1}
        band = holdband.win_band([(RULES, coups)], observed=1000)
        assert band is not None
        assert total["band_win"] == [band.low, band.high]
        assert total["tail"] == pytest.approx(band.tail, abs=1e-12)
        lion = holdband.win_band([(RULES, coups)], observed=-1000, kind=3)
        assert lion is not None
        assert total["by_bet"]["lion-punto"]["tail"] == pytest.approx(lion.tail, abs=1e-12)
        banco = total["by_bet"]["banco"]
        assert banco["theoretical_edge"] == pytest.approx(0.014548, abs=5e-7)  # SPEC figure
        assert total["lion"] == {"handle": 1000, "house_win": -1000, "hold": -1.0,
                                 "handle_share": pytest.approx(1 / 7), "win_share": -1.0}
        # per shoe and per UTC day (coups 1-2 on 29 November, 3-4 on the 30th)
        assert [(s["shoe_no"], s["coups"], s["handle"], s["house_win"])
                for s in report["by_shoe"]] == [(1, 2, 6000, 2000), (2, 2, 1000, -1000)]
        # the chart's band after each shoe: shoe 1's own, then all four coups' (the total's)
        first, last = report["by_shoe"]
        assert first["cumulative_band"] == first["band"]
        assert last["cumulative_band"] == pytest.approx(total["band"])
        assert report["by_day"][-1]["cumulative_band"] == pytest.approx(total["band"])
        assert [(d["day"], d["coups"], d["handle"]) for d in report["by_day"]] == [
            ("2026-11-29", 2, 6000), ("2026-11-30", 2, 1000)]
        # a period: the second day alone
        second = live.http.get("/api/reports/tables?from=2026-11-30&to=2026-11-30",
                               headers=boss.headers).json()
        line = next(t for t in second["tables"] if t["table_id"] == table_id)
        assert (line["coups"], line["handle"], line["house_win"]) == (2, 1000, -1000)
        assert second["total"]["coups"] == 2
        room = live.http.get("/api/reports/tables", headers=boss.headers).json()
        assert [(d["day"], d["coups"], d["house_win"]) for d in room["by_day"]] == [
            ("2026-11-29", 2, 2000), ("2026-11-30", 2, -1000)]
        assert line["lion"]["handle_share"] == 1.0


def test_issue11_report_csv_periods_and_operators_only(sqlite_url: str) -> None:
    table_id = _seed(sqlite_url)
    with running(fast_settings(sqlite_url)) as live:
        boss = live.operator()
        ann = live.signup("dora")
        for path in ["/api/reports/tables", f"/api/reports/tables/{table_id}", "/api/audit"]:
            assert live.http.get(path, headers=ann.headers).status_code == 403
            assert live.http.get(path).status_code == 401
        answer = live.http.get(f"/api/reports/tables/{table_id}?format=csv", headers=boss.headers)
        assert answer.headers["content-type"].startswith("text/csv")
        assert "attachment" in answer.headers["content-disposition"]
        rows = list(csv.DictReader(io.StringIO(answer.text)))
        assert [row["group"] for row in rows] == ["total", "shoe", "shoe", "day", "day"]
        assert (rows[0]["coups"], rows[0]["handle"], rows[0]["house_win"]) == ("4", "7000", "1000")
        assert rows[0]["handle_banco"] == "3000" and rows[0]["house_win_lion-punto"] == "-1000"
        room = live.http.get("/api/reports/tables?format=csv", headers=boss.headers)
        assert [(row["group"], row["name"], row["day"])
                for row in csv.DictReader(io.StringIO(room.text))] == [
            ("table", "Report", ""), ("total", "", ""), ("day", "", "2026-11-29"),
            ("day", "", "2026-11-30")]
        nothing = live.http.get("/api/reports/tables?from=2020-01-01&to=2020-01-31",
                                headers=boss.headers).json()
        assert nothing["total"]["coups"] == 0 and nothing["total"]["hold"] is None
        for query in ["from=2026-12-02&to=2026-12-01", "from=yesterday", "to=2026-13-01"]:
            bad = live.http.get(f"/api/reports/tables?{query}&lang=it", headers=boss.headers)
            assert (bad.status_code, bad.json()["error"]["code"]) == (400, "bad-period"), query
            assert bad.json()["error"]["message"].startswith("Periodo non valido")
        assert live.http.get("/api/reports/tables/99", headers=boss.headers).status_code == 404


def test_issue20_csv_gives_each_bet_its_expected_win_sd_z_band_tail_and_the_period(
        db_url: str) -> None:
    table_id = _seed(db_url)
    with running(fast_settings(db_url)) as live:
        boss = live.operator()
        query = f"/api/reports/tables/{table_id}?from=2026-11-29&to=2026-11-30"
        report = live.http.get(query, headers=boss.headers).json()
        rows = list(csv.DictReader(io.StringIO(
            live.http.get(query + "&format=csv", headers=boss.headers).text)))
        assert [row["group"] for row in rows] == ["total", "shoe", "shoe", "day", "day"]
        assert {(row["from"], row["to"]) for row in rows} == {("2026-11-29", "2026-11-30")}
        total = rows[0]
        for kind, figures in report["total"]["by_bet"].items():
            for column in ("expected_win", "sd", "z", "tail"):
                cell = total[f"{column}_{kind}"]
                assert (cell == "" if figures[column] is None
                        else float(cell) == pytest.approx(figures[column])), (kind, column)
            band = figures["band"] or ["", ""]
            assert [total[f"band_low_{kind}"], total[f"band_high_{kind}"]] == [
                str(b) for b in band]
        banco = report["total"]["by_bet"]["banco"]
        hand = hold.theory(RULES)
        assert float(total["expected_win_banco"]) == pytest.approx(3000 * float(hand.edge["banco"]))
        assert banco["sd"] == pytest.approx(math.sqrt(
            float(hand.cov["banco", "banco"]) * (2000**2 + 1000**2)))
        assert float(total["z_banco"]) == pytest.approx((1000 - banco["expected_win"]) / banco["sd"])
        assert total["lion_hold"] == "-1.0" and total["band_method"] == "exact"
        # all time: the period's cells are empty
        whole = live.http.get(f"/api/reports/tables/{table_id}?format=csv", headers=boss.headers)
        assert {(row["from"], row["to"]) for row in csv.DictReader(io.StringIO(whole.text))} == {
            ("", "")}


def test_a_line_s_per_bet_bands_are_computed_where_shown_the_total_the_csv_or_asked(
        db_url: str) -> None:
    """The console shows the per-bet figures of a report's total; each shoe's and day's per-bet
    bands (five of its six exact bands) are in the CSV, and in the JSON with ?bet_bands=true,
    the same figures there as the band of that kind's coups alone (holdband.win_band)."""
    table_id = _seed(db_url)
    with running(fast_settings(db_url)) as live:
        boss = live.operator()
        base = f"/api/reports/tables/{table_id}"
        plain = live.http.get(base, headers=boss.headers).json()
        asked = live.http.get(base + "?bet_bands=true", headers=boss.headers).json()
        rows = list(csv.DictReader(io.StringIO(
            live.http.get(base + "?format=csv", headers=boss.headers).text)))
        room = live.http.get("/api/reports/tables", headers=boss.headers).json()
        band_keys = ("band", "band_win", "tail", "band_method")
        for report in (plain, room):
            for line in [*report.get("by_shoe", []), *report["by_day"],
                         *report.get("tables", [])]:
                for figures in line["by_bet"].values():
                    assert [figures[key] for key in band_keys] == [None] * 4
                    assert figures["expected_win"] is not None  # the other figures stay
                assert line["handle"] == 0 or line["band"] is not None  # the line's own band
            assert report["total"]["by_bet"]["banco"]["band"] is not None
        assert plain["total"] == asked["total"]
        # shoe 1: Ann banco 10 € on coup 2 and Bob banco 20 € on coup 1; the house won 1,000
        shoe1 = asked["by_shoe"][0]["by_bet"]["banco"]
        alone = holdband.win_band([(RULES, {(0, 2000, 0, 0, 0): 1, (0, 1000, 0, 0, 0): 1})],
                                  observed=1000)
        assert alone is not None
        assert shoe1["band_win"] == [alone.low, alone.high]
        assert shoe1["tail"] == pytest.approx(alone.tail, abs=1e-12)
        shoe_rows = [row for row in rows if row["group"] == "shoe"]
        for line, row in zip(asked["by_shoe"], shoe_rows, strict=True):
            for kind, figures in line["by_bet"].items():
                band = figures["band"] or ["", ""]
                assert [row[f"band_low_{kind}"], row[f"band_high_{kind}"]] == [
                    str(b) for b in band]
        for line, stripped in zip(asked["by_day"], plain["by_day"], strict=True):
            for kind, figures in line["by_bet"].items():
                assert {k: v for k, v in figures.items() if k not in band_keys} == {
                    k: v for k, v in stripped["by_bet"][kind].items() if k not in band_keys}


def test_issue20_lion_win_share_only_where_the_house_won(db_url: str) -> None:
    """Day 2: the house lost 10 € in all, all of it on the Lion Bonus: "100 % of the win" would
    be a share of a loss, so there is none (null); the Lion's own hold says what it did."""
    table_id = _seed(db_url)
    with running(fast_settings(db_url)) as live:
        boss = live.operator()
        days = live.http.get(f"/api/reports/tables/{table_id}", headers=boss.headers).json()
        lion = {day["day"]: day["lion"] for day in days["by_day"]}
        assert lion["2026-11-30"] == {"handle": 1000, "house_win": -1000, "hold": -1.0,
                                      "handle_share": 1.0, "win_share": None}
        assert lion["2026-11-29"]["win_share"] == 0.0  # no Lion bet, the house won 20 €


def test_issue20_per_player_theoretical_win_average_bet_coups_per_hour_and_win_per_drop(
        db_url: str) -> None:
    """The comps' figures per player, by hand from the seed: Ann 10 € Punto then 10 € Banco a
    minute later (one sitting of 1½ min), Bob 20 € Banco and 20 € Égalité, Cara 10 € Lion
    Bonus on Punto (one coup of 30 s); each signed up with 1,000 € and Ann was credited 50 €."""
    table_id = _seed(db_url)
    edge = {kind: float(value) for kind, value in hold.theory(RULES).edge.items()}
    with running(fast_settings(db_url)) as live:
        boss = live.operator()
        listed = live.http.get("/api/players?q=ann", headers=boss.headers).json()
        ann_id = next(p["id"] for p in listed if p["username"] == "ann")
        assert live.http.post(f"/api/players/{ann_id}/credit", json={"amount": 5000},
                              headers=boss.headers).status_code == 200
        found = live.http.get(f"/api/reports/players?table_id={table_id}",
                              headers=boss.headers)
        assert found.status_code == 200, found.text
        by_name = {p["username"]: p for p in found.json()["players"]}
        assert [p["username"] for p in found.json()["players"]] == ["bob", "cara", "ann"]
        ann, bob, cara = by_name["ann"], by_name["bob"], by_name["cara"]
        assert (ann["coups"], ann["bets"], ann["handle"], ann["house_win"]) == (2, 2, 2000, -2000)
        assert ann["theoretical_win"] == pytest.approx(1000 * edge["punto"] + 1000 * edge["banco"])
        assert ann["theoretical_edge"] == pytest.approx(ann["theoretical_win"] / 2000)
        assert ann["average_bet"] == 1000
        assert ann["hours"] == pytest.approx(90 / 3600) and ann["coups_per_hour"] == pytest.approx(80)
        assert (ann["drop"], ann["win_per_drop"]) == (105_000, pytest.approx(-2000 / 105_000))
        assert bob["theoretical_win"] == pytest.approx(2000 * edge["banco"] + 2000 * edge["egalite"])
        assert (bob["house_win"], bob["average_bet"], bob["drop"]) == (4000, 2000, 100_000)
        assert cara["theoretical_win"] == pytest.approx(1000 * edge["lion-punto"])
        assert cara["coups_per_hour"] == pytest.approx(120)  # one coup of 30 s
        # the two UTC days of the play: the sign-ups and the credit (today) are not in it
        period = live.http.get("/api/reports/players?from=2026-11-29&to=2026-11-30&format=csv",
                               headers=boss.headers)
        rows = {row["username"]: row for row in csv.DictReader(io.StringIO(period.text))}
        assert rows["ann"]["drop"] == "0" and rows["ann"]["win_per_drop"] == ""
        assert float(rows["bob"]["theoretical_win"]) == pytest.approx(bob["theoretical_win"])
        assert (rows["ann"]["from"], rows["ann"]["to"], rows["ann"]["table_id"]) == (
            "2026-11-29", "2026-11-30", "")
        second = live.http.get("/api/reports/players?from=2026-11-30&to=2026-11-30",
                               headers=boss.headers).json()
        assert [p["username"] for p in second["players"]] == ["cara"]
        assert live.http.get("/api/reports/players?table_id=999",
                             headers=boss.headers).status_code == 404
        for query in ["table_id=-1", "table_id=abc", "table_id=99999999999", "from=2026-13-01",
                      "format=xml"]:
            bad = live.http.get(f"/api/reports/players?{query}", headers=boss.headers)
            assert 400 <= bad.status_code < 500 and bad.json()["error"]["code"], query
        assert live.http.get("/api/reports/players",
                             headers=live.signup("eve").headers).status_code == 403


# --- the pure maths -------------------------------------------------------------------------


def test_issue11_theory_gives_spec_edges_and_par_sheet_variances() -> None:
    exact = hold.theory(RULES)
    assert {k: round(float(v) * 100, 4) for k, v in exact.edge.items()} == {
        "punto": 1.2374, "banco": 1.4548, "egalite": 14.4382, "lion-punto": 11.2931,
        "lion-banco": 16.7751}  # SPEC's reference figures
    sheet = analyse(full_composition(6), RULES).bets
    for kind, name in zip(hold.KINDS, sheet, strict=True):
        assert exact.cov[kind, kind] == sheet[name].variance
    hand = _by_hand()
    assert exact.cov["punto", "banco"] == hand["cov_pb"] < 0
    assert exact.cov["banco", "egalite"] == hand["cov_be"]
    nine = hold.theory(RuleSet(tie_pays=9))
    tie = sheet["egalite"].probability(sheet["egalite"].row("win"))
    assert nine.edge["egalite"] == 1 - 10 * tie  # B3 at 9:1: the house keeps 1 − 10·P(tie)


def test_issue11_exposure_worst_best_and_expected_of_the_bets_on_the_felt() -> None:
    shoe = full_composition(6)
    lion = hold.exposure({"lion-banco": 1000}, shoe, RULES)
    assert (lion["worst"], lion["best"]) == (-20_000, 1000)  # L5c: win by 9 pays 20:1
    assert lion["expected"] == pytest.approx(1000 * 0.167751, abs=1e-3)
    tie = hold.exposure({"egalite": 1000, "punto": 500}, shoe, RULES)
    assert (tie["worst"], tie["best"]) == (-8000, 1500)  # B3 8:1 (Punto returned); all lose
    # a shoe of nines and tens only: Banco never totals 6, so it never wins half (B2)
    nines = (20, 0, 0, 0, 0, 0, 0, 0, 0, 20)
    found = hold.exposure({"banco": 1000}, nines, RULES)
    assert (found["worst"], found["best"]) == (-1000, 1000)
    assert hold.exposure({"banco": 1000}, (3, 0, 0, 0, 0, 0, 0, 0, 0, 2), RULES)["worst"] is None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.dictionaries(
    st.sampled_from(hold.KINDS), st.integers(0, 5).map(lambda n: n * 500), max_size=5)),
    min_size=1, max_size=8), st.sampled_from([RULES, RuleSet(tie_pays=9)]))
def test_issue11_figures_do_not_depend_on_how_coups_are_grouped(
        coups: list[tuple[int, dict[str, int]]], rules: RuleSet) -> None:
    """Tallies of disjoint coups add up: the report of the parts summed is the report of the
    whole (handle, win, expected win, variance), however the groups (shoes, days) fall."""
    def tally(part: list[tuple[int, dict[str, int]]]) -> hold.Tally:
        return hold.Tally(
            coups=len(part),
            bets={k: sum(1 for _, s in part if s.get(k)) for k in hold.KINDS},
            handle={k: sum(s.get(k, 0) for _, s in part) for k in hold.KINDS},
            win={k: sum(sign * s.get(k, 0) for sign, s in part) for k in hold.KINDS},
            stakes=Counter(tuple(s.get(k, 0) for k in hold.KINDS) for _, s in part))

    signed = [(1 - sign, stakes) for sign, stakes in coups]  # a house result per unit: −2…0
    whole = hold.summarise([(tally(signed), rules)])
    split = hold.summarise([(tally([coup]), rules) for coup in signed])
    for key in ("coups", "bets", "handle", "house_win"):
        assert whole[key] == split[key]
    assert whole["expected_win"] == pytest.approx(split["expected_win"])
    assert whole["sd"] == pytest.approx(split["sd"], abs=1e-9)
    assert whole["sd"] >= 0
    assert whole["band"] == split["band"]
    assert whole["tail"] == pytest.approx(split["tail"], abs=1e-12)


def test_issue11_migration_0005_keeps_old_rows_unpaused_and_unsuspended(sqlite_url: str) -> None:
    from pathlib import Path

    from alembic import command
    from sqlalchemy import text

    from puntobanco.server.db.engine import alembic_config

    Path(sqlite_url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(sqlite_url), "0002")
    engine = create_engine(sqlite_url)
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO tables (name, name_key, rules, betting_seconds, "
                                "created_at) VALUES ('Old', 'old', '{}', 15, CURRENT_TIMESTAMP)"))
        connection.execute(text("INSERT INTO players (username, username_key, password_hash, "
                                "role, lang, created_at) VALUES ('old', 'old', 'x', 'player', "
                                "'fr', CURRENT_TIMESTAMP)"))
    migrate(sqlite_url)
    with engine.begin() as connection:
        assert connection.execute(text("SELECT paused FROM tables")).scalar_one() in (0, False)
        assert connection.execute(text("SELECT suspended FROM players")).scalar_one() in (0, False)
    command.downgrade(alembic_config(sqlite_url), "0002")
    with engine.begin() as connection:
        assert connection.execute(text("SELECT name FROM tables")).scalar_one() == "Old"
    engine.dispose()
