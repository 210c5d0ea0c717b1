"""The 2-D pools, as PyTorch 2.13 defines them: ``F.max_pool2d``, ``F.avg_pool2d``,
``F.adaptive_avg_pool2d``, ``F.adaptive_max_pool1d`` / ``2d``, the ``*_with_indices``
forms, the power-average pools ``F.lp_pool1d`` / ``2d`` (at the end), and their
modules; composed of primitives (a CNN pools between its ``nn.Conv2d`` layers, and ends
with a global average pool before its classifier).

Window (i, j) reads the kH·kW pixels (i·sH + kh·dH, j·sW + kw·dW) of the padded input,
the windows conv2d's im2col cuts (pooling.py's ``_max_pool`` and ``_avg_pool``, which the
1-D pools share: each axis is sized, padded and checked on its own)::

    max:  y[n, c, i, j] = max_kh,kw x_pad[n, c, i·sH + kh·dH, j·sW + kw·dW]   (-inf padding)
    avg:  y[n, c, i, j] = Σ_kh,kw x_pad[n, c, i·sH + kh, j·sW + kw] / (a_i · b_j)   (0 padding)

with a_i, b_j PyTorch's divisor factors along H and W (the window clipped to the padded
input, or to the input with ``count_include_pad=False``), or ``divisor_override``. The
window axes (kH, kW) are flattened in row-major order, so ``max`` picks the first
largest entry in that order, PyTorch's choice, and its index is row·W + column of the
input. The adaptive pools split each axis into output_size windows
[floor(t·L / L_out), ceil((t + 1)·L / L_out)), as PyTorch's. No backward is written here.
"""
from __future__ import annotations

import itertools
import math
from typing import Any

from . import grad_mode
from .composed import where
from .convolution import _tuple
from .creation import stack
from .module import Module
from .pooling import (AdaptiveAvgPool1d, MaxPool1d, _adaptive_avg, _adaptive_windows,
                      _avg_pool, _max_pool)
from .tensor import Tensor


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False):
    """The largest entry of each window, as ``F.max_pool2d``: (N, C, H, W) or (C, H, W)
    -> (N, C, H_out, W_out), H_out = floor((H + 2·pH - dH·(kH - 1) - 1) / sH) + 1 (the
    ceiling with ``ceil_mode``, a last partial window kept if it starts inside the input
    or the top/left padding); W_out alike. Each argument an int or a 2-tuple (H, W);
    ``stride`` defaults to ``kernel_size``, padding is -inf (at most kernel_size / 2).
    ``return_indices=True`` also gives each maximum's int64 position row·W + column in
    its (H, W) plane. Gradient: gy to the window's first largest entry (row-major)."""
    return _max_pool("max_pool2d", 2, input, kernel_size, stride, padding, dilation,
                     ceil_mode, return_indices)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """:func:`max_pool2d` and its indices, whatever ``return_indices`` says, as
    ``F.max_pool2d_with_indices``."""
    return _max_pool("max_pool2d_with_indices", 2, input, kernel_size, stride, padding,
                     dilation, ceil_mode, True)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """``F.max_pool1d`` and its indices, whatever ``return_indices`` says, as
    ``F.max_pool1d_with_indices``."""
    return _max_pool("max_pool1d_with_indices", 1, input, kernel_size, stride, padding,
                     dilation, ceil_mode, True)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean of each window, as ``F.avg_pool2d``: (N, C, H, W) or (C, H, W) ->
    (N, C, H_out, W_out), sized as :func:`max_pool2d`'s (dilation 1), zeros padded. The
    divisor, as PyTorch's: the window's height times its width, each clipped to the
    padded input (less for ``ceil_mode``'s partial windows) or, with
    ``count_include_pad=False``, to the input; ``divisor_override`` (a nonzero int)
    replaces it. Gradient: gy / divisor to each pixel the window reads. A float16 input
    is summed in float32, as PyTorch's."""
    return _avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """The mean of each of H_out × W_out windows that cover the input, as
    ``F.adaptive_avg_pool2d``: (N, C, H, W) or (C, H, W) -> (N, C, H_out, W_out);
    ``output_size`` an int or (H_out, W_out), None keeping that axis' size. ``1`` is
    global average pooling, a CNN's last step before its classifier. Computed one axis
    at a time (the mean of a rectangle is the mean of its rows' means): W_out + H_out
    slices and means. Gradient: gy / (window area) to each pixel the window reads."""
    return _adaptive_avg("adaptive_avg_pool2d", 2, input, output_size)


def _adaptive_max(op: str, n: int, x: Any, output_size: Any, return_indices: bool):
    """adaptive_max_pool1d and 2d: one slice per window (cell), flattened, ``max``; the
    index of its first largest entry turned into a position in the input plane."""
    bounds = _adaptive_windows(op, x, output_size, n)
    S = x.shape[-n:]
    lead = x.shape[:-n]
    values, indices = [], []
    with grad_mode.scope("function", op):
        for cell in itertools.product(*bounds):             # ((h0, h1), (w0, w1)) in 2-D
            window = x[(...,) + tuple(slice(a, b) for a, b in cell)]
            y, k = window.reshape(*lead, -1).max(dim=-1)     # (N, C)
            values.append(y)
            if return_indices:
                at, scale = 0, 1
                for i in reversed(range(n)):                # k = row·w + column in the window
                    a, b = cell[i]
                    k, r = k // (b - a), k % (b - a)
                    at, scale = at + (a + r) * scale, scale * S[i]
                indices.append(at)                          # row·W + column in the input
        out = tuple(len(b) for b in bounds)
        y = stack(values, axis=-1).reshape(*lead, *out)      # (N, C, *out)
    if not return_indices:
        return y
    return y, stack(indices, axis=-1).reshape(*lead, *out)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False):
    """The largest entry of each of ``output_size`` windows covering the input, as
    ``F.adaptive_max_pool1d``: (N, C, L) or (C, L) -> (N, C, L_out); windows as
    :func:`tinyffn.functional.adaptive_avg_pool1d`'s. ``return_indices=True`` also gives
    each maximum's int64 position in the input. Gradient: gy to the window's first
    largest entry."""
    return _adaptive_max("adaptive_max_pool1d", 1, input, output_size, return_indices)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False):
    """The largest entry of each of H_out × W_out windows covering the input, as
    ``F.adaptive_max_pool2d``: (N, C, H, W) or (C, H, W) -> (N, C, H_out, W_out);
    windows as :func:`adaptive_avg_pool2d`'s. ``return_indices=True`` also gives each
    maximum's int64 position row·W + column. Gradient: gy to the window's first largest
    entry (row-major). One slice and ``max`` per output pixel."""
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, return_indices)


class MaxPool2d(MaxPool1d):
    """:func:`max_pool2d` as a module, as ``torch.nn.MaxPool2d`` (no parameters)."""

    def forward(self, x: Tensor):
        return max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, self.return_indices)


class AvgPool2d(Module):
    """:func:`avg_pool2d` as a module, as ``torch.nn.AvgPool2d`` (no parameters)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, x: Tensor) -> Tensor:
        return avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(AdaptiveAvgPool1d):
    """:func:`adaptive_avg_pool2d` as a module, as ``torch.nn.AdaptiveAvgPool2d``."""

    def forward(self, x: Tensor) -> Tensor:
        return adaptive_avg_pool2d(x, self.output_size)


class AdaptiveMaxPool1d(Module):
    """:func:`adaptive_max_pool1d` as a module, as ``torch.nn.AdaptiveMaxPool1d``."""

    def __init__(self, output_size: Any, return_indices: bool = False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, x: Tensor):
        return adaptive_max_pool1d(x, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(AdaptiveMaxPool1d):
    """:func:`adaptive_max_pool2d` as a module, as ``torch.nn.AdaptiveMaxPool2d``."""

    def forward(self, x: Tensor):
        return adaptive_max_pool2d(x, self.output_size, self.return_indices)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window, as ``F.lp_pool1d``: (N, C, L) or (C, L) -> (N, C, L_out)
    with p = ``norm_type``, sized as :func:`tinyffn.functional.avg_pool1d` (no padding)::

        y[n, c, t] = (Σ_k x[n, c, t·stride + k] ** p) ** (1/p)

    computed as PyTorch's: ``avg_pool1d(x ** p) · K``, then the 1/p power (so a
    ``ceil_mode`` partial window is scaled by K over its clipped length, as there).
    p = 1 sums the window, p = 2 is its Euclidean norm; p = inf is ``max_pool1d`` of
    |x|. Gradient: y^(1-p) · x^(p-1) to each entry read (0 where the window's sum of
    powers is 0, as PyTorch's)."""
    return _lp_pool("lp_pool1d", 1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each kH × kW window, as ``F.lp_pool2d``: (N, C, H, W) or (C, H, W)
    -> (N, C, H_out, W_out), sized as :func:`avg_pool2d` (no padding):
    ``(avg_pool2d(x ** p) · kH · kW) ** (1/p)``, as PyTorch computes it; p = inf is
    ``max_pool2d`` of |x|. Gradient as :func:`lp_pool1d`'s."""
    return _lp_pool("lp_pool2d", 2, input, norm_type, kernel_size, stride, ceil_mode)


def _lp_pool(op: str, n: int, x: Any, p: Any, kernel_size: Any, stride: Any,
             ceil_mode: bool) -> Tensor:
    if not isinstance(p, (int, float)) or isinstance(p, bool) or p == 0 or p != p:
        raise ValueError(f"{op}: norm_type must be a nonzero number (p of the p-norm), got "
                         f"{p!r}")
    K = _tuple("kernel_size", kernel_size, n, op)
    with grad_mode.scope("function", op):
        if abs(p) == float("inf"):          # the limit p -> ±inf: the largest |x| (PyTorch's)
            y = _max_pool(op, n, x.abs() if p > 0 else -x.abs(), K, stride, 0, 1, ceil_mode,
                          False)
            return y if p > 0 else -y
        s = _avg_pool(op, n, x ** p, K, stride, 0, ceil_mode, True) * math.prod(K)
        # a window of zeros: y = 0 (inf for p < 0) and, as PyTorch's, gradient 0, not the
        # 0 · inf of the power's derivative there (so the power sees 1 at those places)
        nonzero = s != 0
        y = where(nonzero, s, 1.0) ** (1.0 / p)                     # (N, C, *out)
        return where(nonzero, y, 0.0 if p > 0 else float("inf"))


class LPPool1d(Module):
    """:func:`lp_pool1d` as a module, as ``torch.nn.LPPool1d`` (no parameters)."""
    _n = 1

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None,
                 ceil_mode: bool = False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, x: Tensor) -> Tensor:
        return _lp_pool(f"lp_pool{self._n}d", self._n, x, self.norm_type, self.kernel_size,
                        self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool2d(LPPool1d):
    """:func:`lp_pool2d` as a module, as ``torch.nn.LPPool2d`` (no parameters)."""
    _n = 2
