"""The server's own refusal messages, in the four table languages, and the HTTP status of codes.

Bet refusals keep the core's texts (:func:`puntobanco.i18n.refusal`); this adds the codes only
the server gives (signing in, permissions, idempotency, malformed requests).

>>> message("bad-credentials", "it")
'Nome utente o password errati.'
>>> message("both-lion-sides", "es")
'El Lion Bonus se juega al Punto o al Banco, nunca a ambos.'
>>> message("bad-request", "en", field="stake")
'The request is not valid: look at the field stake.'
>>> status_of("table-closed"), status_of("below-minimum"), status_of("no-such-bet")
(409, 422, 404)
"""

from __future__ import annotations

from puntobanco.i18n import language, refusal

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
    "table-name-taken": {
        "fr": "Une table porte déjà ce nom.", "it": "Esiste già un tavolo con questo nome.",
        "es": "Ya existe una mesa con ese nombre.", "en": "A table with that name exists."},
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
}

_STATUS: dict[str, int] = {
    "bad-request": 400, "bad-username": 400, "bad-password": 400, "bad-lang": 400,
    "bad-credentials": 401, "unauthorized": 401, "forbidden": 403,
    "not-found": 404, "no-such-bet": 404,
    "username-taken": 409, "table-name-taken": 409, "table-closed": 409,
    "idempotency-conflict": 409,
}


def message(code: str, lang: str | None, default: str | None = None, **fields: str) -> str:
    """The one-sentence message for ``code`` in ``lang`` (the default text if it has none)."""
    texts = _MESSAGES.get(code)
    if texts is not None:
        return texts[language(lang)].format(**fields) if fields else texts[language(lang)]
    return refusal(code, language(lang), default=default)


def status_of(code: str) -> int:
    """The HTTP status of an error code: 422 for refusals not listed (bets, rules)."""
    return _STATUS.get(code, 422)
