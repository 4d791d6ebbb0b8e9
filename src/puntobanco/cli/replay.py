"""``puntobanco replay``: the dealer's settlement calculator.

Cards go in, in the order they leave the shoe (no burn, no cut card); consecutive coups are dealt
from them (R3–R6) and one spot's bets are settled on every coup (B1–B3, L5), payment lines in L6
order. The settlement itself is the core's (:func:`puntobanco.bets.settle_spot`).

>>> from puntobanco.cards import parse_cards
>>> from puntobanco.rules import RuleSet, Side
>>> spot = parse_spot(["banco=25", "lion-banco=10"], RuleSet())
>>> coups, leftover = replay_coups(parse_cards("4H 2S 9S 3D 7C 5C 9C"), spot, RuleSet())
>>> [(c.coup.winner.value, [line.net for line in c.lines]) for c in coups], leftover
([('egalite', [0, -1000])], (Card('9C'),))
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from puntobanco import i18n
from puntobanco.bets import PAYMENT_ORDER, BetKind, SettlementLine, settle_spot, verify_spot
from puntobanco.cards import MAX_DECKS, Card, parse_cards
from puntobanco.cli._app import app
from puntobanco.cli._felt import (
    check_language,
    hand_text,
    result_text,
    rules_summary,
    settlement_table,
    signed,
)
from puntobanco.cli.ruleopts import (
    ChipOption,
    LimitOption,
    RuleOptions,
    apply_limits,
    rule_options,
)
from puntobanco.coup import Coup, deal_coup
from puntobanco.errors import PuntoBancoError, ShoeExhausted
from puntobanco.money import parse_euros
from puntobanco.rules import RuleSet, Side


@dataclass(frozen=True, slots=True)
class ReplayedCoup:
    """One dealt coup and the spot's settlement lines, in L6 order."""

    number: int
    coup: Coup
    lines: tuple[SettlementLine, ...]

    @property
    def staked(self) -> int:
        return sum(line.stake for line in self.lines)

    @property
    def net(self) -> int:
        return sum(line.net for line in self.lines)

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` line: ``coup``, the core's coup summary, and ``settlement``."""
        return {"coup": self.number, **self.coup.to_dict(),
                "settlement": [line.to_dict() for line in self.lines]}


def parse_bet_option(text: str) -> tuple[BetKind, int]:
    """Read one ``--bet KIND=EUROS``.

    >>> parse_bet_option("lion-banco=10")
    (<BetKind.LION_BANCO: 'lion-banco'>, 1000)
    >>> parse_bet_option("banco 25")
    Traceback (most recent call last):
    ...
    puntobanco.errors.PuntoBancoError: --bet takes KIND=EUROS, e.g. banco=25 or lion-banco=10, not 'banco 25'.
    """
    kind_text, equals, amount_text = text.partition("=")
    if not equals or not kind_text.strip() or not amount_text.strip():
        raise PuntoBancoError(
            f"--bet takes KIND=EUROS, e.g. banco=25 or lion-banco=10, not {text!r}.",
            code="bad-bet-option")
    return BetKind.parse(kind_text), parse_euros(amount_text)


def parse_spot(options: Sequence[str], rules: RuleSet) -> dict[BetKind, int]:
    """Read every ``--bet`` of the spot and check them together (M1–M3, B4, L1, L3).

    >>> parse_spot(["lion-punto=10", "lion-banco=10"], RuleSet())
    Traceback (most recent call last):
    ...
    puntobanco.errors.BetRefused: A spot may back the Lion Bonus on Punto or on Banco, never both.
    """
    spot: dict[BetKind, int] = {}
    for option in options:
        kind, stake = parse_bet_option(option)
        if kind in spot:
            raise PuntoBancoError(f"The {kind.value} bet is given twice; give each bet once.",
                                  code="duplicate-bet")
        spot[kind] = stake
    verify_spot(spot, rules)
    return spot


def replay_coups(cards: Sequence[Card], spot: Mapping[BetKind, int],
                 rules: RuleSet) -> tuple[list[ReplayedCoup], tuple[Card, ...]]:
    """Deal consecutive coups from ``cards`` and settle ``spot`` on each.

    Returns the coups and the cards left over, too few for a whole coup.
    """
    coups: list[ReplayedCoup] = []
    position = 0
    while position < len(cards):
        try:
            coup = deal_coup(iter(cards[position:]), drawing=rules.drawing)
        except ShoeExhausted:
            break
        position += coup.cards_used
        coups.append(ReplayedCoup(len(coups) + 1, coup, settle_spot(spot, coup, rules)))
    return coups, tuple(cards[position:])


def read_cards(arguments: Sequence[str], cards_file: Path | None) -> list[Card]:
    """The cards from the arguments or from a file (``-`` is standard input), not both."""
    if arguments and cards_file is not None:
        raise PuntoBancoError("Give the cards as arguments or with --cards-file, not both.",
                              code="bad-cards")
    if cards_file is None:
        text = " ".join(arguments)
    elif str(cards_file) == "-":
        text = sys.stdin.read()
    else:
        try:
            text = cards_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or "not a UTF-8 text file"
            raise PuntoBancoError(f"Cannot read the cards file {str(cards_file)!r}: {reason}.",
                                  code="bad-cards-file") from None
    cards = parse_cards(text)
    if not cards:
        raise PuntoBancoError(
            "No cards given: list them in dealing order, e.g. 4H 2S 9S 3D 7C 5C, or use "
            "--cards-file.", code="no-cards")
    card, times = Counter(cards).most_common(1)[0]
    if times > MAX_DECKS:  # R1: no shoe holds more than eight of one card
        raise PuntoBancoError(f"{card} appears {times} times, but a shoe of 1 to {MAX_DECKS} decks "
                              f"holds at most {MAX_DECKS}.", code="bad-cards")
    return cards


def _leftover_sentence(leftover: Sequence[Card], lang: str = "en") -> str:
    """The cards too few for a whole coup, in a sentence (English for ``--json``'s stderr).

    >>> from puntobanco.cards import parse_cards
    >>> _leftover_sentence(parse_cards("3D 7C"), "it")
    'Avanzano 2 carte (3D 7C), troppo poche per un colpo intero.'
    """
    cards = " ".join(str(card) for card in leftover)
    return i18n.counted("leftover", len(leftover), lang, cards=cards)


def _coup_panel(replayed: ReplayedCoup, lang: str) -> Panel:
    coup = replayed.coup
    hands = Table(show_edge=False, pad_edge=False, box=None, padding=(0, 2))
    hands.add_column("")
    hands.add_column(i18n.phrase("col.cards", lang))
    hands.add_column(i18n.word("total", lang), justify="right")
    for side in (Side.PUNTO, Side.BANCO):
        hands.add_row(i18n.bet_name(side.value, lang), hand_text(coup.cards(side)),
                      str(coup.total(side)))
    result = result_text(coup, lang)
    result.append(f" · {i18n.phrase('margin', lang, n=coup.margin)}")
    parts: list[Table | Text] = [hands, result]
    if replayed.lines:
        parts.append(settlement_table(
            {"": replayed.lines}, bet_label=lambda kind: i18n.bet_name(kind.value, lang),
            lang=lang))
        net = Text(f"{i18n.phrase('coup_net', lang)} ")
        net.append_text(signed(replayed.net, lang))
        parts.append(net)
    return Panel(Group(*parts), title=f"{i18n.word('coup', lang)} {replayed.number}",
                 title_align="left", expand=False)


def _print_rich(console: Console, coups: Sequence[ReplayedCoup], leftover: Sequence[Card],
                spot: Mapping[BetKind, int], rules: RuleSet, lang: str) -> None:
    console.print(Text(rules_summary(rules, lang, decks=False), style="dim"))
    if spot:
        bets = " · ".join(f"{i18n.bet_name(kind.value, lang)} {i18n.money(spot[kind], lang)}"
                          for kind in PAYMENT_ORDER if kind in spot)
        console.print(Text(i18n.phrase("spot", lang, bets=bets), style="cyan"))
    for replayed in coups:
        console.print(_coup_panel(replayed, lang))
    summary = Table(title=i18n.phrase("summary", lang), title_justify="left", show_edge=False)
    summary.add_column(i18n.phrase("col.coups", lang), justify="right")
    summary.add_column(i18n.phrase("col.total_staked", lang), justify="right")
    summary.add_column(i18n.phrase("col.total_net", lang), justify="right")
    summary.add_row(str(len(coups)), i18n.money(sum(c.staked for c in coups), lang),
                    signed(sum(c.net for c in coups), lang))
    console.print(summary)
    if leftover:
        console.print(Text(_leftover_sentence(leftover, lang), style="yellow"))


@app.command()
@rule_options(shoe=False)
def replay(
    *,
    cards: Annotated[list[str] | None, typer.Argument(
        help="Cards in the order they leave the shoe, e.g. 4H 2S 9S 3D 7C 5C (commas allowed).",
        show_default=False)] = None,
    cards_file: Annotated[Path | None, typer.Option(
        "--cards-file", help="Read the cards from this file (whitespace or commas); - is stdin.",
        show_default=False)] = None,
    bet: Annotated[list[str] | None, typer.Option(
        "--bet", help="A bet of the spot as KIND=EUROS (punto, banco, egalite, lion-punto, "
        "lion-banco); repeat it, e.g. --bet banco=25 --bet lion-banco=10.",
        show_default=False)] = None,
    json_lines: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object per coup, one per line, amounts in cents.")] = False,
    limit: LimitOption = None,
    chip: ChipOption = None,
    rules: RuleOptions,
    lang: Annotated[str, typer.Option(
        "--lang", help="The table's words in the tables: fr, it, es or en.")] = i18n.DEFAULT_LANGUAGE,
) -> None:
    """Deal consecutive coups from a given card order and settle a spot's bets on each."""
    check_language(lang)
    ruleset = apply_limits(rules.ruleset(), limits=limit or (), chip=chip)
    spot = parse_spot(bet or [], ruleset)
    dealt = read_cards(cards or [], cards_file)
    coups, leftover = replay_coups(dealt, spot, ruleset)
    if json_lines:
        for replayed in coups:
            typer.echo(json.dumps(replayed.to_dict()))
        if leftover:
            typer.echo(f"puntobanco: {_leftover_sentence(leftover)}", err=True)
        return
    _print_rich(Console(highlight=False), coups, leftover, spot, ruleset, lang)
