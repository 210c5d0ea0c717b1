"""The way back up in an encoder-decoder CNN (SegNet, a U-Net), as PyTorch 2.13 defines it,
composed of existing ops: ``F.max_unpool1d`` / ``F.max_unpool2d`` (``nn.MaxUnpool1d``,
``nn.MaxUnpool2d``) put each pooled maximum back where ``max_pool*(return_indices=True)``
found it, zeros elsewhere; ``nn.UpsamplingNearest2d`` and ``nn.UpsamplingBilinear2d`` are
``F.interpolate`` in one mode (the bilinear one with ``align_corners=True``, as
PyTorch's).

max_unpool, with indices i (row·W + column in the output plane, as max_pool gives them)::

    y[n, c, i[n, c, t]] = x[n, c, t],   every other entry of y 0

It is one ``scatter_add`` into zeros of the output plane, flattened: its backward gives
x[n, c, t] the gradient of the entry it landed on, gy[n, c, i[n, c, t]]. Where windows
overlap (max_pool with stride < kernel_size), two pooled entries can name the same place
(the same input maximum, picked by two windows). PyTorch writes one of them and sends
each the whole gy there, so through max_pool the input maximum gets twice its gradient.
Here each of the k entries landing on one place adds 1/k of itself: the value is the
same (they are equal, one maximum; to rounding, as k·(v/k)), and the gradients, gy/k each, add up to gy, the
derivative of unpool(max_pool(x)) with respect to that maximum, as finite differences
measure it (tests/test_unpooling.py checks both).
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode
from .backend import dtype_name
from .convolution import _tuple
from .creation import ones, zeros
from .module import Module
from .pooling import _check_input
from .resampling import Upsample
from .scatter import _scatter_added
from .tensor import Tensor


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """max_pool1d's partial inverse, as ``F.max_unpool1d``: (N, C, L) or (C, L) values
    and their int64 ``indices`` from ``max_pool1d(..., return_indices=True)`` ->
    (N, C, L_out), each value at its index, zeros elsewhere. L_out = (L - 1)·stride -
    2·padding + kernel_size (``stride`` defaults to ``kernel_size``), or ``output_size``
    (the length, or the whole shape), which must lie within stride of that, as
    PyTorch's: it recovers an odd length the pool floored away. Gradient: gy at each
    value's index (gy/k each where k values name one index; see the module docstring)."""
    return _max_unpool("max_unpool1d", 1, input, indices, kernel_size, stride, padding,
                       output_size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """max_pool2d's partial inverse, as ``F.max_unpool2d``: (N, C, H, W) or (C, H, W)
    values and their int64 ``indices`` (row·W_out + column, as ``max_pool2d(...,
    return_indices=True)`` gives them) -> (N, C, H_out, W_out), zeros where no value
    lands. H_out = (H - 1)·sH - 2·pH + kH (W_out alike), or ``output_size`` (H_out,
    W_out) or the whole shape, each within stride of that. Gradient: gy at each value's
    index."""
    return _max_unpool("max_unpool2d", 2, input, indices, kernel_size, stride, padding,
                       output_size)


def _max_unpool(op: str, n: int, x: Any, indices: Any, kernel_size: Any, stride: Any,
                padding: Any, output_size: Any) -> Tensor:
    """max_unpool1d and 2d: one scatter_add into the flattened output plane."""
    _check_input(op, x, n)
    if not isinstance(indices, Tensor) or dtype_name(indices.dtype) != "int64":
        got = dtype_name(indices.dtype) if isinstance(indices, Tensor) else type(indices).__name__
        raise TypeError(f"{op}: indices must be an int64 tinyffn Tensor, as "
                        f"max_pool{n}d(..., return_indices=True) returns them, got {got}")
    if tuple(indices.shape) != tuple(x.shape):
        raise ValueError(f"{op}: indices must have the input's shape {tuple(x.shape)}, got "
                         f"{tuple(indices.shape)}; pass the indices pooled with the values")
    K = _tuple("kernel_size", kernel_size, n, op)
    s = K if stride is None else _tuple("stride", stride, n, op)
    p = _tuple("padding", padding, n, op, least=0)
    size = _output_size(op, x, K, s, p, output_size)
    lead, plane = tuple(x.shape[:-n]), math.prod(size)
    i = indices.reshape(*lead, -1)                                  # (N, C, ΠS_in)
    xp = x.backend.xp
    if i.numel() and bool(xp.any((i.data < 0) | (i.data >= plane))):
        bad = int(xp.max(i.data)) if bool(xp.any(i.data >= plane)) else int(xp.min(i.data))
        raise IndexError(f"{op}: index {bad} is out of range for an output of size "
                         f"{' x '.join(map(str, size))} ({plane} entries); give the indices "
                         f"max_pool{n}d returned with these settings, and its input's size "
                         "as output_size")
    from .sorting import _gathered      # sorting.py imports torch_functions.py, which imports this
    last = i.ndim - 1                   # i checked above: the scatters and the gather do not
    with grad_mode.scope("function", op):
        v = x.reshape(*lead, -1)                                    # (N, C, ΠS_in)
        y = zeros(*lead, plane, dtype=x.dtype, device=x.device)     # (N, C, Πsize)
        hits = _gathered(_scatter_added(zeros(*lead, plane, dtype=x.dtype, device=x.device),
                                        last, i, ones(*i.shape, dtype=x.dtype, device=x.device)),
                         last, i)                                   # (N, C, ΠS_in)
        if bool(xp.any(hits.data > 1)):                             # overlapping windows
            v = v / hits                                            # k entries, 1/k each
        return _scatter_added(y, last, i, v).reshape(*lead, *size)  # (N, C, *size)


def _output_size(op: str, x: Tensor, K: tuple, s: tuple, p: tuple, output_size: Any) -> tuple:
    """PyTorch's ``_unpool_output_size``: (L - 1)·stride + kernel_size - 2·padding per
    axis, or output_size (n sizes, or n + 2 for the whole shape) within stride of it."""
    n = len(K)
    default = tuple((L - 1) * si + k - 2 * pi for L, si, k, pi in zip(x.shape[-n:], s, K, p))
    if output_size is None:
        if any(S < 1 for S in default):
            raise ValueError(f"{op}: padding={p if n > 1 else p[0]} leaves no output for an "
                             f"input of shape {tuple(x.shape)}; use less padding")
        return default
    size = tuple(int(v) for v in output_size)
    size = size[2:] if len(size) == n + 2 else size
    if len(size) != n:
        raise ValueError(f"{op}: output_size should be a sequence of {n} or {n + 2} elements, "
                         f"but it has a length of {len(size)}")
    for d, (S, m, si) in enumerate(zip(size, default, s)):
        if not m - si < S < m + si:
            raise ValueError(f"{op}: invalid output_size {tuple(output_size)} (dim {d} must "
                             f"be between {m - si} and {m + si}, exclusive, as in PyTorch)")
    return size


class MaxUnpool1d(Module):
    """:func:`max_unpool1d` as a module, as ``torch.nn.MaxUnpool1d``:
    ``forward(input, indices, output_size=None)``."""
    _n = 1

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0):
        super().__init__()
        op = type(self).__name__
        self.kernel_size = _tuple("kernel_size", kernel_size, self._n, op)
        self.stride = self.kernel_size if stride is None else _tuple("stride", stride,
                                                                     self._n, op)
        self.padding = _tuple("padding", padding, self._n, op, least=0)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return _max_unpool(f"max_unpool{self._n}d", self._n, input, indices, self.kernel_size,
                           self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool2d(MaxUnpool1d):
    """:func:`max_unpool2d` as a module, as ``torch.nn.MaxUnpool2d``:
    ``forward(input, indices, output_size=None)``; SegNet's decoder pairs each with an
    encoder's ``MaxPool2d(2, return_indices=True)``."""
    _n = 2


class UpsamplingNearest2d(Upsample):
    """``Upsample(size, scale_factor, mode='nearest')``, as ``torch.nn.UpsamplingNearest2d``
    (which PyTorch deprecates in favour of that): (N, C, H, W) -> (N, C, H_out, W_out),
    each output pixel copying the input pixel floor(i · H/H_out), floor(j · W/W_out)."""

    def __init__(self, size: Any = None, scale_factor: Any = None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(size, scale_factor, mode='bilinear', align_corners=True)``, as
    ``torch.nn.UpsamplingBilinear2d``: note align_corners=True (corner pixels of input and
    output aligned, i ↦ i·(H - 1)/(H_out - 1)), where ``nn.Upsample(mode='bilinear')``
    defaults to False; the two differ at every pixel but the corners."""

    def __init__(self, size: Any = None, scale_factor: Any = None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
