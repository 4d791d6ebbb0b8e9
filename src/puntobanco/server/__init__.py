"""The live table: a FastAPI server with a real database, one dealer loop per table.

Layers inside the package (imports run one way, down this list):

``settings``, ``rules_json``, ``fair``, ``messages``
    plain values: server settings, the RuleSet ↔ JSON mapping, the provably fair commitment
    (standard library only, so ``puntobanco verify`` needs no web extra), refusal texts;
``models``, ``db``
    SQLAlchemy 2 models (the schema Alembic migrations create) and engines/sessions;
``ledger``, ``store``, ``recall``
    double-entry postings, the dealer's and bettors' writes, the read-only views of coups and shoes;
``hub``, ``dealer``
    WebSocket fan-out and the asyncio dealer loop per table that drives :class:`puntobanco.table.Table`;
``auth``, ``api_*``, ``ws``, ``app``
    HTTP and WebSocket endpoints and the application factory :func:`puntobanco.server.app.create_app`.

Only ``app`` and below import FastAPI; nothing here is imported by ``puntobanco`` itself.
"""
