"""The live table: a FastAPI server with a real database, one dealer loop per table.

Sub-packages show the layers (imports run one way, down this list):

``settings`` (with the betting window of a table's rules), ``fair``, ``messages``
    plain values: server settings, the RuleSet ↔ JSON mapping, the provably fair commitment
    (standard library only, so ``puntobanco verify`` needs no web extra), refusal texts;
``db/``
    SQLAlchemy 2 models (the schema the Alembic ``migrations`` create), engines and sessions
    (``engine``), double-entry postings (``ledger``), accounts and sessions (``auth``), the
    dealer's and bettors' writes (``store``) and the read-only views of coups and shoes
    (``recall``);
``live/``
    the WebSocket fan-out (``hub``), the asyncio dealer loop per table that drives
    :class:`puntobanco.table.Table` (``dealer``) and the set of tables (``casino``);
``api/``
    HTTP and WebSocket endpoints: dependencies (``deps``), Pydantic ``schemas``, one router per
    resource and the WebSocket endpoint (``ws``);
``app``
    the application factory :func:`puntobanco.server.app.create_app`.

Only ``api/`` and ``app`` import FastAPI; nothing here is imported by ``puntobanco`` itself.
"""
