"""``F.max_pool1d``, ``F.avg_pool1d`` and ``nn.MaxPool1d``, ``nn.AvgPool1d`` (and
``F.adaptive_avg_pool1d``, ``nn.AdaptiveAvgPool1d``, at the end), as PyTorch
2.13 defines them, composed of primitives (a 1-D conv net from a tutorial pools between
its ``nn.Conv1d`` layers).

Output position t reads the K positions t·stride + k·dilation (k = 0..K-1) of the padded
input, as :func:`tinyffn.functional.conv1d` does; max pooling keeps their largest entry,
average pooling their mean::

    max:  y[n, c, t] = max_k x_pad[n, c, t·stride + k·dilation]     (padding is -inf)
    avg:  y[n, c, t] = Σ_k x_pad[n, c, t·stride + k] / divisor_t      (padding is 0)

L_out = floor((L + 2·padding - dilation·(K - 1) - 1) / stride) + 1, or the ceiling with
``ceil_mode=True`` (a last, partial window, kept only if it starts inside the input or
the left padding). The windows are cut out on a new axis (N, C, K, L_out) by one
``im2col`` node, as conv1d's are; ``max(dim=-2)`` sends each window's gradient to its first
largest entry, as PyTorch's max_pool1d does, and the mean's gradient is gy / divisor to
each entry read. An entry read by two windows gets both. No backward is written here.
The 2-D pools (:mod:`tinyffn.pooling2d`) share ``_max_pool`` and ``_avg_pool``: each
spatial axis is sized, padded and cut as here, on its own.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode
from .arguments import _is_int
from .backend import dtype_name
from .convolution import _im2col, _pad_arg, _tuple
from .creation import arange, stack, tensor
from .functional_extra import pad
from .module import Module
from .tensor import Tensor


_INPUT = {1: ("3-D (N, C, L)", "2-D (C, L)"), 2: ("4-D (N, C, H, W)", "3-D (C, H, W)"),
          3: ("5-D (N, C, D, H, W)", "4-D (C, D, H, W)")}
_AXES = {1: (("positions", "length"),), 2: (("rows", "height"), ("columns", "width")),
         3: (("planes", "depth"), ("rows", "height"), ("columns", "width"))}


def _check_input(op: str, x: Any, n: int = 1) -> None:
    """Refuse what is not a floating (N, C, *S) or unbatched (C, *S) tensor, n = len(S)."""
    if not isinstance(x, Tensor) or x.ndim not in (n + 1, n + 2):
        shape = tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__
        raise ValueError(f"{op}: input must be a tinyffn Tensor of {_INPUT[n][0]} or unbatched "
                         f"{_INPUT[n][1]}, got {shape}")
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: input must be floating point, got {x.dtype}; cast it with "
                        ".float()")


def _windows(op: str, x: Any, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
             ceil_mode: bool, fill: float, n: int = 1) -> tuple:
    """x padded with ``fill`` and cut into windows (N, C, ΠK, *out) or (C, ΠK, *out), each
    spatial axis checked and sized on its own, as PyTorch's; also K, stride, padding."""
    _check_input(op, x, n)
    K = _tuple("kernel_size", kernel_size, n, op)
    s = K if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _tuple("stride", stride, n, op)
    d = _tuple("dilation", dilation, n, op)
    p = _tuple("padding", padding, n, op, least=0)
    if any(2 * q > k for q, k in zip(p, K)):
        half = ", ".join(f"{k / 2:g}" for k in K)
        raise ValueError(f"{op}: padding must be an int between 0 and kernel_size / 2 = "
                         f"{half if n == 1 else f'({half})'} on each axis, as PyTorch's, "
                         f"got {padding!r}")
    out, pads = [], []
    for i, L in enumerate(x.shape[-n:]):
        L_out, extra = _out_length(op, x, _AXES[n][i], L, K[i], s[i], p[i], d[i], ceil_mode)
        out.append(L_out)
        pads.append((p[i], p[i] + extra))
    if any(q for pair in pads for q in pair):
        x = pad(x, _pad_arg(pads), value=fill)                      # (N, C, *S_pad)
    w = _im2col(x, K, d, s, out)                                    # (N, C, *K, *out)
    if n > 1:
        w = w.reshape(*w.shape[:-2 * n], math.prod(K), *out)        # (N, C, kH·kW, *out)
    return w, K, s, p


def _out_length(op: str, x: Tensor, axis: tuple, L: int, K: int, s: int, p: int, d: int,
                ceil_mode: bool) -> tuple:
    """One axis' number of windows, as PyTorch's, and the padding ceil_mode's last,
    partial window needs past the right padding; ``axis``: its names in messages."""
    unit, extent = axis
    span = d * (K - 1) + 1                               # input positions one window reads
    reach = L + 2 * p - span                             # < 0: shorter than one window
    L_out = (-(-reach // s) if ceil_mode else reach // s) + 1
    if ceil_mode and (L_out - 1) * s >= L + p:        # a last window all in the right padding
        L_out -= 1
    if L_out < 1:               # ceil_mode keeps one partial window of a short input, as torch
        raise ValueError(f"{op}: the window spans {span} {unit} (kernel_size={K}, dilation="
                         f"{d}) but the padded input has {L + 2 * p} (input {tuple(x.shape)}, "
                         f"padding={p}); pad more or use a smaller kernel_size")
    edges = set(range(min(L_out, -(-p // s)))) | set(range(max(0, (L + p - span) // s), L_out))
    for t in sorted(edges):            # only windows at the ends can miss the input entirely
        if not any(0 <= t * s - p + k * d < L for k in range(K)):
            raise ValueError(f"{op}: window {t} reads only padding ({unit} {t * s - p} to "
                             f"{t * s - p + span - 1} step {d} of an input of {extent} {L}; "
                             f"kernel_size={K}, dilation={d}, padding={p}), which has no "
                             "entry to pool (PyTorch's answer is undefined); use less padding "
                             "or dilation")
    return L_out, max(0, (L_out - 1) * s + span - (L + 2 * p))   # ceil_mode's partial window


def _max_pool(op: str, n: int, x: Any, kernel_size: Any, stride: Any, padding: Any,
              dilation: Any, ceil_mode: bool, return_indices: bool):
    """max_pool1d and max_pool2d: the largest entry of each window; with its position in
    the input's flattened spatial axes (row · W + column in 2-D), as PyTorch's."""
    with grad_mode.scope("function", op):
        w, K, s, p = _windows(op, x, kernel_size, stride, padding, dilation, ceil_mode,
                              float("-inf"), n)
        y, k = w.max(dim=-n - 1)                                     # (N, C, *out)
    if not return_indices:
        return y
    d, S = _tuple("dilation", dilation, n, op), x.shape[-n:]
    index = 0
    for i in reversed(range(n)):                    # k = kh·kW + kw: the last axis first
        k, tap = k // K[i], k % K[i]
        starts = arange(y.shape[-n + i], dtype="int64", device=y.device) * s[i] - p[i]
        at = starts.reshape(-1, *(1,) * (n - 1 - i)) + tap * d[i]   # (out_i, 1, ...)
        index = index + at * math.prod(S[i + 1:])
    return y, index                                                  # (N, C, *out)


def _avg_pool(op: str, n: int, x: Any, kernel_size: Any, stride: Any, padding: Any,
              ceil_mode: bool, count_include_pad: bool, divisor_override: Any = None) -> Tensor:
    """avg_pool1d and avg_pool2d: each window's sum over PyTorch's divisor, the product of
    one factor per axis (or ``divisor_override``)."""
    if divisor_override is not None and (not _is_int(divisor_override) or divisor_override == 0):
        raise ValueError(f"{op}: divisor_override must be a nonzero int or None, as "
                         f"PyTorch's, got {divisor_override!r}")
    with grad_mode.scope("function", op):
        half = isinstance(x, Tensor) and dtype_name(x.dtype) == "float16"
        x = x.to(dtype="float32") if half else x    # a float16 sum overflows
        w, K, s, p = _windows(op, x, kernel_size, stride, padding, 1, ceil_mode, 0.0, n)
        divisor = divisor_override
        for i, L in enumerate(x.shape[-n:]):      # axis i's factor for each of its windows
            f = []
            for t in range(w.shape[-n + i]):
                start, end = t * s[i] - p[i], min(t * s[i] - p[i] + K[i], L + p[i])
                f.append(end - start if count_include_pad else min(end, L) - max(start, 0))
            if divisor_override is None:
                f = tensor(f, dtype=w.dtype, device=w.device).reshape(-1, *(1,) * (n - 1 - i))
                divisor = f if i == 0 else divisor * f                 # (*out)
        y = w.sum(dim=-n - 1) / divisor                                # (N, C, *out)
        return y.to(dtype="float16") if half else y


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False):
    """The largest entry of each window, as ``F.max_pool1d``: (N, C, L) or (C, L) ->
    (N, C, L_out) or (C, L_out); ``stride`` defaults to ``kernel_size``; ``padding``
    (-inf, at most kernel_size / 2), ``dilation`` and ``ceil_mode`` as PyTorch's. With
    ``return_indices=True`` also the int64 position in the input of each window's
    (first) largest entry. Gradient: gy to that entry, 0 to the rest of the window."""
    return _max_pool("max_pool1d", 1, input, kernel_size, stride, padding, dilation,
                     ceil_mode, return_indices)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """The mean of each window, as ``F.avg_pool1d``: (N, C, L) or (C, L) -> (N, C, L_out)
    or (C, L_out); ``stride`` defaults to ``kernel_size``, ``padding`` is zeros (at most
    kernel_size / 2). The divisor, as PyTorch's: the window's length clipped to the padded
    input (K, less for ``ceil_mode``'s partial last window), or with
    ``count_include_pad=False`` the number of real (unpadded) entries it reads.
    Gradient: gy / divisor to each entry the window reads. A float16 input is summed in
    float32 (cast nodes), as PyTorch's: a float16 sum of large entries would overflow."""
    return _avg_pool("avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad)


class MaxPool1d(Module):
    """:func:`max_pool1d` as a module, as ``torch.nn.MaxPool1d`` (no parameters)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 dilation: Any = 1, return_indices: bool = False, ceil_mode: bool = False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, x: Tensor):
        return max_pool1d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool1d(Module):
    """:func:`avg_pool1d` as a module, as ``torch.nn.AvgPool1d`` (no parameters)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True):
        super().__init__()
        k = (kernel_size,) if _is_int(kernel_size) else tuple(kernel_size)
        self.kernel_size = k
        self.stride = k if stride is None else ((stride,) if _is_int(stride) else tuple(stride))
        self.padding = (padding,) if _is_int(padding) else tuple(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, x: Tensor) -> Tensor:
        return avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}")


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """The mean of each of ``output_size`` windows that cover the input, as
    ``F.adaptive_avg_pool1d``: (N, C, L) or (C, L) -> (N, C, L_out) or (C, L_out). Window
    t spans [floor(t·L / L_out), ceil((t + 1)·L / L_out)), as PyTorch's, so windows may
    overlap by one entry; ``output_size=1`` is the mean over L (global average pooling).
    Gradient: gy / (window length) to each entry the window reads."""
    return _adaptive_avg("adaptive_avg_pool1d", 1, input, output_size)


def _adaptive_windows(op: str, x: Any, output_size: Any, n: int) -> list:
    """[(start, end) of each window] per spatial axis: window t of L_out over L spans
    [floor(t·L / L_out), ceil((t + 1)·L / L_out)); ``None`` in output_size keeps that
    axis' size, as PyTorch's."""
    _check_input(op, x, n)
    S = x.shape[-n:]
    if isinstance(output_size, (tuple, list)) and len(output_size) == n:
        output_size = tuple(L if o is None else o for o, L in zip(output_size, S))
    sizes = _tuple("output_size", output_size, n, op)
    return [[(t * L // L_out, -(-(t + 1) * L // L_out)) for t in range(L_out)]
            for L, L_out in zip(S, sizes)]


def _adaptive_avg(op: str, n: int, x: Any, output_size: Any) -> Tensor:
    """adaptive_avg_pool1d and 2d: one axis at a time (a rectangle's mean is the mean of
    its rows' means), the last axis first: one slice and mean per window, then stack."""
    bounds = _adaptive_windows(op, x, output_size, n)
    with grad_mode.scope("function", op):
        for i in reversed(range(n)):
            axis = x.ndim - n + i
            at = (slice(None),) * axis
            x = stack([x[at + (slice(a, b),)].mean(dim=axis) for a, b in bounds[i]],
                      axis=axis)                                     # (N, C, ..., L_out)
        return x


class AdaptiveAvgPool1d(Module):
    """:func:`adaptive_avg_pool1d` as a module, as ``torch.nn.AdaptiveAvgPool1d``."""

    def __init__(self, output_size: Any):
        super().__init__()
        self.output_size = output_size

    def forward(self, x: Tensor) -> Tensor:
        return adaptive_avg_pool1d(x, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
