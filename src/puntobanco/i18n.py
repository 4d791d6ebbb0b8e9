"""The table's words in its four languages (SPEC: fr, it, es, en), and refusal messages by code.

>>> bet_name("egalite", "fr"), bet_name("egalite", "it"), bet_name("egalite", "es")
('Égalité', 'Egalité', 'Empate')
>>> word("balance", "it")
'Saldo'
>>> refusal("both-lion-sides", "en")
'A spot may back the Lion Bonus on Player or on Banker, never both.'
"""

from __future__ import annotations

from puntobanco.bets import BetKind
from puntobanco.errors import BetRefused, ErrorCode, PuntoBancoError

LANGUAGES: tuple[str, ...] = ("fr", "it", "es", "en")
DEFAULT_LANGUAGE = "fr"

_BETS: dict[str, dict[str, str]] = {
    "fr": {"punto": "Punto", "banco": "Banco", "egalite": "Égalité",
           "lion-punto": "Lion Bonus Punto", "lion-banco": "Lion Bonus Banco"},
    "it": {"punto": "Punto", "banco": "Banco", "egalite": "Egalité",
           "lion-punto": "Lion Bonus Punto", "lion-banco": "Lion Bonus Banco"},
    "es": {"punto": "Punto", "banco": "Banco", "egalite": "Empate",
           "lion-punto": "Lion Bonus Punto", "lion-banco": "Lion Bonus Banco"},
    "en": {"punto": "Player", "banco": "Banker", "egalite": "Tie",
           "lion-punto": "Lion Bonus Player", "lion-banco": "Lion Bonus Banker"},
}

_WORDS: dict[str, dict[str, str]] = {
    "fr": {"balance": "Solde", "stake": "Mise", "win": "Gagné", "lose": "Perdu",
           "push": "Rendu", "wins": "gagne", "natural": "Abattage", "cards_left": "Cartes restantes",
           "cut_card": "Carte de coupe", "last_coup": "Dernier coup", "no_more_bets": "Rien ne va plus",
           "place_bets": "Faites vos jeux", "limits": "Limites", "total": "Total",
           "shoe": "Sabot", "coup": "Coup", "result": "Résultat", "payouts": "Paiements",
           "new_shoe": "Nouveau sabot", "seat": "Place", "pass": "Passe", "burned": "Brûlées"},
    "it": {"balance": "Saldo", "stake": "Puntata", "win": "Vinta", "lose": "Persa",
           "push": "Restituita", "wins": "vince", "natural": "Battuta", "cards_left": "Carte rimaste",
           "cut_card": "Carta di taglio", "last_coup": "Ultimo colpo", "no_more_bets": "Rien ne va plus",
           "place_bets": "Fate il vostro gioco", "limits": "Limiti", "total": "Totale",
           "shoe": "Sabot", "coup": "Colpo", "result": "Risultato", "payouts": "Pagamenti",
           "new_shoe": "Nuovo sabot", "seat": "Posto", "pass": "Passo", "burned": "Bruciate"},
    "es": {"balance": "Saldo", "stake": "Apuesta", "win": "Ganada", "lose": "Perdida",
           "push": "Devuelta", "wins": "gana", "natural": "Natural", "cards_left": "Cartas restantes",
           "cut_card": "Carta de corte", "last_coup": "Última mano", "no_more_bets": "No va más",
           "place_bets": "Hagan juego", "limits": "Límites", "total": "Total",
           "shoe": "Zapato", "coup": "Mano", "result": "Resultado", "payouts": "Pagos",
           "new_shoe": "Nuevo zapato", "seat": "Puesto", "pass": "Paso", "burned": "Quemadas"},
    "en": {"balance": "Balance", "stake": "Stake", "win": "Won", "lose": "Lost",
           "push": "Returned", "wins": "wins", "natural": "Natural", "cards_left": "Cards left",
           "cut_card": "Cut card", "last_coup": "Last coup", "no_more_bets": "No more bets",
           "place_bets": "Place your bets", "limits": "Limits", "total": "Total",
           "shoe": "Shoe", "coup": "Coup", "result": "Result", "payouts": "Payouts",
           "new_shoe": "New shoe", "seat": "Seat", "pass": "Pass", "burned": "Burned"},
}

_REFUSALS: dict[str, dict[str, str]] = {
    "table-closed": {
        "fr": "Rien ne va plus : les mises sont fermées.",
        "it": "Rien ne va plus: le puntate sono chiuse.",
        "es": "No va más: las apuestas están cerradas.",
        "en": "No more bets: betting is closed."},
    "below-minimum": {
        "fr": "Mise inférieure au minimum de cette case.",
        "it": "Puntata inferiore al minimo di questa casella.",
        "es": "Apuesta inferior al mínimo de esta casilla.",
        "en": "The stake is below this box's minimum."},
    "above-maximum": {
        "fr": "Mise supérieure au maximum de cette case.",
        "it": "Puntata superiore al massimo di questa casella.",
        "es": "Apuesta superior al máximo de esta casilla.",
        "en": "The stake is above this box's maximum."},
    "both-lion-sides": {
        "fr": "Le Lion Bonus se joue sur Punto ou sur Banco, jamais les deux.",
        "it": "Il Lion Bonus si gioca sul Punto o sul Banco, mai su entrambi.",
        "es": "El Lion Bonus se juega al Punto o al Banco, nunca a ambos.",
        "en": "A spot may back the Lion Bonus on Player or on Banker, never both."},
    "punto-and-banco": {
        "fr": "Cette table n'accepte pas Punto et Banco ensemble.",
        "it": "Questo tavolo non accetta Punto e Banco insieme.",
        "es": "Esta mesa no acepta Punto y Banco a la vez.",
        "en": "This table does not allow Player and Banker on the same spot."},
    "not-chip-multiple": {
        "fr": "La mise doit être un multiple de la plus petite plaque.",
        "it": "La puntata deve essere un multiplo della fiche minima.",
        "es": "La apuesta debe ser múltiplo de la ficha mínima.",
        "en": "The stake must be a whole multiple of the chip unit."},
    "insufficient-balance": {
        "fr": "Solde insuffisant pour cette mise.",
        "it": "Saldo insufficiente per questa puntata.",
        "es": "Saldo insuficiente para esta apuesta.",
        "en": "The balance is too low for this stake."},
    "non-positive-stake": {
        "fr": "La mise doit être positive.", "it": "La puntata deve essere positiva.",
        "es": "La apuesta debe ser positiva.", "en": "The stake must be positive."},
    "no-such-bet": {
        "fr": "Aucune mise de ce type à retirer.", "it": "Nessuna puntata di questo tipo da ritirare.",
        "es": "No hay ninguna apuesta de este tipo que retirar.",
        "en": "There is no such bet to withdraw."},
    "unknown-bet": {
        "fr": "Mise inconnue.", "it": "Puntata sconosciuta.", "es": "Apuesta desconocida.",
        "en": "Unknown bet."},
    # The server's database is away or its disk full (issue 22): answered 503 with Retry-After.
    "database-unavailable": {
        "fr": "La base de données de la table est momentanément indisponible : réessayez dans "
              "quelques secondes.",
        "it": "Il database del tavolo è momentaneamente non disponibile: riprova tra qualche "
              "secondo.",
        "es": "La base de datos de la mesa no está disponible por un momento: inténtelo de "
              "nuevo en unos segundos.",
        "en": "The table's database is unavailable for a moment: try again in a few seconds."},
    "storage-full": {
        "fr": "Le stockage du serveur est plein : les mises sont suspendues jusqu'à ce que de la "
              "place soit libérée ; les mises en jeu sont en sécurité.",
        "it": "Lo spazio del server è pieno: le puntate sono sospese finché non si libera "
              "spazio; le puntate in gioco sono al sicuro.",
        "es": "El almacenamiento del servidor está lleno: las apuestas se suspenden hasta que se "
              "libere espacio; las apuestas en juego están a salvo.",
        "en": "The server's storage is full: betting is paused until space is freed; the bets "
              "in play are safe."},
    # What was typed at the terminal (``play``): a bet line, an amount.
    "bad-bet-line": {
        "fr": "Donnez chaque mise par un nom et un montant, par ex. banco 25 lion-banco 10.",
        "it": "Indicate ogni puntata con un nome e un importo, ad es. banco 25 lion-banco 10.",
        "es": "Indique cada apuesta con un nombre y un importe, p. ej. banco 25 lion-banco 10.",
        "en": "Give each bet as a name and an amount, e.g. banco 25 lion-banco 10."},
    "bad-amount": {
        "fr": "Montant invalide : un montant en euros, deux décimales au plus.",
        "it": "Importo non valido: un importo in euro, al massimo due decimali.",
        "es": "Importe no válido: un importe en euros, con dos decimales como máximo.",
        "en": "Not a valid amount: an amount in euros, two decimals at most."},
    "amount-too-large": {
        "fr": "Montant trop grand : au plus 999 999 999 999 999 €.",
        "it": "Importo troppo grande: al massimo 999.999.999.999.999 €.",
        "es": "Importe demasiado grande: como máximo 999.999.999.999.999 €.",
        "en": "Too large an amount: at most €999,999,999,999,999."},
}


def language(lang: str | None) -> str:
    """A supported language code (the default when ``lang`` is unknown)."""
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def bet_name(bet: str, lang: str) -> str:
    """The name of a bet kind (``punto``, ``banco``, ``egalite``, ``lion-punto``, ``lion-banco``)."""
    return _BETS[language(lang)][bet]


def word(key: str, lang: str) -> str:
    """A word of the table's vocabulary; the key itself if it has none."""
    return _WORDS[language(lang)].get(key, key)


def refusal(code: str, lang: str, default: str | None = None) -> str:
    """The bare sentence of a refusal code, without its facts (:func:`error_text` adds them)."""
    messages = _REFUSALS.get(code)
    if messages is None:
        return default if default is not None else code
    return messages[language(lang)]


def error_text(error: PuntoBancoError, lang: str) -> str:
    """The one localiser of errors, for the terminal, the server and the page.

    The code's sentence in ``lang`` with the facts the error carries (the bet, the stake and
    the limit it crosses, the chip unit, the balance available, the text typed); the error's
    own English sentence when the catalogue has no words for its code.

    >>> from puntobanco.bets import verify_spot
    >>> from puntobanco.errors import BetRefused
    >>> from puntobanco.rules import RuleSet
    >>> try:
    ...     verify_spot({BetKind.LION_BANCO: 6000}, RuleSet())
    ... except BetRefused as refused:
    ...     print(error_text(refused, "it")); print(error_text(refused, "en"))
    Puntata superiore al massimo di questa casella (Lion Bonus Banco: 60 €, massimo 50 €).
    The stake is above this box's maximum (Lion Bonus Banker: €60, maximum €50).
    """
    sentences = _REFUSALS.get(error.code)
    if sentences is None:
        return error.message
    sentence = sentences[language(lang)]
    detail = _facts(error, lang)
    return f"{sentence.removesuffix('.')} ({detail})." if detail else sentence


def _facts(error: PuntoBancoError, lang: str) -> str | None:
    """The figures behind a refusal, in ``lang``; ``None`` when it carries none."""
    code = error.code
    if code == ErrorCode.UNKNOWN_BET and error.text is not None:
        choices = ", ".join(kind.value for kind in BetKind)
        return phrase("detail.unknown-bet", lang, text=error.text, choices=choices)
    if error.text is not None and code in (ErrorCode.BAD_AMOUNT, ErrorCode.AMOUNT_TOO_LARGE):
        return phrase("detail.typed", lang, text=error.text)
    if not isinstance(error, BetRefused):
        return None
    if code in (ErrorCode.ABOVE_MAXIMUM, ErrorCode.BELOW_MINIMUM) and error.bet is not None \
            and error.limit is not None:
        figures = {"bet": bet_name(error.bet.value, lang),
                   "amount": money(error.limit, lang, short=True)}
        if error.stake is None:
            return phrase(f"detail.{code}", lang, **figures)
        return phrase(f"detail.{code}-stake", lang, stake=money(error.stake, lang, short=True),
                      **figures)
    if code == ErrorCode.NOT_CHIP_MULTIPLE and error.chip_unit is not None:
        return phrase("detail.not-chip-multiple", lang,
                      amount=money(error.chip_unit, lang, short=True))
    if code == ErrorCode.INSUFFICIENT_BALANCE and error.available is not None:
        return phrase("detail.insufficient-balance", lang, amount=money(error.available, lang))
    return None


def all_words() -> dict[str, dict[str, str]]:
    """Every word in every language, bet names included (served to the web page)."""
    return {lang: {**_WORDS[lang], **{f"bet.{k}": v for k, v in _BETS[lang].items()},
                   **{f"refusal.{code}": m[lang] for code, m in _REFUSALS.items()}}
            for lang in LANGUAGES}


# --- the terminal table's sentences (``puntobanco play`` and ``replay``) ----------------------
#
# Templates for :func:`phrase`, filled with :meth:`str.format`; every language has the same
# fields. French puts a space before ``:`` and ``;`` (the :data:`COLON` of each language).

_PHRASES: dict[str, dict[str, str]] = {
    # The welcome panel and the frame of the game.
    "seats.one": {"fr": "1 place", "it": "1 posto", "es": "1 puesto", "en": "1 seat"},
    "seats.many": {"fr": "{n} places", "it": "{n} posti", "es": "{n} puestos", "en": "{n} seats"},
    "bankroll.each": {
        "fr": "{seats}, {amount} chacune", "it": "{seats}, {amount} ciascuno",
        "es": "{seats}, {amount} cada uno", "en": "{seats}, {amount} each"},
    "decks.one": {"fr": "1 jeu", "it": "1 mazzo", "es": "1 baraja", "en": "1 deck"},
    "decks.many": {"fr": "{n} jeux", "it": "{n} mazzi", "es": "{n} barajas", "en": "{n} decks"},
    "shuffle.secure": {
        "fr": "mélange sécurisé", "it": "mescolata sicura", "es": "barajado seguro",
        "en": "secure shuffle"},
    "shuffle.seeded": {
        "fr": "graine {seed}, un sabot reproductible", "it": "seme {seed}, un sabot riproducibile",
        "es": "semilla {seed}, un zapato reproducible", "en": "seed {seed}, a reproducible shoe"},
    "help.hint": {
        "fr": "Tapez ? pour l'aide, = pour rejouer les mêmes mises, q pour quitter la table.",
        "it": "Digitate ? per l'aiuto, = per ripetere le puntate, q per lasciare il tavolo.",
        "es": "Escriba ? para la ayuda, = para repetir las apuestas, q para dejar la mesa.",
        "en": "Type ? for help, = for the same bets again, q to leave the table."},
    "cards.one": {"fr": "1 carte", "it": "1 carta", "es": "1 carta", "en": "1 card"},
    "cards.many": {"fr": "{n} cartes", "it": "{n} carte", "es": "{n} cartas", "en": "{n} cards"},
    "burn": {
        "fr": "Brûlées : {card} + {n}", "it": "Bruciate: {card} + {n}",
        "es": "Quemadas: {card} + {n}", "en": "Burned: {card} + {n}"},
    "seat.out": {
        "fr": "{seat} : hors jeu ({balance})", "it": "{seat}: fuori gioco ({balance})",
        "es": "{seat}: fuera de juego ({balance})", "en": "{seat}: out ({balance})"},
    "end.coups": {
        "fr": "Tous les coups demandés sont joués.",
        "it": "Tutti i colpi richiesti sono stati giocati.",
        "es": "Se han jugado todas las manos pedidas.",
        "en": "All the coups asked for are played."},
    "end.broke": {
        "fr": "Plus aucune place n'a de quoi miser.", "it": "Nessun posto ha più di che puntare.",
        "es": "Ningún puesto tiene ya con qué apostar.", "en": "Every seat is out of money."},
    "end.quit": {
        "fr": "Fin de la partie.", "it": "Fine della partita.", "es": "Fin de la partida.",
        "en": "Game over."},
    "coups_played": {
        "fr": "Coups joués : {n}.", "it": "Colpi giocati: {n}.", "es": "Manos jugadas: {n}.",
        "en": "Coups played: {n}."},
    "col.start": {"fr": "Départ", "it": "Iniziale", "es": "Inicial", "en": "Start"},
    "col.net": {"fr": "Net", "it": "Netto", "es": "Neto", "en": "Net"},
    "col.coups_bet": {
        "fr": "Coups misés", "it": "Colpi puntati", "es": "Manos apostadas", "en": "Coups bet"},
    # The rules line and the limits line.
    "banco.reduced_item": {
        "fr": "{pay} avec {total}", "it": "{pay} con {total}", "es": "{pay} con {total}",
        "en": "{pay} on {total}"},
    "pay.push": {"fr": "rendu", "it": "restituito", "es": "devuelto", "en": "returned"},
    "pay.loses": {"fr": "perdant", "it": "perdente", "es": "pierde", "en": "loses"},
    "banco.commission": {
        "fr": "{banco} 1:1 moins {percent}", "it": "{banco} 1:1 meno il {percent}",
        "es": "{banco} 1:1 menos el {percent}", "en": "{banco} 1:1 less {percent}"},
    "drawing.standard": {
        "fr": "tableau de tirage standard", "it": "tabella della terza carta standard",
        "es": "tabla de tercera carta estándar", "en": "standard drawing"},
    "drawing.seed-literal": {
        "fr": "tirage des textes à la lettre", "it": "terza carta dei testi alla lettera",
        "es": "tercera carta de los textos al pie de la letra", "en": "seed-literal drawing"},
    "chip": {"fr": "jeton {amount}", "it": "fiche {amount}", "es": "ficha {amount}",
             "en": "chip {amount}"},
    # Payout tables.
    "col.bet": {"fr": "Case", "it": "Casella", "es": "Casilla", "en": "Bet"},
    "col.pays": {"fr": "Paie", "it": "Paga", "es": "Paga", "en": "Pays"},
    "pays.less": {
        "fr": "{pays} moins {percent}", "it": "{pays} meno il {percent}",
        "es": "{pays} menos el {percent}", "en": "{pays} less {percent}"},
    # a Banco win paid other than 1:1 (B2: the 6 at 1:2, or a table's other reduced totals)
    **{f"detail.win-with-{t}": {
        "fr": f"{{banco}} avec {t}", "it": f"{{banco}} con {t}", "es": f"{{banco}} con {t}",
        "en": f"{{banco}} with {t}"} for t in range(1, 10)},
    "detail.win-commission": {
        "fr": "commission", "it": "commissione", "es": "comisión", "en": "commission"},
    "detail.natural-win": {
        "fr": "abattage", "it": "battuta", "es": "natural", "en": "natural"},
    "detail.natural-tie": {
        "fr": "égalité d'abattages", "it": "pareggio di battute", "es": "empate de naturales",
        "en": "natural tie"},
    "detail.win-by": {
        "fr": "écart de {n}", "it": "scarto di {n}", "es": "diferencia de {n}", "en": "by {n}"},
    # Refusals at the table: what was typed, and the figures behind a refusal.
    # The figures behind a refusal (:func:`error_text`).
    "detail.typed": {"fr": "« {text} »", "it": "«{text}»", "es": "«{text}»", "en": "'{text}'"},
    "detail.unknown-bet": {
        "fr": "« {text} » ; au choix : {choices}", "it": "«{text}»; a scelta: {choices}",
        "es": "«{text}»; a elegir: {choices}", "en": "'{text}'; choose {choices}"},
    "detail.above-maximum": {
        "fr": "{bet} : maximum {amount}", "it": "{bet}: massimo {amount}",
        "es": "{bet}: máximo {amount}", "en": "{bet}: maximum {amount}"},
    "detail.above-maximum-stake": {
        "fr": "{bet} : {stake}, maximum {amount}", "it": "{bet}: {stake}, massimo {amount}",
        "es": "{bet}: {stake}, máximo {amount}", "en": "{bet}: {stake}, maximum {amount}"},
    "detail.below-minimum-stake": {
        "fr": "{bet} : {stake}, minimum {amount}", "it": "{bet}: {stake}, minimo {amount}",
        "es": "{bet}: {stake}, mínimo {amount}", "en": "{bet}: {stake}, minimum {amount}"},
    "detail.below-minimum": {
        "fr": "{bet} : minimum {amount}", "it": "{bet}: minimo {amount}",
        "es": "{bet}: mínimo {amount}", "en": "{bet}: minimum {amount}"},
    "detail.not-chip-multiple": {
        "fr": "jeton de {amount}", "it": "fiche da {amount}", "es": "ficha de {amount}",
        "en": "chip unit {amount}"},
    "detail.insufficient-balance": {
        "fr": "{amount} disponibles", "it": "{amount} disponibili", "es": "{amount} disponibles",
        "en": "{amount} available"},
    # ``replay``.
    "spot": {"fr": "Mises : {bets}", "it": "Puntate: {bets}", "es": "Apuestas: {bets}",
             "en": "Spot: {bets}"},
    "col.cards": {"fr": "Cartes", "it": "Carte", "es": "Cartas", "en": "Cards"},
    "margin": {"fr": "écart {n}", "it": "scarto {n}", "es": "diferencia {n}", "en": "margin {n}"},
    "coup_net": {"fr": "Net du coup", "it": "Netto del colpo", "es": "Neto de la mano",
                 "en": "Coup net"},
    "summary": {"fr": "Bilan", "it": "Riepilogo", "es": "Resumen", "en": "Summary"},
    "col.coups": {"fr": "Coups", "it": "Colpi", "es": "Manos", "en": "Coups"},
    "col.total_staked": {
        "fr": "Total misé", "it": "Totale puntato", "es": "Total apostado", "en": "Total staked"},
    "col.total_net": {
        "fr": "Net total", "it": "Netto totale", "es": "Neto total", "en": "Total net"},
    "leftover.one": {
        "fr": "1 carte reste ({cards}), trop peu pour un coup entier.",
        "it": "Avanza 1 carta ({cards}), troppo poche per un colpo intero.",
        "es": "Sobra 1 carta ({cards}), muy pocas para una mano completa.",
        "en": "1 card is left over ({cards}), too few for a whole coup."},
    "leftover.many": {
        "fr": "{n} cartes restent ({cards}), trop peu pour un coup entier.",
        "it": "Avanzano {n} carte ({cards}), troppo poche per un colpo intero.",
        "es": "Sobran {n} cartas ({cards}), muy pocas para una mano completa.",
        "en": "{n} cards are left over ({cards}), too few for a whole coup."},
    # The help printed by ``?`` (Rich markup).
    "help.body": {
        "fr": ("Misez sur une ligne : les mises et les montants en euros, par ex. "
               "[bold]banco 25 lion-banco 10[/]\n"
               "  punto p · banco b · egalite e · lion-punto lp · lion-banco lb\n"
               "  une ligne vide passe ce coup · [bold]=[/] les mêmes mises qu'au dernier coup\n"
               "  [bold]q[/] cette place quitte la table · [bold]?[/] affiche cette aide\n"
               "{punto} paie 1:1. {banco_pays}\n"
               "{egalite} paie {tie} (B3) ; {punto} et {banco} sont alors rendus.\n"
               "Lion Bonus, {lion}, sur {punto} ou sur {banco}, jamais les deux (L1, L3) :\n"
               "le côté gagne par abattage, {natural} ; il gagne de 4 points ou plus\n"
               "après une troisième carte, payé selon l'écart (de 9 à 4 : {paytable}, L5c) ;\n"
               "{natural_tie}\n"
               "Il est payé après les autres mises (L6)."),
        "it": ("Puntate su una riga: le puntate e gli importi in euro, ad es. "
               "[bold]banco 25 lion-banco 10[/]\n"
               "  punto p · banco b · egalite e · lion-punto lp · lion-banco lb\n"
               "  una riga vuota passa questo colpo · [bold]=[/] le stesse puntate dell'ultimo "
               "colpo\n"
               "  [bold]q[/] questo posto lascia il tavolo · [bold]?[/] mostra questo aiuto\n"
               "{punto} paga 1:1. {banco_pays}\n"
               "{egalite} paga {tie} (B3); {punto} e {banco} vengono restituiti.\n"
               "Lion Bonus, {lion}, sul {punto} o sul {banco}, mai su entrambi (L1, L3):\n"
               "il lato vince con una battuta, {natural}; vince di 4 punti o più\n"
               "dopo una terza carta, pagato secondo lo scarto (da 9 a 4: {paytable}, L5c);\n"
               "{natural_tie}\n"
               "Si paga dopo le altre puntate (L6)."),
        "es": ("Apueste en una línea: las apuestas y los importes en euros, p. ej. "
               "[bold]banco 25 lion-banco 10[/]\n"
               "  punto p · banco b · egalite e, empate · lion-punto lp · lion-banco lb\n"
               "  una línea vacía pasa esta mano · [bold]=[/] las mismas apuestas de la última "
               "mano\n"
               "  [bold]q[/] este puesto deja la mesa · [bold]?[/] muestra esta ayuda\n"
               "{punto} paga 1:1. {banco_pays}\n"
               "{egalite} paga {tie} (B3); se devuelven {punto} y {banco}.\n"
               "Lion Bonus, {lion}, al {punto} o al {banco}, nunca a ambos (L1, L3):\n"
               "el lado gana con natural, {natural}; gana por 4 puntos o más\n"
               "tras una tercera carta, pagado según la diferencia (de 9 a 4: {paytable}, L5c);\n"
               "{natural_tie}\n"
               "Se paga después de las demás apuestas (L6)."),
        "en": ("Bet on one line: bets and amounts in euros, e.g. [bold]banco 25 lion-banco 10[/]\n"
               "  punto p · banco b · egalite e, tie · lion-punto lp · lion-banco lb\n"
               "  an empty line passes this coup · [bold]=[/] the same bets as the last coup\n"
               "  [bold]q[/] this seat leaves the table · [bold]?[/] shows this help\n"
               "{punto} pays 1:1. {banco_pays}\n"
               "{egalite} pays {tie} (B3), and {punto} and {banco} are returned.\n"
               "Lion Bonus, {lion}, on {punto} or on {banco}, never both (L1, L3):\n"
               "the side wins with a natural, {natural}; it wins by 4 points or more\n"
               "after a third card, paid by the margin (9 to 4: {paytable}, L5c);\n"
               "{natural_tie}\n"
               "It is paid after the other bets (L6).")},
    "help.banco_half_on_six": {
        "fr": "{banco} paie 1:1, mais la moitié quand il gagne avec 6 (B2).",
        "it": "{banco} paga 1:1, ma la metà quando vince con 6 (B2).",
        "es": "{banco} paga 1:1, pero la mitad cuando gana con 6 (B2).",
        "en": "{banco} pays 1:1, but half when it wins with 6 (B2)."},
    "help.banco_reduced": {
        "fr": "{banco} paie 1:1, sauf {pays} (B2).",
        "it": "{banco} paga 1:1, tranne {pays} (B2).",
        "es": "{banco} paga 1:1, salvo {pays} (B2).",
        "en": "{banco} pays 1:1, except {pays} (B2)."},
    "help.banco_even": {
        "fr": "{banco} paie 1:1 (B2).", "it": "{banco} paga 1:1 (B2).",
        "es": "{banco} paga 1:1 (B2).", "en": "{banco} pays 1:1 (B2)."},
    "help.natural_tie.push": {
        "fr": "une égalité d'abattages rend la mise du Lion Bonus (L5b), toute autre la perd.",
        "it": "un pareggio di battute restituisce la puntata del Lion Bonus (L5b), ogni altro "
              "pareggio la perde.",
        "es": "un empate de naturales devuelve la apuesta del Lion Bonus (L5b), cualquier otro "
              "empate la pierde.",
        "en": "a natural tie returns the Lion Bonus stake (L5b), any other tie loses it."},
    "help.natural_tie.loses": {
        "fr": "toute égalité, même d'abattages (L5b), perd la mise du Lion Bonus.",
        "it": "ogni pareggio, anche di battute (L5b), perde la puntata del Lion Bonus.",
        "es": "todo empate, también de naturales (L5b), pierde la apuesta del Lion Bonus.",
        "en": "any tie, a natural tie too (L5b), loses the Lion Bonus stake."},
    "help.natural_tie.pays": {
        "fr": "une égalité d'abattages paie {pays} (L5b), toute autre égalité perd la mise.",
        "it": "un pareggio di battute paga {pays} (L5b), ogni altro pareggio perde la puntata.",
        "es": "un empate de naturales paga {pays} (L5b), cualquier otro empate pierde la apuesta.",
        "en": "a natural tie pays {pays} (L5b), any other tie loses the stake."},
    "help.banco_commission": {
        "fr": "{banco} paie 1:1 moins une commission de {percent}.",
        "it": "{banco} paga 1:1 meno una commissione del {percent}.",
        "es": "{banco} paga 1:1 menos una comisión del {percent}.",
        "en": "{banco} pays 1:1 less a {percent} commission."},
}

#: Thousands separator and decimal mark of each language's amounts.
_SEPARATORS: dict[str, tuple[str, str]] = {
    "fr": (" ", ","), "it": (".", ","), "es": (".", ","), "en": (",", "."),
}
#: A colon as each language writes it (French puts a space before it).
COLON: dict[str, str] = {"fr": " : ", "it": ": ", "es": ": ", "en": ": "}


def phrase(key: str, lang: str, /, **fields: object) -> str:
    """A sentence or label of the terminal table, in ``lang``, with its fields filled in.

    >>> phrase("coups_played", "it", n=3)
    'Colpi giocati: 3.'
    >>> phrase("seats.many", "es", n=2)
    '2 puestos'
    """
    return _PHRASES[key][language(lang)].format(**fields)


def counted(key: str, n: int, lang: str, /, **fields: object) -> str:
    """``key.one`` for one, ``key.many`` otherwise (``cards``, ``seats``, ``decks``, ``leftover``).

    >>> counted("cards", 1, "fr"), counted("cards", 312, "fr"), counted("decks", 6, "it")
    ('1 carte', '312 cartes', '6 mazzi')
    """
    return phrase(f"{key}.{'one' if n == 1 else 'many'}", lang, n=n, **fields)


def _grouped(whole: int, lang: str) -> str:
    return f"{whole:,}".replace(",", _SEPARATORS[language(lang)][0])


def money(cents: int, lang: str, /, *, short: bool = False) -> str:
    """An amount of cents as the table's language writes euros (``short``: no ``,00``).

    >>> money(123456, "fr"), money(123456, "it"), money(123456, "es"), money(123456, "en")
    ('1 234,56 €', '1.234,56 €', '1.234,56 €', '€1,234.56')
    >>> money(-1250, "fr"), money(-1250, "en"), money(100000, "fr", short=True), money(1050, "en", short=True)
    ('-12,50 €', '-€12.50', '1 000 €', '€10.50')
    """
    lang = language(lang)
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    number = _grouped(whole, lang)
    if not (short and part == 0):
        number += f"{_SEPARATORS[lang][1]}{part:02d}"
    return f"{sign}€{number}" if lang == "en" else f"{sign}{number} €"


def signed_money(cents: int, lang: str, /) -> str:
    """A net amount with its sign: ``+12,50 €``, ``-€5.00``, ``0,00 €``."""
    return ("+" if cents > 0 else "") + money(cents, lang)


def money_range(minimum: int, maximum: int, lang: str, /) -> str:
    """A range of stakes: ``10–5 000 €``, ``€10–5,000``; decimals only where needed.

    >>> money_range(1000, 500000, "fr"), money_range(1000, 5000, "en"), money_range(1050, 5000, "it")
    ('10–5 000 €', '€10–50', '10,50 €–50 €')
    """
    if minimum % 100 or maximum % 100:
        return f"{money(minimum, lang, short=True)}–{money(maximum, lang, short=True)}"
    low, high = _grouped(minimum // 100, lang), _grouped(maximum // 100, lang)
    return f"€{low}–{high}" if language(lang) == "en" else f"{low}–{high} €"


def percent(value: float, lang: str, /) -> str:
    """A percentage: ``5 %`` in French and Spanish, ``4,5%`` in Italian, ``5%`` in English.

    >>> percent(5.0, "fr"), percent(4.5, "it"), percent(5, "es"), percent(2.5, "en")
    ('5 %', '4,5%', '5 %', '2.5%')
    """
    lang = language(lang)
    number = f"{value:g}".replace(".", _SEPARATORS[lang][1])
    return f"{number} %" if lang in ("fr", "es") else f"{number}%"


def all_phrases() -> dict[str, dict[str, str]]:
    """Every terminal phrase template by language (for tests and translators)."""
    return {lang: {key: texts[lang] for key, texts in _PHRASES.items()} for lang in LANGUAGES}
