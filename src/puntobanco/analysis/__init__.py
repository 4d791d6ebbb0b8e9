"""Exact analysis of every bet for any shoe and rule set: PAR sheets, fast EVs, effects of removal.

>>> from puntobanco.cards import full_composition
>>> sheet = analyse(full_composition(6))
>>> BET_NAMES
('punto', 'banco', 'egalite', 'lion-punto', 'lion-banco')
>>> sheet.bets["egalite"].ev
Fraction(-220299549488, 1525814595305)
>>> [round(float(x), 6) for x in expected_values(full_composition(6))[0]]
[-0.012374, -0.014548, -0.144382, -0.112931, -0.167751]

Modules: :mod:`.multisets` (the multiset trie), :mod:`.tables` (outcome tables derived from the
rules core), :mod:`.exact` (exact engine), :mod:`.fast` and :mod:`._kernels` (float64 path),
:mod:`.report` (PAR sheet and effects-of-removal formats), :mod:`.published` (pinned figures).
"""

from puntobanco.analysis.exact import (
    BetAnalysis,
    OutcomeRow,
    ParSheet,
    analyse,
    class_counts,
    effects_of_removal,
)
from puntobanco.analysis.fast import expected_values
from puntobanco.analysis.tables import BET_NAMES

__all__ = [
    "BET_NAMES",
    "BetAnalysis",
    "OutcomeRow",
    "ParSheet",
    "analyse",
    "class_counts",
    "effects_of_removal",
    "expected_values",
]
