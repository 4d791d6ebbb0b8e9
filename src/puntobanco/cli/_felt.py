"""How the terminal shows the game: card glyphs, hands on the felt, payouts, bead plate, shoe.

Presentation only: every total, result and payout shown here comes from the rules core
(:mod:`puntobanco.rules`, :mod:`puntobanco.coup`, :mod:`puntobanco.bets`).

>>> from puntobanco.cards import Card
>>> card_label(Card.parse("10h")), card_label(Card.parse("As"))
('10♥', 'A♠')
>>> str(signed(125000, "fr")), str(signed(-1250, "en"))
('+1 250,00 €', '-€12.50')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from puntobanco import i18n
from puntobanco.bets import BetKind, Outcome, Reason, SettlementLine, limits_for, pays_text
from puntobanco.cards import Card, Rank, Suit
from puntobanco.coup import Coup
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import LOSES, BancoPayout, Pay, RuleSet, Side, hand_total, pay_ratio

T = TypeVar("T")

SUIT_GLYPH: Mapping[Suit, str] = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦",
                                  Suit.CLUBS: "♣"}
FELT = "white on #0b5d2a"
FELT_BORDER = "#d4af37"
SIDE_STYLE: Mapping[Side, str] = {Side.PUNTO: "bold white on blue", Side.BANCO: "bold white on red",
                                  Side.EGALITE: "bold black on green"}
OUTCOME_STYLE: Mapping[Outcome, str] = {Outcome.WIN: "bold green", Outcome.LOSE: "red",
                                        Outcome.PUSH: "yellow"}
#: Rows of the bead plate: results fill a column top to bottom, columns run left to right.
BEAD_ROWS = 6


def card_label(card: Card) -> str:
    """A card as a rank and a suit glyph, ``10♥``, ``K♣``."""
    rank = "10" if card.rank is Rank.TEN else card.rank.value
    return f"{rank}{SUIT_GLYPH[card.suit]}"


def card_text(card: Card) -> Text:
    """A card as a small white face, red for hearts and diamonds."""
    red = card.suit in (Suit.HEARTS, Suit.DIAMONDS)
    return Text(f"{card_label(card):>3}", style="bold red on white" if red else "bold black on white")


def hand_text(cards: Sequence[Card]) -> Text:
    """A hand's cards in the order dealt; a third card stands apart after a bar."""
    text = Text()
    for index, card in enumerate(cards):
        if index:
            text.append(" │ " if index == 2 else " ")
        text.append_text(card_text(card))
    return text


def signed(cents: int, lang: str) -> Text:
    """A net amount with its sign, in the table's language, green for a gain, red for a loss."""
    style = "bold green" if cents > 0 else "red" if cents < 0 else "yellow"
    return Text(i18n.signed_money(cents, lang), style=style)


def side_name(side: Side, lang: str) -> str:
    """Punto, Banco or the tie, in the table's language."""
    return i18n.bet_name(side.value, lang)


def side_letter(side: Side, lang: str) -> str:
    """The bead-plate letter of a result: P, B, and E (T in English) for the tie.

    >>> side_letter(Side.EGALITE, "fr"), side_letter(Side.EGALITE, "en"), side_letter(Side.BANCO, "es")
    ('E', 'T', 'B')
    """
    return side_name(side, lang)[0].replace("É", "E")


def result_text(coup: Coup, lang: str) -> Text:
    """``Banco gagne · 7–5 · Abattage``: the winner, the totals, and a natural when there is one.

    The winner stands on its colour, one space either side, and the words follow it:

    >>> from puntobanco.cards import parse_cards
    >>> from puntobanco.coup import deal_coup
    >>> str(result_text(deal_coup(iter(parse_cards("9H 3S KD 3D"))), "fr"))
    ' Punto gagne · 9–6 · Abattage'
    """
    text = Text()
    winner = coup.winner
    text.append(f" {side_name(winner, lang)} ", style=SIDE_STYLE[winner])
    if winner is not Side.EGALITE:
        text.append(f"{i18n.word('wins', lang)} ")
    text.append(f"· {coup.punto_total}–{coup.banco_total}")
    if coup.natural:
        text.append(" · ")
        text.append(i18n.word("natural", lang), style="bold yellow")
    return text


def hands_grid(punto: Sequence[Card], banco: Sequence[Card], lang: str) -> Table:
    """Both hands with their running totals (R2), Punto above Banco."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(min_width=10)
    grid.add_column(min_width=16)
    grid.add_column(justify="right")
    for side, cards in ((Side.PUNTO, punto), (Side.BANCO, banco)):
        total = str(hand_total(c.value for c in cards)) if cards else ""
        grid.add_row(Text(side_name(side, lang).upper(), style="bold"), hand_text(cards),
                     Text(total, style="bold"))
    return grid


def felt_panel(punto: Sequence[Card], banco: Sequence[Card], *, lang: str, title: str,
               coup: Coup | None = None) -> Panel:
    """The hands on the green felt; with the finished ``coup``, its result underneath."""
    body: list[RenderableType] = [hands_grid(punto, banco, lang)]
    if coup is not None:
        body.extend([Text(""), result_text(coup, lang)])
    return Panel(Group(*body), title=title, title_align="left", style=FELT,
                 border_style=FELT_BORDER, padding=(0, 2), expand=False)


def payout(line: SettlementLine) -> int:
    """What the dealer hands over on a line: nothing on a loss, else the stake and its winnings.

    >>> from fractions import Fraction
    >>> payout(SettlementLine(BetKind.BANCO, 2500, Outcome.WIN, 1250, Fraction(1, 2),
    ...                       Reason.WIN_WITH_6))
    3750
    """
    return 0 if line.outcome is Outcome.LOSE else line.stake + line.net


def settlement_table(lines: Mapping[str, Sequence[SettlementLine]], *,
                     bet_label: Callable[[BetKind], str], title: str | None = None,
                     spot_header: str | None = None, lang: str = "en",
                     payout_header: str | None = None) -> Table:
    """Every spot's settlement lines in the order given (L6: main bets, then the Lion Bonus).

    The odds show only on a win: a loss and a push both show ``—`` beside their result. With
    ``payout_header``, a last column gives what the dealer hands over on each line.
    """
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    if spot_header is not None:
        table.add_column(spot_header)
    table.add_column(i18n.phrase("col.bet", lang))
    table.add_column(i18n.word("stake", lang), justify="right")
    table.add_column(i18n.phrase("col.pays", lang), justify="right")
    table.add_column(i18n.word("result", lang))
    table.add_column(i18n.phrase("col.net", lang), justify="right")
    if payout_header is not None:
        table.add_column(payout_header, justify="right")
    for spot, spot_lines in lines.items():
        for index, line in enumerate(spot_lines):
            outcome = Text(i18n.word(line.outcome.value, lang), style=OUTCOME_STYLE[line.outcome])
            if line.reason not in (Reason.WIN, Reason.LOSE):
                outcome.append(f" ({reason_text(line.reason, lang)})", style="dim")
            cells: list[RenderableType] = []
            if spot_header is not None:
                cells.append(spot if index == 0 else "")
            pays = odds_text(line, lang) if line.outcome is Outcome.WIN else "—"
            cells.extend([bet_label(line.bet), i18n.money(line.stake, lang), pays, outcome,
                          signed(line.net, lang)])
            if payout_header is not None:
                cells.append(i18n.money(payout(line), lang))
            table.add_row(*cells)
    return table


def reason_text(reason: Reason, lang: str) -> str:
    """Why a settlement line paid what it did, in the table's language.

    >>> reason_text(Reason.WIN_BY_7, "it"), reason_text(Reason.WIN_WITH_6, "fr")
    ('scarto di 7', 'Banco avec 6')
    >>> reason_text(Reason.EGALITE, "es"), reason_text(Reason.NATURAL_TIE, "en")
    ('Empate', 'natural tie')
    """
    if reason.margin is not None:
        return i18n.phrase("detail.win-by", lang, n=reason.margin)
    if reason is Reason.EGALITE:
        return i18n.bet_name("egalite", lang)
    if reason in (Reason.WIN, Reason.LOSE):
        return i18n.word(reason.value, lang)
    return i18n.phrase(f"detail.{reason.value}", lang, banco=i18n.bet_name("banco", lang))


def odds_text(line: SettlementLine, lang: str) -> str:
    """The odds paid (``8:1``), a commission in words and per cent; ``—`` for nothing paid.

    >>> from puntobanco.cards import parse_cards
    >>> from puntobanco.coup import deal_coup
    >>> from puntobanco.bets import settle_bet
    >>> coup = deal_coup(iter(parse_cards("KH 7S 6D KD")))       # Banco 7 beats Punto 6
    >>> rules = RuleSet(banco_payout=BancoPayout.COMMISSION)
    >>> odds_text(settle_bet(BetKind.BANCO, 1000, coup, rules), "fr")
    '1:1 moins 5 %'
    >>> odds_text(settle_bet(BetKind.PUNTO, 1000, coup, rules), "it")
    '—'
    """
    commission = line.commission
    if commission is not None:
        return i18n.phrase("pays.less", lang, pays="1:1",
                           percent=i18n.percent(float(commission) * 100, lang))
    return pays_text(line) or "—"


def bead_columns(results: Sequence[T], *, rows: int = BEAD_ROWS) -> list[list[T]]:
    """Cut the results into bead-plate columns of ``rows``, filled top to bottom.

    >>> bead_columns("PBBPEBPB", rows=6)
    [['P', 'B', 'B', 'P', 'E', 'B'], ['P', 'B']]
    """
    return [list(results[start:start + rows]) for start in range(0, len(results), rows)]


def bead_plate(results: Sequence[Side], *, lang: str, min_columns: int = 12,
               max_columns: int = 30) -> Panel:
    """The shoe's results so far: rows of six, columns left to right, P/B/E in colour.

    The plate shows at least ``min_columns`` columns, and only the last ``max_columns`` of a
    long shoe.
    """
    columns = bead_columns(results)[-max_columns:]
    columns += [[] for _ in range(min_columns - len(columns))]
    lines = []
    for row in range(BEAD_ROWS):
        line = Text()
        for column in columns:
            if row < len(column):
                side = column[row]
                line.append(side_letter(side, lang), style=SIDE_STYLE[side])
            else:
                line.append("·", style="dim")
            line.append(" ")
        lines.append(line)
    counts = "  ".join(f"{side_letter(side, lang)} {sum(1 for r in results if r is side)}"
                       for side in Side)
    return Panel(Group(*lines), title=f"{i18n.word('result', lang)} · {counts}", title_align="left",
                 border_style="green", expand=False)


def shoe_bar(*, position: int, total: int, cut_index: int, width: int = 24) -> Text:
    """The shoe as a bar: dealt cards full, cards left light, the cut card as ``✂``.

    >>> str(shoe_bar(position=3, total=12, cut_index=9, width=12))
    '███░░░░░░✂░░'
    """
    bar = Text()
    cut_cell = min(width - 1, cut_index * width // total) if total else 0
    for cell in range(width):
        if cell == cut_cell:
            bar.append("✂", style="bold yellow")
        elif cell < position * width // max(total, 1):
            bar.append("█", style="green")
        else:
            bar.append("░", style="dim green")
    return bar


def shoe_progress(*, shoe_no: int, position: int, total: int, cut_index: int, cards_left: int,
                  cut_card_out: bool, last_coup: bool, lang: str) -> Text:
    """``Sabot 1 ███░░✂░ Cartes restantes 231 · Carte de coupe → 217`` and the S3 state."""
    text = Text(f"{i18n.word('shoe', lang)} {shoe_no} ")
    text.append_text(shoe_bar(position=position, total=total, cut_index=cut_index))
    text.append(f" {i18n.word('cards_left', lang)} {cards_left} · {i18n.word('cut_card', lang)} ")
    if cut_card_out:
        text.append("✂", style="bold yellow")
    else:
        text.append(f"→ {max(cut_index - position, 0)}")
    if last_coup:
        text.append(" · ")
        text.append(i18n.word("last_coup", lang).upper(), style="bold yellow")
    return text


class PartsLine:
    """Short texts joined by `` · `` on one line, wrapped between them, never inside one.

    >>> console = Console(width=24, color_system=None)
    >>> with console.capture() as capture:
    ...     console.print(PartsLine("Limits: ", ["Tie €10–1,000", "Lion Bonus €10–50", "chip €1"]))
    >>> print(capture.get().rstrip())
    Limits: Tie €10–1,000 ·
      Lion Bonus €10–50 ·
      chip €1
    """

    def __init__(self, lead: str, parts: Sequence[str], *, style: str = "") -> None:
        self.lead, self.parts, self.style = lead, list(parts), style

    def __str__(self) -> str:
        return self.lead + " · ".join(self.parts)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = [self.lead]
        for index, part in enumerate(self.parts):
            joined = f"{lines[-1]}{' · ' if index else ''}{part}"
            if index and cell_len(joined) > options.max_width:
                lines[-1] += " ·"
                lines.append(f"  {part}")
            else:
                lines[-1] = joined
        yield Text("\n".join(lines), style=self.style)


def limits_text(rules: RuleSet, lang: str) -> PartsLine:
    """The stake limits of every box (M2, L3) and the chip unit (M1).

    >>> str(limits_text(RuleSet(), "fr"))
    'Limites : Punto/Banco 10–5 000 € · Égalité 10–1 000 € · Lion Bonus 10–50 € · jeton 1 €'
    """
    parts = []
    for kinds in ((BetKind.PUNTO, BetKind.BANCO), (BetKind.EGALITE,), (BetKind.LION_PUNTO,)):
        limits = limits_for(kinds[0], rules)
        names = "Lion Bonus" if kinds[0].is_lion else "/".join(
            i18n.bet_name(kind.value, lang) for kind in kinds)
        parts.append(f"{names} {i18n.money_range(limits.minimum, limits.maximum, lang)}")
    parts.append(i18n.phrase("chip", lang, amount=i18n.money(rules.chip_unit, lang, short=True)))
    return PartsLine(i18n.word("limits", lang) + i18n.COLON[i18n.language(lang)], parts,
                     style="cyan")


def pay_odds(pay: Pay, lang: str) -> str:
    """A pay as the table shows it: ``8:1``, ``17:2``, ``1:2``, or returned / loses in words.

    >>> from fractions import Fraction
    >>> [pay_odds(p, "fr") for p in (8, Fraction(17, 2), Fraction(1, 2), 0, -1)]
    ['8:1', '17:2', '1:2', 'rendu', 'perdant']
    """
    if pay == LOSES:
        return i18n.phrase("pay.loses", lang)
    if pay == 0:
        return i18n.phrase("pay.push", lang)
    return pay_ratio(pay)


def banco_reduced_text(rules: RuleSet, lang: str) -> str:
    """The Banco wins paid other than 1:1 (B2), highest total first: ``1:2 on 6``.

    >>> from fractions import Fraction
    >>> banco_reduced_text(RuleSet(banco_reduced_pays=((6, Fraction(1, 2)), (5, Fraction(3, 4)))),
    ...                    "en")
    '1:2 on 6, 3:4 on 5'
    """
    return ", ".join(i18n.phrase("banco.reduced_item", lang, pay=pay_odds(pay, lang), total=total)
                     for total, pay in sorted(rules.banco_reduced_pays, reverse=True))


def lion_paytable_text(rules: RuleSet, lang: str) -> str:
    """The Lion Bonus pays for margins 9 to 4 (L5c): whole pays as numbers, others as odds.

    >>> from fractions import Fraction
    >>> lion_paytable_text(RuleSet(), "en")
    '20-8-4-4-2-1'
    >>> lion_paytable_text(RuleSet(lion_paytable=(25, 10, Fraction(11, 2), 4, 2, -1)), "it")
    '25-10-11:2-4-2-perdente'
    """
    return "-".join(str(pay) if isinstance(pay, int) and pay > 0 else pay_odds(pay, lang)
                    for pay in rules.lion_paytable)


def rules_summary(rules: RuleSet, lang: str, *, decks: bool = True) -> str:
    """One line of the settings that change what is paid (B2, B3, L5, R6), and the decks (R1).

    A Lion Bonus natural's pay (L5a) and a natural tie's (L5b) are named where they differ from
    1:1 and returned, as on a designed table (``--rules-file``).

    >>> rules_summary(RuleSet(), "fr")
    'Banco 1:1 (1:2 avec 6) · Égalité 8:1 · Lion Bonus 20-8-4-4-2-1 · tableau de tirage standard · 6 jeux'
    >>> rules_summary(RuleSet(), "en", decks=False)
    'Banker 1:1 (1:2 on 6) · Tie 8:1 · Lion Bonus 20-8-4-4-2-1 · standard drawing'
    >>> from fractions import Fraction
    >>> rules_summary(RuleSet(tie_pays=Fraction(17, 2), lion_natural_pays=Fraction(3, 2),
    ...                       lion_natural_tie_pays=-1), "en", decks=False).split(" · ")[1:3]
    ['Tie 17:2', 'Lion Bonus 20-8-4-4-2-1, natural 3:2, natural tie loses']
    """
    banco = i18n.bet_name("banco", lang)
    if rules.banco_payout is BancoPayout.COMMISSION:
        banco_pays = i18n.phrase("banco.commission", lang, banco=banco,
                                 percent=i18n.percent(float(rules.commission) * 100, lang))
    elif rules.banco_reduced_pays:
        banco_pays = f"{banco} 1:1 ({banco_reduced_text(rules, lang)})"
    else:
        banco_pays = f"{banco} 1:1"
    lion = f"Lion Bonus {lion_paytable_text(rules, lang)}"
    if rules.lion_natural_pays != 1:
        lion += (f", {i18n.phrase('detail.natural-win', lang)} "
                 f"{pay_odds(rules.lion_natural_pays, lang)}")
    if rules.lion_natural_tie_pays != 0:
        lion += (f", {i18n.phrase('detail.natural-tie', lang)} "
                 f"{pay_odds(rules.lion_natural_tie_pays, lang)}")
    summary = (f"{banco_pays} · {i18n.bet_name('egalite', lang)} {pay_odds(rules.tie_pays, lang)}"
               f" · {lion} · {i18n.phrase(f'drawing.{rules.drawing.value}', lang)}")
    return f"{summary} · {i18n.counted('decks', rules.decks, lang)}" if decks else summary


def check_language(lang: str) -> None:
    """Refuse a language the table does not speak.

    >>> check_language("de")
    Traceback (most recent call last):
    ...
    puntobanco.errors.PuntoBancoError: 'de' is not a table language: choose fr, it, es or en.
    """
    if lang not in i18n.LANGUAGES:
        raise PuntoBancoError(f"{lang!r} is not a table language: choose fr, it, es or en.",
                              code="bad-lang")


def total_staked(lines: Iterable[SettlementLine]) -> int:
    """The sum of the stakes of some settlement lines."""
    return sum(line.stake for line in lines)
