"""The table-rule options every analysis and game command shares, declared once.

Seven options describe a table's shoe and pays: ``--decks``, ``--composition``, ``--banco``,
``--commission``, ``--tie-pays``, ``--lion-paytable`` and ``--drawing`` (the R6 drawing table, or
the rule texts read literally). A command takes them all with one decorator and receives them as
one :class:`RuleOptions` value in its ``rules`` parameter; every mistake raises
:class:`~puntobanco.errors.PuntoBancoError` with one sentence, which ``cli.main`` prints::

    @app.command()
    @rule_options()                      # or rule_options(shoe=False): no --decks/--composition
    def par(*, rules: RuleOptions, output_format: FormatOption = "table") -> None:
        shoe, ruleset = rules.shoe_and_rules()

The options appear under their own "Table rules" heading in ``--help``. A new command (``risk``,
``design``, …) reuses them the same way; :func:`shoe_and_rules` stays for code that has the values
already. ``--limit`` and ``--chip`` (:func:`apply_limits`) change the stake limits of a dealt table.

>>> shoe, ruleset = shoe_and_rules(decks=8, banco="commission", commission="0.04")
>>> shoe, ruleset.banco_payout.value, ruleset.commission, ruleset.decks
((128, 32, 32, 32, 32, 32, 32, 32, 32, 32), 'commission', Fraction(1, 25), 8)
>>> shoe_and_rules(composition="1,2,3,4,5,6,7,8,9,10", lion_paytable="30,10,6,4,2,1")[1].lion_paytable
(30, 10, 6, 4, 2, 1)
>>> RuleOptions(drawing="seed-literal").ruleset().drawing.value
'seed-literal'
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from puntobanco import i18n
from puntobanco.cards import DECK_SIZE, MAX_DECKS, MIN_DECKS, Composition, full_composition
from puntobanco.cli._amounts import parse_amount
from puntobanco.cli._app import given_options, refuse_options
from puntobanco.cli._words import say
from puntobanco.errors import PuntoBancoError, RuleSetError
from puntobanco.rules import LION_PAYTABLE, BancoPayout, Drawing, Limits, RuleSet, parse_paytable

#: The fewest cards a coup can need: three for each side.
MIN_CARDS = 6
_Choice = TypeVar("_Choice", bound=Enum)
_Command = TypeVar("_Command", bound=Callable[..., Any])
DEFAULT_DECKS = 6
#: The ``--help`` heading of the shared options.
RULES_PANEL = "Table rules"

DecksOption = Annotated[
    int | None,
    typer.Option("--decks", help="Full decks in the shoe, 1-8 (default 6).", show_default=False,
                 rich_help_panel=RULES_PANEL),
]
CompositionOption = Annotated[
    str | None,
    typer.Option(
        "--composition",
        help="Cards left by value: ten counts c0,c1,...,c9 (c0 = tens and faces, c1 = aces).",
        show_default=False, metavar="COUNTS", rich_help_panel=RULES_PANEL,
    ),
]
BancoOption = Annotated[
    str,
    typer.Option("--banco", help="Banco pays: no-commission (half on a winning 6) or commission.",
                 metavar="PAYOUT", rich_help_panel=RULES_PANEL),
]
CommissionOption = Annotated[
    str,
    typer.Option("--commission", help="Commission on Banco wins with --banco commission, e.g. 0.05.",
                 metavar="RATE", rich_help_panel=RULES_PANEL),
]
TiePaysOption = Annotated[
    int, typer.Option("--tie-pays", help="Égalité pays N:1 (8 or 9).", metavar="N",
                      rich_help_panel=RULES_PANEL)]
LionPaytableOption = Annotated[
    str | None,
    typer.Option(
        "--lion-paytable",
        help="Lion Bonus pays for margins 9,8,7,6,5,4 (default 20,8,4,4,2,1).",
        show_default=False, metavar="PAYS", rich_help_panel=RULES_PANEL,
    ),
]
DrawingOption = Annotated[
    str,
    typer.Option("--drawing", help="Drawing table: standard (R6) or seed-literal (the rule texts "
                 "read literally, analysis only).", metavar="TABLE", rich_help_panel=RULES_PANEL),
]
LimitOption = Annotated[
    list[str] | None,
    typer.Option("--limit", help="A box's stake limits in euros as KIND=MIN-MAX, KIND one of punto, "
                 "banco, egalite, lion; repeat it, e.g. --limit egalite=5-500 --limit lion=5-100.",
                 show_default=False, metavar="KIND=MIN-MAX", rich_help_panel=RULES_PANEL),
]
RulesFileOption = Annotated[
    Path | None,
    typer.Option("--rules-file", help="A table's pays from a rules JSON file: a candidate's \"rules\" "
                 "object from design --format json, or a table's rules; replaces the pay options.",
                 show_default=False, metavar="FILE.json", dir_okay=False,
                 rich_help_panel=RULES_PANEL),
]
ChipOption = Annotated[
    str | None,
    typer.Option("--chip", help="The smallest chip in euros (default 1); every stake is a multiple.",
                 show_default=False, metavar="EUROS", rich_help_panel=RULES_PANEL),
]


@dataclass(frozen=True, kw_only=True, slots=True)
class RuleOptions:
    """The seven shared options' values as typed, not yet read (see :func:`rule_options`)."""

    decks: int | None = None
    composition: str | None = None
    banco: str = "no-commission"
    commission: str = "0.05"
    tie_pays: int = 8
    lion_paytable: str | None = None
    drawing: str = "standard"
    #: ``--rules-file FILE.json`` (commands that ask for it: ``rule_options(rules_file=True)``).
    rules_file: Path | None = None

    def shoe_and_rules(self) -> tuple[Composition, RuleSet]:
        """The shoe's composition and the :class:`RuleSet`, every value checked; a
        ``--commission`` typed for a table without ``--banco commission`` is refused."""
        shoe, ruleset = shoe_and_rules(
            decks=self.decks, composition=self.composition, banco=self.banco,
            commission=self.commission, tie_pays=self.tie_pays,
            lion_paytable=self.lion_paytable, drawing=self.drawing)
        if ruleset.banco_payout is not BancoPayout.COMMISSION:
            refuse_options(given_options("commission"), "with --banco commission")
        if self.rules_file is None:
            return shoe, ruleset
        defaults = RuleOptions()
        given = [f"--{name.replace('_', '-')}" for name in _PAY_OPTIONS
                 if getattr(self, name) != getattr(defaults, name)]
        if given:
            raise RulesFileError(f"--rules-file sets the pays: give {given[0]} in the file, not "
                                 "beside it.", code="bad-rules")
        try:
            return shoe, read_rules_file(self.rules_file, ruleset)
        except PuntoBancoError as error:
            raise RulesFileError(error.message, code=error.code) from None

    def ruleset(self) -> RuleSet:
        """Only the :class:`RuleSet`."""
        return self.shoe_and_rules()[1]


class RulesFileError(PuntoBancoError):
    """``--rules-file`` refused: unreadable, no pays in it, a pay out of range, or a pay option
    typed beside it (the game commands say it in the table's language)."""


_OPTION_TYPES: dict[str, Any] = {
    "decks": DecksOption, "composition": CompositionOption, "banco": BancoOption,
    "commission": CommissionOption, "tie_pays": TiePaysOption,
    "lion_paytable": LionPaytableOption, "drawing": DrawingOption,
    "rules_file": RulesFileOption,
}
_PAY_OPTIONS = ("banco", "commission", "tie_pays", "lion_paytable", "drawing")


def read_rules_file(path: Path, base: RuleSet) -> RuleSet:
    """The pays of a rules JSON file over ``base`` (its shoe and limits stay): a ``rules``
    object (``docs/api.md``), or anything holding one under ``"rules"`` (a design candidate, a
    table). Only the pay settings are read (``PAYOUT_KEYS``); the shoe is the options'.

    >>> import json, tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    ...     json.dump({"rules": {"tie_pays": "8.5", "lion_natural_tie_pays": -1}}, f)
    >>> rules = read_rules_file(Path(f.name), RuleSet())
    >>> rules.tie_pays, rules.lion_natural_tie_pays
    (Fraction(17, 2), -1)
    """
    import json

    from puntobanco.rules_json import PAYOUT_KEYS, rules_from_json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise PuntoBancoError(f"Cannot read {path}: {error.strerror}.", code="bad-rules") from None
    except (UnicodeDecodeError, ValueError):
        raise PuntoBancoError(f"{path} is not a JSON file.", code="bad-rules") from None
    if isinstance(data, dict) and isinstance(data.get("rules"), dict):
        data = data["rules"]
    if not isinstance(data, dict):
        raise PuntoBancoError(f"{path} holds no rules object.", code="bad-rules")
    pays = {key: value for key, value in data.items() if key in PAYOUT_KEYS}
    if not pays:
        raise PuntoBancoError(f"{path} sets none of a table's pays ({', '.join(PAYOUT_KEYS)}).",
                              code="bad-rules")
    return rules_from_json(pays, base=base)


def rule_options(*, shoe: bool = True, composition: bool = True,
                 rules_file: bool = False) -> Callable[[_Command], _Command]:
    """Give a command the shared rule options; it receives them as ``rules: RuleOptions``.

    With ``shoe=False`` the command has no ``--decks`` and ``--composition`` (its cards come
    from elsewhere); with ``composition=False`` only ``--decks`` (a game deals full decks).
    Put it under ``@app.command()``. The command's own parameters keep their order; the rule
    options follow them, under the "Table rules" heading of ``--help``.
    """

    def decorate(command: _Command) -> _Command:
        own = inspect.signature(command, eval_str=True)
        if "rules" not in own.parameters:
            raise TypeError(f"{command.__name__} needs a `rules: RuleOptions` parameter")
        left_out = ({"decks", "composition"} if not shoe else set()) | (
            {"composition"} if not composition else set()) | (
            {"rules_file"} if not rules_file else set())
        names = [f.name for f in fields(RuleOptions) if f.name not in left_out]
        defaults = RuleOptions()
        added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                   annotation=_OPTION_TYPES[name], default=getattr(defaults, name))
                 for name in names]
        kept = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
                for p in own.parameters.values() if p.name != "rules"]

        @functools.wraps(command)
        def wrapper(**values: Any) -> Any:
            chosen = RuleOptions(**{name: values.pop(name) for name in names})
            return command(**values, rules=chosen)

        parameters = kept + added
        wrapper.__signature__ = own.replace(parameters=parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        return wrapper  # type: ignore[return-value]

    return decorate


def parse_composition(text: str) -> Composition:
    """Read ``c0,c1,…,c9``: ten non-negative whole numbers, at least six cards in all.

    >>> parse_composition("96, 24,24,24,24,24,24,24,24,24")
    (96, 24, 24, 24, 24, 24, 24, 24, 24, 24)
    >>> parse_composition("1,2,3")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    puntobanco.errors.PuntoBancoError: '1,2,3' is not a composition: give ten non-negative ...
    """
    parts = [part.strip() for part in text.replace(";", ",").split(",")]
    if len(parts) != 10 or not all(part.isdigit() for part in parts):
        raise PuntoBancoError(
            f"{text!r} is not a composition: give ten non-negative whole numbers c0,c1,...,c9 "
            "(tens and faces, aces, 2 ... 9), e.g. 96,24,24,24,24,24,24,24,24,24.",
            code="bad-composition",
        )
    counts = Composition(int(part) for part in parts)
    check_enough_cards(counts)
    return counts


def check_enough_cards(composition: Composition) -> None:
    """Refuse a shoe with fewer than six cards: a coup may need six."""
    cards = sum(composition)
    if cards < MIN_CARDS:
        raise PuntoBancoError(
            f"A shoe needs at least {MIN_CARDS} cards for a coup; this one holds {cards}.",
            code="too-few-cards",
        )


def parse_commission(text: str) -> Fraction:
    """Read a commission exactly: ``0.05``, ``5%`` or ``1/20``; it must lie in [0, 1).

    >>> parse_commission("0.05"), parse_commission("4%"), parse_commission("1/40")
    (Fraction(1, 20), Fraction(1, 25), Fraction(1, 40))
    """
    raw = text.strip()
    percent = raw.endswith("%")
    try:
        value = Fraction(raw.rstrip("%").strip())
    except (ValueError, ZeroDivisionError):
        raise PuntoBancoError(
            f"{text!r} is not a commission: give a number such as 0.05 or 5%.",
            code="bad-commission",
        ) from None
    if percent:
        value /= 100
    if not 0 <= value < 1:
        raise PuntoBancoError(
            f"A commission lies between 0 and 1 (e.g. 0.05), not {text.strip()}.",
            code="bad-commission",
        )
    return value


def _choice(kind: type[_Choice], text: str, *, what: str, code: str) -> _Choice:
    """The member of ``kind`` whose value is ``text`` (any case), else one sentence naming it."""
    key = text.strip().lower()
    for member in kind:
        if member.value == key:
            return member
    options = " or ".join(str(member.value) for member in kind)
    raise PuntoBancoError(f"{text!r} is not {what}: choose {options}.", code=code)


def parse_banco(text: str) -> BancoPayout:
    """Read ``no-commission`` or ``commission``."""
    return _choice(BancoPayout, text, what="a Banco payout", code="bad-banco")


def parse_drawing(text: str) -> Drawing:
    """Read ``standard`` or ``seed-literal`` (R6)."""
    return _choice(Drawing, text, what="a drawing table", code="bad-drawing")


def shoe_and_rules(
    *,
    decks: int | None = None,
    composition: str | None = None,
    banco: str = "no-commission",
    commission: str = "0.05",
    tie_pays: int = 8,
    lion_paytable: str | None = None,
    drawing: str = "standard",
) -> tuple[Composition, RuleSet]:
    """Turn the shared options' values into the shoe's composition and a :class:`RuleSet`.

    With neither ``decks`` nor ``composition``, the shoe is six full decks (R1). With a
    composition, ``RuleSet.decks`` is the number of decks the cards would fill (1–8).
    """
    if decks is not None and composition is not None:
        raise PuntoBancoError("Give --decks or --composition, not both.", code="bad-shoe")
    if composition is not None:
        shoe = parse_composition(composition)
        deck_count = min(MAX_DECKS, max(MIN_DECKS, -(-sum(shoe) // DECK_SIZE)))
    else:
        deck_count = DEFAULT_DECKS if decks is None else decks
        if not MIN_DECKS <= deck_count <= MAX_DECKS:
            raise PuntoBancoError(
                f"--decks takes 1 to 8 decks, not {deck_count}.", code="bad-decks"
            )
        shoe = full_composition(deck_count)
    if tie_pays not in (8, 9):  # B3's table settings; a designed table's pay comes by --rules-file
        raise RuleSetError(f"Égalité pays 8:1 or 9:1 (B3), not {tie_pays}:1.")
    payout = parse_banco(banco)
    rate = parse_commission(commission)
    table = LION_PAYTABLE if lion_paytable is None else parse_paytable(lion_paytable)
    ruleset = RuleSet(
        decks=deck_count,
        drawing=parse_drawing(drawing),
        tie_pays=tie_pays,
        banco_payout=payout,
        commission=rate,
        lion_paytable=table,
    )
    return shoe, ruleset


_LIMIT_FIELDS = {"punto": "punto_limits", "banco": "banco_limits", "egalite": "egalite_limits",
                 "lion": "lion_limits"}


def parse_limit(text: str, lang: str = "en") -> tuple[str, Limits]:
    """Read one ``--limit KIND=MIN-MAX`` in euros: the RuleSet field and its limits.

    >>> parse_limit("egalite=5-500")
    ('egalite_limits', Limits(minimum=500, maximum=50000))
    >>> parse_limit("lion=50-10")
    Traceback (most recent call last):
    ...
    puntobanco.errors.PuntoBancoError: --limit lion=50-10: the minimum cannot exceed the maximum.
    """
    kind, equals, span = text.partition("=")
    low, dash, high = span.partition("-")
    field_name = _LIMIT_FIELDS.get(kind.strip().lower())
    if not equals or not dash or field_name is None:
        raise PuntoBancoError(
            f"--limit takes KIND=MIN-MAX in euros, KIND one of punto, banco, egalite, lion "
            f"(e.g. egalite=5-500), not {text!r}.", code="bad-limit")
    minimum, maximum = parse_amount(low, lang), parse_amount(high, lang)
    if minimum <= 0:
        raise PuntoBancoError(f"--limit {text}: the minimum must be positive.", code="bad-limit")
    if minimum > maximum:
        raise PuntoBancoError(f"--limit {text}: the minimum cannot exceed the maximum.",
                              code="bad-limit")
    return field_name, Limits(minimum, maximum)


def apply_limits(ruleset: RuleSet, *, limits: Sequence[str] = (),
                 chip: str | None = None, lang: str = "en") -> RuleSet:
    """The rules with the ``--limit`` and ``--chip`` options applied (M1, M2, L3); every limit
    must be a whole number of chips (a limit that is not is said in ``lang``).

    >>> rules = apply_limits(RuleSet(), limits=["punto=20-2000", "banco=20-2000"], chip="5")
    >>> rules.punto_limits.minimum, rules.banco_limits.maximum, rules.chip_unit
    (2000, 200000, 500)
    """
    changes: dict[str, Any] = {}
    for text in limits:
        field_name, span = parse_limit(text, lang)
        if field_name in changes:
            raise PuntoBancoError(f"--limit gives {text.partition('=')[0].strip()} twice; give "
                                  "each box once.", code="bad-limit")
        changes[field_name] = span
    if chip is not None:
        changes["chip_unit"] = parse_amount(chip, lang)
        if changes["chip_unit"] <= 0:
            raise PuntoBancoError(f"--chip takes a positive amount in euros, not {chip}.",
                                  code="bad-chip")
    if not changes:
        return ruleset
    table = ruleset.replace(**changes)  # RuleSetError (one sentence) for an impossible table
    for kind, field_name in _LIMIT_FIELDS.items():
        box: Limits = getattr(table, field_name)
        if box.minimum % table.chip_unit or box.maximum % table.chip_unit:
            raise PuntoBancoError(say(
                "option.limit-not-chips", lang, kind=kind,
                chip=i18n.money(table.chip_unit, lang, short=True),
                limits=i18n.money_range(box.minimum, box.maximum, lang)),
                code="not-chip-multiple")
    return table
