"""A :class:`~puntobanco.rules.RuleSet` as JSON, the one mapping (server, PAR report, files).

The shape is the ``rules`` object of ``docs/api.md`` (the server adds its betting window,
``betting_seconds``, in :mod:`puntobanco.server.settings`). Reading accepts any subset of the
keys and fills the rest from a base rule set, so an operator can change one setting at a time;
whatever the JSON says, the :class:`RuleSet` itself checks the ranges (``bad-rules``).

>>> data = rules_to_json(RuleSet())
>>> data["limits"]["lion-banco"], data["commission"], data["banco_payout"]
([1000, 5000], '0.05', 'no-commission')
>>> rules = rules_from_json({"tie_pays": 9, "limits": {"egalite": [500, 20000]}})
>>> rules.tie_pays, rules.egalite_limits.minimum
(9, 500)
>>> rules_to_json(RuleSet(), only=PAYOUT_KEYS)["tie_pays"]
8
>>> data["banco_reduced_pays"], data["lion_natural_tie_pays"]
({'6': '0.5'}, 0)
>>> designed = rules_from_json({"lion_natural_pays": "1.5", "lion_natural_tie_pays": -1,
...                             "lion_paytable": [25, 10, "5.5", 4, 2, -1], "tie_pays": "8.5",
...                             "banco_reduced_pays": {"6": "1/2", "5": "0.75"}})
>>> rules_to_json(designed, only=PAYOUT_KEYS)["lion_paytable"]
[25, 10, '5.5', 4, 2, -1]
>>> rules_from_json({"decks": 0})
Traceback (most recent call last):
...
puntobanco.errors.RuleSetError: A shoe holds 1 to 8 decks, not 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

from puntobanco.bets import BetKind
from puntobanco.errors import RuleSetError
from puntobanco.rules import (
    PAYOUT_SETTINGS,
    BancoPayout,
    Drawing,
    LastCoup,
    Limits,
    Pay,
    RuleSet,
)

_LIMIT_KEYS = {BetKind.PUNTO.value: "punto_limits", BetKind.BANCO.value: "banco_limits",
               BetKind.EGALITE.value: "egalite_limits"}
_LION_KEYS = (BetKind.LION_PUNTO.value, BetKind.LION_BANCO.value)
_KNOWN = {"decks", "drawing", "tie_pays", "banco_payout", "commission", "banco_reduced_pays",
          "lion_paytable", "lion_natural_pays", "lion_natural_tie_pays", "chip_unit", "cut_card", "limits",
          "allow_punto_and_banco", "burn", "last_coup"}
#: The keys of the settings that change what a bet pays: what a PAR sheet states.
PAYOUT_KEYS: tuple[str, ...] = PAYOUT_SETTINGS


def rules_to_json(rules: RuleSet, *, only: Iterable[str] | None = None) -> dict[str, Any]:
    """The JSON ``rules`` object of a rule set; ``only`` keeps some keys (e.g. PAYOUT_KEYS)."""
    data = _all_to_json(rules)
    return data if only is None else {key: data[key] for key in only}


def _all_to_json(rules: RuleSet) -> dict[str, Any]:
    lion = [rules.lion_limits.minimum, rules.lion_limits.maximum]
    return {
        "decks": rules.decks,
        "drawing": rules.drawing.value,
        "tie_pays": pay_to_json(rules.tie_pays),
        "banco_payout": rules.banco_payout.value,
        "commission": _fraction_text(rules.commission),
        "banco_reduced_pays": {str(total): pay_to_json(pays)
                               for total, pays in rules.banco_reduced_pays},
        "lion_paytable": [pay_to_json(p) for p in rules.lion_paytable],
        "lion_natural_pays": pay_to_json(rules.lion_natural_pays),
        "lion_natural_tie_pays": pay_to_json(rules.lion_natural_tie_pays),
        "chip_unit": rules.chip_unit,
        "cut_card": rules.cut_card,
        "limits": {
            "punto": [rules.punto_limits.minimum, rules.punto_limits.maximum],
            "banco": [rules.banco_limits.minimum, rules.banco_limits.maximum],
            "egalite": [rules.egalite_limits.minimum, rules.egalite_limits.maximum],
            "lion-punto": lion,
            "lion-banco": list(lion),
        },
        "allow_punto_and_banco": rules.allow_punto_and_banco,
        "burn": rules.burn,
        "last_coup": rules.last_coup.value,
    }


def rules_from_json(data: Mapping[str, Any], *, base: RuleSet | None = None) -> RuleSet:
    """Read a (partial) ``rules`` object over ``base``; raise :class:`RuleSetError` if wrong."""
    if not isinstance(data, Mapping):
        raise RuleSetError("The rules are a JSON object.")
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise RuleSetError(f"Unknown table setting {unknown[0]!r}.")
    rules = base if base is not None else RuleSet()
    changes: dict[str, Any] = {}
    for key in ("decks", "chip_unit", "cut_card"):
        if key in data:
            changes[key] = _integer(data[key], key)
    for key in ("tie_pays", "lion_natural_pays", "lion_natural_tie_pays"):
        if key in data:
            changes[key] = pay_from_json(data[key], key)
    for key in ("allow_punto_and_banco", "burn"):
        if key in data:
            if not isinstance(data[key], bool):
                raise RuleSetError(f"The setting {key!r} is true or false.")
            changes[key] = data[key]
    if "drawing" in data:
        if data["drawing"] != Drawing.STANDARD.value:
            raise RuleSetError("A live table deals the standard drawing table (R6) only.")
        changes["drawing"] = Drawing.STANDARD
    if "banco_payout" in data:
        changes["banco_payout"] = _enum(BancoPayout, data["banco_payout"], "banco_payout")
    if "last_coup" in data:
        changes["last_coup"] = _enum(LastCoup, data["last_coup"], "last_coup")
    if "commission" in data:
        changes["commission"] = _fraction(data["commission"])
    if "lion_paytable" in data:
        table = data["lion_paytable"]
        if not isinstance(table, list):
            raise RuleSetError("The Lion Bonus pay table is a list of six whole numbers.")
        changes["lion_paytable"] = tuple(pay_from_json(v, "lion_paytable") for v in table)
    if "banco_reduced_pays" in data:
        changes["banco_reduced_pays"] = _reduced_pays(data["banco_reduced_pays"])
    if "limits" in data:
        changes.update(_limits(data["limits"]))
    return rules.replace(**changes)


def pay_to_json(pays: Pay) -> int | str:
    """A pay as JSON: a whole number (``8``, ``-1`` for a row that loses) or exact text
    (``"1.5"``, ``"1/3"``), never a float."""
    return pays if isinstance(pays, int) else _fraction_text(pays)


def pay_from_json(value: Any, key: str) -> Pay:
    """A pay from JSON: a whole number, or a plain decimal or fraction as text (``"1.5"``).

    >>> pay_from_json("17/2", "tie_pays"), pay_from_json(-1, "lion_paytable")
    (Fraction(17, 2), -1)
    >>> pay_from_json(8.5, "tie_pays"), pay_from_json(9.0, "tie_pays")
    (Fraction(17, 2), 9)
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float):  # a JSON number such as 8.5: its shortest decimal, exactly
        value = repr(value)
    if isinstance(value, str):
        negative = value.startswith("-")
        try:
            pays = _fraction(value[1:] if negative else value)
        except RuleSetError:
            pass
        else:
            pays = -pays if negative else pays
            return pays.numerator if pays.denominator == 1 else pays
    raise RuleSetError(f"The setting {key!r} is a pay: a whole number or text such as \"1.5\", "
                       f"not {value!r:.40}.")


def _reduced_pays(data: Any) -> tuple[tuple[int, Pay], ...]:
    if not isinstance(data, Mapping):
        raise RuleSetError("The Banco reduced pays are an object such as {\"6\": \"0.5\"}: "
                           "a winning total and what it pays.")
    out = []
    for total, pays in data.items():
        if not (isinstance(total, str) and total.isdigit() and len(total) == 1):
            raise RuleSetError(f"{total!r} is not a Banco total (1 to 9).")
        out.append((int(total), pay_from_json(pays, "banco_reduced_pays")))
    return tuple(out)


def _limits(data: Any) -> dict[str, Limits]:
    if not isinstance(data, Mapping):
        raise RuleSetError("The limits are an object such as {\"punto\": [1000, 500000]}.")
    unknown = sorted(set(data) - set(_LIMIT_KEYS) - set(_LION_KEYS))
    if unknown:
        raise RuleSetError(f"There is no bet {unknown[0]!r} to set limits for.")
    changes = {_LIMIT_KEYS[key]: _pair(value, key) for key, value in data.items()
               if key in _LIMIT_KEYS}
    lion = [_pair(data[key], key) for key in _LION_KEYS if key in data]
    if lion:
        if len(lion) == 2 and lion[0] != lion[1]:
            raise RuleSetError("The Lion Bonus has one limit for both sides (L3): "
                               "lion-punto and lion-banco must agree.")
        changes["lion_limits"] = lion[0]
    return changes


def _pair(value: Any, key: str) -> Limits:
    if not (isinstance(value, list) and len(value) == 2):
        raise RuleSetError(f"The limits of {key} are [minimum, maximum] in cents.")
    return Limits(_integer(value[0], key), _integer(value[1], key))


def _integer(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleSetError(f"The setting {key!r} is a whole number, not {value!r}.")
    return value


def _enum(kind: type[BancoPayout] | type[LastCoup], value: Any, key: str) -> Any:
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(member.value for member in kind)
        raise RuleSetError(f"The setting {key!r} is one of {choices}, not {value!r}.") from None


#: A commission as JSON: a plain decimal (``"0.05"``) or a fraction (``"1/20"``), at most
#: ``MAX_DECIMAL_TEXT`` characters, read by a regular expression and integer arithmetic, never
#: by ``Decimal`` (``"1e-999999999"`` would cost minutes of CPU on the event loop; issue 9).
MAX_DECIMAL_TEXT = 12
_PLAIN_DECIMAL = re.compile(r"(0|[1-9][0-9]{0,3})(?:\.([0-9]{1,6}))?")
_PLAIN_FRACTION = re.compile(r"([0-9]{1,5})/([1-9][0-9]{0,4})")


def _fraction(value: Any) -> Fraction:
    """A commission read cheaply and exactly.

    >>> _fraction("0.05"), _fraction("1/40"), _fraction(0)
    (Fraction(1, 20), Fraction(1, 40), Fraction(0, 1))
    >>> _fraction("1e-999999999")
    Traceback (most recent call last):
    ...
    puntobanco.errors.RuleSetError: The commission is a plain decimal such as "0.05", not '1e-999999999'.
    """
    refused = RuleSetError(f"The commission is a plain decimal such as \"0.05\", not {value!r:.40}.")
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise refused
    if isinstance(value, int):
        if not 0 <= value <= 1:
            raise refused
        return Fraction(value)
    text = repr(value) if isinstance(value, float) else value
    if len(text) > MAX_DECIMAL_TEXT:
        raise refused
    decimal = _PLAIN_DECIMAL.fullmatch(text)
    if decimal is not None:
        whole, digits = decimal.group(1), decimal.group(2) or ""
        return Fraction(int(whole + digits), 10 ** len(digits))
    fraction = _PLAIN_FRACTION.fullmatch(text)
    if fraction is not None:
        return Fraction(int(fraction.group(1)), int(fraction.group(2)))
    raise refused


def _fraction_text(value: Fraction) -> str:
    """A fraction as a decimal string when it has one (``0.05``), else ``p/q``."""
    denominator = value.denominator
    while denominator % 2 == 0:
        denominator //= 2
    while denominator % 5 == 0:
        denominator //= 5
    if denominator != 1:
        return f"{value.numerator}/{value.denominator}"
    text = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
    text = text.rstrip("0").rstrip(".") if "." in text else text
    if len(text) > MAX_DECIMAL_TEXT or _PLAIN_DECIMAL.fullmatch(text) is None:
        return f"{value.numerator}/{value.denominator}"  # read back exactly by _fraction
    return text
