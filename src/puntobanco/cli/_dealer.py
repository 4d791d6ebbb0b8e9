"""The dealer's calculator's input: final hands checked against R3–R6, and named spots.

``replay --punto 4H 9S 7C --banco 2S 3D 5C`` gives the hands as they lie on the table; a hand
that the drawing rules could not have dealt is refused with the rule that forbids it:

>>> from puntobanco.cards import parse_cards
>>> coup = coup_from_hands(parse_cards("4H 9S 7C"), parse_cards("2S 3D 5C"), lang="en")
>>> coup.punto_total, coup.banco_total, coup.winner.value
(0, 0, 'egalite')
>>> coup_from_hands(parse_cards("4H 2S 7C"), parse_cards("2S 3D"), lang="en")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
puntobanco.errors.PuntoBancoError: Player's first two cards make 6: Player stands on 6-7 (R5), ...

"""

from __future__ import annotations

from collections.abc import Sequence

from puntobanco import i18n
from puntobanco.bets import BetKind
from puntobanco.cards import Card
from puntobanco.cli._amounts import parse_amount
from puntobanco.cli._words import say
from puntobanco.coup import Coup, deal_coup
from puntobanco.errors import PuntoBancoError
from puntobanco.rules import Drawing, Side, banco_draws, hand_total, is_natural, punto_draws


def _refuse(key: str, lang: str, **fields: object) -> PuntoBancoError:
    return PuntoBancoError(say(key, lang, **fields), code="impossible-hand")


def coup_from_hands(punto: Sequence[Card], banco: Sequence[Card], *, lang: str,
                    drawing: Drawing = Drawing.STANDARD) -> Coup:
    """The coup whose final hands these are, if R3–R6 could have dealt them; else one sentence.

    The hands are dealt again in R3 order (P, B, P, B, Punto's third, Banco's third), so the
    coup returned is the one the core deals from those cards.
    """
    for side, cards in ((Side.PUNTO, punto), (Side.BANCO, banco)):
        if len(cards) not in (2, 3):
            raise _refuse("hand.count", lang, side=i18n.bet_name(side.value, lang), n=len(cards))
    p_values = [card.value for card in punto[:2]]
    b_values = [card.value for card in banco[:2]]
    if is_natural(p_values) or is_natural(b_values):  # R4
        if len(punto) == 3 or len(banco) == 3:
            side, values = ((Side.PUNTO, p_values) if is_natural(p_values)
                            else (Side.BANCO, b_values))
            raise _refuse("hand.natural", lang, side=i18n.bet_name(side.value, lang),
                          total=hand_total(values))
    else:
        p_total, b_total = hand_total(p_values), hand_total(b_values)
        if punto_draws(p_total) != (len(punto) == 3):  # R5
            raise _refuse("hand.punto_draws" if len(punto) == 2 else "hand.punto_stands", lang,
                          total=p_total)
        third = punto[2].value if len(punto) == 3 else None
        if banco_draws(b_total, third, drawing) != (len(banco) == 3):  # R6
            situation = (say("hand.punto_stood", lang) if third is None
                         else say("hand.punto_third", lang, value=third))
            raise _refuse("hand.banco_draws" if len(banco) == 2 else "hand.banco_stands", lang,
                          total=b_total, punto=situation)
    order = [punto[0], banco[0], punto[1], banco[1], *punto[2:], *banco[2:]]
    coup = deal_coup(iter(order), drawing=drawing)
    assert coup.punto == tuple(punto) and coup.banco == tuple(banco)  # the checks above are R4–R6
    return coup


def parse_bet_text(text: str, *, option: str, lang: str) -> tuple[BetKind, int]:
    """Read one ``KIND=EUROS`` of ``--bet`` or ``--spot``."""
    kind_text, equals, amount_text = text.partition("=")
    if not equals or not kind_text.strip() or not amount_text.strip():
        raise PuntoBancoError(say("error.bad-bet-option", lang, option=option, text=text),
                              code="bad-bet-option")
    return BetKind.parse(kind_text), parse_amount(amount_text, lang)  # 10,50 in fr, it, es

