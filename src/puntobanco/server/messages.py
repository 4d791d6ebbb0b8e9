"""The server-only errors, their messages in the four table languages, and the HTTP statuses.

Every other error (bets, cards, amounts) is said by the core's one localiser,
:func:`puntobanco.i18n.error_text`, with its facts; this module adds the errors only the server
gives (signing in, permissions, idempotency, malformed requests, table settings): their classes
(:class:`NotFound`, :class:`IdempotencyConflict`, :class:`Refusal`), sentences and statuses.
:func:`error_message` is what an error answer says.

A message never shows a raw ``{placeholder}``: when the sentence of a code needs a field that
was not given, the specific reason (the error's own, English, sentence) is answered instead.

>>> message("bad-credentials", "it")
'Nome utente o password errati.'
>>> message("both-lion-sides", "es")
'El Lion Bonus se juega al Punto o al Banco, nunca a ambos.'
>>> message("bad-request", "en", field="stake")
'The request is not valid: look at the field stake.'
>>> message("bad-request", "fr", "A table's name is 1 to 64 characters.")
"A table's name is 1 to 64 characters."
>>> message("table-name-length", "fr", "A table's name is 1 to 64 characters.")
"Le nom d'une table compte de 1 à 64 caractères."
>>> message("bad-rules", "it", "A shoe holds 1 to 8 decks, not 9.")
'Impostazioni del tavolo rifiutate: A shoe holds 1 to 8 decks, not 9.'
>>> status_of("table-closed"), status_of("below-minimum"), status_of("no-such-bet")
(409, 422, 404)
"""

from __future__ import annotations

import string

from puntobanco.errors import ErrorCode, PuntoBancoError
from puntobanco.i18n import error_text, language, refusal
from puntobanco.server import dealer_messages

_MESSAGES: dict[str, dict[str, str]] = {
    "bad-credentials": {
        "fr": "Nom d'utilisateur ou mot de passe incorrect.",
        "it": "Nome utente o password errati.",
        "es": "Usuario o contraseña incorrectos.",
        "en": "Wrong username or password."},
    "unauthorized": {
        "fr": "Connectez-vous d'abord.", "it": "Accedi prima.", "es": "Inicie sesión primero.",
        "en": "Sign in first."},
    "forbidden": {
        "fr": "Réservé à l'opérateur de la salle.", "it": "Riservato all'operatore della sala.",
        "es": "Reservado al operador de la sala.", "en": "Only the operator may do this."},
    "not-found": {
        "fr": "Introuvable.", "it": "Non trovato.", "es": "No encontrado.", "en": "Not found."},
    "username-taken": {
        "fr": "Ce nom d'utilisateur est déjà pris.", "it": "Questo nome utente è già in uso.",
        "es": "Ese nombre de usuario ya existe.", "en": "That username is already taken."},
    "bad-username": {
        "fr": "Un nom d'utilisateur compte 3 à 32 lettres, chiffres, points, tirets ou "
              "tirets bas.",
        "it": "Un nome utente ha da 3 a 32 lettere, cifre, punti, trattini o trattini bassi.",
        "es": "Un nombre de usuario tiene de 3 a 32 letras, cifras, puntos, guiones o "
              "guiones bajos.",
        "en": "A username is 3 to 32 letters, digits, dots, dashes or underscores."},
    "bad-password": {
        "fr": "Un mot de passe compte 6 à 72 octets.",
        "it": "Una password ha da 6 a 72 byte.",
        "es": "Una contraseña tiene de 6 a 72 bytes.",
        "en": "A password is 6 to 72 bytes long."},
    "bad-lang": {
        "fr": "La langue est fr, it, es ou en.", "it": "La lingua è fr, it, es o en.",
        "es": "El idioma es fr, it, es o en.", "en": "The language is one of fr, it, es, en."},
    "table-name-taken": {
        "fr": "Une table porte déjà ce nom.", "it": "Esiste già un tavolo con questo nome.",
        "es": "Ya existe una mesa con ese nombre.", "en": "A table with that name exists."},
    "table-name-length": {
        "fr": "Le nom d'une table compte de 1 à 64 caractères.",
        "it": "Il nome di un tavolo ha da 1 a 64 caratteri.",
        "es": "El nombre de una mesa tiene de 1 a 64 caracteres.",
        "en": "A table's name is 1 to 64 characters."},
    "table-name-characters": {
        "fr": "Le nom d'une table ne contient aucun caractère de contrôle.",
        "it": "Il nome di un tavolo non contiene caratteri di controllo.",
        "es": "El nombre de una mesa no contiene caracteres de control.",
        "en": "A table's name has no control character."},
    # The detail is the core's (or the settings reader's) English sentence: the table settings
    # have many ranges, and the lead sentence says in the player's language what was refused.
    "bad-rules": {
        "fr": "Réglages de table refusés : {detail}",
        "it": "Impostazioni del tavolo rifiutate: {detail}",
        "es": "Ajustes de mesa rechazados: {detail}",
        "en": "{detail}"},
    "idempotency-conflict": {
        "fr": "Cette clé d'idempotence a déjà servi pour une autre mise.",
        "it": "Questa chiave di idempotenza è già stata usata per un'altra puntata.",
        "es": "Esta clave de idempotencia ya se usó para otra apuesta.",
        "en": "This idempotency key was already used for a different bet."},
    "bad-request": {
        "fr": "Requête invalide : vérifiez le champ {field}.",
        "it": "Richiesta non valida: controlla il campo {field}.",
        "es": "Solicitud no válida: revise el campo {field}.",
        "en": "The request is not valid: look at the field {field}."},
    "bad-json": {
        "fr": "Le corps de la requête n'est pas du JSON valide.",
        "it": "Il corpo della richiesta non è JSON valido.",
        "es": "El cuerpo de la solicitud no es JSON válido.",
        "en": "The request body is not valid JSON."},
    "bad-method": {
        "fr": "Cette adresse n'accepte pas cette méthode.",
        "it": "Questo indirizzo non accetta questo metodo.",
        "es": "Esta dirección no acepta este método.",
        "en": "This address does not take that method."},
    "body-too-large": {
        "fr": "Le corps de la requête est trop long.",
        "it": "Il corpo della richiesta è troppo lungo.",
        "es": "El cuerpo de la solicitud es demasiado largo.",
        "en": "The request body is too long."},
    "too-many-requests": {
        "fr": "Trop de requêtes : réessayez dans un instant.",
        "it": "Troppe richieste: riprova tra un momento.",
        "es": "Demasiadas solicitudes: inténtelo de nuevo en un momento.",
        "en": "Too many requests: try again in a moment."},
    "table-out-of-service": {
        "fr": "Cette table est hors service : {detail}",
        "it": "Questo tavolo è fuori servizio: {detail}",
        "es": "Esta mesa está fuera de servicio: {detail}",
        "en": "{detail}"},
    "account-suspended": {
        "fr": "Ce compte est suspendu.", "it": "Questo account è sospeso.",
        "es": "Esta cuenta está suspendida.", "en": "This account is suspended."},
    "not-a-player": {
        "fr": "Seul un compte de joueur mise et détient de l'argent.",
        "it": "Solo un account giocatore punta e detiene denaro.",
        "es": "Solo una cuenta de jugador apuesta y tiene dinero.",
        "en": "Only a player's account bets and holds money."},
    "operator-not-suspendable": {
        "fr": "Un compte d'opérateur ne peut pas être suspendu.",
        "it": "Un account operatore non può essere sospeso.",
        "es": "Una cuenta de operador no se puede suspender.",
        "en": "An operator account cannot be suspended."},
    "nothing-to-change": {
        "fr": "Rien à modifier : indiquez un nom ou des réglages.",
        "it": "Niente da modificare: indica un nome o delle impostazioni.",
        "es": "Nada que cambiar: indique un nombre o unos ajustes.",
        "en": "Nothing to change: give a name or settings."},
    "bad-period": {
        "fr": "Période invalide : les dates s'écrivent AAAA-MM-JJ et « from » précède « to ».",
        "it": "Periodo non valido: le date si scrivono AAAA-MM-GG e «from» precede «to».",
        "es": "Periodo no válido: las fechas se escriben AAAA-MM-DD y «from» precede a «to».",
        "en": "The period is not valid: dates are YYYY-MM-DD and from comes before to."},
    "bad-nul": {  # a bad-request: a NUL character in a path, a query or a body (issue 18)
        "fr": "Une requête ne contient aucun caractère NUL.",
        "it": "Una richiesta non contiene alcun carattere NUL.",
        "es": "Una solicitud no contiene ningún carácter NUL.",
        "en": "A request holds no NUL character."},
    "duplicate-bet": {  # a batch of bets naming one box twice, aliases included (issue 18)
        "fr": "Un lot de mises nomme chaque case une seule fois.",
        "it": "Un gruppo di puntate nomina ogni casella una sola volta.",
        "es": "Un lote de apuestas nombra cada casilla una sola vez.",
        "en": "A batch of bets names each box once."},
    "internal-error": {
        "fr": "Une erreur est survenue sur le serveur.",
        "it": "Si è verificato un errore sul server.",
        "es": "Se produjo un error en el servidor.",
        "en": "Something went wrong on the server."},
}

_STATUS: dict[str, int] = {
    "bad-request": 400, "bad-username": 400, "bad-password": 400, "bad-lang": 400,
    "bad-credentials": 401, "unauthorized": 401, "forbidden": 403,
    "not-found": 404, "no-such-bet": 404,
    "username-taken": 409, "table-name-taken": 409, "table-closed": 409,
    "idempotency-conflict": 409, "internal-error": 500,
    "body-too-large": 413, "too-many-requests": 429, "table-out-of-service": 409,
    "account-suspended": 403, "not-a-player": 403, "operator-not-suspendable": 409,
    "nothing-to-change": 400, "bad-period": 400, "database-unavailable": 503, "storage-full": 503,
    "duplicate-bet": 400,
}


_MESSAGES.update(dealer_messages.MESSAGES)  # dealer mode (docs/dealer.md)
_STATUS.update(dealer_messages.STATUS)
class NotFound(PuntoBancoError):
    """No such table, coup, shoe or player."""

    code = ErrorCode.NOT_FOUND


class IdempotencyConflict(PuntoBancoError):
    """The idempotency key was already used for another bet."""

    code = ErrorCode.IDEMPOTENCY_CONFLICT


class Refusal(PuntoBancoError):
    """A refusal answered with ``code`` whose message is the sentence ``key`` of this module.

    For the refusals one code covers for several reasons (``bad-request``): the client reads the
    code, the player reads the reason in their language.
    """

    def __init__(self, message: str, *, code: str, key: str) -> None:
        super().__init__(message, code=code)
        self.key = key


def error_message(error: PuntoBancoError, lang: str | None) -> str:
    """What an error answer says in ``lang``: a server-only error's sentence, else the core's
    localised sentence with the error's facts (:func:`puntobanco.i18n.error_text`).

    >>> from puntobanco.errors import BetRefused
    >>> error_message(BetRefused("…", code="insufficient-balance", available=550), "fr")
    'Solde insuffisant pour cette mise (5,50 € disponibles).'
    >>> error_message(NotFound("There is no table 9."), "es")
    'No encontrado.'
    """
    key = getattr(error, "key", None) or error.code
    if key in _MESSAGES:
        return message(key, lang, error.message, **getattr(error, "fields", {}))
    return error_text(error, language(lang))


def message(code: str, lang: str | None, default: str | None = None, **fields: str) -> str:
    """The one-sentence message for ``code`` (or a message key) in ``lang``.

    ``default`` is the specific reason, in English: it fills a ``{detail}`` field, and it is the
    answer when the code has no sentence here or its sentence needs a field not given.
    """
    texts = _MESSAGES.get(code)
    if texts is None:
        return refusal(code, language(lang), default=default)
    template = texts[language(lang)]
    values = dict(fields)
    if default is not None:
        values.setdefault("detail", default)
    needed = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    if needed - values.keys():
        return default if default is not None else _without_fields(code, lang)
    return template.format(**values)


def _without_fields(code: str, lang: str | None) -> str:
    """The last resort: the code's sentence with no field at all (never a raw placeholder)."""
    return _PLAIN.get(code, _PLAIN["bad-request"])[language(lang)]


_PLAIN: dict[str, dict[str, str]] = {
    "bad-request": {"fr": "Requête invalide.", "it": "Richiesta non valida.",
                    "es": "Solicitud no válida.", "en": "The request is not valid."},
    "bad-rules": {"fr": "Réglages de table refusés.", "it": "Impostazioni del tavolo rifiutate.",
                  "es": "Ajustes de mesa rechazados.", "en": "The table settings are refused."},
}


def status_of(code: str) -> int:
    """The HTTP status of an error code: 422 for refusals not listed (bets, rules)."""
    return _STATUS.get(code, 422)
