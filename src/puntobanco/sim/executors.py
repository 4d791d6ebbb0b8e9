"""Where chunks run: this process (one thread per core), a local Dask cluster, or a remote one.

Every executor returns the chunks' results in chunk order, whatever order they finish in, so a
run's result does not depend on where it ran. The kernels release the GIL, so threads in this
process use every core with no start-up cost; ``workers=K`` starts a ``distributed.LocalCluster``
of K single-threaded worker processes; ``scheduler="tcp://HOST:PORT"`` sends the chunks to an
existing Dask cluster whose workers have ``puntobanco[sim]`` installed.

>>> run_chunks(pow, [(2, 3), (3, 2)], threads=2)
[8, 9]
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from puntobanco.errors import PuntoBancoError

T = TypeVar("T")
A = TypeVar("A")
#: Called with the number of chunks just finished.
Progress = Callable[[int], None]


@dataclass(frozen=True, kw_only=True)
class Placement:
    """Where to run: ``threads`` in this process, or ``workers`` local processes, or a scheduler.

    >>> Placement(threads=2).describe(), Placement(workers=4).describe()
    ('this process, 2 thread(s)', 'local Dask cluster, 4 worker process(es)')
    """

    threads: int | None = None
    workers: int | None = None
    scheduler: str | None = None

    def __post_init__(self) -> None:
        if self.workers is not None and self.scheduler is not None:
            raise PuntoBancoError("Give --workers or --scheduler, not both.", code="bad-placement")
        if self.workers is not None and self.workers < 1:
            raise PuntoBancoError(f"--workers takes at least 1 worker, not {self.workers}.",
                                  code="bad-workers")
        if self.threads is not None and self.threads < 1:
            raise PuntoBancoError(f"Use at least one thread, not {self.threads}.",
                                  code="bad-workers")
        if self.scheduler is not None and "://" not in self.scheduler:
            raise PuntoBancoError(
                f"{self.scheduler!r} is not a scheduler address: give one such as "
                "tcp://10.0.0.5:8786.", code="bad-scheduler")

    @property
    def local_threads(self) -> int:
        """The threads asked for, or one per core this process may run on."""
        if self.threads is not None:
            return self.threads
        try:
            return max(len(os.sched_getaffinity(0)), 1)
        except AttributeError:  # pragma: no cover - platforms without affinity
            return max(os.cpu_count() or 1, 1)

    def describe(self) -> str:
        if self.scheduler is not None:
            return f"Dask cluster at {self.scheduler}"
        if self.workers is not None:
            return f"local Dask cluster, {self.workers} worker process(es)"
        return f"this process, {self.local_threads} thread(s)"


def run_chunks(function: Callable[..., T], tasks: Sequence[tuple[Any, ...]], *,
               threads: int | None = None, workers: int | None = None,
               scheduler: str | None = None, progress: Progress | None = None,
               kwargs: dict[str, Any] | None = None) -> list[T]:
    """``[function(*task, **kwargs) for task in tasks]``, run where the options say.

    ``function`` must be importable by name (a module-level function) for Dask workers; put what
    every task shares in ``kwargs`` (it is sent to each Dask worker once).
    """
    return fold_chunks(function, tasks, _append, [], threads=threads, workers=workers,
                       scheduler=scheduler, progress=progress, kwargs=kwargs)


def _append(results: list[T], result: T) -> list[T]:
    results.append(result)
    return results


def fold_chunks(function: Callable[..., T], tasks: Sequence[tuple[Any, ...]],
                fold: Callable[[A, T], A], initial: A, *, threads: int | None = None,
                workers: int | None = None, scheduler: str | None = None,
                progress: Progress | None = None, kwargs: dict[str, Any] | None = None) -> A:
    """Fold ``fold`` over the tasks' results **in task order**, as they arrive.

    A result that finishes early waits in a buffer until those before it are folded, so the fold
    (and any floating-point sum in it) is the same wherever and in whatever order tasks ran,
    while finished results do not pile up in memory.

    >>> fold_chunks(pow, [(2, 1), (2, 2), (2, 3)], lambda acc, x: acc * 10 + x, 0, threads=2)
    248
    """
    placement = Placement(threads=threads, workers=workers, scheduler=scheduler)
    extra = kwargs or {}
    accumulator = initial
    if placement.workers is None and placement.scheduler is None:
        for result in _ordered_threads(function, tasks, placement.local_threads, progress, extra):
            accumulator = fold(accumulator, result)
        return accumulator
    with dask_client(placement) as client:
        for result in ordered_on_client(client, function, tasks, progress=progress, kwargs=extra):
            accumulator = fold(accumulator, result)
    return accumulator


def _in_order(finished: Iterator[tuple[int, T]], count: int,
              progress: Progress | None) -> Iterator[T]:
    """Yield results in index order from ``(index, result)`` pairs that arrive in any order."""
    waiting: dict[int, T] = {}
    following = 0
    for index, result in finished:
        waiting[index] = result
        if progress is not None:
            progress(1)
        while following in waiting:
            yield waiting.pop(following)
            following += 1
    if following != count:  # pragma: no cover - every task reports once
        raise RuntimeError(f"{count - following} chunk(s) never finished.")


def _ordered_threads(function: Callable[..., T], tasks: Sequence[tuple[Any, ...]], threads: int,
                     progress: Progress | None, kwargs: dict[str, Any]) -> Iterator[T]:
    if threads == 1 or len(tasks) <= 1:
        for task in tasks:
            result = function(*task, **kwargs)
            if progress is not None:
                progress(1)
            yield result
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = {pool.submit(function, *task, **kwargs): i for i, task in enumerate(tasks)}
        finished = ((futures[future], future.result()) for future in as_completed(futures))
        yield from _in_order(finished, len(tasks), progress)


def _distributed() -> Any:
    """The ``distributed`` module (imported only when a Dask placement is asked for)."""
    try:
        return importlib.import_module("distributed")
    except ImportError:  # pragma: no cover - the sim extra brings it
        raise PuntoBancoError("Dask is not installed: pip install 'puntobanco[sim]'.",
                              code="missing-dask") from None


@contextmanager
def dask_client(placement: Placement) -> Iterator[Any]:
    """A ``distributed.Client`` for the placement: a new local cluster, or a connection."""
    distributed = _distributed()
    Client, LocalCluster = distributed.Client, distributed.LocalCluster
    if placement.scheduler is not None:
        try:
            client = Client(placement.scheduler, timeout="5s")
        except (OSError, TimeoutError) as error:
            raise PuntoBancoError(f"Cannot reach the Dask scheduler at {placement.scheduler}: "
                                  f"{error}.", code="no-scheduler") from None
        try:
            yield client
        finally:
            client.close()
        return
    with LocalCluster(n_workers=placement.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        yield client


def ordered_on_client(client: Any, function: Callable[..., T], tasks: Sequence[tuple[Any, ...]],
                      *, progress: Progress | None = None, kwargs: dict[str, Any] | None = None
                      ) -> Iterator[T]:
    """Submit every task to a Dask ``client``; yield the results in task order.

    The keyword arguments are shared by every task: any that is not a plain number or string is
    sent to every worker once (``scatter``), not once per task.
    """
    dask_completed = _distributed().as_completed
    extra = {name: value if isinstance(value, int | float | str) else
             client.scatter(value, broadcast=True, hash=False)
             for name, value in (kwargs or {}).items()}
    futures = [client.submit(function, *task, pure=False, **extra) for task in tasks]
    index = {future.key: i for i, future in enumerate(futures)}

    def finished() -> Iterator[tuple[int, T]]:
        for future, result in dask_completed(futures, with_results=True):
            futures[index[future.key]] = None  # let the cluster forget it
            yield index[future.key], result

    yield from _in_order(finished(), len(tasks), progress)
