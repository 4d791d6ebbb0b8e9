"""Other baccarat games beside this one, exactly: commission baccarat, EZ Baccarat, Dragon Bonus.

These are *not* table settings of this game (the server never offers them); they are here so a
games department can see the Lion Bonus and the "2000" Banco beside what the next table deals.
Every figure comes from the exact engine: the class counts of
:func:`~puntobanco.analysis.exact.class_counts` (the core's drawing table, every ordered six-card
sequence counted once) settled by each game's rule:

* **commission baccarat** — Banco 1:1 less 5 %, Punto 1:1, Égalité 8:1 (the core's
  ``BancoPayout.COMMISSION``);
* **this game** — Banco 1:1, 1:2 on a winning 6 (B2), through the core's ``settle_bet``;
* **EZ Baccarat** — Banker 1:1 without commission, but a Banker win with a three-card 7 pushes;
  **Dragon 7** pays 40:1 on that hand, **Panda 8** 25:1 on a Player win with a three-card 8;
* **Dragon Bonus** — the Lion Bonus structure (L5) with the pay table 30,10,6,4,2,1;
* **Lion Bonus** — SPEC's L5 pay table 20,8,4,4,2,1.

>>> from puntobanco.cards import full_composition
>>> ez = ez_baccarat(full_composition(8))
>>> f"{ez['banker'].house_edge:.4%}", f"{ez['dragon_7'].house_edge:.4%}"
('1.0183%', '7.6113%')
>>> ez["dragon_7"].row("win").combinations
112633011329024
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from puntobanco import data as published_data
from puntobanco.analysis.exact import (
    BetAnalysis,
    OutcomeRow,
    analyse,
    check_composition,
    class_counts,
)
from puntobanco.analysis.multisets import MAX_CARDS, falling
from puntobanco.analysis.risk import bet_key
from puntobanco.analysis.tables import CLASS_COUNT, Shape, class_parts
from puntobanco.cards import full_composition
from puntobanco.rules import DRAGON_PAYTABLE, LION_PAYTABLE, BancoPayout, Drawing, Pay, RuleSet

__all__ = [
    "VariantFigures",
    "compare",
    "compare_json",
    "compare_markdown",
    "element_of_risk",
    "ez_baccarat",
    "published_checks",
]

#: A class's row in a custom bet: (row name, net pay per unit), or ``None`` for classes that
#: cannot occur.
Settle = Callable[[Shape, int, int], tuple[str, Fraction]]


def _three_cards(shape: Shape, side: str) -> bool:
    if side == "punto":
        return shape in (Shape.PUNTO_DREW, Shape.BOTH_DREW)
    return shape in (Shape.BANCO_DREW, Shape.BOTH_DREW)


def _ez_banker(shape: Shape, punto: int, banco: int) -> tuple[str, Fraction]:
    if banco > punto:
        if banco == 7 and _three_cards(shape, "banco"):
            return "win-with-three-card-7", Fraction(0)
        return "win", Fraction(1)
    if banco == punto:
        return "tie", Fraction(0)
    return "lose", Fraction(-1)


def _ez_player(shape: Shape, punto: int, banco: int) -> tuple[str, Fraction]:
    if punto > banco:
        return "win", Fraction(1)
    return ("tie", Fraction(0)) if punto == banco else ("lose", Fraction(-1))


def _ez_tie(shape: Shape, punto: int, banco: int) -> tuple[str, Fraction]:
    return ("win", Fraction(8)) if punto == banco else ("lose", Fraction(-1))


def _dragon_7(shape: Shape, punto: int, banco: int) -> tuple[str, Fraction]:
    if banco > punto and banco == 7 and _three_cards(shape, "banco"):
        return "win", Fraction(40)
    return "lose", Fraction(-1)


def _panda_8(shape: Shape, punto: int, banco: int) -> tuple[str, Fraction]:
    if punto > banco and punto == 8 and _three_cards(shape, "punto"):
        return "win", Fraction(25)
    return "lose", Fraction(-1)


EZ_BETS: dict[str, tuple[Settle, tuple[str, ...]]] = {
    "player": (_ez_player, ("win", "tie", "lose")),
    "banker": (_ez_banker, ("win", "win-with-three-card-7", "tie", "lose")),
    "tie": (_ez_tie, ("win", "lose")),
    "dragon_7": (_dragon_7, ("win", "lose")),
    "panda_8": (_panda_8, ("win", "lose")),
}


def custom_bet(name: str, composition: Sequence[int], settle: Settle, rows: tuple[str, ...],
               drawing: Drawing = Drawing.STANDARD) -> BetAnalysis:
    """A bet settled by ``settle`` on each coup class, counted exactly over the shoe."""
    counts = check_composition(composition)
    by_class = class_counts(counts, drawing)
    combinations = dict.fromkeys(rows, 0)
    pays: dict[str, Fraction] = {}
    for index in range(CLASS_COUNT):
        if by_class[index]:
            row, pay = settle(*class_parts(index))
            combinations[row] += by_class[index]
            if pays.setdefault(row, pay) != pay:
                raise AssertionError(f"{name}: row {row} pays differently in different coups")
    return BetAnalysis(
        name=name, total_combinations=falling(sum(counts), MAX_CARDS),
        outcomes=tuple(OutcomeRow(row, combinations[row], pays.get(row, Fraction(-1)))
                       for row in rows))


def ez_baccarat(composition: Sequence[int], drawing: Drawing = Drawing.STANDARD
                ) -> dict[str, BetAnalysis]:
    """EZ Baccarat's five bets: player, banker, tie, dragon_7, panda_8."""
    return {name: custom_bet(name, composition, settle, rows, drawing)
            for name, (settle, rows) in EZ_BETS.items()}


def element_of_risk(bet: BetAnalysis) -> float:
    """Expected loss per unit actually at risk: a push puts nothing at risk.

    ``house edge / (1 − P(push))`` — Wizard of Odds' "element of risk" (ties not counted as bets).
    """
    pushes = sum(row.combinations for row in bet.outcomes if row.pays == 0)
    return bet.house_edge / (1 - pushes / bet.total_combinations)


@dataclass(frozen=True, kw_only=True)
class VariantFigures:
    """One line of the comparison: a game's bet for a number of decks."""

    game: str
    bet: str
    label: str
    decks: int
    analysis: BetAnalysis
    #: The game's name as printed (the Lion Bonus line names its pay table).
    game_label: str = ""

    @property
    def house_edge(self) -> float:
        return self.analysis.house_edge

    @property
    def element_of_risk(self) -> float:
        return element_of_risk(self.analysis)

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "game_label": self.game_label, "bet": self.bet,
                "label": self.label, "decks": self.decks,
                "ev": str(self.analysis.ev), "house_edge": self.house_edge,
                "element_of_risk": self.element_of_risk,
                "hit_frequency": self.analysis.hit_frequency,
                "std_dev": self.analysis.std_dev,
                "outcomes": [{"outcome": r.name, "combinations": r.combinations,
                              "pays": str(r.pays)} for r in self.analysis.outcomes]}


GAMES: dict[str, str] = {
    "commission": "Commission baccarat (Banco 1:1 less 5 %)",
    "this_game": "Punto Banco 2000 (Banco 1:2 on a winning 6)",
    "ez": "EZ Baccarat (Banker pushes on a three-card 7)",
    "dragon_bonus": "Dragon Bonus side bet (30,10,6,4,2,1)",
    "lion_bonus": "Lion Bonus side bet (SPEC L5: 20,8,4,4,2,1)",
}


def compare(decks: Sequence[int] = (6, 8), drawing: Drawing = Drawing.STANDARD, *,
            lion_paytable: Sequence[Pay] = LION_PAYTABLE) -> list[VariantFigures]:
    """Every game's bets, exactly, for each number of decks; the Lion Bonus with
    ``lion_paytable`` (SPEC's by default)."""
    labels = dict(GAMES)
    if tuple(lion_paytable) != LION_PAYTABLE:
        labels["lion_bonus"] = ("Lion Bonus side bet (" + ",".join(map(str, lion_paytable))
                                + ")")
    out: list[VariantFigures] = []
    for deck_count in decks:
        shoe = full_composition(deck_count)
        commission = analyse(shoe, RuleSet(banco_payout=BancoPayout.COMMISSION,
                                           drawing=drawing))
        four_percent = analyse(shoe, RuleSet(banco_payout=BancoPayout.COMMISSION,
                                             commission=Fraction(1, 25), drawing=drawing))
        tie_nine = analyse(shoe, RuleSet(tie_pays=9, drawing=drawing))
        ours = analyse(shoe, RuleSet(drawing=drawing))
        lion = analyse(shoe, RuleSet(drawing=drawing, lion_paytable=tuple(lion_paytable)))
        dragon = analyse(shoe, RuleSet(lion_paytable=DRAGON_PAYTABLE, drawing=drawing))
        ez = ez_baccarat(shoe, drawing)

        def add(game: str, bet: str, label: str, analysis: BetAnalysis,
                deck_count: int = deck_count) -> None:
            out.append(VariantFigures(game=game, bet=bet, label=label, decks=deck_count,
                                      analysis=analysis, game_label=labels[game]))

        for bet, label in (("banco", "Banco"), ("punto", "Punto"), ("egalite", "Égalité 8:1")):
            add("commission", bet, label, commission.bets[bet])
        # a 4 % commission and a tie paid 9:1 (B3's table setting): this engine's exact figures
        add("commission", "banco-4", "Banco, 4 % commission", four_percent.bets["banco"])
        add("commission", "egalite-9", "Égalité 9:1", tie_nine.bets["egalite"])
        for bet, label in (("banco", "Banco"), ("punto", "Punto"), ("egalite", "Égalité 8:1")):
            add("this_game", bet, label, ours.bets[bet])
        add("this_game", "egalite-9", "Égalité 9:1", tie_nine.bets["egalite"])
        for bet, label in (("banker", "Banker"), ("player", "Player"), ("tie", "Tie 8:1"),
                           ("dragon_7", "Dragon 7 (40:1)"), ("panda_8", "Panda 8 (25:1)")):
            add("ez", bet, label, ez[bet])
        for game, sheet in (("dragon_bonus", dragon), ("lion_bonus", lion)):
            for side, label in (("punto", "on Punto (Player)"), ("banco", "on Banco (Banker)")):
                key = str(bet_key(f"lion-{side}"))
                add(game, key, label, sheet.bets[key])
    return out


def compare_json(lines: Sequence[VariantFigures], checks: Sequence[dict[str, Any]] = ()) -> str:
    return json.dumps({"games": GAMES, "lines": [line.to_dict() for line in lines],
                       "published_checks": list(checks)}, indent=2, ensure_ascii=False) + "\n"


def compare_rows(lines: Sequence[VariantFigures]) -> list[list[str]]:
    """Text rows: game, bet, decks, house edge, element of risk, hit frequency, SD."""
    return [[line.game_label or GAMES[line.game], line.label, str(line.decks), f"{line.house_edge:.4%}",
             f"{line.element_of_risk:.4%}", f"{line.analysis.hit_frequency:.4%}",
             f"{line.analysis.std_dev:.4f}"] for line in lines]


COMPARE_HEAD = ["Game", "Bet", "Decks", "House edge", "Element of risk", "Hit frequency",
                "Std dev"]
#: What the 4 % commission and tie 9:1 lines are: no source of the data files pins them.
COMPARE_NOTE = ("Banco with a 4 % commission and Égalité 9:1 are this engine's exact figures: "
                "no source in the package's published figures pins them (the one published tie "
                "9:1 figure found, 4.80 % for 8 decks, differs from the exact 4.8440 %).")


def compare_html(lines: Sequence[VariantFigures], checks: Sequence[dict[str, Any]] = ()) -> str:
    """A printable page with the same tables as :func:`compare_markdown`."""
    from puntobanco.analysis.report import _html_page, _html_table

    body = ["<style>.games td:nth-child(2), .games th:nth-child(2), .checks td:last-child, "
            ".checks th:last-child { text-align: left; }</style>",
            '<div class="games">', _html_table(COMPARE_HEAD, compare_rows(lines)), "</div>",
            f"<p>{html.escape(COMPARE_NOTE)}</p>"]
    if checks:
        body += ["<h2>Checked against published figures</h2>", '<div class="checks">',
                 _html_table(["Figure", "Published", "This engine", "Source"],
                             [[c["what"], c["published"], c["computed"], c["source"]]
                              for c in checks]), "</div>"]
    return _html_page("Baccarat variants side by side", "Exact, full shoes, standard drawing; "
                      "house edge per initial unit, element of risk per unit at risk "
                      "(pushes excluded).", body)


def compare_markdown(lines: Sequence[VariantFigures], checks: Sequence[dict[str, Any]] = ()
                     ) -> str:
    head = COMPARE_HEAD
    out = ["# Baccarat variants side by side (exact, full shoes)", "",
           "| " + " | ".join(head) + " |", "| --- | --- | " + " | ".join(["---:"] * 5) + " |"]
    out += ["| " + " | ".join(row) + " |" for row in compare_rows(lines)]
    out += ["", COMPARE_NOTE]
    if checks:
        out += ["", "## Checked against published figures", "",
                "| Figure | Published | This engine | Source |", "| --- | ---: | ---: | --- |"]
        out += [f"| {c['what']} | {c['published']} | {c['computed']} | {c['source']} |"
                for c in checks]
    return "\n".join(out) + "\n"


#: The pinned published figures, inside the package (an installed wheel has them too).
PUBLISHED_PATH = published_data.path("published_variants.json")


def published_checks(lines: Sequence[VariantFigures], path: Traversable | Path = PUBLISHED_PATH
                     ) -> list[dict[str, Any]]:
    """Each pinned published house edge beside this engine's figure, rounded the same way.

    Only lines present in ``lines`` (the decks compared) are checked; an absent file gives none.
    """
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    found = {(line.game, line.bet, line.decks): line for line in lines}
    checks: list[dict[str, Any]] = []

    def check(game: str, bet: str, decks: int, published: str, source: str) -> None:
        line = found.get((game, bet_key(bet) or bet, decks))
        if line is None:
            return
        places = len(published.split(".")[1])
        if published.startswith("-"):  # a return per unit staked (the EV), not a percentage
            ev = line.analysis.ev
            computed = f"{round(Decimal(ev.numerator) / Decimal(ev.denominator), places)}"
        else:
            computed = f"{round(Decimal(line.house_edge) * 100, places)}"
        checks.append({"what": f"{GAMES[game].split(' (')[0]} — {line.label}, {decks} decks",
                       "published": published, "computed": computed,
                       "matches": computed == published, "source": source})

    for entry in data.values():
        if not isinstance(entry, dict) or not entry.get("pinned"):
            continue
        source = entry["source"].split(" (")[0] + " — " + entry["url"]
        for key in ("house_edge", "house_edge_3dp", "return_6dp"):
            for bet, value in entry.get(key, {}).items():
                check(entry["game"], bet, entry["decks"], value, source)
        for decks, figures in entry.get("house_edge_2dp", {}).items():
            for bet, value in figures.items():
                check(entry["game"], bet, int(decks), value, source)
    return checks
