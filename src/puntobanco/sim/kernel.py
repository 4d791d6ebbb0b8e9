"""The compiled shoe kernels (numba): shuffle, burn, deal coups to the cut card, one more coup.

Every kernel plays shoes by the same procedure as :class:`puntobanco.shoe.Shoe` (S1–S3):

* the shoe is shuffled (:func:`~puntobanco.sim.rng.shuffle_prefix`);
* S2: the first card is turned and that many more are burned (a ten or face burns ten);
* coups are dealt (R3–R6) by lookups in :func:`~puntobanco.sim.tables.coup_tables`, which the
  rules core built: ``(Punto's two-card total, Banco's, next card, the one after) -> outcome code
  and cards used``;
* S3: once a coup has dealt the first card behind the cut card (position ``cut_index``), ``extra``
  more coups are played (1 for :attr:`~puntobanco.rules.LastCoup.ONE_MORE`) and the shoe ends.

The shoe array carries six padding cards after the real ones: the table lookup reads the two
cards after the four first ones whether the coup draws them or not. A cut card at least 12 cards
from the end (``RuleSet`` enforces it) means no coup ever *uses* a padding card.

Kernels:

* :func:`simulate_chunk` — the fast one: a histogram of outcome codes plus per-shoe sums of each
  bet's return for the variance (the shoe, not the coup, is the independent unit);
* :func:`record_chunk` — every coup's outcome code and the composition left before it, and each
  shoe's face-down burned cards (the counting study);
* :func:`play_orders` — the same procedure on given card orders, coup by coup (tests against the
  rules core).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from puntobanco.sim.rng import shuffle_prefix

#: Cards after the real ones that the lookup may read but no coup uses.
PADDING = 6
#: Coups after the cut card's coup that can still need cards: two coups of up to six cards.
TAIL = 12


@njit(inline="always", cache=True)
def _coup(cards: npt.NDArray[np.uint8], pos: int, codes: npt.NDArray[np.int16],
          used: npt.NDArray[np.uint8]) -> tuple[int, int]:
    """(outcome code, cards used) of the coup dealt from ``cards[pos:]``.

    The next coup's position hangs on this chain of dependent loads, which sets the pace: the
    totals are reduced modulo 10 by compare-and-subtract, and the cards used come from the short
    table indexed by the first five cards alone.
    """
    punto = np.int64(cards[pos]) + np.int64(cards[pos + 2])
    banco = np.int64(cards[pos + 1]) + np.int64(cards[pos + 3])
    punto -= 10 * (punto >= 10)
    banco -= 10 * (banco >= 10)
    row = 100 * punto + 10 * banco + np.int64(cards[pos + 4])
    return int(codes[10 * row + np.int64(cards[pos + 5])]), int(used[row])


@njit(inline="always", cache=True)
def _first_coup(cards: npt.NDArray[np.uint8], burns: npt.NDArray[np.int64], burn: bool) -> int:
    """Position of the first coup's first card: after the turned card and its burn (S2)."""
    if burn:
        return 1 + int(burns[cards[0]])
    return 0


@njit(inline="always", cache=True)
def _coups_left(left: int, pos: int, cut_index: int, extra: int) -> int:
    """S3 after a coup: ``-1`` while the cut card is in the shoe, then the coups still to play.

    The coup during which a card past ``cut_index`` came out is complete; ``extra`` more follow
    (one, or none by setting), and the shoe ends at 0.
    """
    if left > 0:
        return left - 1
    if left < 0 and pos > cut_index:
        return extra
    return left


# numba's own option, missing from its type stubs
@njit(cache=True, _nrt=False)  # type: ignore[call-overload, untyped-decorator]
def _next_coup(cards: npt.NDArray[np.uint8], n: int, m: int, state: npt.NDArray[np.uint64],
               pos: int, left: int, codes: npt.NDArray[np.int16], used: npt.NDArray[np.uint8],
               burns: npt.NDArray[np.int64], burn: bool, cut_index: int, extra: int
               ) -> tuple[int, int, int]:
    """The next coup of a stream of shoes played back to back: ``(code, pos, left)`` after it.

    ``left == 0`` means the shoe is over (or there is none yet): a new one is shuffled and burned
    (S1, S2) before the coup; S3 then counts the coups still to play (:func:`_coups_left`). A
    kernel that cuts the stream into sessions (:mod:`puntobanco.sim.sessions`,
    :mod:`puntobanco.sim.paths`) starts with ``pos = left = 0`` and carries both across sessions,
    so a session begins where the previous one ended, mid-shoe.

    Compiled without numba's reference counting (``_nrt=False``: it allocates nothing and keeps
    no array), and not ``inline="always"``: inlined, or counted, the five arrays' references are
    taken and dropped around the shuffle's call on every coup, which halved the session kernels'
    speed (20,000 sessions of 1,000 coups: 0.32 s of CPU as written, 0.65-0.70 s inlined).
    """
    if left == 0:
        shuffle_prefix(cards, n, m, state)
        pos = _first_coup(cards, burns, burn)
        left = -1
    code, size = _coup(cards, pos, codes, used)
    pos += size
    return code, pos, _coups_left(left, pos, cut_index, extra)


@njit(inline="always", cache=True)
def deal_limit(n: int, cut_index: int) -> int:
    """How many leading positions of an ``n``-card shoe a kernel must shuffle.

    Nothing at or past ``cut_index + TAIL + PADDING`` is ever read, so the cards there are left
    unshuffled (a uniform prefix of a permutation is all that is dealt).
    """
    return min(n - 1, cut_index + TAIL + PADDING)


@njit(cache=True)
def shoe_buffer(start: npt.NDArray[np.uint8], cut_index: int
                ) -> tuple[npt.NDArray[np.uint8], int, int]:
    """A kernel's shoe: the cards of ``start`` followed by :data:`PADDING` zeros (shuffled in
    place, shoe after shoe), their number ``n``, and how many leading positions each shuffle
    must fix (:func:`deal_limit`)."""
    n = start.shape[0]
    cards = np.zeros(n + PADDING, dtype=np.uint8)
    cards[:n] = start
    return cards, n, deal_limit(n, cut_index)


@njit(cache=True, nogil=True)
def simulate_chunk(n_shoes: int, state: npt.NDArray[np.uint64], start: npt.NDArray[np.uint8],
                   codes: npt.NDArray[np.int16], used: npt.NDArray[np.uint8],
                   burns: npt.NDArray[np.int64], burn: bool,
                   cut_index: int, extra: int, pays: npt.NDArray[np.float64],
                   hist: npt.NDArray[np.int64], shoe_sums: npt.NDArray[np.float64],
                   coups_per_shoe: npt.NDArray[np.int64]) -> None:
    """Play ``n_shoes`` shoes; add into the output arrays.

    ``hist[code]`` counts coups by outcome code. For each bet ``k`` with per-shoe return
    ``R`` (sum over the shoe's coups of ``pays[code, k]``) and coup count ``c``:
    ``shoe_sums[k] += (R, R², R·c)``. ``coups_per_shoe[c] += 1``.
    """
    cards, n, m = shoe_buffer(start, cut_index)
    for _ in range(n_shoes):
        shuffle_prefix(cards, n, m, state)
        pos = _first_coup(cards, burns, burn)
        r0 = r1 = r2 = r3 = r4 = 0.0
        coups = 0
        left = -1  # coups still to play once the cut card is out
        while left != 0:
            code, size = _coup(cards, pos, codes, used)
            pos += size
            coups += 1
            hist[code] += 1
            r0 += pays[code, 0]
            r1 += pays[code, 1]
            r2 += pays[code, 2]
            r3 += pays[code, 3]
            r4 += pays[code, 4]
            left = _coups_left(left, pos, cut_index, extra)
        coups_per_shoe[coups] += 1
        returns = (r0, r1, r2, r3, r4)
        for k in range(5):
            shoe_sums[k, 0] += returns[k]
            shoe_sums[k, 1] += returns[k] * returns[k]
            shoe_sums[k, 2] += returns[k] * coups


@njit(cache=True, nogil=True)
def record_chunk(n_shoes: int, state: npt.NDArray[np.uint64], start: npt.NDArray[np.uint8],
                 codes: npt.NDArray[np.int16], used: npt.NDArray[np.uint8],
                 burns: npt.NDArray[np.int64], burn: bool,
                 cut_index: int, extra: int, max_coups: int
                 ) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16], npt.NDArray[np.int64],
                            npt.NDArray[np.int16]]:
    """Play ``n_shoes`` shoes (same stream as :func:`simulate_chunk`) and record every coup.

    Returns ``(codes, compositions, offsets, hidden)``: coup ``i``'s outcome code and the cards
    left (by value) before it was dealt; shoe ``s``'s coups are ``offsets[s]:offsets[s + 1]``;
    ``hidden[s]`` counts the shoe's burned cards dealt face down (S2: all but the first).
    """
    cards, n, m = shoe_buffer(start, cut_index)
    full = np.zeros(10, dtype=np.int16)
    for v in start:
        full[v] += 1
    out_codes = np.empty(n_shoes * max_coups, dtype=np.int16)
    comps = np.empty((n_shoes * max_coups, 10), dtype=np.int16)
    offsets = np.zeros(n_shoes + 1, dtype=np.int64)
    hidden = np.zeros((n_shoes, 10), dtype=np.int16)
    left_cards = np.empty(10, dtype=np.int16)
    row = 0
    for s in range(n_shoes):
        shuffle_prefix(cards, n, m, state)
        pos = _first_coup(cards, burns, burn)
        left_cards[:] = full
        for i in range(pos):
            left_cards[cards[i]] -= 1
            if i > 0:
                hidden[s, cards[i]] += 1
        left = -1
        while left != 0:
            code, size = _coup(cards, pos, codes, used)
            out_codes[row] = code
            comps[row, :] = left_cards
            for i in range(pos, pos + size):
                left_cards[cards[i]] -= 1
            pos += size
            row += 1
            left = _coups_left(left, pos, cut_index, extra)
        offsets[s + 1] = row
    return out_codes[:row].copy(), comps[:row].copy(), offsets, hidden


@njit(cache=True)
def play_orders(orders: npt.NDArray[np.uint8], codes: npt.NDArray[np.int16],
                used: npt.NDArray[np.uint8], burns: npt.NDArray[np.int64], burn: bool,
                cut_index: int, extra: int
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Deal each row of ``orders`` (card values in shoe order) as a shoe, without shuffling.

    Returns ``(codes, starts, offsets)``: coup ``i``'s outcome code and the position of its first
    card; shoe ``s``'s coups are ``offsets[s]:offsets[s + 1]``.
    """
    n_shoes, n = orders.shape
    cards = np.zeros(n + PADDING, dtype=np.uint8)
    out_codes = np.empty(n_shoes * n, dtype=np.int64)
    starts = np.empty(n_shoes * n, dtype=np.int64)
    offsets = np.zeros(n_shoes + 1, dtype=np.int64)
    row = 0
    for s in range(n_shoes):
        cards[:n] = orders[s]
        pos = _first_coup(cards, burns, burn)
        left = -1
        while left != 0:
            code, size = _coup(cards, pos, codes, used)
            out_codes[row] = code
            starts[row] = pos
            pos += size
            row += 1
            left = _coups_left(left, pos, cut_index, extra)
        offsets[s + 1] = row
    return out_codes[:row].copy(), starts[:row].copy(), offsets


@njit(cache=True)
def shuffled_orders(n_shoes: int, state: npt.NDArray[np.uint64], start: npt.NDArray[np.uint8],
                    cut_index: int) -> npt.NDArray[np.uint8]:
    """The card orders the other kernels deal from this ``state``, one row per shoe.

    Same shuffle, same stream, same carried-over array: feeding these rows to the rules core
    (:class:`puntobanco.shoe.Shoe`) checks the kernels on exactly the shoes they played.
    """
    cards, n, m = shoe_buffer(start, cut_index)
    out = np.empty((n_shoes, n), dtype=np.uint8)
    for s in range(n_shoes):
        shuffle_prefix(cards, n, m, state)
        out[s, :] = cards[:n]
    return out
