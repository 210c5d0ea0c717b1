"""``F.interpolate`` and ``nn.Upsample``, as PyTorch 2.13 defines them, composed of
``index_select`` (the decoder half of a 1-D conv autoencoder upsamples between its
``nn.Conv1d`` layers, as the encoder half pools).

Both modes are separable: each spatial axis of size n_in is resampled to n_out in turn.
With r the ratio that axis uses (1 / scale_factor when ``scale_factor`` is given, else
n_in / n_out; (n_in - 1) / (n_out - 1) with ``align_corners=True``), output position i
reads, as PyTorch's CPU kernels compute it::

    nearest:        y[i] = x[min(floor(i · r), n_in - 1)]
    nearest-exact:  y[i] = x[min(floor(max(r · (i + 0.5) - 0.5, 0) + 0.5), n_in - 1)]
    linear:         s = max(r · (i + 0.5) - 0.5, 0)   (align_corners: s = r · i)
                    i0 = min(floor(s), n_in - 1), i1 = min(i0 + 1, n_in - 1), λ = s - i0
                    y[i] = (1 - λ) · x[i0] + λ · x[i1]

An axis whose size does not change is left as it is (with 3-D and 5-D input in the
nearest modes only when ``size`` set it: a ``scale_factor`` such as 1.1 keeps n but moves
entries there, as in torch; see ``_nearest_index`` for 4-D).
``bilinear`` and ``trilinear`` are ``linear`` along each of the last two or three axes;
``bicubic`` reads four taps per axis with Keys' cubic convolution weights (see
``_cubic_weights``), and ``area`` is adaptive average pooling.
The indices and weights are constants (NumPy, in the input's dtype); the values go
through one or two ``index_select`` per axis, whose backward adds each output's gradient
to the entries it read, so no backward is written here.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import grad_mode
from .backend import dtype_name
from .creation import tensor
from .module import Module
from .more_functions import _index_selected
from .tensor import Tensor

_LINEAR = {"linear": 3, "bilinear": 4, "trilinear": 5}
_MODES = ("nearest", "nearest-exact") + tuple(_LINEAR) + ("bicubic", "area")
A = -0.75                   # the cubic convolution's free parameter, PyTorch's (and Keys')


def _output_sizes(x: Tensor, size: Any, scale_factor: Any, recompute: Any) -> tuple:
    """Each spatial axis' output size, and the scale PyTorch hands its kernel (or None)."""
    spatial = tuple(x.shape[2:])
    k = len(spatial)
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor, got "
                         + ("both" if size is not None else "neither"))
    if size is not None:
        sizes = tuple(size) if isinstance(size, (tuple, list)) else (size,) * k
        if len(sizes) != k:
            raise ValueError(f"interpolate: input {tuple(x.shape)} has {k} spatial axes "
                             f"{list(spatial)} but size={size!r} gives {len(sizes)}; give one "
                             "size per axis after (N, C)")
        if not all(isinstance(s, int) and s > 0 for s in sizes):
            raise ValueError(f"interpolate: size must be positive ints, got {size!r}")
        return sizes, (None,) * k
    factors = (tuple(scale_factor) if isinstance(scale_factor, (tuple, list))
               else (scale_factor,) * k)
    if len(factors) != k:
        raise ValueError(f"interpolate: input {tuple(x.shape)} has {k} spatial axes "
                         f"{list(spatial)} but scale_factor={scale_factor!r} gives "
                         f"{len(factors)}; give one factor per axis after (N, C)")
    factors = tuple(float(f) for f in factors)
    sizes = tuple(math.floor(n * f) for n, f in zip(spatial, factors))
    if min(sizes) < 1:
        raise ValueError(f"interpolate: scale_factor={scale_factor!r} makes an empty axis of "
                         f"input {tuple(x.shape)} (sizes {list(sizes)})")
    return sizes, ((None,) * k if recompute else factors)


def _nearest_index(n_in: int, n_out: int, scale: Any, exact: bool, dtype,
                   two_axes: bool) -> np.ndarray:
    """The input position each output position copies, as PyTorch 2.13's CPU kernels.
    For 3-D and 5-D input (``HelperInterpNearest``): s = r · i, or for nearest-exact
    s = max(r · (i + 0.5) - 0.5, 0) + 0.5 (its compiled kernel fuses r · (i + 0.5) - 0.5
    into one rounding), both in ``dtype`` (float32 for float16), then rounded to float32
    (``floorf``) and floored, with no shortcut: ``scale_factor=1.1`` on L = 4 (L_out = 4)
    has output 3 read x[2], as torch's. For 4-D input (``two_axes``) torch 2.13's 2-D
    kernel keeps shortcuts; the closest rule measured is ``nearest_idx``'s: a copy for
    n_out = n_in, i >> 1 for n_out = 2 · n_in, else r and s = r · i in float32;
    nearest-exact s = (i + 0.5) · r, floored as float32 (float32 matches torch on 3,311 of
    3,312 index sweeps; float64 differs on 22 (nearest) and 27 (nearest-exact))."""
    i = np.arange(n_out)
    if two_axes:
        if not exact and n_out == n_in:
            return i
        if not exact and n_out == 2 * n_in:
            return i >> 1
        r = np.float32(1.0 / scale if scale else n_in / n_out)
        s = (i + 0.5) * np.float64(r) if exact else i.astype(np.float32) * r
        return np.minimum(np.floor(s.astype(np.float32)).astype(np.int64), n_in - 1)
    r = dtype.type(1.0 / scale) if scale else dtype.type(n_in) / dtype.type(n_out)
    if exact:
        s = np.float64(r) * (i + 0.5) - 0.5          # exact product in float64: one rounding
        s = np.maximum(s.astype(dtype), 0).astype(np.float64) + 0.5
    else:
        s = r * i.astype(dtype)
    return np.minimum(np.floor(s.astype(np.float32)).astype(np.int64), n_in - 1)


def _linear_weights(n_in: int, n_out: int, scale: Any, align_corners: bool, dtype) -> tuple:
    """i0, i1 and λ of each output position, as PyTorch's ``compute_indices_weights_linear``
    (computed in ``dtype``, float32 for float16 as PyTorch's opmath)."""
    i = np.arange(n_out)
    if n_out == n_in:
        return i, i, np.zeros(n_out, dtype)
    one = dtype.type(1)
    if align_corners:
        r = dtype.type(n_in - 1) / dtype.type(n_out - 1) if n_out > 1 else dtype.type(0)
        s = r * i.astype(dtype)
    else:
        r = dtype.type(1.0 / scale) if scale else dtype.type(n_in) / dtype.type(n_out)
        s = np.maximum(r * (i.astype(dtype) + dtype.type(0.5)) - dtype.type(0.5), 0)
    i0 = np.minimum(np.floor(s).astype(np.int64), n_in - 1)
    lam = np.clip(s - i0.astype(dtype), 0, one)
    return i0, np.minimum(i0 + 1, n_in - 1), lam


def _cubic_weights(n_in: int, n_out: int, scale: Any, align_corners: bool, dtype) -> tuple:
    """The four taps of each output position and their weights, as PyTorch's bicubic
    kernel: s as linear's (not clamped at 0), taps floor(s) - 1 ... floor(s) + 2 clamped
    into the input, weights Keys' cubic convolution at the distances 1 + t, t, 1 - t,
    2 - t (t = s - floor(s)), which add up to 1."""
    i = np.arange(n_out).astype(dtype)
    if align_corners:
        r = dtype.type(n_in - 1) / dtype.type(n_out - 1) if n_out > 1 else dtype.type(0)
        s = r * i
    else:
        r = dtype.type(1.0 / scale) if scale else dtype.type(n_in) / dtype.type(n_out)
        s = r * (i + dtype.type(0.5)) - dtype.type(0.5)
    floor = np.floor(s)
    t = (s - floor).astype(dtype)
    near = lambda x: ((A + 2) * x - (A + 3)) * x * x + 1             # |x| <= 1  # noqa: E731
    far = lambda x: ((A * x - 5 * A) * x + 8 * A) * x - 4 * A         # 1 < |x| < 2  # noqa
    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    taps = [np.clip(floor.astype(np.int64) + k, 0, n_in - 1) for k in (-1, 0, 1, 2)]
    return taps, [w.astype(dtype) for w in weights]


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None,
                mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """``input`` (N, C, L), (N, C, H, W) or (N, C, D, H, W) resampled to ``size`` (an int
    or one per spatial axis) or by ``scale_factor`` (output size floor(n · factor)), as
    ``F.interpolate``: ``mode`` ``"nearest"`` (the default), ``"nearest-exact"``,
    ``"linear"`` (3-D input), ``"bilinear"`` (4-D) or ``"trilinear"`` (5-D), by the
    formulas of this module's docstring. ``align_corners`` only for the linear modes
    (None: False); ``recompute_scale_factor=True`` uses n_in / n_out in place of the
    factor given. Gradient: each output's gradient to the entries it read, times their
    weights. ``"bicubic"`` (4-D, align_corners as linear's): Keys' cubic convolution
    (A = -0.75) over 4 taps per axis, as PyTorch's, so it may overshoot the input's range;
    ``"area"``: ``adaptive_avg_pool`` to the output size. ``antialias=True`` is not
    implemented."""
    if not isinstance(input, Tensor) or input.ndim not in (3, 4, 5):
        shape = tuple(input.shape) if isinstance(input, Tensor) else type(input).__name__
        raise ValueError(f"interpolate: input must be a tinyffn Tensor (N, C, L), (N, C, H, W) "
                         f"or (N, C, D, H, W), got {shape}; add the batch axis with "
                         "x.unsqueeze(0)")
    if mode not in _MODES:
        raise NotImplementedError(f"interpolate: mode {mode!r} is not in tinyffn; it has "
                                  f"{', '.join(repr(m) for m in _MODES)}")
    if mode == "bicubic" and input.ndim != 4:
        raise ValueError(f"interpolate: mode 'bicubic' takes 4-D input (N, C, H, W), got "
                         f"{tuple(input.shape)}")
    if mode in _LINEAR and input.ndim != _LINEAR[mode]:
        raise ValueError(f"interpolate: mode {mode!r} takes {_LINEAR[mode]}-D input, got "
                         f"{tuple(input.shape)}; use "
                         f"{[m for m, n in _LINEAR.items() if n == input.ndim][0]!r}")
    if align_corners is not None and mode not in _LINEAR and mode != "bicubic":
        raise ValueError("interpolate: align_corners can only be set with the linear modes "
                         f"(linear, bilinear, trilinear) and bicubic, not {mode!r}")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not in tinyffn")
    if not input.backend.is_floating(input.dtype):
        raise TypeError(f"interpolate: input must be floating point, got {input.dtype}; cast "
                        "it with .float()")
    sizes, scales = _output_sizes(input, size, scale_factor, recompute_scale_factor)
    if 0 in input.shape[2:]:
        raise ValueError(f"interpolate: input {tuple(input.shape)} has an empty spatial axis: "
                         "there is nothing to interpolate from (PyTorch refuses it too)")
    dtype = np.dtype(dtype_name(input.dtype))
    dtype = np.dtype(np.float32) if dtype.itemsize < 4 else dtype         # PyTorch's opmath
    y, exact = input, mode == "nearest-exact"
    with grad_mode.scope("function", "interpolate"):
        if mode == "area":                  # the mean of each window: adaptive average pooling
            from .pooling import _adaptive_avg  # pooling.py imports functional, which imports this
            return _adaptive_avg("interpolate", input.ndim - 2, input, sizes)
        # the indices below are made here, inside [0, n_in): the gathers do not check them
        # again (a read of the device, on a GPU a wait for every kernel queued before it)
        for axis, n_out, scale in zip(range(2, input.ndim), sizes, scales):
            n_in = input.shape[axis]
            if mode == "bicubic":
                taps, weights = _cubic_weights(n_in, n_out, scale, bool(align_corners), dtype)
                shape = (n_out,) + (1,) * (input.ndim - 1 - axis)        # broadcasts on axis
                y = sum(_index_selected(y, axis, tensor(i, device=y.device)) *
                        tensor(w.reshape(shape), dtype=input.dtype, device=y.device)
                        for i, w in zip(taps, weights))
                continue
            if mode in _LINEAR:
                i0, i1, lam = _linear_weights(n_in, n_out, scale, bool(align_corners), dtype)
                if not lam.any():                     # every output sits on an input entry
                    y = _index_selected(y, axis, tensor(i0, device=y.device))
                    continue
                shape = (n_out,) + (1,) * (input.ndim - 1 - axis)        # broadcasts on axis
                w1 = tensor(lam.reshape(shape), dtype=input.dtype, device=y.device)
                w0 = tensor((1 - lam).reshape(shape), dtype=input.dtype, device=y.device)
                y = (_index_selected(y, axis, tensor(i0, device=y.device)) * w0
                     + _index_selected(y, axis, tensor(i1, device=y.device)) * w1)
            elif n_out != n_in or (scale is not None and input.ndim != 4) or exact:
                i = _nearest_index(n_in, n_out, scale, exact, dtype, input.ndim == 4)
                y = _index_selected(y, axis, tensor(i, device=y.device))     # (..., n_out, ...)
    return y


class Upsample(Module):
    """:func:`interpolate` as a module, as ``torch.nn.Upsample`` (no parameters): give
    ``size`` or ``scale_factor`` (kept as a float, or a tuple of floats)."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None, recompute_scale_factor: bool | None = None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, x: Tensor) -> Tensor:
        return interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = (f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None
                else f"size={self.size!r}")
        return info + f", mode={self.mode!r}"
