"""The page's weight (issue 19): every module preloaded, no build step; and the table live within
1.2 s of the navigation on an emulated slow line (150 ms latency, 1.6 Mbps down, 750 kbps up:
Chromium's own network emulation through CDP), a returning player's cold load (empty cache).
The figure is printed; it is wall time on a shared machine, so the bound has the slack the issue
allows and no more."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from server.support import fast_settings, running

from .conftest import STATIC_DIR

pytestmark = pytest.mark.e2e

IMPORT = re.compile(r'^\s*import\s[^;]*?from\s+"\./([\w.-]+)"|^\s*import\s+"\./([\w.-]+)"', re.M)
SLOW_LINE = {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8,
             "uploadThroughput": 750_000 / 8}
#: when the page went live (its table's snapshot arrived), in ms since the navigation began
MARK_LIVE = """
  new MutationObserver(() => {
    if (document.body && document.body.dataset.connection === 'open' && !window.__live) {
      window.__live = performance.now();
    }
  }).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-connection']});
"""


def _imports(entry: str) -> set[str]:
    """Every module ``entry`` imports, directly or not."""
    seen: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        source = (STATIC_DIR / "js" / name).read_text(encoding="utf-8")
        todo += [a or b for a, b in IMPORT.findall(source)]
    return seen - {entry}


@pytest.mark.parametrize(("page", "entry"), [("index.html", "main.js"),
                                             ("operator.html", "operator.js")])
def test_issue19_every_module_is_preloaded(page: str, entry: str) -> None:
    html = (STATIC_DIR / page).read_text(encoding="utf-8")
    preloaded = set(re.findall(r'<link rel="modulepreload" href="/static/js/([\w.-]+)">', html))
    assert f'<script type="module" src="/static/js/{entry}"></script>' in html
    assert preloaded == _imports(entry)


def test_issue19_table_live_within_1_2_s_on_a_slow_line(browser: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'weight.sqlite3'}"
    with running(fast_settings(url, betting_seconds=5)) as live:
        context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
        context.add_init_script(MARK_LIVE)
        page = context.new_page()
        page.goto(f"{live.url}/")
        page.wait_for_selector("#auth:not([hidden])")
        page.fill("#auth-username", "slowline")
        page.fill("#auth-password", "secret-123")
        page.click("#auth-submit")
        page.wait_for_selector("body[data-connection=open]")
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.clearBrowserCache")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        cdp.send("Network.emulateNetworkConditions", SLOW_LINE)
        found = []
        for _ in range(2):  # the better of two cold loads: the machine is shared
            page.reload()
            page.wait_for_function("() => window.__live", timeout=20_000)
            found.append(page.evaluate("window.__live"))
        sent = page.evaluate("performance.getEntriesByType('resource').map((e) => e.transferSize)"
                             ".reduce((a, b) => a + b, 0) + performance.getEntriesByType("
                             "'navigation')[0].transferSize")
        print(f"table live {min(found) / 1000:.2f} s after navigation on 150 ms / 1.6 Mbps "
              f"(loads: {', '.join(f'{ms / 1000:.2f}' for ms in found)} s; "
              f"{sent / 1024:.0f} KB transferred)")
        assert min(found) < 1200, found
        context.close()
