"""axe-core (the PyPI package ``axe-playwright-python`` ships it) run on a page in Chromium: the
critical and serious violations, plus the page's structure (one h1, content in landmarks).

The experimental ``label-content-name-mismatch`` rule is switched on: a control's name must
contain what it shows (a chip showing "1K" once was named "Chip €1,000.00")."""

from __future__ import annotations

from typing import Any

import pytest

OPTIONS = {"resultTypes": ["violations"],
           "rules": {"label-content-name-mismatch": {"enabled": True}}}
#: moderate rules checked as well: one h1, landmarks, headings in order
STRUCTURE = {"page-has-heading-one", "region", "landmark-one-main", "heading-order"}


def violations(page: Any) -> list[str]:
    """Every critical or serious violation (and the structural ones), one line each."""
    axe = pytest.importorskip("axe_playwright_python.sync_playwright").Axe()
    found = axe.run(page, options=OPTIONS).response["violations"]
    return [f"{v['impact']} {v['id']}: {[n['target'] for n in v['nodes']][:3]}"
            for v in found if v["impact"] in ("critical", "serious") or v["id"] in STRUCTURE]
