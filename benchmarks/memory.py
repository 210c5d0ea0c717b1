"""Peak memory of a computation: what NumPy and PyTorch allocate while it runs.

The peak that matters for a training step is the largest amount of array memory alive at
any moment. For NumPy, ``tracemalloc`` sees it: NumPy reports every array buffer it
allocates and frees to tracemalloc. PyTorch's allocator does not; its profiler records
each allocation and free instead. Both functions below return the same quantity, the
most bytes a call adds at any moment, so the two libraries can be compared.
"""
from __future__ import annotations

import contextlib
import gc
import os
import sys
import tracemalloc
from typing import Any, Callable


def analytic_minimum_bytes(T: int, d: int, d_ff: int, itemsize: int = 4) -> int:
    """The least memory a training step of the FFN can hold at its peak (float32).

    parameters W1, b1, W2, b2 and their gradients; x, gx = dL/dx, gy and the output y,
    (T, d) each; the saved activations a = x W1^T + b1 and h = σ(a), (T, d_ff) each.
    """
    params = d_ff * d + d_ff + d * d_ff + d
    return itemsize * (2 * params + 4 * T * d + 2 * T * d_ff)


def traced_peak_bytes(fn: Callable[[], Any]) -> int:
    """Peak bytes allocated and not yet freed while ``fn()`` runs, as tracemalloc sees them.

    NumPy reports its array buffers to tracemalloc, so this counts every array the step
    creates (and the small Python objects around them), but not arrays that existed
    before: the caller adds those.
    """
    gc.collect()
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - start


@contextlib.contextmanager
def stderr_silenced():
    """Silence file descriptor 2 (the PyTorch profiler's C++ start/stop log lines)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def torch_peak_bytes(torch: Any, fn: Callable[[], Any]) -> int | None:
    """Peak bytes of tensor memory allocated and not yet freed while ``fn()`` runs (CPU).

    PyTorch's allocations bypass tracemalloc. Its profiler, with ``profile_memory=True``,
    records one event per allocation (+bytes) and per free (-bytes); summing them in time
    order gives the same quantity tracemalloc gives for NumPy, minus the Python objects.
    Returns None if this PyTorch's profiler does not expose those events.
    """
    from torch.profiler import ProfilerActivity, profile

    with stderr_silenced(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    try:
        events = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    except AttributeError:
        return None
    live = peak = 0
    for e in sorted(events, key=lambda e: e.start_ns()):
        live += e.nbytes()
        peak = max(peak, live)
    return peak
