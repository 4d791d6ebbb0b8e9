"""Issue 9, standing defence: schemathesis fuzzes the whole HTTP API from its OpenAPI document,
against a real server on SQLite and on PostgreSQL: no 5xx, every status documented, every
response inside its schema and content type. Bounded: a few dozen examples per operation.

Issue 18: each example is sent as one of three callers — the operator, a dealer (assigned a
hand-dealt table) and a player — drawn by Hypothesis, and one of its path, query or body values
may be replaced by a hostile string: digits past every integer column (2³¹, 2⁶³, 40 digits),
digits that are not ASCII (``²``, ``١٢٣``, full-width), NUL, dates that are not ISO days. Log-out
routes get a fresh session per example so they cannot sign the rest of the run out, and the
dealer and the player are let back in before each operation (the operator's suspension routes
are fuzzed too). (schemathesis' pytest plugin does not run under pytest 9 yet, so each
operation's cases are drawn by Hypothesis directly.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from .support import LiveServer, Player, fast_settings

EXAMPLES = 15
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def fuzzed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[LiveServer]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'pb.sqlite3'}"
    else:
        url = request.getfixturevalue("pg_cluster").new_database()
    live = LiveServer(fast_settings(url, betting_seconds=1.0)).start()
    try:
        yield live
    finally:
        live.stop()


#: strings a hostile caller sends where a name, an id, a number or a day is expected
HOSTILE = st.one_of(
    st.sampled_from(["99999999999999999999", "9223372036854775808", "2147483648", "-1", "0",
                     "²", "١٢٣", "１２", "a\x00b", "\x00", "9999-12-31", "20261201",
                     "2026-W01-1", " ", "null", "%"]),
    st.from_regex(r"[0-9]{19,40}", fullmatch=True),
    st.text(alphabet="0123456789²³¹٠١٢٣٤٥٦٧٨٩０１２３\x00", min_size=1, max_size=12),
)


def _spoil(case: Any, where: int, value: str) -> None:
    """Replace one of the case's path, query or body values (the ``where``-th) by ``value``."""
    places: list[tuple[dict[str, Any], str]] = [
        (container, key) for container in (case.path_parameters, case.query,
                                           case.body if isinstance(case.body, dict) else {})
        for key in container]
    if places:
        container, key = places[where % len(places)]
        container[key] = value


class Callers:
    """The operator, a dealer and a player of the fuzzed server, each with a live session."""

    def __init__(self, live: LiveServer) -> None:
        self.live = live
        self.boss = live.operator()
        table = live.http.post("/api/tables", headers=self.boss.headers, json={
            "name": "Fuzzed by hand", "dealing": "dealer"}).json()["id"]
        dealer = live.http.post("/api/dealers", headers=self.boss.headers, json={
            "username": "dealer1", "password": "croupier1", "lang": "en"}).json()
        live.http.put(f"/api/dealers/{dealer['id']}/tables", headers=self.boss.headers,
                      json={"tables": [table]})
        live.signup("player1")
        self.refresh()

    def _log_in(self, username: str, password: str) -> Player:
        answer = self.live.http.post("/api/login", json={"username": username,
                                                         "password": password})
        assert answer.status_code == 200, answer.text
        return Player.from_answer(answer.json())

    def refresh(self) -> None:
        """Lift any suspension the fuzzing made, and open fresh sessions."""
        self.boss = self.live.operator()
        self.dealer = self.fresh("dealer")
        self.player = self.fresh("player")

    def fresh(self, role: str) -> Player:
        if role == "operator":
            return self.live.operator()
        name, password = ("dealer1", "croupier1") if role == "dealer" else ("player1", "secret1")
        boss = self.live.operator()  # the run's own operator may have signed out everywhere
        found = self.live.http.get("/api/players", params={"q": name}, headers=boss.headers)
        assert found.status_code == 200, found.text
        for row in found.json():
            if row["suspended"]:
                self.live.http.post(f"/api/players/{row['id']}/unsuspend", headers=boss.headers)
        return self._log_in(name, password)

    def of(self, role: str) -> Player:
        return {"operator": self.boss, "dealer": self.dealer, "player": self.player}[role]


def _runner(live: LiveServer, operation: Any, mode: GenerationMode, callers: Callers
            ) -> Callable[[], None]:
    """A Hypothesis test of one operation in one generation mode."""
    signs_out = operation.path.startswith("/api/logout")

    @given(case=operation.as_strategy(mode),
           role=st.sampled_from(["operator", "dealer", "player"]),
           spoiled=st.none() | st.tuples(st.integers(0, 20), HOSTILE))
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    def run(case: Any, role: str, spoiled: tuple[int, str] | None) -> None:
        if spoiled is not None:
            _spoil(case, *spoiled)
        caller = callers.fresh(role) if signs_out else callers.of(role)
        case.call_and_validate(base_url=live.url, headers=caller.headers, checks=CHECKS)

    return run  # type: ignore[no-any-return]


def _fuzz(live: LiveServer) -> list[str]:
    """Every operation of the document, ``EXAMPLES`` generated cases each; the failures."""
    schema = schemathesis.openapi.from_url(f"{live.url}/openapi.json")
    callers = Callers(live)
    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        callers.refresh()
        for mode in GenerationMode:  # schema-valid cases, then invalid ones (ids ≥ 2³¹, …)
            run = _runner(live, operation, mode, callers)
            try:
                run()
            except Unsatisfiable:  # no parameter to make invalid (GET /api/tables, ...)
                continue
            except Exception as error:  # every operation is tried, all failures told
                failures.append(f"{mode.value} {operation.method.upper()} {operation.path}: "
                                f"{error}"[:2000])
    return failures


def test_the_api_never_answers_5xx_nor_outside_its_schema(fuzzed: LiveServer) -> None:
    failures = _fuzz(fuzzed)
    assert not failures, "\n\n".join(failures)
