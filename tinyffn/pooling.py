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
the left padding). The windows are strided slices stacked on a new last axis
(N, C, L_out, K); ``max(dim=-1)`` sends each window's gradient to its first largest
entry, as PyTorch's max_pool1d does, and the mean's gradient is gy / divisor to each
entry read. An entry read by two windows gets both. No backward is written here.
"""
from __future__ import annotations

from typing import Any

from . import grad_mode
from .arguments import _is_int
from .backend import dtype_name
from .convolution import _single
from .creation import stack, tensor
from .functional_extra import pad
from .module import Module
from .tensor import Tensor


def _check_input(op: str, x: Any) -> None:
    """Refuse what is not a floating (N, C, L) or unbatched (C, L) tensor."""
    if not isinstance(x, Tensor) or x.ndim not in (2, 3):
        shape = tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__
        raise ValueError(f"{op}: input must be a tinyffn Tensor of 3-D (N, C, L) or unbatched "
                         f"2-D (C, L), got {shape}")
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: input must be floating point, got {x.dtype}; cast it with "
                        ".float()")


def _windows(op: str, x: Any, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
             ceil_mode: bool, fill: float) -> tuple:
    """x padded with ``fill`` and cut into windows (N, C, L_out, K), or (C, L_out, K)."""
    _check_input(op, x)
    K = _single("kernel_size", kernel_size, op)
    s = K if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _single("stride", stride, op)
    d = _single("dilation", dilation, op)
    p = padding[0] if isinstance(padding, (tuple, list)) and len(padding) == 1 else padding
    if not _is_int(p) or p < 0 or 2 * p > K:
        raise ValueError(f"{op}: padding must be an int between 0 and kernel_size / 2 = "
                         f"{K / 2:g}, as PyTorch's, got {padding!r}")
    L = x.shape[-1]
    span = d * (K - 1) + 1                               # input positions one window reads
    reach = L + 2 * p - span                             # < 0: shorter than one window
    L_out = (-(-reach // s) if ceil_mode else reach // s) + 1
    if ceil_mode and (L_out - 1) * s >= L + p:        # a last window all in the right padding
        L_out -= 1
    if L_out < 1:               # ceil_mode keeps one partial window of a short input, as torch
        raise ValueError(f"{op}: the window spans {span} positions (kernel_size={K}, dilation="
                         f"{d}) but the padded input has {L + 2 * p} (input {tuple(x.shape)}, "
                         f"padding={p}); pad more or use a smaller kernel_size")
    edges = set(range(min(L_out, -(-p // s)))) | set(range(max(0, (L + p - span) // s), L_out))
    for t in sorted(edges):            # only windows at the ends can miss the input entirely
        if not any(0 <= t * s - p + k * d < L for k in range(K)):
            raise ValueError(f"{op}: window {t} reads only padding (positions {t * s - p} to "
                             f"{t * s - p + span - 1} step {d} of an input of length {L}; "
                             f"kernel_size={K}, dilation={d}, padding={p}), which has no "
                             "entry to pool (PyTorch's answer is undefined); use less padding "
                             "or dilation")
    extra = max(0, (L_out - 1) * s + span - (L + 2 * p))   # ceil_mode's partial window
    last = s * (L_out - 1) + 1                           # length of each tap's slice
    if p or extra:
        x = pad(x, (p, p + extra), value=fill)                        # (N, C, L_pad)
    w = stack([x[..., k * d:k * d + last:s] for k in range(K)], axis=-1)   # (N, C, L_out, K)
    return w, K, s, p, L


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False):
    """The largest entry of each window, as ``F.max_pool1d``: (N, C, L) or (C, L) ->
    (N, C, L_out) or (C, L_out); ``stride`` defaults to ``kernel_size``; ``padding``
    (-inf, at most kernel_size / 2), ``dilation`` and ``ceil_mode`` as PyTorch's. With
    ``return_indices=True`` also the int64 position in the input of each window's
    (first) largest entry. Gradient: gy to that entry, 0 to the rest of the window."""
    with grad_mode.scope("function", "max_pool1d"):
        w, K, s, p, L = _windows("max_pool1d", input, kernel_size, stride, padding,
                                 dilation, ceil_mode, float("-inf"))
        y, k = w.max(dim=-1)                                          # (N, C, L_out)
    if not return_indices:
        return y
    d = _single("dilation", dilation, "max_pool1d")
    starts = tensor([t * s - p for t in range(y.shape[-1])], dtype="int64", device=y.device)
    return y, starts + k * d                                          # (N, C, L_out)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """The mean of each window, as ``F.avg_pool1d``: (N, C, L) or (C, L) -> (N, C, L_out)
    or (C, L_out); ``stride`` defaults to ``kernel_size``, ``padding`` is zeros (at most
    kernel_size / 2). The divisor, as PyTorch's: the window's length clipped to the padded
    input (K, less for ``ceil_mode``'s partial last window), or with
    ``count_include_pad=False`` the number of real (unpadded) entries it reads.
    Gradient: gy / divisor to each entry the window reads. A float16 input is summed in
    float32 (cast nodes), as PyTorch's: a float16 sum of large entries would overflow."""
    with grad_mode.scope("function", "avg_pool1d"):
        half = isinstance(input, Tensor) and dtype_name(input.dtype) == "float16"
        x = input.to(dtype="float32") if half else input    # a float16 sum overflows
        w, K, s, p, L = _windows("avg_pool1d", x, kernel_size, stride, padding, 1,
                                 ceil_mode, 0.0)
        divisors = []
        for t in range(w.shape[-2]):
            start, end = t * s - p, min(t * s - p + K, L + p)
            divisors.append(end - start if count_include_pad else min(end, L) - max(start, 0))
        divisor = tensor(divisors, dtype=w.dtype, device=w.device)     # (L_out,)
        y = w.sum(dim=-1) / divisor                                     # (N, C, L_out)
        return y.to(dtype="float16") if half else y


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
    op = "adaptive_avg_pool1d"
    _check_input(op, input)
    L_out, L = _single("output_size", output_size, op), input.shape[-1]
    with grad_mode.scope("function", op):
        means = [input[..., t * L // L_out:-(-(t + 1) * L // L_out)].mean(dim=-1)
                 for t in range(L_out)]                              # L_out of (N, C)
        return stack(means, axis=-1)                                 # (N, C, L_out)


class AdaptiveAvgPool1d(Module):
    """:func:`adaptive_avg_pool1d` as a module, as ``torch.nn.AdaptiveAvgPool1d``."""

    def __init__(self, output_size: Any):
        super().__init__()
        self.output_size = output_size

    def forward(self, x: Tensor) -> Tensor:
        return adaptive_avg_pool1d(x, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
