"""Checks several commands share: the simulated runs' ``--shoes``, ``--seed`` and ``--workers``.

Each refuses a value in one sentence before any work starts (issue 20: ``risk --method simulate
--seed -1`` and ``design --cut-card-depth 14 --seed -1`` had numpy's traceback).

>>> check_seed(-1)
Traceback (most recent call last):
...
puntobanco.errors.PuntoBancoError: --seed takes a whole number from 0 to 2**128 - 1, not -1.
"""

from __future__ import annotations

from puntobanco.errors import PuntoBancoError

#: The most shoes one run plays (their coups are counted in 64-bit integers) and the most local
#: worker processes it starts.
MAX_SHOES = 10**9
MAX_WORKERS = 64


def check_shoes(shoes: int, *, least: int = 2) -> None:
    if not least <= shoes <= MAX_SHOES:
        raise PuntoBancoError(f"--shoes takes {least} to {MAX_SHOES:,} shoes, not {shoes}.",
                              code="bad-shoes")


def check_workers(workers: int | None) -> None:
    """``--workers`` starts that many local processes: 1 to :data:`MAX_WORKERS`."""
    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        raise PuntoBancoError(f"--workers takes 1 to {MAX_WORKERS} worker processes, not "
                              f"{workers}.", code="bad-workers")


#: numpy's ``SeedSequence`` takes any whole number from 0; this bound keeps the one sentence
#: ahead of a number of a thousand digits.
MAX_SEED = 2**128 - 1


def check_seed(seed: int) -> None:
    """A seed is a whole number from 0 (numpy's ``SeedSequence`` refuses a negative one)."""
    if not 0 <= seed <= MAX_SEED:
        raise PuntoBancoError(f"--seed takes a whole number from 0 to 2**128 - 1, not {seed}.",
                              code="bad-seed")
