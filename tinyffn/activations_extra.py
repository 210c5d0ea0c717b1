"""The rest of PyTorch's activation functions, reached as ``F.elu``, ``F.selu``, ``F.celu``,
``F.mish``, ``F.hardswish``, ``F.hardsigmoid``, ``F.logsigmoid``, ``F.relu6``,
``F.hardtanh``, ``F.softsign``, ``F.tanhshrink``, ``F.softmin``, ``F.threshold``,
``F.prelu``, ``F.softshrink``, ``F.hardshrink`` and ``F.rrelu`` (:mod:`tinyffn.functional`
imports them), for comparing FFN activations.

Each is composed from primitives in a frame of its name, as the rest of functional.py,
so the graph shows how it decomposes and gradcheck checks it end to end. The kinks get
PyTorch's gradients, which the compositions choose explicitly: an entry clipped by
``hardtanh``/``relu6`` (at the edges too), by ``threshold`` (x = threshold too) or by
``hardsigmoid`` (at ±3 too) is a ``masked_fill``, which sends back 0; ``hardswish`` has
slope 0 at -3 and 1 at 3; ``elu``, ``selu``, ``celu`` and ``prelu`` take the negative
branch at 0. A float16 x is computed in float32 and rounded once, as PyTorch computes
these (``softsign``, ``tanhshrink`` and ``softmin``, which PyTorch writes in Python as
a few tensor ops, are those same ops here, in x's dtype).
"""
from __future__ import annotations

from typing import Any

from . import grad_mode
from .arguments import check_axis, check_inplace, is_real, tensor_arg
from .backend import DeviceError, dtype_name
from .composed import where
from .functional_extra import _floating, _narrowed, _widened, softplus
from .tensor import Tensor
from .torch_math import expm1

# SELU's constants (Klambauer et al. 2017), PyTorch's digits: with them, SELU keeps
# activations of mean 0 and variance 1 through a deep stack of layers.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _number(op: str, name: str, v: Any) -> float:
    if not is_real(v):
        raise TypeError(f"{op}: {name} must be a number, got {v!r}")
    return float(v)


def _elu(op: str, input: Any, alpha: float, scale: float, input_scale: float) -> Tensor:
    """alpha · scale · (exp(input_scale · x) - 1) where x <= 0, else scale · x: PyTorch's
    one kernel for elu, selu and celu (so NaN takes the linear branch: gradient scale,
    as PyTorch's). exp reads x with the other entries set to 0, so the unused branch
    stays finite (exp(1000) = inf would send back 0 · inf = NaN)."""
    x16 = _floating(op, input)
    with grad_mode.scope("function", op):
        x = _widened(x16)
        left = x <= 0                                   # bool, outside the graph
        xn = x.masked_fill(~left, 0.0)                  # the negative part, 0 elsewhere
        negative = expm1(xn * input_scale if input_scale != 1 else xn) * (alpha * scale)
        return _narrowed(where(left, negative, x * scale if scale != 1 else x), x16)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """ELU(x) = x where x > 0, else α (exp(x) - 1) (Clevert et al. 2016), as ``F.elu``:

        d/dx = 1 where x > 0, else α exp(x) (α at 0, as PyTorch).

    ``inplace``: only a false value (:func:`tinyffn.arguments.check_inplace`)."""
    check_inplace("elu", inplace)
    return _elu("elu", input, _number("elu", "alpha", alpha), 1.0, 1.0)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """SELU(x) = λ ELU(x, α), λ = 1.0507..., α = 1.6732... (self-normalising), as ``F.selu``:

        d/dx = λ where x > 0, else λ α exp(x) (λ α at 0, as PyTorch)."""
    check_inplace("selu", inplace)
    return _elu("selu", input, SELU_ALPHA, SELU_SCALE, 1.0)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """CELU(x) = x where x > 0, else α (exp(x / α) - 1) (Barron 2017), as ``F.celu``:

        d/dx = 1 where x > 0, else exp(x / α) (1 at 0).    α must not be 0."""
    check_inplace("celu", inplace)
    alpha = _number("celu", "alpha", alpha)
    if alpha == 0:
        raise ValueError("celu: alpha must not be 0 (x / alpha); PyTorch refuses it too")
    return _elu("celu", input, alpha, 1.0, 1.0 / alpha)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """Mish(x) = x tanh(softplus(x)) (Misra 2019), as ``F.mish``:

        d/dx = tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2),    sp = softplus(x).

    softplus is :func:`tinyffn.functional.softplus` (x itself past 20, where the two
    differ by less than exp(-20) and tanh is 1 in float64 anyway)."""
    x16 = _floating("mish", input)
    check_inplace("mish", inplace)
    with grad_mode.scope("function", "mish"):
        x = _widened(x16)
        return _narrowed(x * softplus(x).tanh(), x16)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """Hardswish(x) = x · relu6(x + 3) / 6 (MobileNetV3), as ``F.hardswish``:

        x <= -3: 0,    -3 < x < 3: x (x + 3) / 6,    x >= 3: x;
        d/dx = 0 for x <= -3, (2x + 3) / 6 between, 1 for x >= 3 (PyTorch's values at ±3).

    A ``where`` takes x itself from 3 on; below, x (x + 3) / 6 with (x + 3) set to 0
    (a ``masked_fill``) from -3 down, so that the slope there is 0 (as PyTorch's), and
    -inf gives NaN (-inf · 0) as PyTorch's does. That unused branch reads x with the
    entries from 3 on set to 0: at x = inf, inf · (inf + 3) would send back 0 · inf = NaN
    where PyTorch's slope is 1."""
    x16 = _floating("hardswish", input)
    check_inplace("hardswish", inplace)
    with grad_mode.scope("function", "hardswish"):
        x = _widened(x16)
        right = x >= 3.0                                      # bool, outside the graph
        xl = x.masked_fill(right, 0.0)                        # x below 3, 0 elsewhere
        gate = (xl + 3.0).masked_fill(xl <= -3.0, 0.0)        # relu(x + 3), slope 0 at -3
        return _narrowed(where(right, x, xl * gate / 6.0), x16)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """Hardsigmoid(x) = relu6(x + 3) / 6, as ``F.hardsigmoid``: 0 for x <= -3, (x + 3) / 6
    between, 1 for x >= 3;    d/dx = 1/6 strictly between -3 and 3, else 0 (at ±3 too,
    as PyTorch). Two ``masked_fill`` s, which send back 0 where they fill."""
    x16 = _floating("hardsigmoid", input)
    check_inplace("hardsigmoid", inplace)
    with grad_mode.scope("function", "hardsigmoid"):
        x = _widened(x16)
        y = ((x + 3.0) / 6.0).masked_fill(x <= -3.0, 0.0).masked_fill(x >= 3.0, 1.0)
        return _narrowed(y, x16)


def logsigmoid(input: Tensor) -> Tensor:
    """log sigmoid(x) = -softplus(-x), as ``F.logsigmoid``, computed as PyTorch does, so
    no exp overflows and a tiny value (-1e-18) is not rounded to 0:

        log sigmoid(x) = min(x, 0) - log1p(exp(-|x|)),    d/dx = sigmoid(-x) (1/2 at 0).

    -|x| is a ``where`` between -x and x whose slope at 0 is -1 (abs's would be 0, and
    the gradient at 0 would be 0 instead of 1/2)."""
    x16 = _floating("logsigmoid", input)
    with grad_mode.scope("function", "logsigmoid"):
        x = _widened(x16)
        right = x >= 0                                      # bool, outside the graph
        minus_abs = where(right, -x, x)                     # -|x|, slope -1 at 0
        return _narrowed(where(right, 0.0, x) - minus_abs.exp().log1p(), x16)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """Hardtanh(x) = x clipped to [min_val, max_val], as ``F.hardtanh``:

        d/dx = 1 strictly between min_val and max_val, else 0 (at the edges too, as
        PyTorch; ``clamp`` passes the gradient at the edges).

    Two ``masked_fill`` s, which send back 0 where they fill; NaN stays NaN."""
    x16 = _floating("hardtanh", input)
    check_inplace("hardtanh", inplace)
    low, high = _number("hardtanh", "min_val", min_val), _number("hardtanh", "max_val", max_val)
    if low > high:
        raise ValueError(f"hardtanh: min_val ({min_val}) cannot be greater than max_val "
                         f"({max_val})")
    with grad_mode.scope("function", "hardtanh"):
        x = _widened(x16)
        return _narrowed(x.masked_fill(x <= low, low).masked_fill(x >= high, high), x16)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """ReLU6(x) = min(max(x, 0), 6) (MobileNet), as ``F.relu6``: :func:`hardtanh` with
    min_val 0 and max_val 6, so d/dx = 1 for 0 < x < 6, else 0 (at 0 and 6 too, as PyTorch)."""
    x16 = _floating("relu6", input)
    check_inplace("relu6", inplace)
    with grad_mode.scope("function", "relu6"):
        x = _widened(x16)
        return _narrowed(x.masked_fill(x <= 0.0, 0.0).masked_fill(x >= 6.0, 6.0), x16)


def softsign(input: Tensor) -> Tensor:
    """Softsign(x) = x / (1 + |x|), as ``F.softsign``:    d/dx = 1 / (1 + |x|)^2.

    PyTorch's own form, ``x / (x.abs() + 1)``, in x's dtype (PyTorch writes it in
    Python, so its float16 result is rounded after each op; so is this one)."""
    x = _floating("softsign", input)
    with grad_mode.scope("function", "softsign"):
        return x / (x.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """Tanhshrink(x) = x - tanh(x), as ``F.tanhshrink``:    d/dx = tanh(x)^2.

    PyTorch's own form, ``x - x.tanh()``, in x's dtype (as :func:`softsign`)."""
    x = _floating("tanhshrink", input)
    with grad_mode.scope("function", "tanhshrink"):
        return x - x.tanh()


def softmin(input: Tensor, dim: int | None = None, *, dtype: Any = None) -> Tensor:
    """softmin(x) = softmax(-x) along ``dim``, as ``F.softmin``: the smallest entries get
    the largest weights. ``dim=None`` takes the last axis, as :func:`softmax` here
    (PyTorch's implicit choice, deprecated, is axis 0 for 0-, 1- and 3-d inputs);
    ``dtype``: x is cast to it first. Jacobian: that of softmax, times -1."""
    from .functional import _cast_to_float, _implicit_axis, softmax     # functional.py imports this
    x = _cast_to_float("softmin", _floating("softmin", input), dtype)
    dim = check_axis("softmin", x, _implicit_axis("softmin", x, dim))   # errors name softmin
    with grad_mode.scope("function", "softmin"):
        return softmax(-x, dim=dim)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """y = x where x > threshold, else value, as ``F.threshold`` (ReLU is threshold 0,
    value 0):    d/dx = 1 where x > threshold, else 0 (at x = threshold too).

    One ``masked_fill``, which sends back 0 where it fills; NaN stays NaN."""
    x16 = _floating("threshold", input)
    check_inplace("threshold", inplace)
    t, v = _number("threshold", "threshold", threshold), _number("threshold", "value", value)
    with grad_mode.scope("function", "threshold"):
        x = _widened(x16)
        return _narrowed(x.masked_fill(x <= t, v), x16)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """PReLU(x) = x where x > 0, else w · x (He et al. 2015), w learned, as ``F.prelu``:

        d/dx = 1 where x > 0, else w (w at 0);    d/dw = x where x <= 0, else 0,
        summed over every entry w scales.

    ``weight``: one slope (shape (1,) or ()), or one per channel, (C,), the channels
    being axis 1 of x as in PyTorch (x (N, C, ...)); a 0- or 1-d x has one channel.
    x and weight must have the same dtype (PyTorch refuses a mix too)."""
    x16 = _floating("prelu", input)
    w = tensor_arg("prelu", "weight", weight)
    if w.ndim > 1:
        raise ValueError(f"prelu: weight must be a number (0-d) or 1-d, one slope per "
                         f"channel, got shape {w.shape}")
    if w.device != x16.device:
        raise DeviceError(f"prelu: input is on {x16.device} but weight on {w.device}; move "
                          f"one with .to('{x16.device}')")
    if dtype_name(w.dtype) != dtype_name(x16.dtype):
        raise TypeError(f"prelu: input is {dtype_name(x16.dtype)} but weight is "
                        f"{dtype_name(w.dtype)}; cast one to the other's dtype")
    n = w.numel()
    if n != 1:
        channels = x16.shape[1] if x16.ndim >= 2 else 1
        if n != channels:
            raise ValueError(f"prelu: weight has {n} slopes but input of shape {x16.shape} "
                             f"has {channels} channel(s) on axis 1; pass (C,) = ({channels},)"
                             " or a single slope")
    with grad_mode.scope("function", "prelu"):
        x, w = _widened(x16), _widened(w)
        w = w.reshape(()) if n == 1 else w.reshape((n,) + (1,) * (x.ndim - 2))  # (C, 1, ...)
        right = x > 0                                   # bool, outside the graph
        # w reads x with the positive entries set to 0: d/dw of w · inf would be 0 · inf
        return _narrowed(where(right, x, w * x.masked_fill(right, 0.0)), x16)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Softshrink(x) = x − λ where x > λ, x + λ where x < −λ, else 0, as ``F.softshrink``:

        d/dx = 1 where |x| > λ, else 0 (0 at ±λ too, as PyTorch).

    PyTorch's kernel: the band is ``x · 0`` (−0.0 for x < 0 where PyTorch's scalar path
    gives it; its vector path gives 0.0), and NaN stays NaN (gradient 1 here; PyTorch's is
    1 or 0 as the entry falls to its scalar or vector path). λ must be >= 0, as PyTorch asks."""
    x16 = _floating("softshrink", input)
    lambd = _number("softshrink", "lambd", lambd)
    if not lambd >= 0:
        raise ValueError(f"softshrink: lambd must be >= 0 (the half-width of the band set "
                         f"to 0), got {lambd}; PyTorch refuses it too")
    with grad_mode.scope("function", "softshrink"):
        x = _widened(x16)
        inside = (x >= -lambd) & (x <= lambd)                   # bool, outside the graph
        middle = x.masked_fill(~inside, 0.0) * 0.0              # x · 0, no inf · 0 = NaN
        return _narrowed(where(inside, middle, where(x > lambd, x - lambd, x + lambd)), x16)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Hardshrink(x) = x where |x| > λ, else 0, as ``F.hardshrink``:

        d/dx = 1 where |x| > λ, else 0 (0 at ±λ too, as PyTorch).

    One ``masked_fill`` of the band [−λ, λ] (NaN is outside it: kept, gradient 1, where
    PyTorch's is 1 or 0 as the entry falls to its scalar or vector path).
    A negative λ leaves every x as it is, as in PyTorch."""
    x = _floating("hardshrink", input)
    lambd = _number("hardshrink", "lambd", lambd)
    with grad_mode.scope("function", "hardshrink"):
        return x.masked_fill((x >= -lambd) & (x <= lambd), 0.0)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU (Xu et al. 2015), as ``F.rrelu``: y = x where x > 0, else a · x.

    ``training=False`` (the default, as PyTorch's): a = (lower + upper) / 2, a leaky ReLU
    (d/dx = a at 0 and at NaN too, as PyTorch's). ``training=True``: an a ~ U[lower, upper)
    for each x <= 0, drawn from the generator :func:`tinyffn.manual_seed` seeds (not
    PyTorch's numbers), a constant of the graph; d/dx = a there, 1 elsewhere (NaN too)."""
    x16 = _floating("rrelu", input)
    check_inplace("rrelu", inplace)
    lower, upper = _number("rrelu", "lower", lower), _number("rrelu", "upper", upper)
    if not lower <= upper:
        raise ValueError(f"rrelu: lower ({lower}) must be <= upper ({upper}): the slope is "
                         "drawn from [lower, upper); PyTorch refuses it too")
    if training not in (True, False):
        raise TypeError(f"rrelu: training must be True or False, got {training!r}")
    with grad_mode.scope("function", "rrelu"):
        x = _widened(x16)
        if not training:
            return _narrowed(where(x > 0, x, x * ((lower + upper) / 2)), x16)
        from .creation import rand
        a = rand(x.shape, dtype="float64", device=x.device) * (upper - lower) + lower
        a = a.to(x.dtype)                                       # constant: one slope per x
        a.name = "rrelu slopes"                                 # (in graph drawings)
        return _narrowed(where(x <= 0, x * a, x), x16)


__all__ = ["elu", "selu", "celu", "mish", "hardswish", "hardsigmoid", "logsigmoid",
           "hardtanh", "relu6", "softsign", "tanhshrink", "softmin", "threshold", "prelu",
           "softshrink", "hardshrink", "rrelu"]
