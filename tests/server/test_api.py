"""The REST API against a real server on a real SQLite file: players, sessions, languages,
operator rights, errors and the OpenAPI document (docs/api.md)."""

from __future__ import annotations

from pathlib import Path

from .support import LiveServer, fast_settings, running, wallet_entries


def test_signup_credits_welcome_play_money_as_a_ledger_transaction(sqlite_server: LiveServer) -> None:
    answer = sqlite_server.http.post("/api/signup", json={"username": "Ann", "password": "secret1",
                                                          "lang": "it"})
    assert answer.status_code == 201
    body = answer.json()
    assert body["player"] == {"id": body["player"]["id"], "username": "Ann", "role": "player",
                              "lang": "it", "balance": 100_000}
    assert wallet_entries(sqlite_server.settings.database_url, body["player"]["id"]) == [
        ("welcome", 100_000)]


def test_login_logout_and_tokens(sqlite_server: LiveServer) -> None:
    ann = sqlite_server.signup("ann")
    login = sqlite_server.http.post("/api/login", json={"username": "ANN", "password": "secret1"})
    assert login.status_code == 200
    second = {"Authorization": f"Bearer {login.json()['token']}"}
    assert sqlite_server.http.get("/api/me", headers=second).json()["username"] == "ann"
    assert sqlite_server.http.post("/api/logout", headers=second).json() == {"ok": True}
    refused = sqlite_server.http.get("/api/me", headers=second)
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "unauthorized"
    assert sqlite_server.http.get("/api/me", headers=ann.headers).status_code == 200  # other session
    assert sqlite_server.http.get("/api/me").json()["error"]["code"] == "unauthorized"


def test_wrong_password_and_taken_username_are_refused(sqlite_server: LiveServer) -> None:
    sqlite_server.signup("bob")
    wrong = sqlite_server.http.post("/api/login", json={"username": "bob", "password": "nope!!"},
                                    headers={"Accept-Language": "es"})
    assert wrong.status_code == 401
    assert wrong.json()["error"] == {"code": "bad-credentials",
                                     "message": "Usuario o contraseña incorrectos."}
    unknown = sqlite_server.http.post("/api/login", json={"username": "nobody", "password": "x" * 8})
    assert unknown.json()["error"]["code"] == "bad-credentials"
    taken = sqlite_server.http.post("/api/signup", json={"username": "BOB", "password": "secret1"})
    assert (taken.status_code, taken.json()["error"]["code"]) == (409, "username-taken")


def test_bad_signups_are_400_with_one_sentence(sqlite_server: LiveServer) -> None:
    for body, code in [({"username": "x", "password": "secret1"}, "bad-username"),
                       ({"username": "a b c", "password": "secret1"}, "bad-username"),
                       ({"username": "carl", "password": "123"}, "bad-password"),
                       ({"username": "carl", "password": "p" * 73}, "bad-password"),
                       ({"username": "carl", "password": "secret1", "lang": "de"}, "bad-request"),
                       ({"username": "carl"}, "bad-request")]:
        answer = sqlite_server.http.post("/api/signup", json=body)
        assert answer.status_code == 400, body
        assert answer.json()["error"]["code"] == code
        assert answer.json()["error"]["message"].endswith(".")
    assert sqlite_server.http.post("/api/login", json={"username": "carl",
                                                       "password": "secret1"}).status_code == 401


def test_language_of_messages_query_then_accept_language_then_player(
        sqlite_server: LiveServer) -> None:
    fr = sqlite_server.signup("dora", lang="fr")
    http = sqlite_server.http
    # not signed in: Accept-Language, unless ?lang= says otherwise
    assert http.get("/api/tables/99", headers={"Accept-Language": "it-IT,it;q=0.9"}
                    ).json()["error"]["message"] == "Non trovato."
    assert http.get("/api/tables/99?lang=es").json()["error"]["message"] == "No encontrado."
    assert http.get("/api/tables/99").json()["error"]["message"] == "Introuvable."
    # signed in: the request's language beats the player's stored one (issue 18), which
    # speaks when the request asks for none
    refused = http.post("/api/tables/1/bets", json={"bet": "banco", "stake": 2500},
                        headers={**fr.headers, "Accept-Language": "en"})
    assert refused.json()["error"]["code"] == "table-closed"
    assert refused.json()["error"]["message"] != "Rien ne va plus : les mises sont fermées."
    refused = http.post("/api/tables/1/bets", json={"bet": "banco", "stake": 2500},
                        headers=fr.headers)
    assert refused.json()["error"] == {"code": "table-closed",
                                       "message": "Rien ne va plus : les mises sont fermées."}
    changed = http.patch("/api/me", json={"lang": "es"}, headers=fr.headers)
    assert changed.json()["lang"] == "es"
    refused = http.post("/api/tables/1/bets", json={"bet": "banco", "stake": 2500},
                        headers=fr.headers)
    assert refused.json()["error"]["message"] == "No va más: las apuestas están cerradas."


def test_words_in_every_language(sqlite_server: LiveServer) -> None:
    words = sqlite_server.http.get("/api/words").json()
    assert set(words) == {"fr", "it", "es", "en"}
    assert words["es"]["bet.egalite"] == "Empate"


def test_tables_list_and_empty_database_seed(sqlite_server: LiveServer) -> None:
    tables = sqlite_server.http.get("/api/tables").json()
    assert [t["name"] for t in tables] == ["Sanremo", "Enghien"]
    rules = tables[0]["rules"]
    assert rules["limits"] == {"punto": [1000, 500000], "banco": [1000, 500000],
                               "egalite": [1000, 100000], "lion-punto": [1000, 5000],
                               "lion-banco": [1000, 5000]}  # M2, L3 defaults
    assert (rules["decks"], rules["tie_pays"], rules["betting_seconds"]) == (6, 8, 15)
    assert tables[0]["phase"] == "idle" and tables[0]["players"] == 0


def test_operator_creates_tables_changes_rules_and_credits(sqlite_server: LiveServer) -> None:
    http = sqlite_server.http
    ann = sqlite_server.signup("ann")
    boss = sqlite_server.operator()
    denied = http.post("/api/tables", json={"name": "Monte"}, headers=ann.headers)
    assert (denied.status_code, denied.json()["error"]["code"]) == (403, "forbidden")
    assert http.post(f"/api/players/{ann.id}/credit", json={"amount": 5},
                     headers=ann.headers).status_code == 403
    created = http.post("/api/tables", json={"name": "Monte", "rules": {"tie_pays": 9}},
                        headers=boss.headers)
    assert created.status_code == 201
    table = created.json()
    assert table["rules"]["tie_pays"] == 9 and table["name"] == "Monte"
    assert http.post("/api/tables", json={"name": "Monte"}, headers=boss.headers
                     ).json()["error"]["code"] == "table-name-taken"
    changed = http.patch(f"/api/tables/{table['id']}",
                         json={"rules": {"limits": {"egalite": [500, 20000]},
                                         "betting_seconds": 20}}, headers=boss.headers)
    assert changed.status_code == 200
    assert changed.json()["next_rules"]["limits"]["egalite"] == [500, 20000]
    assert changed.json()["next_rules"]["tie_pays"] == 9  # the rest is kept
    credited = http.post(f"/api/players/{ann.id}/credit", json={"amount": 25_000},
                         headers=boss.headers)
    assert credited.json()["player"]["balance"] == 125_000
    assert wallet_entries(sqlite_server.settings.database_url, ann.id)[-1] == ("credit", 25_000)
    players = http.get("/api/players", headers=boss.headers).json()
    assert {p["username"]: p["balance"] for p in players} == {"operator": 0, "ann": 125_000}
    assert http.post("/api/players/999/credit", json={"amount": 1},
                     headers=boss.headers).status_code == 404
    assert http.post(f"/api/players/{ann.id}/credit", json={"amount": 0},
                     headers=boss.headers).status_code == 400


def test_bad_rules_are_refused_and_change_nothing(sqlite_server: LiveServer) -> None:
    http = sqlite_server.http
    boss = sqlite_server.operator()
    before = http.get("/api/tables").json()
    for rules in [{"decks": 9}, {"cut_card": 5}, {"limits": {"punto": [500, 100]}},
                  {"limits": {"lion-punto": [1000, 5000], "lion-banco": [1000, 6000]}},
                  {"drawing": "seed-literal"}, {"betting_seconds": 0}, {"colour": "red"},
                  {"commission": "lots"}]:
        answer = http.patch("/api/tables/1", json={"rules": rules}, headers=boss.headers)
        assert (answer.status_code, answer.json()["error"]["code"]) == (422, "bad-rules"), rules
    assert http.get("/api/tables").json() == before


def test_unknown_things_are_404_json(sqlite_server: LiveServer) -> None:
    for path in ["/api/tables/42", "/api/coups/42", "/api/shoes/42", "/api/nothing"]:
        answer = sqlite_server.http.get(path)
        assert answer.status_code == 404, path
        assert answer.json()["error"]["code"] == "not-found"


def test_openapi_document_lists_what_the_page_uses(sqlite_server: LiveServer) -> None:
    paths = sqlite_server.http.get("/openapi.json").json()["paths"]
    for path in ["/api/signup", "/api/login", "/api/logout", "/api/me", "/api/words",
                 "/api/tables", "/api/tables/{table_id}", "/api/tables/{table_id}/bets",
                 "/api/tables/{table_id}/bets/{bet}", "/api/me/coups", "/api/coups/{coup_id}",
                 "/api/shoes/{shoe_id}", "/api/players", "/api/players/{player_id}/credit"]:
        assert path in paths, path
    assert sqlite_server.http.get("/docs").status_code == 200


def test_page_is_served_at_root_and_assets_under_static(tmp_path: Path, sqlite_url: str) -> None:
    static = tmp_path / "static"
    (static / "js").mkdir(parents=True)
    (static / "index.html").write_text("<!doctype html><title>table</title>")
    (static / "js" / "main.js").write_text("export {};")
    with running(fast_settings(sqlite_url, static_dir=static)) as live:
        page = live.http.get("/")
        assert page.status_code == 200 and "<title>table</title>" in page.text
        assert live.http.get("/static/js/main.js").text == "export {};"
        assert live.http.get("/static/js/none.js").status_code == 404


# --- refusals speak the caller's language and keep their reason ---------------------------

NAME_LENGTH = {
    "fr": "Le nom d'une table compte de 1 à 64 caractères.",
    "it": "Il nome di un tavolo ha da 1 a 64 caratteri.",
    "es": "El nombre de una mesa tiene de 1 a 64 caracteres.",
    "en": "A table's name is 1 to 64 characters."}


def test_a_refusal_shows_its_reason_never_a_raw_placeholder(sqlite_server: LiveServer) -> None:
    http = sqlite_server.http
    boss = sqlite_server.operator()  # the operator's stored language is French
    for name in ["", "   ", "x" * 500]:
        for lang in ["fr", "it", "es", "en"]:
            answer = http.post(f"/api/tables?lang={lang}", json={"name": name, "rules": {}},
                               headers=boss.headers)
            assert answer.status_code == 400
            assert answer.json()["error"] == {"code": "bad-request",
                                              "message": NAME_LENGTH[lang]}, (name, lang)
    assert [t["name"] for t in http.get("/api/tables").json()] == ["Sanremo", "Enghien"]
    # a field of the body that does not fit the schema is named
    answer = http.post("/api/tables?lang=en", json={"name": 7}, headers=boss.headers)
    assert answer.json()["error"]["message"] == "The request is not valid: look at the field name."
    # no other answer shows a placeholder either
    for answer in [http.put("/api/tables"), http.post("/api/signup", json=[]),
                   http.delete("/api/words?lang=it")]:
        assert answer.status_code in (400, 405), answer.text
        assert "{" not in answer.json()["error"]["message"], answer.text
    assert http.put("/api/tables?lang=es").json()["error"]["message"] == (
        "Esta dirección no acepta este método.")


def test_a_body_that_is_not_json_is_said_so_in_every_language(sqlite_server: LiveServer) -> None:
    expected = {"fr": "Le corps de la requête n'est pas du JSON valide.",
                "it": "Il corpo della richiesta non è JSON valido.",
                "es": "El cuerpo de la solicitud no es JSON válido.",
                "en": "The request body is not valid JSON."}
    for lang, text in expected.items():
        for body in ["{", '{"username": "ann",', "not json"]:
            answer = sqlite_server.http.post(
                "/api/login", content=body, headers={"Content-Type": "application/json",
                                                     "Accept-Language": lang})
            assert answer.status_code == 400
            assert answer.json()["error"] == {"code": "bad-request", "message": text}, body


def test_username_password_and_rules_refusals_in_the_players_language(
        sqlite_server: LiveServer) -> None:
    http = sqlite_server.http
    bad_username = {"fr": "Un nom d'utilisateur compte 3 à 32 lettres, chiffres, points, tirets "
                          "ou tirets bas.",
                    "it": "Un nome utente ha da 3 a 32 lettere, cifre, punti, trattini o trattini "
                          "bassi.",
                    "es": "Un nombre de usuario tiene de 3 a 32 letras, cifras, puntos, guiones "
                          "o guiones bajos.",
                    "en": "A username is 3 to 32 letters, digits, dots, dashes or underscores."}
    bad_password = {"fr": "Un mot de passe compte 6 à 72 octets.",
                    "it": "Una password ha da 6 a 72 byte.",
                    "es": "Una contraseña tiene de 6 a 72 bytes.",
                    "en": "A password is 6 to 72 bytes long."}
    for lang in ["fr", "it", "es", "en"]:
        # ?lang=, Accept-Language, and the language the sign-up asks for
        for query, headers, body_lang in [(f"?lang={lang}", {}, None),
                                          ("", {"Accept-Language": f"{lang};q=0.9"}, None),
                                          ("", {"Accept-Language": "de"}, lang)]:
            extra = {"lang": body_lang} if body_lang else {}
            answer = http.post(f"/api/signup{query}", headers=headers,
                               json={"username": "x", "password": "secret1", **extra})
            assert answer.json()["error"] == {"code": "bad-username",
                                              "message": bad_username[lang]}
            answer = http.post(f"/api/signup{query}", headers=headers,
                               json={"username": "carl", "password": "123", **extra})
            assert answer.json()["error"] == {"code": "bad-password",
                                              "message": bad_password[lang]}
    # bad-rules: a lead sentence in the operator's stored language, then the exact reason
    boss = sqlite_server.operator()
    detail = "A shoe holds 1 to 8 decks, not 9."
    leads = {"fr": "Réglages de table refusés : ", "it": "Impostazioni del tavolo rifiutate: ",
             "es": "Ajustes de mesa rechazados: ", "en": ""}
    for lang, lead in leads.items():
        assert http.patch("/api/me", json={"lang": lang}, headers=boss.headers).status_code == 200
        for method, path, body in [("PATCH", "/api/tables/1", {"rules": {"decks": 9}}),
                                   ("POST", "/api/tables", {"name": "Nine", "rules": {"decks": 9}})]:
            answer = http.request(method, path, json=body, headers=boss.headers)
            assert answer.status_code == 422
            assert answer.json()["error"] == {"code": "bad-rules", "message": lead + detail}


def test_table_names_are_unique_ignoring_case(sqlite_server: LiveServer) -> None:
    http = sqlite_server.http
    boss = sqlite_server.operator()
    assert http.post("/api/tables", json={"name": "QA1"}, headers=boss.headers).status_code == 201
    for name in ["qa1", "Qa1", " QA1 ", "sanremo", "ENGHIEN"]:
        answer = http.post("/api/tables?lang=en", json={"name": name}, headers=boss.headers)
        assert answer.status_code == 409, name
        assert answer.json()["error"] == {"code": "table-name-taken",
                                          "message": "A table with that name exists."}
    assert [t["name"] for t in http.get("/api/tables").json()] == ["Sanremo", "Enghien", "QA1"]
    assert http.post("/api/tables", json={"name": "QA2"}, headers=boss.headers).status_code == 201


def test_issue19_words_carry_a_cache_validator(sqlite_server: LiveServer) -> None:
    """``/api/words`` has an ETag: a page that has the words gets a bodiless 304."""
    first = sqlite_server.http.get("/api/words")
    etag = first.headers["etag"]
    assert first.status_code == 200 and etag.startswith('"') and first.json()["en"]
    again = sqlite_server.http.get("/api/words", headers={"If-None-Match": etag})
    assert (again.status_code, again.content, again.headers["etag"]) == (304, b"", etag)
    other = sqlite_server.http.get("/api/words", headers={"If-None-Match": '"stale"'})
    assert other.status_code == 200 and other.json() == first.json()
