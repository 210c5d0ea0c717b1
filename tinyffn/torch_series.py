"""PyTorch's tables built from a vector or a range: ``logspace`` (points evenly spaced on a
log scale), ``vander`` (the Vandermonde matrix of powers), ``combinations`` (every
r-subset of a vector's entries, as rows) and ``histogram`` (counts in bins, with the bins'
edges), names ported scripts reach for (a learning-rate sweep over ``logspace(-5, -1, 9)``,
a polynomial fit with ``vander``, pairs of tokens with ``combinations``).

``vander`` and ``combinations`` are composed of differentiable ops (``cumprod``,
``index_select``), so their entries carry gradients as PyTorch's do; ``logspace`` makes a
leaf and ``histogram`` counts on the host, with no graph, as ``histc``.
"""
from __future__ import annotations

import itertools
import math
from typing import Any, NamedTuple

import numpy as np

from . import grad_mode
from .arguments import _is_int, is_real, tensor_arg, type_name
from .backend import dtype_name


def logspace(start, end, steps, base=10.0, *, dtype=None, device="cpu", requires_grad=False):
    """``steps`` values base^e for e evenly spaced from ``start`` to ``end`` (both
    included), as ``torch.logspace``: ``logspace(-3, 0, 4)`` is 0.001, 0.01, 0.1, 1. The
    default float dtype unless ``dtype`` says otherwise; computed in float64 and rounded
    once (an integer dtype truncates, as PyTorch's), so a float32 value may differ from
    PyTorch's in the last digit."""
    from . import backend as backends
    from .creation import _leaf_in
    for name, v in (("start", start), ("end", end), ("base", base)):
        if not (is_real(v) and math.isfinite(v)) or isinstance(v, bool):
            raise TypeError(f"logspace: {name} must be a finite number, got {v!r}")
    if not _is_int(steps) or isinstance(steps, bool) or steps < 0:
        raise ValueError(f"logspace: steps must be an integer >= 0 (the number of values), "
                         f"got {steps!r}")
    be = backends.get_backend(device)                   # made on the device, in float64
    e = be.xp.linspace(float(start), float(end), steps, dtype=be.dtype("float64"))  # (steps,)
    return _leaf_in(be, float(base) ** e, dtype_name(dtype or backends.DEFAULTS.float),
                    requires_grad)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D ``x``, as ``torch.vander``: column j is x^(N−1−j)
    (x^j with ``increasing=True``), shape (len(x), N), N = len(x) when None. Composed as
    PyTorch's: the running product (``cumprod``) of [1, x, x, ...] along each row, so the
    gradient at x = 0 is finite (d x^k / dx = k x^(k−1), never 0 · x^−1). Integer and bool
    entries give int64, as PyTorch's."""
    from .creation import cat, ones
    x = tensor_arg("vander", "x", x)
    if x.ndim != 1:
        raise ValueError(f"vander: x must be 1-D (one value per row), got shape {x.shape}")
    n = x.shape[0]
    N = n if N is None else N
    if not _is_int(N) or isinstance(N, bool) or N < 0:
        raise ValueError(f"vander: N must be an integer >= 0 (the number of columns), got "
                         f"{N!r}")
    if not x.backend.is_floating(x.dtype):
        x = x.to(dtype="int64")
    with grad_mode.scope("function", "vander"):
        first = ones(n, 1, dtype=x.dtype, device=x.device)              # (n, 1): x^0
        if N == 0:
            return first.narrow(1, 0, 0)                                # (n, 0)
        rows = cat([first] + [x.unsqueeze(1)] * (N - 1), 1).cumprod(1)  # (n, N): x^0 .. x^(N−1)
        return rows if increasing else rows.flip(1)


def combinations(input, r=2, with_replacement=False):
    """Every r-subset of a 1-D ``input``'s entries, one per row in lexicographic order of
    their positions, as ``torch.combinations`` (and ``itertools.combinations``, or
    ``combinations_with_replacement`` with ``with_replacement=True``): shape (k, r). The
    positions are listed on the host (they depend on len(input) only) and the entries
    picked with ``index_select``, so each row's entries carry their gradients. r = 0 gives
    an empty (0,) tensor and r > len(input) (without replacement) an empty (0, r) one, as
    PyTorch's."""
    from .tensor import Tensor
    x = tensor_arg("combinations", "input", input)
    if x.ndim != 1:
        raise ValueError(f"combinations: input must be 1-D, got shape {x.shape}")
    if not _is_int(r) or isinstance(r, bool) or r < 0:
        raise ValueError(f"combinations: r must be an integer >= 0 (the size of each "
                         f"combination), got {r!r}")
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    with grad_mode.scope("function", "combinations"):
        if r == 0:
            return x.narrow(0, 0, 0)                                    # (0,), as PyTorch's
        rows = np.array(list(pick(range(x.shape[0]), r)), dtype=np.int64).reshape(-1, r)
        index = Tensor(x.backend.from_numpy(rows.reshape(-1)), _backend=x.backend)
        from .more_functions import _index_selected   # it imports tensor.py, as this does
        return _index_selected(x, 0, index).reshape(rows.shape)        # made: not checked


class HistogramResult(NamedTuple):
    """What ``histogram`` returns, as ``torch.return_types.histogram``: ``.hist`` (the count,
    or weight, in each bin) and ``.bin_edges`` (one more than the bins)."""
    hist: Any
    bin_edges: Any


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """A histogram of ``input``'s entries, as ``torch.histogram`` (and ``np.histogram``):
    (hist, bin_edges). ``bins``: the number of bins of equal width over ``range`` (min,
    max), or over the entries' least and largest when None (widened by 0.5 either side if
    they are equal, (0, 1) if there are none); or a 1-D tensor of increasing edges. Each bin
    holds [left edge, right edge), the last one both ends. ``weight`` (input's shape): each
    entry counts its weight instead of 1; ``density=True``: hist / (Σ hist · bin width), a
    density that integrates to 1. Entries outside the range are left out. Floating-point
    input only, as PyTorch's; both results in input's dtype, with no graph. Counted by
    NumPy on the host."""
    from .tensor import Tensor
    op = "histogram"
    x = tensor_arg(op, "input", input)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: the tensor has dtype {dtype_name(x.dtype)}; histogram counts "
                        "floating-point values, as in PyTorch: call x.float() first")
    a = x.backend.to_numpy(x.data).reshape(-1)
    if isinstance(bins, Tensor):
        if range is not None:
            raise TypeError(f"{op}: bins is a tensor of edges, so range has nothing to set; "
                            "pass one or the other")
        edges = bins.backend.to_numpy(bins.data).astype(a.dtype)
        if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) < 0):
            raise ValueError(f"{op}: bins as a tensor must be 1-D, at least 2 edges, "
                             f"increasing; got shape {bins.shape}")
    elif _is_int(bins) and not isinstance(bins, bool) and bins >= 1:
        edges = _edges(op, a, bins, range)
    else:
        raise TypeError(f"{op}: bins must be a positive int or a 1-D tensor of edges, got "
                        f"{type_name(bins)} {bins!r}")
    w = None
    if weight is not None:
        w = tensor_arg(op, "weight", weight)
        if w.shape != x.shape:
            raise ValueError(f"{op}: weight has shape {w.shape}, input {x.shape}; one weight "
                             "per entry")
        w = w.backend.to_numpy(w.data).reshape(-1).astype(a.dtype)
    counts, _ = np.histogram(a, edges.astype(np.float64), weights=w)
    counts = counts.astype(np.float64)
    if density:
        with np.errstate(invalid="ignore", divide="ignore"):     # no entries: NaN, as torch
            counts = counts / (counts.sum() * np.diff(edges.astype(np.float64)))
    return HistogramResult(*(Tensor(x.backend.from_numpy(v.astype(a.dtype)), _backend=x.backend)
                             for v in (counts, edges)))


def _edges(op: str, a: np.ndarray, bins: int, range) -> np.ndarray:
    """bins + 1 edges of equal width over ``range``, or over the entries."""
    if range is None:
        lo, hi = (float(a.min()), float(a.max())) if a.size else (0.0, 1.0)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError(f"{op}: the range of the entries, [{lo}, {hi}], is not finite; "
                             "pass range=(min, max), or nan_to_num(x) first")
    else:
        if (not isinstance(range, (tuple, list)) or len(range) != 2
                or not all(is_real(v) and math.isfinite(v) for v in range)):
            raise ValueError(f"{op}: range must be a pair of finite numbers (min, max), got "
                             f"{range!r}")
        lo, hi = float(range[0]), float(range[1])
        if lo > hi:
            raise ValueError(f"{op}: range's max must be >= its min, got {range!r}")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return np.linspace(lo, hi, bins + 1).astype(a.dtype)


__all__ = ["logspace", "vander", "combinations", "histogram", "HistogramResult"]
