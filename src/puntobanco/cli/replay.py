"""``puntobanco replay``: the dealer's settlement calculator.

Cards go in, in the order they leave the shoe (no burn, no cut card), or as the two final hands
(``--punto 4H 9S 7C --banco 2S 3D 5C``, checked against R3–R6); coups are dealt from them and
one spot's bets (``--bet``) or several named spots' (``--spot``) are settled on every coup
(B1–B3, L5), each spot's payment lines in L6 order, with the table's totals. The settlement
itself is the core's (:func:`puntobanco.bets.settle_spot`). Every sentence follows ``--lang``.

>>> from puntobanco.cards import parse_cards
>>> from puntobanco.rules import RuleSet, Side
>>> spot = parse_spot(["banco=25", "lion-banco=10"], RuleSet())
>>> coups, leftover = replay_coups(parse_cards("4H 2S 9S 3D 7C 5C 9C"), spot, RuleSet())
>>> [(c.coup.winner.value, [line.net for line in c.lines]) for c in coups], leftover
([('egalite', [0, -1000])], (Card('9C'),))
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from typer.core import TyperCommand

from puntobanco import i18n
from puntobanco.bets import (
    PAYMENT_ORDER,
    BetKind,
    SettlementLine,
    settle_spot,
    verify_spot,
)
from puntobanco.cards import MAX_DECKS, Card
from puntobanco.cli._app import app
from puntobanco.cli._dealer import coup_from_hands, parse_bet_text
from puntobanco.cli._felt import (
    check_language,
    hand_text,
    payout,
    result_text,
    rules_summary,
    settlement_table,
    signed,
)
from puntobanco.cli._paths import read_text
from puntobanco.cli._words import say
from puntobanco.cli.ruleopts import (
    ChipOption,
    LimitOption,
    RuleOptions,
    RulesFileError,
    apply_limits,
    parse_limit,
    rule_options,
)
from puntobanco.coup import Coup, deal_coup
from puntobanco.errors import PuntoBancoError, ShoeExhausted
from puntobanco.rules import RuleSet, Side

#: The name of the one spot that ``--bet`` describes.
ONE_SPOT = ""


@dataclass(frozen=True, slots=True)
class ReplayedCoup:
    """One dealt coup and every spot's settlement lines, each spot's in L6 order."""

    number: int
    coup: Coup
    spots: tuple[tuple[str, tuple[SettlementLine, ...]], ...]

    @property
    def lines(self) -> tuple[SettlementLine, ...]:
        """Every settlement line, spot after spot."""
        return tuple(line for _, lines in self.spots for line in lines)

    @property
    def staked(self) -> int:
        return sum(line.stake for line in self.lines)

    @property
    def net(self) -> int:
        """The players' net: what the house loses."""
        return sum(line.net for line in self.lines)

    @property
    def paid(self) -> int:
        """What the dealer hands back: stakes returned and winnings, on every line not lost."""
        return sum(payout(line) for line in self.lines)

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` line: ``coup``, the core's coup summary, and ``settlement``.

        With named spots (``--spot``), ``spots`` instead: each spot's name, lines, stake and
        net, and ``table``: the total staked, paid out and the house's result.
        """
        document: dict[str, object] = {"coup": self.number, **self.coup.to_dict()}
        if [name for name, _ in self.spots] in ([], [ONE_SPOT]):
            document["settlement"] = [line.to_dict() for line in self.lines]
            return document
        document["spots"] = [
            {"spot": name, "settlement": [line.to_dict() for line in lines],
             "staked": sum(line.stake for line in lines), "net": sum(line.net for line in lines),
             "payout": sum(payout(line) for line in lines)}
            for name, lines in self.spots]
        document["table"] = {"staked": self.staked, "paid": self.paid, "house": -self.net}
        return document


def localised(error: PuntoBancoError, lang: str, *, rules: RuleSet | None = None,
              kind: BetKind | None = None, typed: str = "") -> PuntoBancoError:
    """The error in the table's language, with the figures behind a refused bet (M2, M3, L3).

    The figures are the error's own facts, said by the one localiser (:func:`i18n.error_text`);
    English keeps the core's own sentence, which already names its figures. ``rules`` and
    ``kind`` are no longer needed (the refusal carries them) and kept for callers.
    """
    if lang == "en":
        return error
    if error.code == "bad-card":
        return PuntoBancoError(say("error.bad-card", lang, text=typed or error.text or ""),
                               code=error.code)
    text = i18n.error_text(error, lang)
    return error if text == error.message else PuntoBancoError(text, code=error.code)


def parse_bet_option(text: str, lang: str = "en") -> tuple[BetKind, int]:
    """Read one ``--bet KIND=EUROS``.

    >>> parse_bet_option("lion-banco=10")
    (<BetKind.LION_BANCO: 'lion-banco'>, 1000)
    >>> parse_bet_option("banco 25")
    Traceback (most recent call last):
    ...
    puntobanco.errors.PuntoBancoError: --bet takes KIND=EUROS, e.g. banco=25 or lion-banco=10, not 'banco 25'.
    """
    return parse_bet_text(text, option="--bet", lang=lang)


def _bet(text: str, *, option: str, lang: str) -> tuple[BetKind, int]:
    """One ``KIND=EUROS``, its mistakes in the table's language."""
    try:
        return parse_bet_text(text, option=option, lang=lang)
    except PuntoBancoError as error:
        kind_text, _, amount_text = text.partition("=")
        typed = (amount_text.strip() if error.code in ("bad-amount", "amount-too-large")
                 else kind_text.strip())
        raise localised(error, lang, typed=typed) from None


def check_spot(bets: Sequence[tuple[BetKind, int]], rules: RuleSet,
               lang: str = "en") -> dict[BetKind, int]:
    """One spot's bets checked together (M1–M3, B4, L1, L3), refusals in the table's language.

    >>> check_spot([(BetKind.LION_PUNTO, 1000), (BetKind.LION_BANCO, 1000)], RuleSet())
    Traceback (most recent call last):
    ...
    puntobanco.errors.BetRefused: A spot may back the Lion Bonus on Punto or on Banco, never both.
    """
    spot: dict[BetKind, int] = {}
    for kind, stake in bets:
        if kind in spot:
            sentence = (f"The {kind.value} bet is given twice; give each bet once." if lang == "en"
                        else say("error.duplicate-bet", lang, bet=i18n.bet_name(kind.value, lang)))
            raise PuntoBancoError(sentence, code="duplicate-bet")
        try:
            verify_spot({kind: stake}, rules)
        except PuntoBancoError as error:
            raise localised(error, lang, rules=rules, kind=kind) from None
        spot[kind] = stake
    try:
        verify_spot(spot, rules)
    except PuntoBancoError as error:
        raise localised(error, lang, rules=rules) from None
    return spot


def parse_spot(options: Sequence[str], rules: RuleSet, lang: str = "en") -> dict[BetKind, int]:
    """Read every ``--bet`` of the spot and check them together (M1–M3, B4, L1, L3)."""
    return check_spot([_bet(option, option="--bet", lang=lang) for option in options], rules, lang)


def parse_spots(options: Sequence[str], rules: RuleSet, lang: str) -> dict[str, dict[BetKind, int]]:
    """Read every ``--spot NAME:KIND=EUROS,…``; each named once, each checked on its own.

    >>> spots = parse_spots(["Ann:banco=25,lion-banco=10", "Bob:punto=100"], RuleSet(), "en")
    >>> {name: {kind.value: cents for kind, cents in bets.items()} for name, bets in spots.items()}
    {'Ann': {'banco': 2500, 'lion-banco': 1000}, 'Bob': {'punto': 10000}}
    """
    spots: dict[str, dict[BetKind, int]] = {}
    for option in options:
        name, colon, bets = option.partition(":")
        if not colon or not name.strip() or not bets.strip():
            raise PuntoBancoError(say("error.bad-spot", lang, text=option), code="bad-spot")
        name = name.strip()
        if any(name.casefold() == other.casefold() for other in spots):
            raise PuntoBancoError(say("error.spot-twice", lang, name=name), code="bad-spot")
        try:
            spots[name] = check_spot(
                [_bet(part, option="--spot", lang=lang) for part in _bet_texts(bets, lang)
                 if part.strip()], rules, lang)
        except PuntoBancoError as error:
            raise PuntoBancoError(say("error.of-spot", lang, name=name, sentence=error.message),
                                  code=error.code) from None
    return spots


def _bet_texts(bets: str, lang: str) -> list[str]:
    """A spot's ``KIND=EUROS,…`` cut at its commas; at a French, Italian or Spanish table a
    comma between two digits is the decimal comma.

    >>> _bet_texts("banco=10,50,lion-banco=10", "fr"), _bet_texts("banco=25,punto=10", "en")
    (['banco=10,50', 'lion-banco=10'], ['banco=25', 'punto=10'])
    """
    return re.split(r"(?<!\d),|,(?!\d)", bets) if lang != "en" else bets.split(",")


def settle_spots(spots: Mapping[str, Mapping[BetKind, int]], coup: Coup,
                 rules: RuleSet) -> tuple[tuple[str, tuple[SettlementLine, ...]], ...]:
    """Every spot settled on the coup, in the order given; each spot's lines in L6 order."""
    return tuple((name, settle_spot(bets, coup, rules)) for name, bets in spots.items())


def replay_coups(cards: Sequence[Card], spot: Mapping[BetKind, int] | Mapping[str, Mapping[
        BetKind, int]], rules: RuleSet) -> tuple[list[ReplayedCoup], tuple[Card, ...]]:
    """Deal consecutive coups from ``cards`` and settle the spot (or the named spots) on each.

    Returns the coups and the cards left over, too few for a whole coup.
    """
    spots = _as_spots(spot)
    coups: list[ReplayedCoup] = []
    position = 0
    while position < len(cards):
        try:
            coup = deal_coup(iter(cards[position:]), drawing=rules.drawing)
        except ShoeExhausted:
            break
        position += coup.cards_used
        coups.append(ReplayedCoup(len(coups) + 1, coup, settle_spots(spots, coup, rules)))
    return coups, tuple(cards[position:])


def _as_spots(spot: Mapping[Any, Any]) -> dict[str, Mapping[BetKind, int]]:
    if all(isinstance(key, BetKind) for key in spot):
        return {ONE_SPOT: spot} if spot else {}
    return dict(spot)


def parse_card_text(text: str, lang: str) -> list[Card]:
    """Cards separated by whitespace or commas; a bad one named in the table's language."""
    cards = []
    for token in re.split(r"[\s,]+", text):
        if token:
            try:
                cards.append(Card.parse(token))
            except PuntoBancoError as error:
                raise localised(error, lang, typed=token) from None
    return cards


def read_cards(arguments: Sequence[str], cards_file: Path | None, lang: str = "en") -> list[Card]:
    """The cards from the arguments or from a file (``-`` is standard input), not both."""
    if arguments and cards_file is not None:
        raise PuntoBancoError("Give the cards as arguments or with --cards-file, not both.",
                              code="bad-cards")
    if cards_file is None:
        text = " ".join(arguments)
    elif str(cards_file) == "-":
        text = sys.stdin.read()
    else:
        text = read_text(cards_file, what="the cards file")
    cards = parse_card_text(text, lang)
    if not cards:
        raise PuntoBancoError(say("error.no-cards", lang), code="no-cards")
    check_card_counts(cards, lang)
    return cards


def check_card_counts(cards: Sequence[Card], lang: str) -> None:
    """R1: no shoe of 1 to 8 decks holds more than eight of one card."""
    card, times = Counter(cards).most_common(1)[0]
    if times > MAX_DECKS:
        raise PuntoBancoError(say("error.too-many-of", lang, card=card, n=times),
                              code="bad-cards")


def _leftover_sentence(leftover: Sequence[Card], lang: str = "en") -> str:
    """The cards too few for a whole coup, in a sentence (English for ``--json``'s stderr).

    >>> from puntobanco.cards import parse_cards
    >>> _leftover_sentence(parse_cards("3D 7C"), "it")
    'Avanzano 2 carte (3D 7C), troppo poche per un colpo intero.'
    """
    cards = " ".join(str(card) for card in leftover)
    return i18n.counted("leftover", len(leftover), lang, cards=cards)


def table_rules(rules: RuleOptions, *, limit: Sequence[str], chip: str | None,
                lang: str) -> RuleSet:
    """The table's rules from its options; a refused option in the table's language.

    >>> table_rules(RuleOptions(tie_pays=7), limit=[], chip=None, lang="es")
    Traceback (most recent call last):
    ...
    puntobanco.errors.PuntoBancoError: El Empate paga 8:1 o 9:1 (B3), no 7:1.
    """
    try:
        ruleset = rules.ruleset()
    except PuntoBancoError as error:
        raise _option_error(error, rules, lang) from None
    for text in limit:
        try:
            parse_limit(text, lang)
        except PuntoBancoError as error:
            raise _localised_option(error, lang, "option.bad-limit", text) from None
    try:
        return apply_limits(ruleset, limits=limit, chip=chip, lang=lang)
    except PuntoBancoError as error:
        if error.code == "not-chip-multiple":  # said in lang already
            raise
        if error.code == "bad-limit":  # a box given twice
            raise _localised_option(error, lang, "option.bad-limit", " ".join(limit)) from None
        raise _localised_option(error, lang, "option.bad-chip", chip or "") from None


def _localised_option(error: PuntoBancoError, lang: str, key: str, value: str) -> PuntoBancoError:
    return error if lang == "en" else PuntoBancoError(say(key, lang, value=value), code=error.code)


def _option_error(error: PuntoBancoError, rules: RuleOptions, lang: str) -> PuntoBancoError:
    if lang == "en":
        return error
    by_code = {"bad-banco": ("option.bad-banco", rules.banco),
               "bad-commission": ("option.bad-commission", rules.commission),
               "bad-drawing": ("option.bad-drawing", rules.drawing),
               "option-not-applied": ("option.commission-only", rules.commission)}
    if isinstance(error, RulesFileError):
        key, value = "option.bad-rules-file", str(rules.rules_file)
    elif error.code in by_code:
        key, value = by_code[error.code]
    elif rules.tie_pays not in (8, 9):
        key, value = "option.bad-tie-pays", str(rules.tie_pays)
    elif rules.lion_paytable is not None:
        key, value = "option.bad-paytable", rules.lion_paytable
    else:
        return error
    return PuntoBancoError(say(key, lang, value=value), code=error.code)


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
    named = _named(replayed.spots)
    if replayed.lines:
        parts.append(settlement_table(
            {name: lines for name, lines in replayed.spots if lines},
            bet_label=lambda kind: i18n.bet_name(kind.value, lang), lang=lang,
            spot_header=say("col.spot", lang) if named else None,
            payout_header=say("col.payout", lang) if named else None))
        if named:
            parts.append(Text(say("table_line", lang, staked=i18n.money(replayed.staked, lang),
                                  paid=i18n.money(replayed.paid, lang),
                                  house=i18n.signed_money(-replayed.net, lang))))
        else:
            net = Text(f"{i18n.phrase('coup_net', lang)} ")
            net.append_text(signed(replayed.net, lang))
            parts.append(net)
    return Panel(Group(*parts), title=f"{i18n.word('coup', lang)} {replayed.number}",
                 title_align="left", expand=False)


def _named(spots: Sequence[tuple[str, object]]) -> bool:
    return any(name != ONE_SPOT for name, _ in spots)


def _bets_text(bets: Mapping[BetKind, int], lang: str) -> str:
    return " · ".join(f"{i18n.bet_name(kind.value, lang)} {i18n.money(bets[kind], lang)}"
                      for kind in PAYMENT_ORDER if kind in bets)


def _print_rich(console: Console, coups: Sequence[ReplayedCoup], leftover: Sequence[Card],
                spots: Mapping[str, Mapping[BetKind, int]], rules: RuleSet, lang: str) -> None:
    console.print(Text(rules_summary(rules, lang, decks=False), style="dim"))
    for name, bets in spots.items():
        shown = _bets_text(bets, lang)
        console.print(Text(i18n.phrase("spot", lang, bets=shown) if name == ONE_SPOT
                           else f"{name} · {shown}", style="cyan"))
    for replayed in coups:
        console.print(_coup_panel(replayed, lang))
    summary = Table(title=i18n.phrase("summary", lang), title_justify="left", show_edge=False)
    named = any(name != ONE_SPOT for name in spots)
    if named:
        summary.add_column(say("col.spot", lang))
    summary.add_column(i18n.phrase("col.coups", lang), justify="right")
    summary.add_column(i18n.phrase("col.total_staked", lang), justify="right")
    summary.add_column(i18n.phrase("col.total_net", lang), justify="right")
    if named:
        summary.add_column(say("col.paid", lang), justify="right")
        for name in spots:
            lines = [line for c in coups for spot, spot_lines in c.spots if spot == name
                     for line in spot_lines]
            summary.add_row(name, str(len(coups)), i18n.money(sum(x.stake for x in lines), lang),
                            signed(sum(x.net for x in lines), lang),
                            i18n.money(sum(payout(x) for x in lines), lang))
        summary.add_section()
        summary.add_row(say("table_total", lang), str(len(coups)),
                        i18n.money(sum(c.staked for c in coups), lang),
                        signed(sum(c.net for c in coups), lang),
                        i18n.money(sum(c.paid for c in coups), lang))
    else:
        summary.add_row(str(len(coups)), i18n.money(sum(c.staked for c in coups), lang),
                        signed(sum(c.net for c in coups), lang))
    console.print(summary)
    if named:
        house = -sum(c.net for c in coups)
        console.print(Text(f"{say('col.house', lang)} {i18n.signed_money(house, lang)}",
                           style="bold"))
    if leftover:
        console.print(Text(_leftover_sentence(leftover, lang), style="yellow"))


def _is_card(text: str) -> bool:
    try:
        Card.parse(text.split(",")[0])
    except PuntoBancoError:
        return False
    return True


class HandsCommand(TyperCommand):
    """``replay``'s parser: ``--punto 4H 9S 7C`` takes the cards that follow it, up to the next
    option, as one value (a hand is two or three cards, typed as the dealer reads them)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, group_hand_cards(args))


def group_hand_cards(args: Sequence[str]) -> list[str]:
    """Join the cards after ``--punto`` and ``--banco`` into one argument each.

    ``--banco`` followed by a card is Banco's hand (``--banco-hand``); followed by anything else
    (``commission``, ``no-commission``) it stays the table rule.

    >>> group_hand_cards(["--punto", "4H", "9S", "7C", "--banco", "2S", "3D", "--json"])
    ['--punto', '4H 9S 7C', '--banco-hand', '2S 3D', '--json']
    >>> group_hand_cards(["--banco", "commission", "4H"])
    ['--banco', 'commission', '4H']
    """
    grouped: list[str] = []
    index = 0
    while index < len(args):
        option = args[index]
        index += 1
        following = args[index] if index < len(args) else ""
        if option == "--banco" and not _is_card(following):
            grouped.append(option)
            continue
        if option not in ("--punto", "--banco", "--banco-hand"):
            grouped.append(option)
            continue
        grouped.append("--banco-hand" if option == "--banco" else option)
        cards = []
        while index < len(args) and not args[index].startswith("-"):
            cards.append(args[index])
            index += 1
        grouped.append(" ".join(cards))
    return grouped


@app.command(cls=HandsCommand)
@rule_options(shoe=False, rules_file=True)
def replay(
    *,
    cards: Annotated[list[str] | None, typer.Argument(
        help="Cards in the order they leave the shoe, e.g. 4H 2S 9S 3D 7C 5C (commas allowed).",
        show_default=False, metavar="CARDS")] = None,
    cards_file: Annotated[Path | None, typer.Option(
        "--cards-file", help="Read the cards from this file (whitespace or commas); - is stdin.",
        show_default=False)] = None,
    punto: Annotated[str | None, typer.Option(
        "--punto", help="The final hands instead of a card order: --punto 4H 9S 7C --banco 2S "
        "3D 5C (--banco followed by cards is Banco's hand); a hand the drawing rules could not "
        "have dealt is refused with the reason.", show_default=False, metavar="CARDS")] = None,
    banco_hand: Annotated[str | None, typer.Option(
        "--banco-hand", help="Banco's final hand (what --banco CARDS becomes).",
        show_default=False, metavar="CARDS", hidden=True)] = None,
    bet: Annotated[list[str] | None, typer.Option(
        "--bet", help="A bet of the spot as KIND=EUROS (punto, banco, egalite, lion-punto, "
        "lion-banco); repeat it, e.g. --bet banco=25 --bet lion-banco=10.",
        show_default=False, metavar="KIND=EUROS")] = None,
    spot: Annotated[list[str] | None, typer.Option(
        "--spot", help="A named spot and its bets, e.g. --spot Ann:banco=25,lion-banco=10 --spot "
        "Bob:punto=100; the table's totals and each spot's payouts follow (L6).",
        show_default=False, metavar="NAME:BETS")] = None,
    json_lines: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object per coup, one per line, amounts in cents.")] = False,
    limit: LimitOption = None,
    chip: ChipOption = None,
    rules: RuleOptions,
    lang: Annotated[str, typer.Option(
        "--lang", help="The table's words and errors: fr, it, es or en.")] = i18n.DEFAULT_LANGUAGE,
) -> None:
    """Settle a coup's bets: from the cards in dealing order, or from the final hands.

    Amounts are typed in euros (25, 12.50); ``--json`` gives them in cents.
    """
    check_language(lang)
    ruleset = table_rules(rules, limit=limit or [], chip=chip, lang=lang)
    if bet and spot:
        raise PuntoBancoError(say("error.bet-and-spot", lang), code="bad-spot")
    spots: dict[str, Mapping[BetKind, int]] = (
        dict(parse_spots(spot, ruleset, lang)) if spot
        else _as_spots(parse_spot(bet or [], ruleset, lang)))
    if punto is not None or banco_hand is not None:
        if cards or cards_file is not None:
            raise PuntoBancoError(say("hand.or_order", lang), code="bad-cards")
        if punto is None or banco_hand is None:
            raise PuntoBancoError(say("hand.both", lang), code="bad-cards")
        punto_cards, banco_cards = parse_card_text(punto, lang), parse_card_text(banco_hand, lang)
        check_card_counts(punto_cards + banco_cards, lang)
        coup = coup_from_hands(punto_cards, banco_cards, lang=lang, drawing=ruleset.drawing)
        coups = [ReplayedCoup(1, coup, settle_spots(spots, coup, ruleset))]
        leftover: tuple[Card, ...] = ()
    else:
        coups, leftover = replay_coups(read_cards(cards or [], cards_file, lang), spots, ruleset)
    if json_lines:
        for replayed in coups:
            typer.echo(json.dumps(replayed.to_dict()))
        if leftover:
            typer.echo(f"puntobanco: {_leftover_sentence(leftover, lang)}", err=True)
        return
    _print_rich(Console(highlight=False), coups, leftover, spots, ruleset, lang)
