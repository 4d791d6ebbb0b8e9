"""``puntobanco play``: Punto Banco 2000 with the Lion Bonus at a terminal table.

The game drives a :class:`~puntobanco.table.Table` round by round: open, each seat's bets
(validated by ``Table.verify_bet`` against the seat's balance, M3), no more bets (L4), the cards
revealed one by one from the table's events, settlement in L6 order, balances, the shoe's bead
plate and progress (S3). Nothing here knows a rule: totals, draws and payouts are the core's.

A seat types its bets on one line (``banco 25 lb 10``; ``banco 10,50`` at a French, Italian
or Spanish table), ``=`` for the same bets as its last coup, an empty line to pass, ``q`` to
leave the table (the others play on), ``?`` for help.

>>> [(kind.value, cents) for kind, cents in parse_bet_line("banco 25 lb 10")]
[('banco', 2500), ('lion-banco', 1000)]
>>> [(kind.value, cents) for kind, cents in parse_bet_line("banco 10,50; lb 10", "fr")]
[('banco', 1050), ('lion-banco', 1000)]
"""

from __future__ import annotations

import random
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated, TextIO

import typer
from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table as RichTable
from rich.text import Text

from puntobanco import i18n
from puntobanco.bets import BetKind, limits_for
from puntobanco.cards import Card
from puntobanco.cli._amounts import parse_amount
from puntobanco.cli._app import app
from puntobanco.cli._felt import (
    FELT_BORDER,
    banco_reduced_text,
    bead_plate,
    card_label,
    check_language,
    felt_panel,
    limits_text,
    lion_paytable_text,
    pay_odds,
    rules_summary,
    settlement_table,
    shoe_progress,
    signed,
)
from puntobanco.cli._words import say
from puntobanco.cli.replay import table_rules
from puntobanco.cli.ruleopts import ChipOption, LimitOption, RuleOptions, rule_options
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import HALF_ON_SIX, LOSES, BancoPayout, RuleSet, Side
from puntobanco.table import CardDealt, Event, RoundSettled, ShoeStarted, Table

#: Seconds between two cards when the game is animated; a third card waits a little longer.
CARD_PAUSE = 0.6
MAX_SEATS = 14
QUIT_WORDS = frozenset({"q", "quit", "exit"})
HELP_WORDS = frozenset({"?", "h", "help"})
#: "The same bets as my last coup", in any table language.
AGAIN_WORDS = frozenset({"=", "r", "again", "same", "idem", "encore", "ancora", "otra"})
SHORT_BETS: dict[str, BetKind] = {"p": BetKind.PUNTO, "b": BetKind.BANCO, "e": BetKind.EGALITE,
                                  "t": BetKind.EGALITE, "lp": BetKind.LION_PUNTO,
                                  "lb": BetKind.LION_BANCO}


def help_text(rules: RuleSet, lang: str) -> str:
    """How to bet, with this table's pays and Lion Bonus limits, in its language (Rich markup).

    >>> help_text(RuleSet(), "it").splitlines()[5]
    'Egalité paga 8:1 (B3); Punto e Banco vengono restituiti.'
    """
    punto, banco, egalite = (i18n.bet_name(kind.value, lang)
                             for kind in (BetKind.PUNTO, BetKind.BANCO, BetKind.EGALITE))
    lion = rules.lion_limits
    if rules.banco_payout is BancoPayout.COMMISSION:
        banco_pays = i18n.phrase("help.banco_commission", lang, banco=banco,
                                 percent=i18n.percent(float(rules.commission) * 100, lang))
    elif rules.banco_reduced_pays == HALF_ON_SIX:
        banco_pays = i18n.phrase("help.banco_half_on_six", lang, banco=banco)
    elif rules.banco_reduced_pays:
        banco_pays = i18n.phrase("help.banco_reduced", lang, banco=banco,
                                 pays=banco_reduced_text(rules, lang))
    else:
        banco_pays = i18n.phrase("help.banco_even", lang, banco=banco)
    natural_tie = rules.lion_natural_tie_pays
    tie_key = "push" if natural_tie == 0 else "loses" if natural_tie == LOSES else "pays"
    return i18n.phrase(
        "help.body", lang, punto=punto, banco=banco, egalite=egalite, banco_pays=banco_pays,
        tie=pay_odds(rules.tie_pays, lang),
        lion=i18n.money_range(lion.minimum, lion.maximum, lang),
        natural=pay_odds(rules.lion_natural_pays, lang),
        natural_tie=i18n.phrase(f"help.natural_tie.{tie_key}", lang,
                                pays=pay_odds(natural_tie, lang)),
        paytable=lion_paytable_text(rules, lang))


def table_minimum(rules: RuleSet) -> int:
    """The smallest stake any box takes (M2, L3): a seat with less cannot bet.

    >>> table_minimum(RuleSet())
    1000
    """
    return min(limits_for(kind, rules).minimum for kind in BetKind)


def parse_bet_kind(text: str) -> BetKind:
    """A bet name, in any table language, or its short form (``p b e t lp lb``)."""
    return SHORT_BETS.get(text.strip().lower()) or BetKind.parse(text)


def parse_bet_line(text: str, lang: str = "en") -> list[tuple[BetKind, int]]:
    """Read a seat's bets: pairs of a bet and an amount in euros (``banco 25 lion-banco 10``).

    ``=``, ``;`` and commas may separate them too (``banco=25, lb=10``); a comma between two
    digits is the decimal comma at a French, Italian or Spanish table.

    >>> parse_bet_line("tie 12,5")
    Traceback (most recent call last):
    ...
    puntobanco.errors.PuntoBancoError: Give each bet as a name and an amount, e.g. banco 25 lion-banco 10.
    """
    return [(parse_bet_kind(name), parse_amount(amount, lang))
            for name, amount in bet_pairs(text, lang)]


def bet_pairs(text: str, lang: str = "en") -> list[tuple[str, str]]:
    """A seat's line cut into (bet, amount) texts, not yet read.

    >>> bet_pairs("banco=25, lb 10")
    [('banco', '25'), ('lb', '10')]
    >>> bet_pairs("banco 10,50, lb 1.000", "it")
    [('banco', '10,50'), ('lb', '1.000')]
    >>> bet_pairs("banco 1,000, lb 10", "en")
    [('banco', '1,000'), ('lb', '10')]
    """
    keep = r"(?<=\d),(?=\d)" if lang != "en" else r"(?<=\d),(?=\d{3}(?!\d))"
    marked = re.sub(keep, "\x00", text.strip())
    tokens = [token.replace("\x00", ",") for token in re.split(r"[\s,=;]+", marked) if token]
    if not tokens or len(tokens) % 2:
        raise PuntoBancoError("Give each bet as a name and an amount, e.g. banco 25 lion-banco 10.",
                              code="bad-bet-line")
    return [(tokens[i], tokens[i + 1]) for i in range(0, len(tokens), 2)]


def seat_names(*, seats: int | None, players: Sequence[str], lang: str) -> tuple[str, ...]:
    """The seats' names: the players given, or ``Place 1``, ``Place 2`` … (``--seats``).

    >>> seat_names(seats=2, players=[], lang="en")
    ('Seat 1', 'Seat 2')
    """
    names = tuple(name.strip() for name in players)
    if names:
        if seats is not None and seats != len(names):
            raise PuntoBancoError(say("error.seats-names", lang, seats=seats, n=len(names)),
                                  code="bad-seats")
        if any(not name for name in names):
            raise PuntoBancoError(say("error.empty-name", lang), code="bad-seats")
        if len({name.casefold() for name in names}) != len(names):
            raise PuntoBancoError(say("error.same-name", lang), code="bad-seats")
    else:
        count = 1 if seats is None else seats
        if not 1 <= count <= MAX_SEATS:  # the number typed, before any seat is named
            raise PuntoBancoError(say("error.seats-range", lang, most=MAX_SEATS, n=count),
                                  code="bad-seats")
        names = tuple(f"{i18n.word('seat', lang)} {n}" for n in range(1, count + 1))
    if not 1 <= len(names) <= MAX_SEATS:
        raise PuntoBancoError(say("error.seats-range", lang, most=MAX_SEATS, n=len(names)),
                              code="bad-seats")
    return names


@dataclass(frozen=True, kw_only=True, slots=True)
class GameSettings:
    """Everything a game needs to start: seats, bankroll, rules, words, and its pace."""

    players: tuple[str, ...]
    bankroll: int  # cents, each seat
    rules: RuleSet = field(default_factory=RuleSet)
    lang: str = i18n.DEFAULT_LANGUAGE
    seed: int | None = None  # None: the secure shuffle (S1)
    coups: int | None = None  # stop after this many coups
    pause: float = 0.0  # seconds between cards; 0 deals at once


@dataclass
class Seat:
    """A player's place at the table and money, in cents."""

    name: str
    start: int
    balance: int
    #: coups on which the seat's bets were dealt and settled
    coups_bet: int = 0
    #: the seat typed ``q``: it has left the table
    left: bool = False
    #: the bets of the seat's last coup, for "the same again" (``=``)
    last_bets: dict[BetKind, int] = field(default_factory=dict)

    @property
    def net(self) -> int:
        return self.balance - self.start


class TerminalGame:
    """One game at a terminal: ``read_line(prompt)`` reads a seat's input (``EOFError`` quits)."""

    def __init__(self, settings: GameSettings, *, console: Console,
                 read_line: Callable[[str], str]) -> None:
        self.settings = settings
        self.lang = settings.lang
        self.console = console
        self.read_line = read_line
        rng = None if settings.seed is None else random.Random(settings.seed)
        self.table = Table(settings.rules, rng=rng)
        self.table.subscribe(self._on_event)
        self.seats = [Seat(name, settings.bankroll, settings.bankroll) for name in settings.players]
        #: this shoe's results, for the bead plate
        self.results: list[Side] = []
        self.coups_played = 0
        self._hands: dict[Side, list[Card]] = {Side.PUNTO: [], Side.BANCO: []}
        self._live: Live | None = None
        self._minimum = table_minimum(settings.rules)

    # --- the game ------------------------------------------------------------------------------

    def run(self) -> list[Seat]:
        """Play until a seat quits, every seat is broke, or the number of coups is reached."""
        self._welcome()
        reason = "end.quit"
        try:
            while True:
                if self.settings.coups is not None and self.coups_played >= self.settings.coups:
                    reason = "end.coups"
                    break
                if all(seat.left or self._broke(seat) for seat in self.seats):
                    reason = ("end.broke" if any(not seat.left for seat in self.seats)
                              else "end.quit")
                    break
                self._play_coup()
        except (EOFError, KeyboardInterrupt):
            reason = "end.quit"
            self._return_open_bets()
        self._goodbye(i18n.phrase(reason, self.lang))
        return self.seats

    def _play_coup(self) -> None:
        """One round: the seats still at the table bet, then it is dealt and settled."""
        opened = self.table.open_round()
        shoe = self.table.shoe
        assert shoe is not None
        lang = self.lang
        title = (f"{i18n.word('coup', lang)} {opened.round_no} · {i18n.word('shoe', lang)} "
                 f"{opened.shoe_no}, {i18n.word('coup', lang).lower()} {opened.coup_in_shoe}")
        self.console.print()
        self.console.print(Rule(title, style=FELT_BORDER))
        if opened.last_coup:
            self.console.print(Text(f"✂ {i18n.word('last_coup', lang)}", style="bold yellow"))
        self.console.print(Text(i18n.word("place_bets", lang), style="bold"))
        self.console.print(limits_text(self.settings.rules, lang))
        for seat in self.seats:
            if seat.left:
                continue
            if self._broke(seat):
                self.console.print(Text(i18n.phrase(
                    "seat.out", lang, seat=seat.name, balance=i18n.money(seat.balance, lang)),
                    style="dim"))
                continue
            self._take_bets(seat)
        if all(seat.left or self._broke(seat) for seat in self.seats):
            return  # the last seat has just left: no coup is dealt for an empty table
        self.table.close_bets()
        self.console.print(Text(i18n.word("no_more_bets", lang), style="bold italic"))
        self._deal()
        settled = self.table.settle()
        self._pay(settled)
        self.coups_played += 1
        coup = self.table.coup
        assert coup is not None
        self.results.append(coup.winner)
        self.console.print(bead_plate(self.results, lang=lang))
        self.console.print(shoe_progress(
            shoe_no=self.table.shoe_no, position=shoe.position, total=len(shoe.order),
            cut_index=shoe.cut_index, cards_left=shoe.cards_left, cut_card_out=shoe.cut_card_out,
            last_coup=shoe.is_last_coup, lang=lang))
        if settled.shoe_finished:
            self.console.print(Text(f"{i18n.word('shoe', lang)} {self.table.shoe_no}: "
                                    f"{i18n.word('last_coup', lang).lower()} ✓ — "
                                    f"{i18n.word('new_shoe', lang).lower()}…", style="yellow"))

    def _return_open_bets(self) -> None:
        """The game ends while bets are on the felt: return them, and say so (never silently)."""
        if self.table.round_no == 0 or not self.table.bets:
            return
        for name, bets in list(self.table.bets.items()):
            if not bets:
                continue
            shown = " · ".join(f"{i18n.bet_name(kind.value, self.lang)} "
                               f"{i18n.money(stake, self.lang, short=True)}"
                               for kind, stake in bets.items())
            for kind in list(bets):
                self.table.withdraw_bet(name, kind)
            self.console.print(Text(say("play.returned", self.lang, seat=name, bets=shown),
                                    style="yellow"))

    def _take_bets(self, seat: Seat) -> None:
        """Ask one seat for its bets until they are accepted, it passes, or it leaves."""
        prompt = (f"[bold]{escape(seat.name)}[/] "
                  f"[dim]({escape(i18n.money(seat.balance, self.lang))})[/] [bold green]›[/] ")
        while True:
            line = self.read_line(prompt).strip()
            command = line.lower()
            if command in QUIT_WORDS:
                seat.left = True
                self.console.print(Text(f"  {say('play.left', self.lang, seat=seat.name)}",
                                        style="dim"))
                return
            if command in HELP_WORDS:
                self.console.print(Panel(help_text(self.settings.rules, self.lang),
                                         border_style="cyan", expand=False))
                self.console.print(limits_text(self.settings.rules, self.lang))
                continue
            if not line:
                self.console.print(Text(f"  {i18n.word('pass', self.lang)}", style="dim"))
                return
            if command in AGAIN_WORDS and not seat.last_bets:
                self.console.print(Text(f"  ✗ {say('play.no_last_bets', self.lang)}",
                                        style="bold red"))
                continue
            refused = (self._place(seat, list(seat.last_bets.items()))
                       if command in AGAIN_WORDS else self._place_bets(seat, line))
            if refused is not None:
                self.console.print(Text(f"  ✗ {refused}", style="bold red"))
                continue
            bets = self.table.bets[seat.name]
            placed = " · ".join(f"{i18n.bet_name(kind.value, self.lang)} "
                                f"{i18n.money(stake, self.lang, short=True)}"
                                for kind, stake in bets.items())
            self.console.print(Text(f"  ✓ {placed}", style="green"))
            seat.last_bets = dict(bets)
            return

    def _place_bets(self, seat: Seat, line: str) -> str | None:
        """Place a seat's line of bets; on a refusal, none of them, and the refusal's sentence
        in the table's language with the figures behind it (M3)."""
        try:
            bets = [(parse_bet_kind(name), parse_amount(amount, self.lang))
                    for name, amount in bet_pairs(line, self.lang)]
        except PuntoBancoError as error:
            return i18n.error_text(error, self.lang)
        return self._place(seat, bets)

    def _place(self, seat: Seat, bets: Sequence[tuple[BetKind, int]]) -> str | None:
        """Place the bets, all or none; on a refusal, the refusal's sentence (M3)."""
        for kind, stake in bets:
            available = seat.balance - sum(self.table.spot_bets(seat.name).values())
            try:
                self.table.place_bet(seat.name, kind, stake, available=available)
            except PuntoBancoError as error:
                for placed in self.table.spot_bets(seat.name):
                    self.table.withdraw_bet(seat.name, placed)
                return i18n.error_text(error, self.lang)
        return None

    def _deal(self) -> None:
        """Deal the coup; on a terminal, reveal it card by card on the felt."""
        self._hands = {Side.PUNTO: [], Side.BANCO: []}
        if self.settings.pause > 0 and self.console.is_terminal:
            with keys_not_echoed(), Live(self._felt(), console=self.console, auto_refresh=False,
                                         transient=True) as live:
                self._live = live
                try:
                    self.table.deal()
                finally:
                    self._live = None
        else:
            self.table.deal()
        self.console.print(self._felt(final=True))

    def _felt(self, *, final: bool = False) -> Panel:
        title = f"{i18n.word('coup', self.lang)} {self.table.round_no}"
        return felt_panel(self._hands[Side.PUNTO], self._hands[Side.BANCO], lang=self.lang,
                          title=title, coup=self.table.coup if final else None)

    def _on_event(self, event: Event) -> None:
        if isinstance(event, CardDealt):
            self._hands[event.side].append(event.card)
            if self._live is not None:
                self._live.update(self._felt(), refresh=True)
                time.sleep(self.settings.pause * (1.5 if event.position == 2 else 1.0))
        elif isinstance(event, ShoeStarted):
            self.results = []
            turned = event.burned[0] if event.burned else None
            text = Text(f"{i18n.word('new_shoe', self.lang)} {event.shoe_no} · "
                        f"{i18n.counted('cards', len(event.order), self.lang)}",
                        style="bold yellow")
            if turned is not None:
                text.append(" · " + i18n.phrase("burn", self.lang, card=card_label(turned),
                                                n=len(event.burned) - 1))
            self.console.print(text)

    def _pay(self, settled: RoundSettled) -> None:
        """Show every spot's payouts in L6 order, then pay them into the balances."""
        lines = {name: spot_lines for name, spot_lines in settled.lines.items() if spot_lines}
        if lines:
            self.console.print(settlement_table(
                lines, bet_label=lambda kind: i18n.bet_name(kind.value, self.lang),
                title=i18n.word("payouts", self.lang), spot_header=i18n.word("seat", self.lang),
                lang=self.lang))
        balances = RichTable(show_edge=False, show_header=False, box=None, padding=(0, 2))
        for justify in ("left", "left", "right", "right"):
            balances.add_column(justify=justify)
        for seat in self.seats:
            net = settled.net(seat.name)
            seat.balance += net
            if seat.name in lines:
                seat.coups_bet += 1
            elif seat.left:
                continue  # gone from the table: its balance is in the summary at the end
            row_net = signed(net, self.lang) if seat.name in lines else Text("")
            balances.add_row(Text(seat.name, style="bold"), i18n.word("balance", self.lang),
                             i18n.money(seat.balance, self.lang), row_net)
        self.console.print(balances)

    def _broke(self, seat: Seat) -> bool:
        """A seat that cannot cover the smallest minimum of any box is out."""
        return seat.balance < self._minimum

    # --- the frame -----------------------------------------------------------------------------

    def _welcome(self) -> None:
        settings, lang = self.settings, self.lang
        shuffle = (i18n.phrase("shuffle.secure", lang) if settings.seed is None
                   else i18n.phrase("shuffle.seeded", lang, seed=settings.seed))
        seats = i18n.phrase("bankroll.each", lang, seats=i18n.counted("seats", len(self.seats), lang),
                            amount=i18n.money(settings.bankroll, lang, short=True))
        body = Text.assemble(
            ("PUNTO BANCO 2000 · LION BONUS\n", "bold"),
            (rules_summary(settings.rules, lang, decks=False) + "\n", ""),
            (f"{seats} · {i18n.counted('decks', settings.rules.decks, lang)} · {shuffle}\n", ""),
            (i18n.phrase("help.hint", lang), "dim"))
        self.console.print(Panel(body, style="white on #0b5d2a", border_style=FELT_BORDER,
                                 expand=False))

    def _goodbye(self, reason: str) -> None:
        self.console.print()
        lang = self.lang
        played = i18n.phrase("coups_played", lang, n=self.coups_played)
        self.console.print(Text(f"{reason} {played}", style="bold"))
        summary = RichTable()
        summary.add_column(i18n.word("seat", lang))
        summary.add_column(i18n.phrase("col.start", lang), justify="right")
        summary.add_column(i18n.word("balance", lang), justify="right")
        summary.add_column(i18n.phrase("col.net", lang), justify="right")
        summary.add_column(i18n.phrase("col.coups_bet", lang), justify="right")
        for seat in self.seats:
            summary.add_row(seat.name, i18n.money(seat.start, lang),
                            i18n.money(seat.balance, lang), signed(seat.net, lang),
                            str(seat.coups_bet))
        self.console.print(summary)


@contextmanager
def keys_not_echoed(stream: TextIO | None = None) -> Iterator[None]:
    """While the cards are revealed, keys typed are neither echoed nor kept.

    An echoed key moves the cursor under Rich's live felt, which then redraws one line too low
    and leaves a copy of the coup's header behind; a kept key would become the next seat's bet.
    Does nothing when the input is not a terminal (or on a system without ``termios``).
    """
    stream = sys.stdin if stream is None else stream
    try:
        import termios

        descriptor = stream.fileno()
        saved = termios.tcgetattr(descriptor)
    except (ImportError, OSError, ValueError, AttributeError):
        yield
        return
    quiet = list(saved)
    quiet[3] &= ~(termios.ECHO | termios.ICANON)
    termios.tcsetattr(descriptor, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcflush(descriptor, termios.TCIFLUSH)  # forget what was typed meanwhile
        termios.tcsetattr(descriptor, termios.TCSANOW, saved)


def _reader(console: Console, *, echo: bool) -> Callable[[str], str]:
    """Read a line after a prompt; echo it when the input is not typed at a terminal."""

    def read(prompt: str) -> str:
        line = console.input(prompt)
        if echo:
            console.print(escape(line), highlight=False)
        return line

    return read


@app.command()
@rule_options(composition=False, rules_file=True)
def play(
    *,
    seats: Annotated[int | None, typer.Option(
        "--seats", help="Number of seats (default 1), numbered in the table's language.",
        show_default=False)] = None,
    player: Annotated[list[str] | None, typer.Option(
        "--player", help="A player's name; repeat for more seats, e.g. --player Ann --player Bob.",
        show_default=False)] = None,
    bankroll: Annotated[str, typer.Option(
        "--bankroll", help="Each seat's bankroll in euros.")] = "1000",
    seed: Annotated[int | None, typer.Option(
        "--seed", help="Shuffle with random.Random(SEED): the same shoe every time. Without it "
        "the shuffle is secure (S1).", show_default=False)] = None,
    lang: Annotated[str, typer.Option(
        "--lang", help="The table's words: fr, it, es or en.")] = i18n.DEFAULT_LANGUAGE,
    coups: Annotated[int | None, typer.Option(
        "--coups", help="Stop after this many coups.", show_default=False)] = None,
    fast: Annotated[bool, typer.Option(
        "--fast", help="Deal at once, without the pause between cards.")] = False,
    cut_card: Annotated[int | None, typer.Option(
        "--cut-card", help="Cards behind the cut card (S3, default 14).",
        show_default=False)] = None,
    limit: LimitOption = None,
    chip: ChipOption = None,
    rules: RuleOptions,
) -> None:
    """Play Punto Banco 2000 with the Lion Bonus at the terminal, one or more seats."""
    check_language(lang)
    ruleset = table_rules(rules, limit=limit or [], chip=chip, lang=lang)  # said in lang
    if cut_card is not None:
        try:
            ruleset = ruleset.replace(cut_card=cut_card)
        except PuntoBancoError as error:
            if lang == "en":
                raise
            raise PuntoBancoError(say("option.bad-cut-card", lang, value=cut_card,
                                      most=52 * ruleset.decks - 12), code=error.code) from None
    try:
        start = parse_amount(bankroll, lang)
    except PuntoBancoError as error:  # said in the table's language, with the text typed
        if lang == "en":  # the core's own sentence says it best
            raise
        raise PuntoBancoError(i18n.error_text(error, lang), code=error.code) from None
    if start <= 0:
        raise PuntoBancoError(say("error.bankroll-positive", lang, text=bankroll),
                              code="bad-bankroll")
    smallest = table_minimum(ruleset)
    if start < smallest:
        raise PuntoBancoError(say("error.bankroll-minimum", lang, bankroll=i18n.money(start, lang),
                                  smallest=i18n.money(smallest, lang), euros=smallest // 100),
                              code="bad-bankroll")
    if coups is not None and coups < 1:
        raise PuntoBancoError(say("error.coups-positive", lang, n=coups), code="bad-coups")
    interactive = sys.stdin.isatty()
    settings = GameSettings(
        players=seat_names(seats=seats, players=player or [], lang=lang), bankroll=start,
        rules=ruleset, lang=lang, seed=seed, coups=coups,
        pause=CARD_PAUSE if interactive and not fast else 0.0)
    console = Console(highlight=False)
    TerminalGame(settings, console=console, read_line=_reader(console, echo=not interactive)).run()
