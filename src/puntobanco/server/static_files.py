"""The page's files as a browser should get them: a version in their URLs, cached for a year
under that version; the page itself revalidated; the API docs (``/docs``) with their assets
served from here, not from a CDN (they work offline).

The version is a digest of the static files' contents, so any change to any file gives new URLs:

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "index.html").write_text('<script src="/static/js/main.js"></script>')
>>> page = versioned_page(folder, "index.html")
>>> page == f'<script src="/static/{static_version(folder)}/js/main.js"></script>'
True
>>> versioned_page(folder, "missing.html") is None
True
"""

from __future__ import annotations

import hashlib
import re
from importlib import import_module
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.types import Scope

#: a year: versioned URLs never change content
IMMUTABLE = "public, max-age=31536000, immutable"
_VERSIONED = re.compile(r"^v-[0-9a-f]{12}/")
_VERSIONS: dict[tuple[str, float, int], str] = {}


def static_version(folder: Path) -> str:
    """``v-`` and 12 hex digits of a SHA-256 over every file's path and bytes."""
    files = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
    key = (str(folder), max((p.stat().st_mtime for p in files), default=0.0), len(files))
    if key not in _VERSIONS:
        digest = hashlib.sha256()
        for path in files:
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
        _VERSIONS[key] = "v-" + digest.hexdigest()[:12]
    return _VERSIONS[key]


def versioned_page(folder: Path, name: str) -> str | None:
    """A page of the folder with its ``/static/…`` URLs carrying the version (``None`` if it is
    missing). The page's modules import each other by relative paths, so they inherit it."""
    page = folder / name
    if not page.is_file():
        return None
    return re.sub(r'(["\'])/static/', rf"\1/static/{static_version(folder)}/",
                  page.read_text(encoding="utf-8"))


class VersionedStaticFiles(StaticFiles):
    """``/static/v-…/path``: the file at ``path``, cached for a year; without a version: a
    ``no-cache`` answer (the browser revalidates with its ETag)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        versioned = bool(_VERSIONED.match(path))
        if versioned:
            path = path.split("/", 1)[1]
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            response.headers["Cache-Control"] = IMMUTABLE if versioned else "no-cache"
        return response


def mount_static(app: FastAPI, folder: Path) -> None:
    app.mount("/static", VersionedStaticFiles(directory=folder, check_dir=False), name="static")


def swagger_assets() -> Path | None:
    """The folder of Swagger UI's files shipped by the ``swagger-ui-bundle`` package, if any."""
    try:
        bundle: Any = import_module("swagger_ui_bundle")
    except ImportError:
        return None
    folder = Path(bundle.swagger_ui_path)
    return folder if (folder / "swagger-ui-bundle.js").is_file() else None


_DOCS_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>puntobanco · API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs-assets/swagger-ui.css">
<link rel="icon" href="/static/img/favicon.svg" type="image/svg+xml"></head>
<body><div id="swagger-ui"></div>
<script src="/docs-assets/swagger-ui-bundle.js"></script>
<script src="/static/js/docs-init.js"></script></body></html>
"""


def add_docs_routes(app: FastAPI) -> None:
    """``/docs``: Swagger UI from local files (no inline script, so a strict CSP allows it)."""
    assets = swagger_assets()
    if assets is None:  # the web extra was installed without it: FastAPI's page (a CDN)
        from fastapi.openapi.docs import get_swagger_ui_html

        @app.api_route("/docs", methods=["GET", "HEAD"], include_in_schema=False)
        async def cdn_docs() -> HTMLResponse:
            return get_swagger_ui_html(openapi_url="/openapi.json", title="puntobanco · API")
        return

    app.mount("/docs-assets", _CachedStaticFiles(directory=assets), name="docs-assets")

    @app.api_route("/docs", methods=["GET", "HEAD"], include_in_schema=False)  # uptime checks
    async def docs() -> HTMLResponse:
        return HTMLResponse(_DOCS_PAGE, headers={"Cache-Control": "no-cache"})


class _CachedStaticFiles(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code == 200:
            response.headers["Cache-Control"] = "public, max-age=86400"
        return response
