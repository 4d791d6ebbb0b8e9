"""Usernames: what a valid one is, and what makes two of them look alike (issue 9).

A username is normalised to Unicode NFKC first (full-width ``ｏｐｅｒａｔｏｒ`` *is* ``operator``),
then must match :data:`USERNAME` as a whole — 3 to 32 ASCII letters, digits, dots, dashes or
underscores, nothing before or after (``"operator\\n"`` is refused). Two names clash when their
:func:`skeleton` is the same: case-folded, then the look-alike characters of that alphabet mapped
to one representative. The map is deliberately small (this alphabet's usual confusables, after
Unicode TR39's idea), not the full confusables table, which is about non-ASCII letters NFKC and
the ASCII-only pattern already refuse.

>>> normalise("ｏｐｅｒａｔｏｒ")
'operator'
>>> valid("operator\\n"), valid("ann"), valid("an n"), valid("ann\\x00")
(False, True, False, False)
>>> skeleton("0perat0r") == skeleton("OPERATOR") == skeleton("operat0r")
True
>>> skeleton("bill") == skeleton("b1ll") == skeleton("BIll"), skeleton("rnoney") == skeleton("money")
(True, True)
>>> skeleton("ann") == skeleton("anne")
False
"""

from __future__ import annotations

import re
import unicodedata

MIN_USERNAME, MAX_USERNAME = 3, 32
USERNAME = re.compile(rf"[A-Za-z0-9_.\-]{{{MIN_USERNAME},{MAX_USERNAME}}}")

#: Look-alikes within the username alphabet, after case folding (longest first).
CONFUSABLES: tuple[tuple[str, str], ...] = (
    ("rn", "m"), ("vv", "w"), ("cl", "d"),
    ("0", "o"), ("1", "l"), ("i", "l"), ("|", "l"), ("5", "s"), ("8", "b"),
    ("_", "-"), (".", "-"),
)


def normalise(username: str) -> str:
    """The name as stored: Unicode NFKC (compatibility characters become plain ones)."""
    return unicodedata.normalize("NFKC", username)


def valid(username: str) -> bool:
    """Whether the (normalised) name matches :data:`USERNAME` as a whole."""
    return USERNAME.fullmatch(username) is not None


def skeleton(username: str) -> str:
    """What the name looks like: two names with one skeleton are refused as look-alikes."""
    text = normalise(username).casefold()
    for seen, shown in CONFUSABLES:
        text = text.replace(seen, shown)
    return text
