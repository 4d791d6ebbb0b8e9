"""Punto Banco "2000" with the Lion Bonus side bet.

The rules core (``cards`` → ``table``) depends on the standard library alone; the rule numbers
cited throughout (R*, B*, L*, M*, S*) are those of ``SPEC.md``.
"""

__version__ = "0.1.0"
