"""The page's road logic (``static/js/roads.js``) run in Chromium on sequences worked out by hand.

Big road: one column per streak, ties counted on the cell before them, a streak that meets the
bottom (or a cell below) turning right for good (dragon tail). Derived roads with offset k
(big eye boy 1, small road 2, cockroach pig 3): a cell opening a streak compares the lengths of
the streaks 1 and 1+k back (equal: red); any other cell looks k streaks back at its own row
(a cell there: red; the first empty cell below that streak's end: blue; further below: red).
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.e2e

WINNERS = {"B": "banco", "P": "punto", "T": "egalite"}
COLOURS = {"R": "red", "B": "blue"}


def results(text: str) -> list[str]:
    return [WINNERS[letter] for letter in text.split()]


@pytest.fixture(scope="module")
def roads(browser: Any, static_url: str) -> Any:
    """A page at the static server's origin, with ``window.roads`` = the imported module."""
    page = browser.new_page()
    page.route(f"{static_url}/blank", lambda route: route.fulfill(
        status=200, content_type="text/html", body="<!doctype html><title>roads</title>"))
    page.goto(f"{static_url}/blank")
    page.evaluate("async (url) => { window.roads = await import(url); }", f"{static_url}/js/roads.js")
    yield page
    page.close()


def run(page: Any, expression: str, arg: Any) -> Any:
    return page.evaluate(f"(arg) => {expression}", arg)


# Coups 0..18 of a shoe: a leading tie, then B B B | P P | B (tie, tie) | P×7 | B B | P.
SHOE = "T B B B P P B T T P P P P P P P B B P"


def test_bead_plate_fills_columns_top_to_bottom(roads: Any) -> None:
    cells = run(roads, "roads.beadPlate(arg).map(c => [c.col, c.row, c.winner])", results(SHOE))
    expected = [[i // 6, i % 6, WINNERS[w]] for i, w in enumerate(SHOE.split())]
    assert cells == expected
    assert cells[7] == [1, 1, "egalite"] and cells[18] == [3, 0, "punto"]


def test_big_road_streaks_ties_and_dragon_tail(roads: Any) -> None:
    cells = run(roads, "roads.bigRoad(arg).map(c => [c.col, c.row, c.winner, c.ties])", results(SHOE))
    b, p = "banco", "punto"
    assert cells == [
        [0, 0, b, 1], [0, 1, b, 0], [0, 2, b, 0],  # the leading tie waits on the first cell
        [1, 0, p, 0], [1, 1, p, 0],
        [2, 0, b, 2],  # two ties marked on the Banco before them
        [3, 0, p, 0], [3, 1, p, 0], [3, 2, p, 0], [3, 3, p, 0], [3, 4, p, 0], [3, 5, p, 0],
        [4, 5, p, 0],  # seventh Punto: the column is full, the tail turns right
        [4, 0, b, 0], [4, 1, b, 0],  # the next streak still starts beside the previous one
        [5, 0, p, 0],
    ]


def test_big_road_tail_turns_above_an_earlier_tail_and_stays_turned(roads: Any) -> None:
    cells = run(roads, "roads.bigRoad(arg).map(c => [c.col, c.row, c.winner])",
                results("B B B B B B B B P B B B B B B B P P"))
    b, p = "banco", "punto"
    assert cells == [
        [0, 0, b], [0, 1, b], [0, 2, b], [0, 3, b], [0, 4, b], [0, 5, b], [1, 5, b], [2, 5, b],
        [1, 0, p],
        [2, 0, b], [2, 1, b], [2, 2, b], [2, 3, b], [2, 4, b], [3, 4, b], [4, 4, b],
        [3, 0, p], [3, 1, p],
    ]


def test_big_road_of_ties_only_is_one_empty_cell_with_the_count(roads: Any) -> None:
    cells = run(roads, "roads.bigRoad(arg)", results("T T"))
    assert [(c["col"], c["row"], c["winner"], c["ties"]) for c in cells] == [(0, 0, None, 2)]


# Streak lengths of SHOE: 3, 2, 1, 7, 2, 1.
@pytest.mark.parametrize(("k", "colours"), [
    # big eye boy: (1,1) R; (2,0) 2≠3 B; (3,0) 1≠2 B, (3,1) B, (3,2..6) R×5; (4,0) B, (4,1) R; (5,0) B
    (1, "R B B B R R R R R B R B"),
    # small road: (3,0) 1≠3 B, (3,1) R, (3,2) B, (3,3..6) R×4; (4,0) 7≠2 B, (4,1) B; (5,0) 2≠1 B
    (2, "B R B R R R R B B B"),
    # cockroach pig: (3,1) R, (3,2) R, (3,3) B, (3,4..6) R×3; (4,0) 7≠3 B, (4,1) R; (5,0) 2=2 R
    (3, "R R B R R R B R R"),
])
def test_derived_road_colours(roads: Any, k: int, colours: str) -> None:
    got = run(roads, "roads.derivedColours(arg.results, arg.k)", {"results": results(SHOE), "k": k})
    assert got == [COLOURS[c] for c in colours.split()]


@pytest.mark.parametrize(("name", "cells"), [
    ("bigEyeBoy", [(0, 0, "R"), (1, 0, "B"), (1, 1, "B"), (1, 2, "B"), (2, 0, "R"), (2, 1, "R"),
                   (2, 2, "R"), (2, 3, "R"), (2, 4, "R"), (3, 0, "B"), (4, 0, "R"), (5, 0, "B")]),
    ("smallRoad", [(0, 0, "B"), (1, 0, "R"), (2, 0, "B"), (3, 0, "R"), (3, 1, "R"), (3, 2, "R"),
                   (3, 3, "R"), (4, 0, "B"), (4, 1, "B"), (4, 2, "B")]),
    ("cockroachPig", [(0, 0, "R"), (0, 1, "R"), (1, 0, "B"), (2, 0, "R"), (2, 1, "R"), (2, 2, "R"),
                      (3, 0, "B"), (4, 0, "R"), (4, 1, "R")]),
])
def test_derived_roads_laid_out_like_the_big_road(roads: Any, name: str,
                                                  cells: list[tuple[int, int, str]]) -> None:
    got = run(roads, f"roads.allRoads(arg).{name}.map(c => [c.col, c.row, c.colour])", results(SHOE))
    assert got == [[col, row, COLOURS[c]] for col, row, c in cells]


def test_derived_roads_wait_for_their_first_comparison(roads: Any) -> None:
    # Big eye boy starts at the big road's column 2 row 2, or column 3 row 1 if that comes first.
    assert run(roads, "roads.derivedColours(arg, 1)", results("B P")) == []
    assert run(roads, "roads.derivedColours(arg, 1)", results("B P P")) == ["blue"]
    assert run(roads, "roads.derivedColours(arg, 1)", results("B P B")) == ["red"]
    assert run(roads, "roads.derivedColours(arg, 3)", results("B P B P")) == []
    assert run(roads, "roads.derivedColours(arg, 3)", results("B P B P B")) == ["red"]


def test_predictions_are_the_colour_the_next_coup_would_add(roads: Any) -> None:
    ask = run(roads, "roads.predictions(arg)", results(SHOE))
    for side in ("banco", "punto"):
        for name, k in (("bigEyeBoy", 1), ("smallRoad", 2), ("cockroachPig", 3)):
            after = run(roads, "roads.derivedColours(arg.r, arg.k)",
                        {"r": [*results(SHOE), side], "k": k})
            assert ask[side][name] == after[-1]


def test_snapshot_entries_are_read_like_winners(roads: Any) -> None:
    entries = [{"coup_id": i, "winner": w, "punto_total": 0, "banco_total": 0, "natural": i == 0}
               for i, w in enumerate(results(SHOE))]
    assert run(roads, "roads.allRoads(arg).big.length", entries) == 16
    assert run(roads, "roads.tally(arg)", entries) == {
        "coups": 19, "punto": 10, "banco": 6, "egalite": 3, "natural": 1}
