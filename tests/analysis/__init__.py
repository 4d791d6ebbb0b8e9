"""Tests of the exact analysis (puntobanco.analysis) and the par / eor commands."""
