"""Layer and RMS normalization, reached as ``F.layer_norm`` and ``F.rms_norm`` (and as
``nn.LayerNorm``, ``nn.RMSNorm``): the norms around the FFN in a transformer sublayer,
``x + FFN(norm(x))``. Each is composed from primitives in a frame of its name, so the
graph shows the mean, the variance and the scaling; float16 computes in float32 (cast
nodes either side), as PyTorch does. ``F.variance`` (``x.var``, ``x.std``) is here too, the
statistic the norms are made of. Kept out of functional.py so that file reads in a sitting.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from . import grad_mode
from .arguments import _axes, _numpy_names, check_positive, is_real, normalized_shape_arg
from .backend import dtype_name
from .composed import where
from .functional import _check_tensor, _narrowed, _widened
from .tensor import Tensor

_EPS_WHY = "it keeps the division finite for a constant input"    # in the norms' errors


def layer_norm(input: Tensor, normalized_shape: int | Sequence[int],
               weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Layer normalization (Ba et al. 2016): each position's features brought to mean 0
    and variance 1, then scaled and shifted by learned ``weight`` and ``bias``.

    Over the last k axes, k = len(normalized_shape), with N elements there::

        mu  = mean(x),    var = mean((x - mu)^2)       (biased: / N, as PyTorch)
        y   = (x - mu) / sqrt(var + eps) · weight + bias

    With normalized_shape = d it works per position, like the FFN: no position sees
    another. The pre-norm transformer sublayer is x + FFN(layer_norm(x)). With
    x̂ = (x - mu) r, r = 1/sqrt(var + eps) and g = gy · weight, the primitives' gradients
    add up to::

        dL/dx = r (g - mean(g) - x̂ mean(g x̂)),  dL/dweight = Σ gy x̂,  dL/dbias = Σ gy

    (sums over the leading axes). Shapes: input (..., *normalized_shape), weight and
    bias normalized_shape -> y the input's shape. Float dtypes may mix and promote, as in
    :func:`tinyffn.functional.linear` (a float64 weight makes a float32 input's result float64).
    """
    axes = _check_norm("layer_norm", input, normalized_shape, weight, bias)
    check_positive("layer_norm", "eps", eps, _EPS_WHY)
    with grad_mode.scope("function", "layer_norm"):
        x = _widened(input)
        centred = x - x.mean(axis=axes, keepdims=True)              # (..., *S), mean 0
        var = (centred * centred).mean(axis=axes, keepdims=True)    # (..., 1, ..., 1)
        return _narrowed(_scale_shift(centred * (var + eps) ** -0.5, weight, bias), input)


def rms_norm(input: Tensor, normalized_shape: int | Sequence[int],
             weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """RMS normalization (Zhang & Sennrich 2019), LLaMA's choice next to SwiGLU: divide by
    the root mean square, without centring and without a bias::

        y = x / sqrt(mean(x^2) + eps) · weight          (mean over the last k axes)

    With r = 1/sqrt(mean(x^2) + eps), x̂ = x r and g = gy · weight, the gradients add up
    to dL/dx = r (g - x̂ mean(g x̂)) and dL/dweight = Σ gy x̂. ``eps=None`` takes the
    machine epsilon of the dtype it computes in (float32 for float16), as PyTorch does.
    The result is in the input's dtype, as PyTorch's (its decomposition ends in
    ``type_as(input)``): a float64 weight multiplies a float32 x̂ in float64, rounded
    back to float32 (layer_norm promotes instead: PyTorch refuses its mixed dtypes).
    """
    axes = _check_norm("rms_norm", input, normalized_shape, weight, None)
    if eps is not None:
        check_positive("rms_norm", "eps", eps, _EPS_WHY)
    with grad_mode.scope("function", "rms_norm"):
        x = _widened(input)
        if eps is None:                 # of the dtype it computes in: float16's is float32's
            eps = float(x.backend.xp.finfo(x.dtype).eps)
        mean_square = (x * x).mean(axis=axes, keepdims=True)        # (..., 1, ..., 1)
        y = _narrowed(_scale_shift(x * (mean_square + eps) ** -0.5, weight, None), input)
        if dtype_name(input.dtype) != "float16" and y.dtype != input.dtype:
            y = y.to(dtype=input.dtype)             # a wider weight: back to x's dtype
        return y


def _scale_shift(y: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    if weight is not None:
        y = y * weight                          # normalized_shape broadcast over (...)
    if bias is not None:
        y = y + bias
    return y


def _check_norm(op: str, x: Any, normalized_shape: Any, weight: Any, bias: Any) -> tuple:
    """The tensor arguments of layer_norm / rms_norm checked against ``normalized_shape``;
    returns the axes to normalize over (the last k)."""
    _check_tensor(op, "input", x)
    shape = normalized_shape_arg(op, normalized_shape)
    k = len(shape)
    if x.ndim < k or x.shape[x.ndim - k:] != shape:
        raise ValueError(f"{op}: input of shape {x.shape} does not end in normalized_shape "
                         f"{shape}; pass the sizes of the input's last axes (for a (T, d) "
                         f"input, normalized_shape=d)")
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: input has dtype {dtype_name(x.dtype)}; normalization "
                        "computes in floating point: cast it with x.to(dtype='float32')")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None:
            _check_tensor(op, name, p)
            if p.shape != shape:
                raise ValueError(f"{op}: {name} must have the shape normalized_shape = "
                                 f"{shape}, got {p.shape}")
    return tuple(range(-k, 0))


# ----------------------------------------------------------------------------- statistics
def variance(x: Tensor, op: str, dim: Any, correction: Any, keepdim: Any, axis: Any,
             keepdims: bool, unbiased: Any) -> Tensor:
    """``x.var`` and ``x.std`` (``op``): Σ (x - mean)² / (n - correction) over the axes,
    and its square root; composed of mean, sub, mul, sum and div (and pow and where), in a
    frame of the op's name. A float16 x is computed in float32 and the result rounded to
    float16, as in PyTorch and the norms below: (x - mean)² overflows float16 past 256, and
    so does a sum of squares past 65,504 (4096 entries of spread 4).

    ``correction`` defaults to 1 (the unbiased estimate), as in PyTorch; NumPy's default is
    0 (``np.var(x, ddof=0)``): pass ``correction=0`` for that. ``unbiased`` is PyTorch's older
    flag (True: 1, False: 0). At least one degree of freedom must be left (n > correction),
    where PyTorch would answer NaN or inf. ``unbiased`` and ``keepdim`` are keyword-only:
    PyTorch's ``x.var(False)`` or ``x.var(0, True, True)`` by position is refused, naming them.
    """
    if isinstance(dim, bool):
        raise TypeError(f"{op}: got {dim} where dim goes; PyTorch's {op}(x, unbiased) by "
                        f"position: pass unbiased={dim} (or correction={int(dim)}) by name")
    axis, keepdims = _numpy_names(op, axis, keepdims, dim, keepdim)
    if unbiased is not None:
        if correction is not None:
            raise TypeError(f"{op}: pass correction or unbiased (the older name), not both")
        if not isinstance(unbiased, bool):
            raise TypeError(f"{op}: unbiased must be True or False, got {unbiased!r}")
        correction = int(unbiased)
    correction = 1 if correction is None else correction
    if not is_real(correction) or correction < 0:
        raise ValueError(f"{op}: correction must be a number >= 0 (1: unbiased, 0: the "
                         f"population's), got {correction!r}")
    axes = _axes(axis, x.ndim, op)
    n = math.prod(x.shape[a] for a in axes) if axes is not None else math.prod(x.shape)
    if n - correction <= 0:
        raise ValueError(f"{op}: {n} element(s) per result leave no degrees of freedom with "
                         f"correction={correction}; reduce over more elements, or pass "
                         "correction=0 for the population's")
    with grad_mode.scope("function", op):
        w = _widened(x)
        d = w - w.mean(axis=axis, keepdims=True)
        v = (d * d).sum(axis=axis, keepdims=keepdims) / (n - correction)
        if op == "var":
            return _narrowed(v, x)
        # d std/dv = 1 / (2 std) is inf where std = 0 (a constant row), and inf * 0 = NaN
        # would reach every x of the row. PyTorch passes 0 there; so does where, which
        # selects gradients rather than multiplying them: sqrt sees 1 in place of those 0s.
        flat = v == 0
        return _narrowed(where(flat, 0.0, where(flat, 1.0, v) ** 0.5), x)
