"""Fractional max pooling (Graham, 2014), as ``F.fractional_max_pool2d``/``3d`` and
``nn.FractionalMaxPool2d``/``3d``: max pooling that shrinks each spatial axis by a factor
that need not be an integer (10 -> 7: ``output_ratio=0.7``), by windows placed at pseudo-random
starts, so that stacking many such layers shrinks an image gently.

Along an axis of length L pooled to L_out with windows of k, a sample u in [0, 1) (one
per plane and axis, drawn from the seeded generator unless given as ``_random_samples``)
fixes the starts, PyTorch's formula computed in the input's dtype:

    α = (L − k) / (L_out − 1),   start_i = ⌊(i + u) α⌋ − ⌊u α⌋  (i < L_out − 1),
    start_{L_out − 1} = L − k

so the steps between starts are ⌊α⌋ or ⌊α⌋ + 1 and the last window ends at the edge. Each
output is the largest entry of its window (k₁ × k₂ [× k₃] entries from those starts).

Composed: the windows' flat positions are computed on the device from u, one ``gather``
reads every window, ``max`` picks each window's first largest entry (row-major, as
PyTorch's) and the gradient goes to that entry alone, as ``max_pool2d``'s. The samples
``(N, C, 2)`` go to the axes W then H, as PyTorch's kernel reads them; in 3-D ``(N, C, 3)``
go to T, H, W.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import grad_mode
from .arguments import type_name
from .backend import dtype_name
from .creation import arange, cat, full, rand
from .module import Module
from .pooling import _tuple
from .tensor import Tensor

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices",
           "FractionalMaxPool2d", "FractionalMaxPool3d"]


def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None,
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None):
    """Fractional max pooling, as ``F.fractional_max_pool2d`` (module docstring): (N, C, H,
    W) or (C, H, W) -> (N, C, H_out, W_out); ``output_size`` (int or (H_out, W_out)) or
    ``output_ratio`` (in (0, 1): H_out = int(H · ratio)); ``kernel_size`` an int or (kH, kW)
    with H_out + kH − 1 ≤ H. ``return_indices=True`` also gives each maximum's int64
    position h · W + w in its plane (for ``max_unpool2d``)."""
    y, index = _fractional("fractional_max_pool2d", 2, input, kernel_size, output_size,
                           output_ratio, _random_samples)
    return (y, index) if return_indices else y


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple:
    """:func:`fractional_max_pool2d` returning (output, indices) whatever
    ``return_indices`` says, as PyTorch's."""
    return _fractional("fractional_max_pool2d", 2, input, kernel_size, output_size,
                       output_ratio, _random_samples)


def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None,
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None):
    """:func:`fractional_max_pool2d` for volumes, as ``F.fractional_max_pool3d``: (N, C, T,
    H, W) or (C, T, H, W); samples (N, C, 3) for T, H, W; indices t · H · W + h · W + w."""
    y, index = _fractional("fractional_max_pool3d", 3, input, kernel_size, output_size,
                           output_ratio, _random_samples)
    return (y, index) if return_indices else y


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple:
    """:func:`fractional_max_pool3d` returning (output, indices), as PyTorch's."""
    return _fractional("fractional_max_pool3d", 3, input, kernel_size, output_size,
                       output_ratio, _random_samples)


def _fractional(op: str, n: int, x: Any, kernel_size: Any, output_size: Any,
                output_ratio: Any, samples: Any) -> tuple:
    if not isinstance(x, Tensor) or x.ndim not in (n + 1, n + 2):
        raise ValueError(f"{op}: expected a {n + 1}-D or {n + 2}-D tensor (C, *spatial) or "
                         f"(N, C, *spatial), got "
                         f"{x.shape if isinstance(x, Tensor) else type_name(x)}")
    batched = x.ndim == n + 2
    xb = x if batched else x.unsqueeze(0)                               # (N, C, *S)
    N, C, S = xb.shape[0], xb.shape[1], xb.shape[2:]
    k = _tuple("kernel_size", kernel_size, n, op)
    out = _output_size(op, n, S, output_size, output_ratio)
    for axis, (L, L_out, ki) in enumerate(zip(S, out, k)):
        if L_out < 1:                   # only a ratio gets here: output_size must be >= 1
            raise ValueError(f"{op}: output_ratio {output_ratio!r} pools axis {axis} of {L} "
                             f"to int({L} · ratio) = {L_out} entries (PyTorch returns an "
                             f"empty tensor); use a larger output_ratio")
        if ki < 1 or L_out + ki - 1 > L:
            raise ValueError(f"{op}: a window of {ki} too large for an axis of {L} pooled to "
                             f"{L_out} (axis {axis}: output + kernel - 1 must be at most the "
                             f"input, {L_out} + {ki} - 1 > {L}); use a smaller kernel_size "
                             f"or output_size")
    u = _samples(op, n, xb, samples)                                     # (N, C, n)
    from .sorting import _gathered      # sorting.py's imports lead back here
    with grad_mode.scope("function", op):
        # the flat position of every window entry, an outer sum over the axes
        flat = 0
        for axis in range(n):
            sample = u[:, :, n - 1 - axis] if n == 2 else u[:, :, axis]  # 2-D: W, H order
            starts = _starts(sample, S[axis], out[axis], k[axis])        # (N, C, out_a)
            at = starts.unsqueeze(-1) + arange(k[axis], device=x.device)   # (N, C, out_a, k_a)
            stride = math.prod(S[axis + 1:])
            # axis a's positions go to dims (2 + a) and (2 + n + a) of (N, C, *out, *k)
            shape = [N, C] + [1] * (2 * n)
            shape[2 + axis], shape[2 + n + axis] = out[axis], k[axis]
            flat = flat + (at * stride).reshape(shape)                   # broadcast: the sum
        flat = flat.reshape(N, C, math.prod(out), math.prod(k))         # (N, C, Πout, Πk)
        windows = _gathered(xb.reshape(N, C, -1), 2, flat.reshape(N, C, -1))
        y, pick = windows.reshape(N, C, math.prod(out), math.prod(k)).max(dim=-1)
        index = _gathered(flat, 3, pick.unsqueeze(-1)).squeeze(-1)     # (N, C, Πout)
        y, index = y.reshape(N, C, *out), index.reshape(N, C, *out)
    return (y, index) if batched else (y.squeeze(0), index.squeeze(0))


def _starts(u: Tensor, L: int, L_out: int, k: int) -> Tensor:
    """The first entry of each window along an axis (module docstring), int64 (N, C, L_out),
    from the samples u (N, C), in u's dtype as PyTorch computes them."""
    last = full((*u.shape, 1), L - k, dtype="int64", device=u.device)    # (N, C, 1)
    if L_out == 1:
        return last
    # α rounded to u's dtype as PyTorch's scalar_t; a Python float then keeps u's dtype
    alpha = float(np.dtype(dtype_name(u.dtype)).type(L - k) /
                  np.dtype(dtype_name(u.dtype)).type(L_out - 1))
    i = arange(L_out - 1, dtype=u.dtype, device=u.device)               # (L_out - 1,)
    first = ((i + u.unsqueeze(-1)) * alpha).long() - (u * alpha).long().unsqueeze(-1)
    return cat([first, last], dim=-1)                                    # (N, C, L_out)


def _output_size(op: str, n: int, S: tuple, output_size: Any, output_ratio: Any) -> tuple:
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return _tuple("output_size", output_size, n, op)
    ratio = output_ratio if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * n
    if len(ratio) != n or not all(isinstance(r, (int, float)) and 0 < r < 1 for r in ratio):
        raise ValueError(f"{op}: output_ratio must be a number or {n} numbers between 0 and 1 "
                         f"(got {output_ratio!r})")
    return tuple(int(L * r) for L, r in zip(S, ratio))


def _samples(op: str, n: int, xb: Tensor, samples: Any) -> Tensor:
    """The samples (N, C, n) in x's dtype: drawn, or the ones given (PyTorch's
    ``_random_samples``, in [0, 1))."""
    N, C = xb.shape[:2]
    if samples is None:
        return rand(N, C, n, dtype=xb.dtype, device=xb.device)
    if not isinstance(samples, Tensor) or samples.shape != (N, C, n):
        raise ValueError(f"{op}: _random_samples must be a tensor of shape ({N}, {C}, {n}) "
                         f"(batch, channels, one per spatial axis), got "
                         f"{samples.shape if isinstance(samples, Tensor) else type_name(samples)}")
    if samples.device != xb.device:
        raise ValueError(f"{op}: _random_samples is on {samples.device}, the input on "
                         f"{xb.device}; move it with .to({xb.device!r})")
    return samples.detach().to(dtype=xb.dtype)


class _FractionalMaxPool(Module):
    _n: int
    _fn: Any

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Tensor | None = None):
        super().__init__()
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a "
                             f"pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError(f"{name}: only one of output_size and output_ratio may be "
                             f"specified")
        if output_ratio is not None:
            _output_size(name, self._n, (1,) * self._n, None, output_ratio)   # checks it
        self.kernel_size, self.output_size = kernel_size, output_size
        self.output_ratio, self.return_indices = output_ratio, return_indices
        self._random_samples = _random_samples

    def forward(self, x: Tensor):
        return type(self)._fn(x, self.kernel_size, self.output_size, self.output_ratio,
                              self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """:func:`fractional_max_pool2d` as a module, as ``torch.nn.FractionalMaxPool2d`` (new
    samples each call unless ``_random_samples`` is given)."""

    _n, _fn = 2, fractional_max_pool2d


class FractionalMaxPool3d(_FractionalMaxPool):
    """:func:`fractional_max_pool3d` as a module, as ``torch.nn.FractionalMaxPool3d``."""

    _n, _fn = 3, fractional_max_pool3d
