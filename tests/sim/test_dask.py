"""Scale-out on a real Dask cluster: a ``distributed.LocalCluster`` of two worker processes.

The same seed gives the same result, bit for bit, in this process and on the cluster, through the
Python API and through the command line (``--scheduler`` and ``--workers``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import numpy as np
import pytest
from distributed import LocalCluster

from puntobanco.rules import DRAGON_PAYTABLE, RuleSet
from puntobanco.sim import bet_statistics, counting, countreport, simulate

from .test_cli import run

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster:
        yield cluster.scheduler_address


def test_S1_simulation_is_identical_on_the_cluster_and_on_one_thread(scheduler: str) -> None:
    rules = RuleSet(decks=8, lion_paytable=DRAGON_PAYTABLE)
    local = simulate(rules, shoes=45_000, seed=606, threads=1)
    remote = simulate(rules, shoes=45_000, seed=606, scheduler=scheduler)
    assert "Dask cluster" in remote.placement
    assert np.array_equal(local.totals.hist, remote.totals.hist)
    assert np.array_equal(local.totals.shoe_sums, remote.totals.shoe_sums)
    assert bet_statistics(local) == bet_statistics(remote)


def test_S1_counting_study_is_identical_on_the_cluster(scheduler: str) -> None:
    rules = RuleSet(decks=2)
    local = counting.study(rules, shoes=1_100, seed=8, threads=1)
    remote = counting.study(rules, shoes=1_100, seed=8, scheduler=scheduler)
    assert countreport.to_json(local)["bets"] == countreport.to_json(remote)["bets"]
    assert np.array_equal(local.totals.depth_hist, remote.totals.depth_hist)
    assert np.array_equal(local.totals.tail_tc, remote.totals.tail_tc)
    assert np.array_equal(local.totals.tail_ev, remote.totals.tail_ev)


def test_cli_same_figures_in_process_on_the_cluster_and_on_local_workers(scheduler: str) -> None:
    args = ("simulate", "--shoes", "21000", "--seed", "77", "--json")
    here = json.loads(run(*args).stdout)
    there = run(*args, "--scheduler", scheduler)
    assert there.returncode == 0, there.stderr
    started = run(*args, "--workers", "2")
    assert started.returncode == 0, started.stderr
    for other in (json.loads(there.stdout), json.loads(started.stdout)):
        assert other["bets"] == here["bets"] and other["coups"] == here["coups"]
    assert "local Dask cluster, 2 worker" in json.loads(started.stdout)["placement"]
