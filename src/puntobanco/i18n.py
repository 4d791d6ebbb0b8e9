"""The table's words in its four languages (SPEC: fr, it, es, en), and refusal messages by code.

>>> bet_name("egalite", "fr"), bet_name("egalite", "it"), bet_name("egalite", "es")
('Égalité', 'Egalité', 'Empate')
>>> word("balance", "it")
'Saldo'
>>> refusal("both-lion-sides", "en")
'A spot may back the Lion Bonus on Punto or on Banco, never both.'
"""

from __future__ import annotations

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
        "en": "A spot may back the Lion Bonus on Punto or on Banco, never both."},
    "punto-and-banco": {
        "fr": "Cette table n'accepte pas Punto et Banco ensemble.",
        "it": "Questo tavolo non accetta Punto e Banco insieme.",
        "es": "Esta mesa no acepta Punto y Banco a la vez.",
        "en": "This table does not allow Punto and Banco on the same spot."},
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
    """The refusal message for a :class:`~puntobanco.errors.BetRefused` code."""
    messages = _REFUSALS.get(code)
    if messages is None:
        return default if default is not None else code
    return messages[language(lang)]


def all_words() -> dict[str, dict[str, str]]:
    """Every word in every language, bet names included (served to the web page)."""
    return {lang: {**_WORDS[lang], **{f"bet.{k}": v for k, v in _BETS[lang].items()},
                   **{f"refusal.{code}": m[lang] for code, m in _REFUSALS.items()}}
            for lang in LANGUAGES}
