"""Published figures with their sources, shipped inside the package so that an installed wheel
checks itself against them (``par --compare``) as a source checkout does (issue 20).

``published_figures.json`` (combination counts and house edges the exact engine is pinned to),
``published_variants.json`` (the games ``par --compare`` sets beside this one) and
``published_counts.json`` (card-counting results for the Dragon Bonus). Each entry names its
source; the tests pin every entry marked as pinned.

>>> load("published_figures.json")["spec_house_edges_6_decks"]["banco"]
'1.4548'
"""

from __future__ import annotations

import json
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any


def path(name: str) -> Traversable:
    """One of the data files, wherever the package is installed."""
    return resources.files(__name__) / name


def load(name: str) -> Any:
    """One of the data files, read as JSON."""
    return json.loads(path(name).read_text(encoding="utf-8"))
