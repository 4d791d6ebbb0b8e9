"""Monte Carlo simulation of whole shoes (S1–S3) and the Lion Bonus counting study.

The compiled kernels (:mod:`~puntobanco.sim.kernel`) take every rule from tables that the rules
core builds (:mod:`~puntobanco.sim.tables`); runs are cut into seeded chunks
(:mod:`~puntobanco.sim.engine`) that run in this process or on Dask
(:mod:`~puntobanco.sim.executors`), with the same result for a seed wherever they run.
"""

from puntobanco.sim.engine import CHUNK_SHOES, ShoeSpec, SimChunk, chunk_plan
from puntobanco.sim.simulate import BetStatistics, SimulationRun, bet_statistics, simulate

__all__ = ["CHUNK_SHOES", "BetStatistics", "ShoeSpec", "SimChunk", "SimulationRun",
           "bet_statistics", "chunk_plan", "simulate"]
