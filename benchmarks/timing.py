"""Timing several implementations of the same computation fairly on a noisy machine.

Four rules:

1. **Warm up first.** The first calls pay for imports, caches, BLAS thread start-up and
   the allocator's first page faults; they are run and thrown away.
2. **Interleave.** One *round* runs every candidate once, back to back; the rounds are
   repeated. On a shared machine the speed drifts (other jobs come and go), and
   interleaving lets every candidate see the same drift instead of one of them getting
   all the slow seconds.
3. **Report medians, and the minimum too.** A time is the median over rounds, so a few
   disturbed rounds do not move it. Noise on a shared machine only ever *adds* time, so
   the fastest round is the other honest summary: when median and minimum disagree
   (``noise`` = median / min well above 1), most rounds were disturbed and the
   measurement should be repeated.
4. **Measure in a fresh process** (:func:`in_fresh_process`). The C allocator adapts to
   the allocations it has seen, so what ran earlier in a process changes the cost of
   what runs next (see that function).

On a GPU the work is queued and a Python call returns before the device has finished;
each candidate therefore carries a ``sync`` function (wait for the device) that is
called before starting and before stopping the clock.
"""
from __future__ import annotations

import gc
import multiprocessing
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

try:
    import resource                  # Unix: lets us count page faults
except ImportError:                  # pragma: no cover - Windows
    resource = None


def no_sync() -> None:
    """The CPU's "wait for the device": nothing to wait for."""


@dataclass
class Candidate:
    """One implementation to time: ``step()`` runs it once, ``sync()`` waits for its device."""

    name: str
    step: Callable[[], Any]
    sync: Callable[[], None] = no_sync


@dataclass
class Timings:
    """Per candidate: seconds per call, one entry per round, and page faults per call.

    ``page_faults`` are minor faults: pages of memory the OS had to map in because the
    process touched them for the first time, typically memory the allocator gave back to
    the OS and then asked for again. A candidate that reuses its memory shows about none.
    """

    seconds: dict = field(default_factory=dict)
    page_faults: dict = field(default_factory=dict)

    def repeats(self, name: str) -> int:
        return len(self.seconds[name])

    def median_ms(self, name: str) -> float:
        return 1e3 * statistics.median(self.seconds[name])

    def min_ms(self, name: str) -> float:
        return 1e3 * min(self.seconds[name])

    def ratio(self, name: str, baseline: str) -> float:
        """Median time of ``name`` / median time of ``baseline``."""
        return statistics.median(self.seconds[name]) / statistics.median(self.seconds[baseline])

    def min_ratio(self, name: str, baseline: str) -> float:
        """Fastest time of ``name`` / fastest time of ``baseline``."""
        return min(self.seconds[name]) / min(self.seconds[baseline])

    def noise(self) -> float:
        """The largest median / min over the candidates: 1.0 is a quiet machine."""
        return max(self.median_ms(name) / self.min_ms(name) for name in self.seconds)

    def merged(self, other: "Timings") -> "Timings":
        """Both candidates' sets in one (they were measured separately)."""
        return Timings({**self.seconds, **other.seconds}, {**self.page_faults, **other.page_faults})

    def as_dict(self) -> dict:
        return {name: [round(1e3 * t, 4) for t in ts] for name, ts in self.seconds.items()}


def minor_page_faults() -> int:
    """Minor page faults of this process so far (0 where the OS does not say)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt if resource else 0


def time_once(candidate: Candidate) -> tuple:
    """(seconds, page faults) for one call of ``candidate.step``, device work included."""
    candidate.sync()
    faults = minor_page_faults()
    start = time.perf_counter()
    candidate.step()
    candidate.sync()
    return time.perf_counter() - start, minor_page_faults() - faults


def measure(candidates: list, warmup: int, budget_s: float, min_repeats: int,
            max_repeats: int) -> Timings:
    """Warm up every candidate, then time interleaved rounds; returns :class:`Timings`.

    The number of rounds is chosen from the last warm-up round: as many as fit in
    ``budget_s`` seconds, but at least ``min_repeats`` and at most ``max_repeats``. Small
    problems thus get many rounds (their times are short and noisy), large ones few.
    """
    round_s = 0.0
    for _ in range(warmup):
        round_s = sum(time_once(c)[0] for c in candidates)
    repeats = max(min_repeats, min(max_repeats, int(budget_s / max(round_s, 1e-9))))
    gc.collect()                 # start from a clean heap; the collector stays on while timing
    seconds = {c.name: [] for c in candidates}
    faults = {c.name: 0 for c in candidates}
    for _ in range(repeats):
        for c in candidates:
            s, f = time_once(c)
            seconds[c.name].append(s)
            faults[c.name] += f
    return Timings(seconds, {name: f / repeats for name, f in faults.items()})


def in_fresh_process(fn: Callable, *args: Any) -> Any:
    """``fn(*args)`` run in a new Python process; returns its result (or raises its error).

    Why: glibc's malloc adapts to what it has seen. Freeing a large block raises the size
    above which it maps memory straight from the OS (and the size of free memory it keeps
    before returning it), so whether a step's 2 MB temporaries come back as fresh pages,
    each faulted in again, depends on what the process did before. Measured here: a
    tinyffn ReLU step at (T, d) = (512, 256) took 3,040 page faults in a fresh process and
    none after PyTorch had run in the same process, which moved its ratio to the GEMMs
    from 1.44 to 1.09. A fresh process per measurement is what a program using only one
    of the libraries sees, and it makes a measurement independent of the ones before.

    ``fn`` must be importable by name (a module-level function) and its arguments and
    result picklable; the new process is started with "spawn", so it inherits nothing.
    """
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(fn, *args).result()
