"""Issue 9, standing defence: schemathesis fuzzes the whole HTTP API from its OpenAPI document,
against a real server on SQLite and on PostgreSQL: no 5xx, every status documented, every
response inside its schema and content type. Bounded: a few dozen examples per operation.

The caller is the operator (every route is reachable); log-out routes get a fresh session per
example so they cannot sign the rest of the run out. (schemathesis' pytest plugin does not run
under pytest 9 yet, so each operation's cases are drawn by Hypothesis directly.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
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


def _runner(live: LiveServer, operation: Any, mode: GenerationMode, boss: Player
            ) -> Callable[[], None]:
    """A Hypothesis test of one operation in one generation mode."""
    signs_out = operation.path.startswith("/api/logout")

    @given(case=operation.as_strategy(mode))
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    def run(case: Any) -> None:
        caller = live.operator() if signs_out else boss
        case.call_and_validate(base_url=live.url, headers=caller.headers, checks=CHECKS)

    return run  # type: ignore[no-any-return]


def _fuzz(live: LiveServer) -> list[str]:
    """Every operation of the document, ``EXAMPLES`` generated cases each; the failures."""
    schema = schemathesis.openapi.from_url(f"{live.url}/openapi.json")
    boss = live.operator()
    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in GenerationMode:  # schema-valid cases, then invalid ones (ids ≥ 2³¹, …)
            run = _runner(live, operation, mode, boss)
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
