"""The dealer's words in fr/it/es/en: what the rules require at each step, and the refusals.

>>> from puntobanco.cards import parse_cards
>>> from puntobanco.physical import next_step
>>> step_text(next_step(parse_cards("4H 2S 9S 3D 7C")), "en")
"Banco draws on 5 (Punto's third card 7)"
>>> step_text(next_step(parse_cards("4H 2S 9S 3D 7C")), "fr")
'Banco tire à 5 (troisième carte de Punto : 7)'
>>> step_text(next_step(parse_cards("6S 2D KH 4C")), "it")
'Banco sta con 6 (Punto sta con 6)'
"""

from __future__ import annotations

from puntobanco.i18n import language
from puntobanco.physical import Step


def step_text(step: Step, lang: str | None) -> str:
    """What the rules require now, as the dealer's page says it."""
    return step.describe(language(lang))


#: The refusals of the dealer's actions (``docs/dealer.md``), merged into the server's messages.
MESSAGES: dict[str, dict[str, str]] = {
    "card-not-called": {
        "en": "The coup is complete: the rules call for no more card.",
        "fr": "Le coup est complet : la règle n'appelle plus de carte.",
        "it": "Il colpo è completo: la regola non chiede altre carte.",
        "es": "La mano está completa: la regla no pide más cartas."},
    "card-out-of-turn": {
        "en": "Out of turn: the next card is {side}'s.",
        "fr": "Hors tour : la prochaine carte est pour {side}.",
        "it": "Fuori turno: la prossima carta è per {side}.",
        "es": "Fuera de turno: la próxima carta es para {side}."},
    "card-out-of-turn-closed": {
        "en": "No card now: cards are entered after betting is closed.",
        "fr": "Pas de carte maintenant : les cartes se saisissent après la fin des mises.",
        "it": "Nessuna carta ora: le carte si inseriscono dopo la chiusura delle puntate.",
        "es": "Ninguna carta ahora: las cartas se introducen tras cerrar las apuestas."},
    "card-already-entered": {
        "en": "Card {number} of this coup is already {card}: correct it instead.",
        "fr": "La carte {number} de ce coup est déjà {card} : corrigez-la plutôt.",
        "it": "La carta {number} di questo colpo è già {card}: correggetela invece.",
        "es": "La carta {number} de esta mano ya es {card}: corríjala en su lugar."},
    "card-number-out-of-turn": {
        "en": "Out of turn: the next card is card {number} of the coup.",
        "fr": "Hors tour : la prochaine carte est la carte {number} du coup.",
        "it": "Fuori turno: la prossima carta è la carta {number} del colpo.",
        "es": "Fuera de turno: la próxima carta es la carta {number} de la mano."},
    "card-not-in-shoe": {
        "en": "The shoe holds {decks} deck(s): {out} {card} are already out, it cannot hold one "
              "more.",
        "fr": "Le sabot contient {decks} jeu(x) : {out} {card} sont déjà sortis, il ne peut pas "
              "y en avoir un de plus.",
        "it": "Lo sabot contiene {decks} mazzo/i: {out} {card} sono già usciti, non ce ne può "
              "essere un altro.",
        "es": "El zapato tiene {decks} baraja(s): ya han salido {out} {card}, no puede haber "
              "otro."},
    "shoe-empty": {
        "en": "The shoe is empty: every card has been entered or counted.",
        "fr": "Le sabot est vide : toutes les cartes ont été saisies ou comptées.",
        "it": "Lo sabot è vuoto: tutte le carte sono state inserite o contate.",
        "es": "El zapato está vacío: todas las cartas se han introducido o contado."},
    "shoe-finished": {
        "en": "The shoe is finished: start a new shoe.",
        "fr": "Le sabot est terminé : commencez un nouveau sabot.",
        "it": "Lo sabot è finito: iniziate un nuovo sabot.",
        "es": "El zapato ha terminado: empiece un zapato nuevo."},
    "no-shoe": {
        "en": "Start a new shoe first.", "fr": "Commencez d'abord un nouveau sabot.",
        "it": "Iniziate prima un nuovo sabot.", "es": "Empiece primero un zapato nuevo."},
    "bad-burn": {
        "en": "A burn is at least one card, entered or counted.",
        "fr": "Un brûlage compte au moins une carte, saisie ou comptée.",
        "it": "Si brucia almeno una carta, inserita o contata.",
        "es": "Se quema al menos una carta, introducida o contada."},
    "nothing-to-correct": {
        "en": "There is no card of this coup to correct.",
        "fr": "Aucune carte de ce coup à corriger.",
        "it": "Nessuna carta di questo colpo da correggere.",
        "es": "No hay ninguna carta de esta mano que corregir."},
    "nothing-to-void": {
        "en": "There is no round to void.", "fr": "Aucun coup à annuler.",
        "it": "Nessun colpo da annullare.", "es": "No hay ninguna mano que anular."},
    "round-in-progress": {
        "en": "A round is in progress: finish it or void it first.",
        "fr": "Un coup est en cours : terminez-le ou annulez-le d'abord.",
        "it": "Un colpo è in corso: terminatelo o annullatelo prima.",
        "es": "Hay una mano en curso: termínela o anúlela antes."},
    "table-paused": {
        "en": "The table is paused: no round opens until the operator resumes it.",
        "fr": "La table est en pause : aucun coup ne s'ouvre avant que l'opérateur la reprenne.",
        "it": "Il tavolo è in pausa: nessun colpo si apre finché l'operatore non lo riprende.",
        "es": "La mesa está en pausa: no se abre ninguna mano hasta que el operador la "
              "reanude."},
    "betting-not-open": {
        "en": "Betting is not open.", "fr": "Les mises ne sont pas ouvertes.",
        "it": "Le puntate non sono aperte.", "es": "Las apuestas no están abiertas."},
    "coup-incomplete": {
        "en": "The coup is not complete: the rules call for another card.",
        "fr": "Le coup n'est pas complet : la règle appelle une autre carte.",
        "it": "Il colpo non è completo: la regola chiede un'altra carta.",
        "es": "La mano no está completa: la regla pide otra carta."},
    "cut-card-out": {
        "en": "The cut card is already out.", "fr": "La carte de coupe est déjà sortie.",
        "it": "La carta di taglio è già uscita.", "es": "La carta de corte ya ha salido."},
    "cut-card-early": {
        "en": "The cut card cannot come out before the first coup.",
        "fr": "La carte de coupe ne peut pas sortir avant le premier coup.",
        "it": "La carta di taglio non può uscire prima del primo colpo.",
        "es": "La carta de corte no puede salir antes de la primera mano."},
    "not-dealer-table": {
        "en": "This table is dealt by the server, not by a dealer.",
        "fr": "Cette table est distribuée par le serveur, pas par un croupier.",
        "it": "Questo tavolo è distribuito dal server, non da un croupier.",
        "es": "Esta mesa la reparte el servidor, no un crupier."},
    "not-your-table": {
        "en": "You are not the dealer of this table.",
        "fr": "Vous n'êtes pas le croupier de cette table.",
        "it": "Non siete il croupier di questo tavolo.",
        "es": "Usted no es el crupier de esta mesa."},
    "bad-dealing": {
        "en": "A table is dealt by the server or a dealer.",
        "fr": "Une table est distribuée par le serveur ou par un croupier.",
        "it": "Un tavolo è distribuito dal server o da un croupier.",
        "es": "Una mesa la reparte el servidor o un crupier."},
    "bad-card": {
        "en": "Not a card: write a rank (A 2-9 T J Q K) then a suit (S H D C), e.g. 9h.",
        "fr": "Ce n'est pas une carte : écrivez une valeur (A 2-9 T J Q K) puis une couleur "
              "(S H D C), par ex. 9h.",
        "it": "Non è una carta: scrivete un valore (A 2-9 T J Q K) poi un seme (S H D C), "
              "es. 9h.",
        "es": "No es una carta: escriba un valor (A 2-9 T J Q K) y un palo (S H D C), p. ej. "
              "9h."},
    "bad-phase": {
        "en": "Not now: a round is already under way.",
        "fr": "Pas maintenant : un coup est déjà en cours.",
        "it": "Non ora: un colpo è già in corso.", "es": "Ahora no: ya hay una mano en curso."},
}

STATUS: dict[str, int] = {
    "card-not-called": 409, "card-out-of-turn": 409, "card-already-entered": 409, "card-not-in-shoe": 422,
    "shoe-empty": 409, "shoe-finished": 409, "no-shoe": 409, "bad-burn": 400,
    "nothing-to-correct": 409, "nothing-to-void": 409, "round-in-progress": 409,
    "betting-not-open": 409, "table-paused": 409, "coup-incomplete": 409, "cut-card-out": 409,
    "cut-card-early": 409, "not-dealer-table": 409, "not-your-table": 403, "bad-dealing": 400,
    "bad-card": 400, "bad-phase": 409,
}
