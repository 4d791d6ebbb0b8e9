"""Shared helpers for the analysis tests: random shoes and the pinned published figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from puntobanco import data as published_data
from puntobanco.cards import full_composition

FIGURES_PATH = Path(str(published_data.path("published_figures.json")))


def published() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIGURES_PATH.read_text(encoding="utf-8"))
    return data


def depleted_shoes(count: int, *, seed: int, decks: int = 8, keep_at_least: int = 6
                   ) -> np.ndarray:
    """``count`` compositions: a full shoe with a random number of random cards dealt out."""
    rng = np.random.default_rng(seed)
    cards = np.repeat(np.arange(10), full_composition(decks))
    out = np.empty((count, 10), dtype=np.int64)
    for i in range(count):
        left = rng.integers(keep_at_least, cards.size + 1)
        out[i] = np.bincount(rng.permutation(cards)[:left], minlength=10)
    return out
